"""Template context shared by every page."""

from django.utils.functional import SimpleLazyObject

from proposals import selectors


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
