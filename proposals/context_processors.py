"""Template context shared by every page."""

from django.utils.functional import SimpleLazyObject

from proposals import selectors


def roles(request) -> dict:
    """``is_support_staff``: evaluated (one query, then cached on the user) only when
    a template asks, so fragments that never look at it cost nothing."""
    user = getattr(request, "user", None)
    return {
        "is_support_staff": SimpleLazyObject(
            lambda: selectors.user_is_support_staff(user=user)
        )
    }
