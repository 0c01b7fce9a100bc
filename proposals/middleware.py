"""Activates the request user's language, number format and time zone for everything
the request prints (pages, fragments, messages)."""

from django.utils import translation
from django.utils.cache import patch_vary_headers

from proposals import localization
from proposals.views.accounts import interface_language, number_format, time_zone


class PersonLocaleMiddleware:
    """After ``AuthenticationMiddleware`` (and Django's ``LocaleMiddleware``, which
    activates the browser's language, or the switch's cookie, and answers
    ``Content-Language`` and ``Vary: Accept-Language``): a signed-in person's own
    choice of language wins over both. Numbers and times on every page are printed
    in the person's conventions; read lazily, so a page without any costs no query.
    Exports and the JSON pin the portal's English and plain numbers themselves."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        chosen = interface_language(request)
        if chosen:
            # activate, not override: LocaleMiddleware's answer reads it afterwards
            # for Content-Language.
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        else:
            localization.follow_page_language(request)
        with localization.activated(
            fmt=lambda: number_format(request), zone=lambda: time_zone(request)
        ):
            response = self.get_response(request)
        # The language may come from the switch's cookie (or the session's user).
        patch_vary_headers(response, ("Cookie",))
        return response
