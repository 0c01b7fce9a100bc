"""Activates the request user's number format and time zone for everything the
request prints (pages, fragments, messages)."""

from proposals import localization
from proposals.views.accounts import number_format, time_zone


class PersonLocaleMiddleware:
    """After ``AuthenticationMiddleware``: numbers and times on every page are
    printed in the person's conventions; read lazily, so a page without any costs
    no query. Exports and the JSON pin the portal's form themselves."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with localization.activated(
            fmt=lambda: number_format(request), zone=lambda: time_zone(request)
        ):
            return self.get_response(request)
