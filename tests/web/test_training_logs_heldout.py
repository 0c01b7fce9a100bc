"""The held-out logs of issue 26 (``tests/domain/logs_heldout``) through the wizard's
"Add measurements from training logs": the rows they give, the MFU cross-check
(PLAN-2) they feed with the GPU-variant peaks, and the undo of the add, which asks
first when a row read was changed in another tab (as a paste's undo does)."""

from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from proposals.assess import assess_proposal
from proposals.models import JobType, ScalingMeasurement
from tests.domain.test_training_logs_heldout import HELDOUT
from tests.factories import CodeEntryFactory, ScalingMeasurementFactory
from tests.web.test_row_races import HX, autosave, form_of, load

pytestmark = pytest.mark.django_db

TITAN = [f"torchtitan-2025-{g}gpus.log" for g in (8, 16, 32)]
# The factory's proposal is on LUMI-G: these H100 logs count GPUs, not GCDs.
GPUS = {"logs-count": "gpus"}


def upload(name):
    return SimpleUploadedFile(name, (HELDOUT / name).read_bytes(), "text/plain")


def logs_url(proposal, name="logs"):
    return reverse(f"proposals:{name}", args=[proposal.pk])


def add(client, proposal, names, run_tasks):
    """Send the files, let the task worker read them, show the preview, add."""
    files = [upload(n) for n in names]
    sent = client.post(logs_url(proposal), {"logs-files": files, **GPUS})
    assert sent.status_code == 200
    run_tasks()
    preview = client.post(logs_url(proposal), {"logs": "1", **GPUS})
    assert preview.status_code == 200
    added = client.post(logs_url(proposal), {"logs_add": "1", **GPUS})
    assert added.status_code == 302
    return preview.content.decode()


def from_logs(proposal):
    return list(
        ScalingMeasurement.objects.filter(proposal=proposal)
        .exclude(source="")
        .order_by("position")
    )


def test_the_logs_fill_the_table_and_feed_the_mfu_check(
    user_client, proposal, run_tasks
):
    code = CodeEntryFactory(
        proposal=proposal, name="torchtitan", model_parameters=8_030_000_000
    )
    # Rows added without hardware take the last stored row's: an H100 SXM run.
    ScalingMeasurementFactory(
        proposal=proposal, code=code, gpus=4, hardware="H100 SXM", position=0
    )
    page = add(user_client, proposal, TITAN, run_tasks)
    assert "3 measurements and 0 job-plan rows to add" in page
    assert "validation step lines (line 13)" in page
    rows = from_logs(proposal)
    # Hand-computed: median tps of the step lines after the first × mesh size.
    assert [(r.gpus, r.throughput, r.unit, r.mfu_pct) for r in rows] == [
        (8, Decimal("51960"), "tokens/s", Decimal("33.98")),
        (16, Decimal("99696"), "tokens/s", Decimal("32.61")),
        (32, Decimal("188672"), "tokens/s", Decimal("30.85")),
    ]
    assert all(r.code_id == code.pk and r.hardware == "H100 SXM" for r in rows)
    readings = {r.gpus: r for r in assess_proposal(proposal).mfu_check}
    # 6 × 8.03e9 × 51,960 / (8 × 989e12) = 31.6 %, near the logged 33.98 %.
    assert readings[8].peak_tflops == 989 and readings[8].peak_name.endswith("SXM")
    assert readings[8].aggregate_pct == pytest.approx(31.64, abs=0.01)
    assert not any(readings[g].disagrees for g in (8, 16, 32))
    # Measured on the target system instead (blank hardware: LUMI-G's MI250X, 383
    # TFLOP/s per module), the same figures imply 81.7 %: PLAN-2 says so.
    ScalingMeasurement.objects.filter(pk__in=[r.pk for r in rows]).update(hardware="")
    readings = {r.gpus: r for r in assess_proposal(proposal).mfu_check}
    assert readings[8].peak_tflops == 383 and readings[8].disagrees
    step = user_client.get(reverse("proposals:step", args=[proposal.pk, "scalability"]))
    assert b"PLAN-2" in step.content


def test_sacct_rows_are_allocations_not_steps(user_client, proposal, run_tasks):
    add(user_client, proposal, ["sacct-P-h100.txt"], run_tasks)
    rows = [
        (j.title, j.gpus, j.hours, j.count)
        for j in JobType.objects.filter(proposal=proposal).exclude(source="")
    ]
    assert sorted(rows) == [
        ("scale-16", 16, Decimal("4.00"), 2),
        ("scale-32", 32, Decimal("24.00"), 1),
        ("scale-8", 8, Decimal("2.00"), 3),
    ]


@pytest.mark.parametrize("htmx", [True, False])
def test_undo_of_rows_changed_in_another_tab_asks_first(
    user_client, proposal, htmx, run_tasks
):
    add(user_client, proposal, TITAN, run_tasks)
    rows = from_logs(proposal)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    tab_1[f"measurements-{rows[0].pk}-throughput"] = "52000"
    autosave(user_client, proposal, tab_1)
    headers = HX if htmx else {}
    response = user_client.post(logs_url(proposal, "logs_undo"), tab_2, headers=headers)
    assert response.status_code == 200
    content = response.content.decode()
    assert "A row read from the logs was changed in another tab" in content
    assert "Undo anyway" in content and "Keep them" in content
    assert len(from_logs(proposal)) == 3  # nothing undone
    user_client.post(logs_url(proposal, "logs_undo"), form_of(content), headers=headers)
    assert from_logs(proposal) == []


def test_undo_of_unchanged_rows_needs_no_question(user_client, proposal, run_tasks):
    add(user_client, proposal, TITAN, run_tasks)
    response = user_client.post(
        logs_url(proposal, "logs_undo"), load(user_client, proposal)
    )
    assert response.status_code == 302
    assert from_logs(proposal) == []


def test_all_the_held_out_files_at_once(user_client, proposal, run_tasks):
    names = sorted(path.name for path in HELDOUT.iterdir())
    page = add(user_client, proposal, names, run_tasks)
    assert "14 measurements and 3 job-plan rows to add" in page
    stored = sorted(
        (m.gpus, m.unit) for m in ScalingMeasurement.objects.filter(proposal=proposal)
    )
    assert stored == sorted(
        [(g, "tokens/s") for g in (8, 16, 32) for _ in range(2)]
        + [(32, "tokens/s"), (32, "samples/s")]  # torchtitan 4 nodes, DS pipeline
        + [(g, "samples/s") for g in (8, 16, 32) for _ in range(2)]
    )
    assert JobType.objects.filter(proposal=proposal).exclude(source="").count() == 3
