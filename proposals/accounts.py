"""Account e-mails: the link that verifies an address, and the two answers to a sign-up
that cannot create an account. They go to the address that was typed, so that the page
after a sign-up is the same whatever happened and reveals nothing about who has an
account; only the owner of the address learns why.

Sent at once, not through the mail queue (``services.mail_queue``): the person is
waiting for them, and they carry links that log a person in, which the queue (shown to
staff in the admin) must not hold. A mail server failure is logged and the person can
ask again.
"""

import logging

from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from proposals.links import site_reverse

logger = logging.getLogger(__name__)


class EmailVerificationTokenGenerator(PasswordResetTokenGenerator):
    """Like the password-reset token (signed, expires after
    ``PASSWORD_RESET_TIMEOUT``), but spent once the address is verified, and void when
    the address or the password changes."""

    key_salt = "proposals.accounts.EmailVerificationTokenGenerator"

    def _make_hash_value(self, user, timestamp):
        profile = getattr(user, "account", None)
        verified = profile.verified_at if profile is not None else None
        return (
            f"{user.pk}{user.password}{user.email}{user.is_active}{verified}{timestamp}"
        )


verification_tokens = EmailVerificationTokenGenerator()


def verification_link(user) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = verification_tokens.make_token(user)
    return site_reverse("verify_email", uid, token)


def _send(template: str, address: str, context: dict) -> None:
    subject = " ".join(render_to_string(f"emails/{template}_subject.txt").split())
    body = render_to_string(f"emails/{template}.txt", context)
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [address])
    except Exception:  # the mail server's failure must not undo the sign-up
        logger.exception("Could not send the %s e-mail", template)


def send_verification(*, user) -> None:
    """The link that verifies ``user.email`` (and activates a new account)."""
    context = {
        "user": user,
        "url": verification_link(user),
        "days": settings.PASSWORD_RESET_TIMEOUT // 86400,
        "new_account": not user.is_active,
    }
    _send("account_verify", user.email, context)


def send_address_in_use(*, address: str) -> None:
    """A sign-up used an address that already has an account."""
    context = {
        "login_url": site_reverse("login"),
        "reset_url": site_reverse("password_reset"),
    }
    _send("account_address_in_use", address, context)


def send_username_taken(*, address: str, username: str) -> None:
    """A sign-up chose a username that is taken."""
    context = {"username": username, "signup_url": site_reverse("signup")}
    _send("account_username_taken", address, context)
