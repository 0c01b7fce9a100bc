"""Writes of accounts: sign-up (one account per address, nothing revealed about
other accounts) and the confirmation of an e-mail address."""

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from proposals import accounts, selectors
from proposals.models import AccountProfile, Preferences

# What a sign-up did. The page after a sign-up is the same for all three; only the
# e-mail sent to the address differs.
SIGNUP_CREATED = "created"
SIGNUP_ADDRESS_IN_USE = "address in use"
SIGNUP_USERNAME_TAKEN = "username taken"

# A sign-up whose link was never followed: inactive, never logged in, unverified.
_PENDING = Q(is_active=False, last_login=None, account__verified_at=None)


def _address_in_use(address: str) -> bool:
    """Whether any account holds ``address`` (the race test replaces this)."""
    return selectors.account_address_in_use(address=address)


class AccountError(Exception):
    """An account change that cannot be made; the message is for the user."""


def account_signup(
    *,
    username: str,
    email: str,
    password: str,
    number_format: str = "",
):
    """Create an inactive account and mail the link that activates it, or mail the
    address why no account was made. One account per address (case-insensitive),
    guaranteed by the unique ``AccountProfile.email``. A new sign-up with the address
    of an unconfirmed one replaces it; unconfirmed sign-ups expire with their link."""
    User = get_user_model()
    address = email.strip().lower()
    with transaction.atomic():
        expired = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
        User.objects.filter(_PENDING).filter(
            Q(account__email=address) | Q(date_joined__lt=expired)
        ).delete()
        user = None
        if _address_in_use(address):
            outcome = SIGNUP_ADDRESS_IN_USE
        elif User.objects.filter(username__iexact=username).exists():
            outcome = SIGNUP_USERNAME_TAKEN
        else:
            try:
                with transaction.atomic():
                    user = User.objects.create_user(
                        username=username,
                        email=User.objects.normalize_email(email.strip()),
                        password=password,
                        is_active=False,
                    )
                    AccountProfile.objects.create(user=user, email=address)
                    if number_format:
                        Preferences.objects.create(
                            user=user, number_format=number_format
                        )
            except IntegrityError:  # a sign-up racing for the same address or name
                user = None
                taken = AccountProfile.objects.filter(email=address).exists()
                outcome = SIGNUP_ADDRESS_IN_USE if taken else SIGNUP_USERNAME_TAKEN
            else:
                outcome = SIGNUP_CREATED
        if outcome == SIGNUP_CREATED:
            transaction.on_commit(lambda: accounts.send_verification(user=user))
        elif outcome == SIGNUP_ADDRESS_IN_USE:
            transaction.on_commit(lambda: accounts.send_address_in_use(address=address))
        else:
            transaction.on_commit(
                lambda: accounts.send_username_taken(address=address, username=username)
            )
    return outcome


@transaction.atomic
def account_verify(*, user) -> None:
    """Record that the owner of ``user.email`` confirmed it; a new account becomes
    active."""
    address = user.email.strip().lower()
    if not address:
        raise AccountError("This account has no e-mail address to confirm.")
    if AccountProfile.objects.filter(email=address).exclude(user=user).exists():
        raise AccountError(
            "This address belongs to another account. Ask the support staff to "
            "merge or change the accounts."
        )
    AccountProfile.objects.update_or_create(
        user=user, defaults={"email": address, "verified_at": timezone.now()}
    )
    if not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])


def account_send_verification(*, user) -> bool:
    """Mail ``user`` a new link for their address, unless it is verified already;
    whether a link was sent."""
    if not user.email or selectors.account_is_verified(user=user):
        return False
    accounts.send_verification(user=user)
    return True
