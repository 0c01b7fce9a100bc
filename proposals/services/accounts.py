"""Writes of accounts: sign-up (one account per address, nothing revealed about
other accounts), sign-in with an OpenID Connect provider (linking or making the
account), the confirmation of an e-mail address, expiry of unconfirmed sign-ups, and
the deletion of an account by its owner."""

import re
from dataclasses import dataclass
from typing import cast

from axes.models import AccessAttempt, AccessLog
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group, Permission
from django.db import IntegrityError, transaction
from django.db.models import CharField, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from proposals import accounts, notifications, retention, selectors
from proposals.models import (
    AccountProfile,
    Invitation,
    Membership,
    OutgoingMail,
    Preferences,
    Proposal,
    ProviderIdentity,
    TeamEvent,
)

from .mail import mail_queue
from .proposals import proposal_was_sent_for_review, proposals_delete
from .team import display_name, ownership_transfer

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
    language: str = "",
    time_zone: str = "",
):
    """Create an inactive account and mail the link that activates it, or mail the
    address why no account was made. One account per address (case-insensitive),
    guaranteed by the unique ``AccountProfile.email``. A new sign-up with the address
    of an unconfirmed one replaces it; unconfirmed sign-ups expire with their link."""
    User = get_user_model()
    address = email.strip().lower()
    # The hash takes about a second of CPU by design: done before the transaction,
    # so no write lock is held meanwhile (on SQLite the task worker waits for it),
    # and on every path, whether or not an account is made.
    password_hash = make_password(password)
    with transaction.atomic():
        User.objects.filter(_PENDING, account__email=address).delete()
        account_expire_unconfirmed()
        user = None
        if _address_in_use(address):
            outcome = SIGNUP_ADDRESS_IN_USE
        elif User.objects.filter(username__iexact=username).exists():
            outcome = SIGNUP_USERNAME_TAKEN
        else:
            try:
                with transaction.atomic():
                    # What ``create_user`` does, with the hash made above.
                    user = User(
                        username=User.normalize_username(username),
                        email=User.objects.normalize_email(email.strip()),
                        password=password_hash,
                        is_active=False,
                    )
                    user.save()
                    AccountProfile.objects.create(user=user, email=address)
                    if number_format or time_zone or language:
                        # The sign-up page's language: the person's mail follows it
                        # until they sign in or choose one. The zone the person
                        # submitted (offered from their browser, seen and
                        # changeable on the form).
                        zone = {"time_zone": time_zone, "time_zone_chosen": True}
                        Preferences.objects.create(
                            user=user,
                            **(
                                {"number_format": number_format}
                                if number_format
                                else {}
                            ),
                            **(zone if time_zone else {}),
                            browser_language=language,
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


def _free_username(*hints: str) -> str:
    """A username no account has (case-insensitively), from the first usable hint
    (the provider's ``preferred_username``, the address's local part), with a number
    after it when taken."""
    User = get_user_model()
    # The username's field: a CharField with a max_length.
    field = cast(CharField, User._meta.get_field(User.USERNAME_FIELD))
    assert field.max_length is not None
    limit = field.max_length - 4
    base = ""
    for hint in hints:
        base = re.sub(r"[^\w.@+-]", "", hint.strip())[:limit]
        if base:
            break
    base = base or "user"
    candidate, number = base, 1
    while User.objects.filter(username__iexact=candidate).exists():
        number += 1
        candidate = f"{base}{number}"
    return candidate


def _linked_user(issuer: str, subject: str, now):
    """The active account this identity was linked to before (its use recorded),
    ``None`` when there is none; an AccountError when it is switched off."""
    linked = (
        ProviderIdentity.objects.select_for_update()
        .select_related("user")
        .filter(issuer=issuer, subject=subject)
        .first()
    )
    if linked is not None:
        if not linked.user.is_active:
            raise AccountError(_("This account is switched off."))
        linked.last_used_at = now
        linked.save(update_fields=["last_used_at"])
        return linked.user
    return None


def _new_provider_account(
    email: str,
    address: str,
    *,
    email_verified: bool,
    username: str,
    first_name: str,
    last_name: str,
    number_format: str,
    now,
):
    """A new active account for a provider's person (no password: it signs in
    through the provider), its address confirmed when the provider vouches for
    it (else a confirmation link is sent), with preferences as a sign-up makes
    them."""
    User = get_user_model()
    user = User(
        username=_free_username(username, address.partition("@")[0]),
        email=User.objects.normalize_email(email.strip()),
        first_name=first_name.strip()[:150],
        last_name=last_name.strip()[:150],
        is_active=True,
    )
    user.set_unusable_password()
    user.save()
    AccountProfile.objects.create(
        user=user, email=address, verified_at=now if email_verified else None
    )
    if number_format:
        Preferences.objects.create(user=user, number_format=number_format)
    if not email_verified:
        transaction.on_commit(lambda: accounts.send_verification(user=user))
    return user


@transaction.atomic
def account_from_provider(
    *,
    issuer: str,
    subject: str,
    email: str,
    email_verified: bool,
    username: str = "",
    first_name: str = "",
    last_name: str = "",
    number_format: str = "",
):
    """The account of the person the provider ``issuer`` knows as ``subject``:

    1. the account this identity was linked to before (whatever its address now);
    2. else the account whose address is ``email``, linked now, when both sides
       confirmed it: the provider says ``email_verified`` and the account's owner
       followed our link (``selectors.account_is_verified``); its password stays;
    3. else, when no account uses the address, a new active account (no password:
       it signs in through the provider), its address confirmed when the provider
       vouches for it, with preferences as a sign-up makes them.

    Raises ``AccountError`` (a message for the person) otherwise: an address that
    an account uses but that one side has not confirmed is never taken over."""
    User = get_user_model()
    now = timezone.now()
    linked = _linked_user(issuer, subject, now)
    if linked is not None:
        return linked
    address = email.strip().lower()
    if not address:
        raise AccountError(
            _("Your provider did not give us your e-mail address, which we need.")
        )
    holder = (
        User.objects.filter(Q(account__email=address) | Q(email__iexact=address))
        .order_by("pk")
        .first()
    )
    if holder is not None:
        if not (
            email_verified
            and holder.is_active
            and selectors.account_is_verified(user=holder)
        ):
            raise AccountError(
                _(
                    "An account here already uses %(email)s, but the address is not "
                    "confirmed on both sides, so we did not link them. Sign in with "
                    "your username and password (confirm your address first if we "
                    "asked you to), then try again."
                )
                % {"email": address}
            )
        user = holder
    else:
        user = _new_provider_account(
            email,
            address,
            email_verified=email_verified,
            username=username,
            first_name=first_name,
            last_name=last_name,
            number_format=number_format,
            now=now,
        )
    ProviderIdentity.objects.create(
        user=user,
        issuer=issuer,
        subject=subject,
        email=address,
        linked_at=now,
        last_used_at=now,
    )
    return user


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


def account_expire_unconfirmed(*, now=None) -> int:
    """Delete the sign-ups whose link expired unused (``retention.unconfirmed_signup``);
    how many."""
    User = get_user_model()
    expired = (now or timezone.now()) - retention.unconfirmed_signup()
    _, deleted = User.objects.filter(_PENDING, date_joined__lt=expired).delete()
    return deleted.get(User._meta.label, 0)


@dataclass(frozen=True)
class AccountDeletion:
    """What deleting an account did with its proposals."""

    deleted: int  # drafts never sent for review: gone with every row
    kept: int  # sent for review once: kept for the staff, without their owner
    # With a team: now owned by their longest-standing editor.
    handed_over: int = 0


def _leave_teams(user, addresses: set[str]) -> tuple[int, list]:
    """What ``user``'s deletion does to the teams they are on (``user`` is already
    inactive: no mail reaches them and a handover does not keep them as an editor).

    Each of their proposals with an editor goes to its longest-standing editor
    (``ownership_transfer``, which mails the team); one with viewers only follows
    their other proposals, and its viewers are told. Every proposal whose team they
    were on and that stays records ACCOUNT_DELETED, by nobody (a "former member");
    the record loses their name, and the invitations to their address go. Their
    memberships go with the account (cascade), their field stamps stay without
    them. Returns how many were handed over and the mails for the viewers."""
    kept_on = list(
        Proposal.objects.filter(memberships__user=user, deleted_at__isnull=True)
    )
    handed_over, told = 0, []
    for handover in selectors.account_team_handovers(user=user):
        proposal = handover.proposal
        if handover.heir is not None:
            kept_on.append(proposal)
            ownership_transfer(proposal=proposal, to=handover.heir, by=None)
            handed_over += 1
            continue
        told += notifications.owner_gone_to_team(
            proposal=proposal,
            addresses=notifications.team_addresses(proposal, exclude=user),
            kept=proposal_was_sent_for_review(proposal=proposal),
        )
        Membership.objects.filter(proposal=proposal).delete()
    now = timezone.now()
    TeamEvent.objects.bulk_create(
        TeamEvent(proposal=proposal, at=now, kind=TeamEvent.Kind.ACCOUNT_DELETED)
        for proposal in kept_on
    )
    names = {display_name(user), user.get_username(), *addresses} - {""}
    TeamEvent.objects.filter(by=user).update(by_name="")
    TeamEvent.objects.filter(
        Q(proposal__in=kept_on) | Q(proposal__owner=user), subject__in=names
    ).update(subject="")
    Invitation.objects.annotate(address=Lower("email")).filter(
        address__in=addresses
    ).delete()
    return handed_over, told


@transaction.atomic
def account_delete(*, user) -> AccountDeletion:
    """Delete ``user``'s account and everything that identifies them, as the privacy
    notice says. Their proposals with a team go to their longest-standing editor
    first (``_leave_teams``). The others go through ``proposals_delete``, all at once:
    a draft never sent for review is removed, one sent for review is marked deleted
    (the staff's queue shows it as withdrawn) and kept for the help desk, detached
    from its owner. Their profile, preferences, memberships and unconfirmed uploads
    go with the user (cascade); their review comments and their edits stay without
    an author; the queued and sent mails addressed to them and the login records
    under their username are deleted. The caller has checked the password."""
    User = get_user_model()
    user = User.objects.select_for_update().get(pk=user.pk)
    addresses = {user.email.strip().lower()} - {""}
    profile = AccountProfile.objects.filter(user=user).first()
    if profile is not None and profile.email:
        addresses.add(profile.email)
    User.objects.filter(pk=user.pk).update(is_active=False)
    user.is_active = False
    handed_over, told = _leave_teams(user, addresses)
    deleted, kept = proposals_delete(proposals=Proposal.objects.filter(owner=user))
    Proposal.objects.filter(owner=user).update(owner=None)
    OutgoingMail.objects.annotate(address=Lower("to")).filter(
        address__in=addresses
    ).delete()
    mail_queue(mails=told)
    username = user.get_username()
    AccessAttempt.objects.filter(username=username).delete()
    AccessLog.objects.filter(username=username).delete()
    user.delete()
    return AccountDeletion(deleted=deleted, kept=kept, handed_over=handed_over)


@transaction.atomic
def second_factor_start(*, user):
    """The authenticator ``user`` is setting up: their unconfirmed TOTP device (a
    new key the first time; the same one while they have not confirmed it, so a
    page reload does not invalidate the QR code they scanned)."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from proposals.two_factor import AUTHENTICATOR_NAME

    device = TOTPDevice.objects.filter(user=user, confirmed=False).first()
    if device is None:
        device = TOTPDevice.objects.create(
            user=user, name=AUTHENTICATOR_NAME, confirmed=False
        )
    return device


@transaction.atomic
def recovery_codes_renew(*, user) -> list[str]:
    """New one-time recovery codes for ``user`` (the old ones stop working)."""
    from django_otp.plugins.otp_static.models import StaticDevice, StaticToken

    from proposals.two_factor import RECOVERY_CODES, RECOVERY_NAME

    device, _ = StaticDevice.objects.get_or_create(user=user, name=RECOVERY_NAME)
    device.token_set.all().delete()
    codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create(
        StaticToken(device=device, token=code) for code in codes
    )
    return codes


@transaction.atomic
def second_factor_confirm(*, user, device, code: str) -> list[str] | None:
    """Confirm the authenticator ``device`` with a ``code`` it shows now: it becomes
    ``user``'s (replacing any other), and they get new recovery codes (returned,
    shown once). ``None`` (nothing changed) when the code is wrong."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    device = TOTPDevice.objects.select_for_update().get(pk=device.pk, user=user)
    if not device.verify_token(code.strip().replace(" ", "")):
        return None
    TOTPDevice.objects.filter(user=user).exclude(pk=device.pk).delete()
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    return recovery_codes_renew(user=user)


# Admin rights of the support staff: they see the mail delivery and retry failed mails.
# Everything else they do in the review pages; the applicant's content is read-only in
# the admin for everyone.
STAFF_ADMIN_PERMISSIONS = ["view_outgoingmail", "change_outgoingmail"]


def staff_group_grant_rights(*, using: str = "default") -> None:
    """Create the support staff group if needed and give it its admin rights."""
    group, _created = Group.objects.using(using).get_or_create(
        name=selectors.STAFF_GROUP
    )
    permissions = Permission.objects.using(using).filter(
        content_type__app_label="proposals", codename__in=STAFF_ADMIN_PERMISSIONS
    )
    group.permissions.add(*permissions)
