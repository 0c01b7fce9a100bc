"""Template context shared by every page."""

from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from proposals import selectors

# What the scripts (static/js/) write on the page, in the page's language: base.html
# hands them over as JSON (``json_script``, no inline script), read by ``message()``
# in each script. "%(name)s" placeholders are filled there.
SCRIPT_MESSAGES = {
    "typing": _("Typing…"),
    "saving": _("Saving…"),
    "retrying": _("Not saved, retrying…"),
    "changedElsewhere": _("Changed in another tab"),
    "removedElsewhere": _("Removed in another tab"),
    # Plural forms by Intl.PluralRules category of the count.
    "shownElsewhere": {
        "one": ngettext_lazy(
            "· %(count)s value saved in another tab shown",
            "· %(count)s values saved in another tab shown",
            1,
        ),
        "other": ngettext_lazy(
            "· %(count)s value saved in another tab shown",
            "· %(count)s values saved in another tab shown",
            2,
        ),
    },
    "copied": _("Copied"),
    "pressCopy": _("Press Ctrl+C"),
    "copiedLabel": _("Copied: %(label)s"),
    "copyFailed": _("Copy failed; the text is selected, press Ctrl+C."),
}


def roles(request) -> dict:
    """``is_support_staff`` and ``email_unverified``: each evaluated (one query) only
    when a template asks, so fragments that never look at them cost nothing."""
    user = getattr(request, "user", None)
    return {
        "is_support_staff": SimpleLazyObject(
            lambda: selectors.user_is_support_staff(user=user)
        ),
        "email_unverified": SimpleLazyObject(
            lambda: (
                bool(user and user.is_authenticated)
                and not selectors.account_is_verified(user=user)
            )
        ),
    }


def script_messages(request) -> dict:
    """``script_messages``: the scripts' texts (translated when base.html prints them)."""
    return {"script_messages": SCRIPT_MESSAGES}
