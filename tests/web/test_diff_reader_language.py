"""Issue 36: the staff diff shows the findings in its reader's language, not in the
English the revisions recorded them in."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from proposals import exports, services
from proposals.models import Proposal


@pytest.fixture
def two_revisions(user, staff_user, submitted):
    """Revision 2 raises the hours into Fast Lane (SCAL-2: no job plan)."""
    services.review_set_status(
        proposal=submitted,
        user=staff_user,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="Please split the jobs.",
    )
    Proposal.objects.filter(pk=submitted.pk).update(total_gpu_hours=Decimal("20000"))
    submitted.refresh_from_db()
    services.review_submit(proposal=submitted, user=user)
    return submitted


def _message(proposal, number, code, language):
    revision = proposal.revisions.get(number=number)
    with translation.override(language):
        source = exports.source_from_snapshot(revision.snapshot, revision=number)
        return next(f.message for f in source.assessment.findings if f.code == code)


def _added(page):
    compact = re.sub(r"\s+", " ", page)
    return compact.split('data-testid="findings-added"')[1].split("</div>")[0]


def test_a_german_reviewer_reads_the_diffs_findings_in_german(
    client, staff_user, two_revisions
):
    german = _message(two_revisions, 2, "SCAL-2", "de")
    english = _message(two_revisions, 2, "SCAL-2", "en-gb")
    if german == english:
        pytest.fail("locale/de is not compiled with this branch's messages")
    services.preferences_set(user=staff_user, number_format="de_DE", language="de")
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[two_revisions.pk])
    added = _added(client.get(url, {"a": 1, "b": 2}).text)
    assert "SCAL-2" in added
    assert re.sub(r"\s+", " ", german).split(":")[0] in added
    assert re.sub(r"\s+", " ", english).split(":")[0] not in added


def test_an_english_reviewer_reads_them_in_english(client, staff_user, two_revisions):
    english = _message(two_revisions, 2, "SCAL-2", "en-gb")
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[two_revisions.pk])
    added = _added(client.get(url, {"a": 1, "b": 2}).text)
    assert re.sub(r"\s+", " ", english).split(":")[0] in added
