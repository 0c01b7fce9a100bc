"""A Jinja2 page in the site's one frame (proposals/frame.py): Django's base.html
around the page's blocks, with what the context processors give."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.storage.fallback import FallbackStorage
from django.template import engines
from django.test import RequestFactory
from django.utils import translation

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PAGE = (
    "{% extends 'frame.html' %}"
    "{% block title %}{{ heading }} · {{ _('Glossary') }}{% endblock %}"
    "{% block main_class %}container-fluid{% endblock %}"
    "{% block extra_head %}<script src='/x.js' defer></script>{% endblock %}"
    "{% block content %}<h1>{{ heading }}</h1>{{ csrf_input }}{% endblock %}"
)


def render(source, user, **context):
    request = RequestFactory().get("/")
    request.user = user
    request.session = {}
    request._messages = FallbackStorage(request)
    request._messages.add(25, "Stored.")
    return engines["jinja2"].from_string(source).render(context, request)


def test_the_page_blocks_fill_the_django_frame():
    html = render(PAGE, UserFactory(username="ada"), heading="<Plan & run>")
    assert html.startswith("<!doctype html>")
    assert html.count("<html") == 1 and html.count("</html>") == 1
    assert "<title>&lt;Plan &amp; run&gt; · Glossary</title>" in html
    assert '<main id="main" class="container-fluid flex-grow-1">' in html
    assert "<script src='/x.js' defer></script>" in html
    assert "<h1>&lt;Plan &amp; run&gt;</h1>" in html
    # base.html's own parts, through the request's context processors
    assert "Signed in as <strong>ada</strong>" in html
    assert "Stored." in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'id="script-messages"' in html


def test_an_empty_block_keeps_the_frames_own():
    html = render(
        "{% extends 'frame.html' %}{% block content %}x{% endblock %}", AnonymousUser()
    )
    assert "<title>AI Factory proposal wizard</title>" in html
    assert '<main id="main" class="container py-4 flex-grow-1">' in html
    assert "Log in" in html


def test_the_frame_speaks_the_active_language():
    with translation.override("de"):
        html = render(PAGE, AnonymousUser(), heading="x")
    assert '<html lang="de">' in html
    assert "· Glossar</title>" in html
