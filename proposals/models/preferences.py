"""A person's own settings: how they write numbers, which clock they read and which
language the wizard speaks to them."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from proposals.domain.numbers import (
    DEFAULT_NUMBER_FORMAT,
    NUMBER_FORMAT_BY_NAME,
    NumberFormat,
)

DEFAULT_TIME_ZONE = "Europe/Brussels"


class StaffMail(models.TextChoices):
    """Which staff mail a support staff member gets. Blank (automatic): every new
    proposal until they first take one, then only their own."""

    AUTOMATIC = "", _("Automatic: all new ones until I take one, then only mine")
    ALL = "all", _("All new proposals, and everything about mine")
    MINE = "mine", _("Only the proposals I handle")
    DIGEST = "digest", _("Only mine at once, the rest in a daily digest")


class Preferences(models.Model):
    """One per user, created at sign-up from the browser's language; changed on the
    account settings page."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    # A CLDR locale (``de_CH``): its separators, grouping, and its form of dates.
    number_format = models.CharField(
        _("How you write numbers and dates"),
        max_length=32,
        default=DEFAULT_NUMBER_FORMAT,
        help_text=_(
            "Numbers you type in the wizard are read this way, and every number "
            "and date the wizard shows you (on its pages and in its e-mails) is printed "
            "this way. The portal text, the exports and the JSON file always use the "
            "portal's plain form (18176, 0.2)."
        ),
    )
    time_zone = models.CharField(
        _("Your time zone"),
        max_length=64,
        default=DEFAULT_TIME_ZONE,
        help_text=_(
            "Cut-offs, waiting times and histories are shown in this zone, "
            "with its name (CET, CEST)."
        ),
    )
    #: Whether the person chose ``time_zone`` (on signing up or in Settings): until
    #: they do, the forms offer their browser's zone (``static/js/timezone.js``).
    time_zone_chosen = models.BooleanField(default=False, editable=False)
    # One of ``settings.LANGUAGES`` (``de``); blank: the browser's Accept-Language.
    language = models.CharField(
        _("Language of the wizard"),
        max_length=16,
        blank=True,
        default="",
        help_text=_("The language of the wizard's pages and of its e-mails to you."),
    )
    # Support staff only: the public holidays of their site ("ES-CT"); blank: the
    # desk's (``DJANGO_HOLIDAY_COUNTRY``). Set on the staff's "Desk settings" page.
    holiday_calendar = models.CharField(
        _("Your public holidays"),
        max_length=16,
        blank=True,
        default="",
        help_text=_(
            "A country with an optional region (FI, ES-CT, DE-BY): your waiting "
            "times and late marks skip its public holidays. Empty: the desk's."
        ),
    )
    staff_mail = models.CharField(
        _("Staff mail"), max_length=8, blank=True, default="", choices=StaffMail
    )
    digest_hour = models.PositiveSmallIntegerField(
        _("Digest hour"),
        default=8,
        help_text=_("The hour of the daily digest, in your time zone (0-23)."),
    )
    # The page language of the person's last sign-in (what their browser asked for):
    # their e-mails' language while ``language`` is blank. Not shown: it follows.
    browser_language = models.CharField(
        max_length=16, blank=True, default="", editable=False
    )

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self):
        return f"Preferences of {self.user}"

    @property
    def number_format_spec(self) -> NumberFormat:
        return NUMBER_FORMAT_BY_NAME.get(
            self.number_format, NUMBER_FORMAT_BY_NAME[DEFAULT_NUMBER_FORMAT]
        )
