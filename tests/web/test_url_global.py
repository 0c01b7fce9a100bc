"""The Jinja2 templates' ``url()`` (``templatetags.fragments.url``) reverses a
URL once and keeps it, per URL configuration and script prefix: a site served
under a path, or a test's own URL configuration, gets its own addresses."""

from django.http import HttpResponse
from django.test import override_settings
from django.urls import include, path, reverse, set_script_prefix

from proposals.templatetags.fragments import url

# Another URL configuration (this module's): the same name, another address.
urlpatterns = [
    path(
        "elsewhere/",
        include(
            ([path("list/", lambda request: HttpResponse(), name="list")], "proposals")
        ),
    )
]


def test_url_is_djangos_reverse_under_each_prefix_and_configuration():
    assert url("proposals:step", 7, "scalability") == reverse(
        "proposals:step", args=[7, "scalability"]
    )
    assert url("proposals:step", pk=7, step="codes") == reverse(
        "proposals:step", kwargs={"pk": 7, "step": "codes"}
    )
    plain = url("proposals:list")
    try:
        set_script_prefix("/wizard/")
        assert url("proposals:list") == "/wizard" + plain
    finally:
        set_script_prefix("/")
    assert url("proposals:list") == plain
    with override_settings(ROOT_URLCONF=__name__):
        assert url("proposals:list") == "/elsewhere/list/"
    assert url("proposals:list") == plain
