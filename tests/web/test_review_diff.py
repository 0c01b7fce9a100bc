"""The diff between two revisions: field by field, words marked, tier and findings."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from proposals import services
from proposals.domain.documents import (
    diff_documents,
    diff_findings,
    label_for,
    word_diff,
)
from proposals.models import CodeEntry, Proposal

pytestmark = pytest.mark.django_db


def test_word_diff_marks_removed_and_added_words():
    segments = word_diff("Training with DDP on 8 GPUs", "Training with FSDP on 16 GPUs")
    assert ("del", "DDP") in segments
    assert ("ins", "FSDP") in segments
    assert ("del", "8") in segments and ("ins", "16") in segments
    assert "".join(t for op, t in segments if op != "ins") == (
        "Training with DDP on 8 GPUs"
    )
    assert "".join(t for op, t in segments if op != "del") == (
        "Training with FSDP on 16 GPUs"
    )


def test_diff_documents_groups_by_section_and_kind():
    old = {
        "format": "aifactory-proposal/1",
        "title": "A",
        "selection": {"total_gpu_hours": 4000, "libraries": ""},
        "codes": [{"name": "PyTorch", "version": "2.4"}],
    }
    new = {
        "format": "aifactory-proposal/1",
        "title": "A",
        "selection": {"total_gpu_hours": 6000, "libraries": "vLLM"},
        "codes": [
            {"name": "PyTorch", "version": "2.5"},
            {"name": "vLLM", "version": "0.6"},
        ],
    }
    sections = {s.key: s for s in diff_documents(old, new)}
    assert set(sections) == {"selection", "codes"}
    kinds = {c.path: c.kind for s in sections.values() for c in s.rows}
    assert kinds == {
        "selection.total_gpu_hours": "changed",
        "selection.libraries": "added",
        "codes[0].version": "changed",
        "codes[1].name": "added",
        "codes[1].version": "added",
    }
    assert label_for("codes[1].version") == "Code details 2 › Version or release"
    assert diff_documents(old, old) == []


def test_diff_findings_by_code_and_field():
    old = [{"code": "CODE-2", "field": "codes[0].version", "severity": "warning"}]
    new = [{"code": "SCAL-2", "field": "scalability.jobs", "severity": "error"}]
    result = diff_findings(old, new)
    assert [f["code"] for f in result["added"]] == ["SCAL-2"]
    assert [f["code"] for f in result["resolved"]] == ["CODE-2"]


@pytest.fixture
def two_revisions(user, staff_user, submitted):
    """Revision 1 as the fixture made it; revision 2 after the applicant raised the
    hours into Fast Lane and rewrote the code description."""
    services.review_set_status(
        proposal=submitted,
        user=staff_user,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="Please split the jobs.",
    )
    Proposal.objects.filter(pk=submitted.pk).update(
        total_gpu_hours=Decimal("20000"), title="Vision model training"
    )
    CodeEntry.objects.filter(proposal=submitted).update(
        description="Training loop in PyTorch 2.5 with DeepSpeed ZeRO-3."
    )
    submitted.refresh_from_db()
    services.review_submit(proposal=submitted, user=user)
    return submitted


def test_diff_page_between_two_known_revisions(client, staff_user, two_revisions):
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[two_revisions.pk])
    page = client.get(url, {"a": 1, "b": 2}).text
    compact = re.sub(r"\s+", " ", page)

    def marked(tag, text):
        return re.search(
            rf"<{tag} class=\"diff-[a-z]+[^\"]*\">{re.escape(text)}</{tag}>", compact
        )

    # Field by field, with the removed and added words marked.
    assert marked("del", "4,000") and marked("ins", "20,000")  # with separators
    assert marked("del", "fine-tuning") and marked("ins", "training")
    assert marked("del", "FSDP") and marked("ins", "DeepSpeed ZeRO-3")
    assert "Total GPU-hours" in page
    assert re.search(r"Code details 1 \([^)]+\) › Description of the code", page)
    # People read labels, never the JSON paths.
    assert "codes[0]" not in page and "selection.total_gpu_hours" not in page
    # The tier change and the findings it brings.
    assert "<del>Playground</del> → <ins>Fast Lane</ins>" in compact
    added = compact.split('data-testid="findings-added"')[1].split("</div>")[0]
    assert "SCAL-2" in added  # Fast Lane without a job plan
    resolved = compact.split('data-testid="findings-resolved"')[1].split("</div>")[0]
    assert "SCAL-2" not in resolved


def test_diff_page_defaults_and_current_draft(client, staff_user, two_revisions):
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[two_revisions.pk])
    default = client.get(url).text  # the last two revisions
    assert "From revision 1 to revision 2" in default
    same = client.get(url, {"a": 2, "b": "current"}).text
    assert 'data-testid="no-changes"' in same
    Proposal.objects.filter(pk=two_revisions.pk).update(title="Third title")
    draft = client.get(url, {"a": 2, "b": "current"}).text
    assert "Third" in draft and "current draft" in draft
    review = client.get(reverse("proposals:staff_review", args=[two_revisions.pk]))
    assert 'data-testid="changed-since"' in review.text


def test_diff_of_unknown_revision_is_404(client, staff_user, two_revisions):
    client.force_login(staff_user)
    url = reverse("proposals:staff_diff", args=[two_revisions.pk])
    assert client.get(url, {"a": 1, "b": 9}).status_code == 404
