"""Accounts: what Django's user lacks."""

from django.conf import settings
from django.db import models


class AccountProfile(models.Model):
    """What Django's user lacks: one account per e-mail address, and whether the
    account's address is verified. Written only by the account services."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account"
    )
    # The address in lower case; unique, so that two sign-ups racing for one address
    # cannot both succeed. Blank (NULL) for accounts made before sign-ups recorded it.
    email = models.EmailField(null=True, unique=True)
    # When the owner followed the link sent to ``email``. An address changed since
    # (``user.email`` no longer matches ``email``) counts as unverified.
    verified_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.user} <{self.email or ''}>"


class ProviderIdentity(models.Model):
    """A person's account at an OpenID Connect provider (MyAccessID, a site's
    Keycloak), linked to one account here: the provider's ``iss`` and ``sub``, which
    name the person at that provider for good (their address there may change).
    Written only by ``services.account_from_provider``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="identities"
    )
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    # The address the provider gave when the link was made, and when it was used.
    email = models.EmailField(blank=True)
    linked_at = models.DateTimeField()
    last_used_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "subject"], name="provider_identity_unique"
            )
        ]

    def __str__(self):
        return f"{self.user} @ {self.issuer}"
