"""AI for Science (the family universities are sent to) reads its own help, not the
industrial family's tiers and start-ups, and ELIG-5 (the family's own document and
terms) is said wholly in the page's language."""

import re

import pytest
from django.urls import reverse

from tests.factories import ProposalFactory

pytestmark = pytest.mark.django_db

# The industrial family's words, in German: its tiers' thresholds and its kinds.
INDUSTRIAL = ("Start-ups", "KMU", "bis 5.000 Playground", "darüber Large Scale")
# English words ELIG-5 showed inside the German sentence.
ENGLISH = re.compile(
    r"\b(This|family|asks|separate|scope|document|uploaded|portal|prepare|"
    r"alongside|sections|peer|review|technical)\b"
)


@pytest.fixture
def science(user):
    return ProposalFactory(
        owner=user,
        call_family="ai_for_science",
        organisation_kind="academic",
        organisation_country="DE",
        vat_number="",
    )


def page_of(client, proposal, step="selection"):
    url = reverse("proposals:step", args=[proposal.pk, step])
    return client.get(url, HTTP_ACCEPT_LANGUAGE="de-DE").content.decode()


def test_the_selection_step_has_the_family_s_own_help(user_client, science):
    page = page_of(user_client, science)
    assert "Eine GPU-Stunde ist eine physische GPU für eine Stunde" in page
    assert "In dieser Familie bestimmt die Menge nicht die Ausschreibung" in page
    assert not [words for words in INDUSTRIAL if words in page]


def test_elig_5_is_wholly_german(user_client, science):
    page = page_of(user_client, science)
    (message,) = re.findall(r">ELIG-5</span>\s*<a [^>]*>([^<]+)</a>", page)
    assert "Projektumfang" in message and "Begutachtung" in message
    assert not ENGLISH.findall(message), message


def test_the_industrial_family_keeps_its_tiers_help(user_client, proposal):
    proposal.total_gpu_hours = None  # no tier yet: the general help
    proposal.save()
    page = page_of(user_client, proposal)
    assert "bis 5.000 Playground" in page
