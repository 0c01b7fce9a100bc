"""How long the wizard keeps what expires, defined once: the services and
``manage.py expire_stale`` delete by these periods, and the privacy notice states them
(read from here, so the page cannot say one thing while the command does another).

Periods that are Django settings (the sign-up link's lifetime,
``PASSWORD_RESET_TIMEOUT``) are read when asked for, so a deployment's value counts.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

# A checked upload waits this long for its owner's confirmation.
PENDING_IMPORT = timedelta(hours=1)
# Records of successful logins (django-axes: username, IP address, browser) are
# kept this long; failed attempts go once their lock has cooled off.
LOGIN_RECORDS = timedelta(days=30)
# E-mails of the review workflow stay in the delivery log (Django admin, "Mail
# delivery") this long after they were sent or given up on.
MAIL_LOG = timedelta(days=90)


def unconfirmed_signup() -> timedelta:
    """An account whose address was never confirmed is deleted when its link
    expires (``PASSWORD_RESET_TIMEOUT``, Django's default 3 days)."""
    return timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)


def login_lock() -> timedelta:
    """A failed login is remembered for the lock's cool-off time
    (``AXES_COOLOFF_TIME``)."""
    return settings.AXES_COOLOFF_TIME


def session() -> timedelta:
    """A login lasts ``SESSION_COOKIE_AGE``; an expired session is deleted."""
    return timedelta(seconds=settings.SESSION_COOKIE_AGE)


def task_results() -> timedelta:
    """The task worker's record of each finished task (a mail sent, a PDF rendered,
    a log read: its arguments and any traceback) is kept ``TASK_RESULTS_KEPT``
    (``DJANGO_TASK_RESULTS_KEPT_DAYS``, 14 days)."""
    return settings.TASK_RESULTS_KEPT


def describe(period: timedelta) -> str:
    """``period`` as a person says it, in the active language: "3 days", "1 hour",
    "15 minutes"."""
    seconds = int(period.total_seconds())
    units = (
        (86400, lambda n: ngettext("%(count)s day", "%(count)s days", n)),
        (3600, lambda n: ngettext("%(count)s hour", "%(count)s hours", n)),
        (60, lambda n: ngettext("%(count)s minute", "%(count)s minutes", n)),
    )
    for size, words in units:
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return words(count) % {"count": count}
    return ngettext("%(count)s second", "%(count)s seconds", seconds) % {
        "count": seconds
    }


@dataclass(frozen=True)
class Period:
    """One kind of data that expires: its key in ``services.stale_data_expire``'s
    answer, what it is (for the privacy notice and the command's report), and how
    long it is kept."""

    key: str
    what: str  # lazy: in the reader's language where it is shown
    period: timedelta

    @property
    def text(self) -> str:
        return describe(self.period)


def expiring() -> list[Period]:
    """What ``manage.py expire_stale`` deletes and after how long."""
    return [
        Period(
            "unconfirmed_signups",
            _("Sign-ups whose e-mail address was never confirmed"),
            unconfirmed_signup(),
        ),
        Period(
            "pending_imports",
            _("Uploaded files not confirmed for import"),
            PENDING_IMPORT,
        ),
        Period(
            "failed_logins",
            _("Failed login attempts (username, IP address, browser)"),
            login_lock(),
        ),
        Period(
            "login_records",
            _("Records of logins (username, IP address, browser)"),
            LOGIN_RECORDS,
        ),
        Period(
            "mail_log",
            _("E-mails in the delivery log (sent or given up on)"),
            MAIL_LOG,
        ),
        Period(
            "task_results",
            _(
                "Records of background tasks (e-mails, PDFs, log readings) once finished"
            ),
            task_results(),
        ),
        Period(
            "sessions", _("Login sessions (how long you stay logged in)"), session()
        ),
    ]
