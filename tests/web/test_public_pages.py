"""The landing page, the first-five-minutes guide and the glossary."""

import re
import struct

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from proposals.domain import tiers
from proposals.domain.fields import FIELDS
from proposals.domain.glossary import TERMS
from proposals.domain.numbers import grouped
from tests.factories import ScalingMeasurementFactory

pytestmark = pytest.mark.django_db


def test_anonymous_visitors_see_what_the_tool_is(client, catalogue):
    page = client.get("/")
    assert page.status_code == 200
    text = page.text
    assert "Sign up" in text and reverse("login") in text
    for label in tiers.TIER_LABELS.values():
        assert label in text
    # The ranges are the tier bounds, formatted as everywhere else.
    assert f"Up to {grouped(5000)} GPU-hours" in text
    assert f"up to {grouped(50000)} GPU-hours" in text
    assert f"More than {grouped(50000)} GPU-hours" in text


def test_the_landing_page_shows_the_shipped_screenshot(client, catalogue):
    text = client.get("/").text
    img = re.search(r'<img class="landing-shot[^>]*>', text).group(0)
    src = re.search(r'src="/static/([^"]+)"', img).group(1)
    with open(finders.find(src), "rb") as png:
        head = png.read(24)
    assert head.startswith(b"\x89PNG\r\n\x1a\n")
    # The size the page declares (no layout shift) is the picture's own.
    width, height = struct.unpack(">II", head[16:24])
    assert f'width="{width}" height="{height}"' in img


def test_signed_in_people_go_where_they_work(client, user, staff_user):
    client.force_login(user)
    assert client.get("/").headers["Location"] == reverse("proposals:list")
    client.force_login(staff_user)
    assert client.get("/").headers["Location"] == reverse("proposals:review_queue")


def test_the_guide_says_which_call_what_to_have_and_how_long(client, catalogue):
    text = client.get(reverse("proposals:guide")).text
    assert "Which call?" in text and "How long it takes" in text
    assert "Scalability and performance</dt>" in text  # section titles, vocabulary
    assert f"Up to {grouped(5000)} GPU-hours" in text


def test_the_glossary_has_an_anchor_for_every_term(client, catalogue):
    text = client.get(reverse("proposals:glossary")).text
    for term in TERMS:
        assert f'id="{term.slug}"' in text
        assert f'href="#{term.slug}"' in text


def test_column_headers_link_to_the_glossary_with_help(user_client, proposal):
    ScalingMeasurementFactory(proposal=proposal)
    url = reverse("proposals:step", args=[proposal.pk, "scalability"])
    text = user_client.get(url).text
    glossary = reverse("proposals:glossary")
    for field in FIELDS:
        if field.table in ("measurements", "jobs") and field.term:
            assert f'href="{glossary}#{field.term}"' in text, field.key
    tip = re.search(r'aria-describedby="(term-tip-mfu-\d+)"', text).group(1)
    assert f'id="{tip}">MFU: Model FLOPs utilisation' in text
    # Each tooltip id is used once, though "GPU" heads two tables.
    ids = re.findall(r'role="tooltip" id="([^"]+)"', text)
    assert len(ids) == len(set(ids)) > 1
