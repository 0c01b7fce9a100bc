"""The diff between two revisions: field by field, words marked, tier and findings."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from proposals import services
from proposals.domain.documents import (
    describe_path,
    diff_documents,
    diff_findings,
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
        "codes[1]": "added",  # a new row is one change listing its fields
    }
    added = next(c for c in sections["codes"].rows if c.path == "codes[1]")
    assert added.row and added.label == "Code details 2 (vLLM)"
    assert added.new == "Name of the code: vLLM\nVersion or release: 0.6"
    assert describe_path("codes[1].version") == "Code details 2 › Version or release"
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


# --- Rows by identity (issue 34) ------------------------------------------------


def _jobs(*titles):
    return {
        "format": "aifactory-proposal/1",
        "title": "A",
        "scalability": {
            "jobs": [
                {"title": t, "gpus": 8 * (i + 1), "hours": 4 + i, "count": 10 + i}
                for i, t in enumerate(titles)
            ]
        },
    }


def _moved_doc(old, order):
    rows = old["scalability"]["jobs"]
    return {**old, "scalability": {"jobs": [rows[i] for i in order]}}


def _changes(sections):
    return [(c.kind, c.row, c.path) for s in sections for c in s.rows]


def test_a_moved_row_is_one_move_not_changed_values():
    old = _jobs("pretrain", "fine-tune", "eval", "ablation")
    new = _moved_doc(old, [3, 0, 1, 2])  # the last row moved to the top
    ids = {"jobs": [11, 12, 13, 14]}
    moved = {"jobs": [14, 11, 12, 13]}
    with_ids = diff_documents(old, new, old_ids=ids, new_ids=moved)
    assert _changes(with_ids) == [("moved", True, "scalability.jobs[0]")]
    change = with_ids[0].rows[0]
    assert (change.old_place, change.new_place) == (4, 1)
    assert change.label == "Job type 1 (ablation)"
    # An older revision without ids: identical rows are paired by content.
    assert _changes(diff_documents(old, new)) == _changes(with_ids)


def test_rows_added_and_deleted_are_such_and_a_moved_row_keeps_its_changes():
    old = _jobs("pretrain", "fine-tune", "eval")
    rows = old["scalability"]["jobs"]
    new = {
        **old,
        "scalability": {
            "jobs": [
                {**rows[2], "gpus": 64},  # "eval" moved up, and changed
                rows[0],
                {"title": "serve", "gpus": 4, "hours": 1, "count": 2},
            ]
        },
    }
    sections = diff_documents(
        old, new, old_ids={"jobs": [1, 2, 3]}, new_ids={"jobs": [3, 1, 9]}
    )
    assert _changes(sections) == [
        ("moved", True, "scalability.jobs[0]"),
        ("changed", False, "scalability.jobs[0].gpus"),
        ("added", True, "scalability.jobs[2]"),
        ("removed", True, "scalability.jobs[1]"),
    ]
    rows = {c.path: c for c in sections[0].rows}
    assert rows["scalability.jobs[0].gpus"].old == "24"
    assert rows["scalability.jobs[0].gpus"].new == "64"
    assert rows["scalability.jobs[1]"].label == "Job type 2 (fine-tune)"
    assert "GPUs per job: 4" in rows["scalability.jobs[2]"].new


def test_ids_win_over_content_and_a_row_inserted_above_moves_nothing():
    old = _jobs("a", "b")
    new = _jobs("x", "a", "b")
    new["scalability"]["jobs"][1:] = old["scalability"]["jobs"]
    assert _changes(diff_documents(old, new)) == [
        ("added", True, "scalability.jobs[0]")
    ]
    # Two rows that swapped their contents are two changed rows, not a move.
    swapped = _moved_doc(old, [1, 0])
    sections = diff_documents(
        old, swapped, old_ids={"jobs": [1, 2]}, new_ids={"jobs": [1, 2]}
    )
    assert {kind for kind, _row, _path in _changes(sections)} == {"changed"}


def test_reordered_code_entries_leave_measurements_unchanged():
    old = {
        "format": "aifactory-proposal/1",
        "codes": [{"name": "PyTorch"}, {"name": "vLLM"}],
        "scalability": {"measurements": [{"gpus": 8, "code": 1}]},
    }
    new = {
        "format": "aifactory-proposal/1",
        "codes": [{"name": "vLLM"}, {"name": "PyTorch"}],
        "scalability": {"measurements": [{"gpus": 8, "code": 0}]},
    }
    ids = {"codes": [5, 6], "measurements": [7]}
    sections = diff_documents(
        old, new, old_ids=ids, new_ids={"codes": [6, 5], "measurements": [7]}
    )
    assert _changes(sections) == [("moved", True, "codes[0]")]


@pytest.fixture
def four_jobs(user, staff_user, applicant_proposal, django_capture_on_commit_callbacks):
    from tests.factories import JobTypeFactory

    jobs = [
        JobTypeFactory(proposal=applicant_proposal, title=title, position=i, gpus=8)
        for i, title in enumerate(["pretrain", "fine-tune", "eval", "ablation"])
    ]
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=applicant_proposal, user=user)
    services.review_set_status(
        proposal=applicant_proposal,
        user=staff_user,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="Order the jobs by size.",
    )
    return applicant_proposal, jobs


def test_diff_page_shows_a_moved_job_row_as_one_move(
    client, user, staff_user, four_jobs, django_capture_on_commit_callbacks
):
    from proposals.models import JobType

    proposal, jobs = four_jobs
    for place, job in enumerate([jobs[3], *jobs[:3]]):
        JobType.objects.filter(pk=job.pk).update(position=place)
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=Proposal.objects.get(pk=proposal.pk), user=user)
    client.force_login(staff_user)
    page = client.get(
        reverse("proposals:staff_diff", args=[proposal.pk]), {"a": 1, "b": 2}
    ).text
    section = page.split('data-testid="diff-scalability"')[1].split("</section>")[0]
    assert section.count('data-testid="change-') == 1
    assert 'data-testid="change-row-moved"' in section
    assert "Job type 1 (ablation)" in section
    assert "moved from place 4 to place 1" in section
    assert 'data-testid="change-changed"' not in page
    # The current draft is compared by identity too.
    JobType.objects.filter(pk=jobs[1].pk).delete()
    draft = client.get(
        reverse("proposals:staff_diff", args=[proposal.pk]), {"a": 2, "b": "current"}
    ).text
    assert draft.count('data-testid="change-') == 1
    assert 'data-testid="change-row-removed"' in draft
    assert "Job type 3 (fine-tune)" in draft
