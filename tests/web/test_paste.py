"""Paste a table: preview (nothing stored), add in one step, undo exactly those rows;
works as plain form posts and with htmx."""

from decimal import Decimal

import pytest
from django.urls import reverse

from proposals.models import JobType, Preferences, ScalingMeasurement
from tests.factories import JobTypeFactory, ScalingMeasurementFactory, cluster

SPREADSHEET = (
    "GPUs\tThroughput (samples/s)\tEfficiency\n4\t1,200\t100%\n8\t2,280\t95%\n"
    "16\t4,225\t88%\n"
)
PLAN = """| Job type | GCDs per job | Hours | Jobs |
|---|---:|---:|---:|
| Sweep | 16 | 4 | 120 |
| Pre-training | 64 | 24 | 16 |
"""


def url(proposal, kind, name="paste"):
    return reverse(f"proposals:{name}", args=[proposal.pk, kind])


def test_preview_stores_nothing_and_shows_what_was_understood(user_client, proposal):
    response = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": SPREADSHEET, "paste": "1"},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Read as a tab-separated" in page
    assert "3 rows to add" in page
    assert "2,280" in page
    # LUMI-G: a "GPUs" column may be Slurm's GCDs; the preview says how to say so.
    assert "Slurm counts each GPU as 2 GCDs" in page
    assert ScalingMeasurement.objects.filter(proposal=proposal).count() == 0


def test_add_then_undo_removes_exactly_the_pasted_rows(user_client, proposal):
    kept = JobTypeFactory(proposal=proposal, title="Existing", position=0)
    revision = proposal.revision
    response = user_client.post(
        url(proposal, "jobs"), {"paste-jobs-text": PLAN, "paste_add": "1"}
    )
    assert response.status_code == 302
    assert response["Location"].endswith("/scalability/#section-jobs")
    rows = list(JobType.objects.filter(proposal=proposal).order_by("position"))
    # LUMI-G: 2 GCDs per GPU, stored as physical GPUs.
    assert [(r.title, r.gpus, r.hours, r.count) for r in rows] == [
        ("Existing", 8, Decimal("4.00"), 10),
        ("Sweep", 8, Decimal("4.00"), 120),
        ("Pre-training", 32, Decimal("24.00"), 16),
    ]
    proposal.refresh_from_db()
    assert proposal.revision == revision + 1  # one step
    step = user_client.get(reverse("proposals:step", args=[proposal.pk, "scalability"]))
    assert b"The last paste added 2 rows" in step.content
    assert b"Added 2 rows to the job plan" in step.content
    response = user_client.post(url(proposal, "jobs", "paste_undo"))
    assert response.status_code == 302
    assert list(JobType.objects.filter(proposal=proposal)) == [kept]
    step = user_client.get(reverse("proposals:step", args=[proposal.pk, "scalability"]))
    assert b"removed the 2 pasted rows" in step.content
    assert b"Undo paste" not in step.content


def test_htmx_preview_is_a_fragment_and_add_redirects(user_client, proposal):
    headers = {"HTTP_HX_REQUEST": "true"}
    preview = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": SPREADSHEET, "paste": "1"},
        **headers,
    )
    assert b"<html" not in preview.content
    assert b'data-testid="paste-measurements-add"' in preview.content
    added = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": SPREADSHEET, "paste_add": "1"},
        **headers,
    )
    assert added["HX-Redirect"].endswith("?revision=2#section-measurements")
    assert sorted(
        ScalingMeasurement.objects.filter(proposal=proposal).values_list(
            "gpus", flat=True
        )
    ) == [4, 8, 16]


def test_numbers_in_the_persons_format(user_client, user, proposal):
    Preferences.objects.update_or_create(user=user, defaults={"number_format": "de"})
    user_client.post(
        url(proposal, "measurements"),
        {
            "paste-measurements-text": "GPUs;Throughput;Unit\n4;1.234,5;tokens/s\n",
            "paste_add": "1",
        },
    )
    (row,) = ScalingMeasurement.objects.filter(proposal=proposal)
    assert (row.gpus, row.throughput, row.unit) == (4, Decimal("1234.5"), "tokens/s")


def test_unknown_column_is_asked_and_the_answer_applies(user_client, proposal):
    text = "GPUs\tMesswert\n4\t1200\n"
    first = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": text, "paste_add": "1"},
    )
    assert first.status_code == 200
    assert "Choose what this column holds" in first.content.decode()
    assert not ScalingMeasurement.objects.filter(proposal=proposal).exists()
    answered = user_client.post(
        url(proposal, "measurements"),
        {
            "paste-measurements-text": text,
            "paste-measurements-signature": "GPUs\tMesswert",
            "paste-measurements-map-0": "gpus",
            "paste-measurements-map-1": "throughput",
            "paste_add": "1",
        },
    )
    assert answered.status_code == 302
    assert ScalingMeasurement.objects.get(proposal=proposal).throughput == 1200
    # A choice made for another table is not applied to a new text.
    other = user_client.post(
        url(proposal, "measurements"),
        {
            "paste-measurements-text": "Nodes\tMesswert\n1\t5\n",
            "paste-measurements-signature": "GPUs\tMesswert",
            "paste-measurements-map-1": "throughput",
            "paste": "1",
        },
    )
    assert "Choose what this column holds" in other.content.decode()


def test_refused_rows_are_named_and_not_added(user_client, proposal):
    text = "Job\tGPUs\tHours\tJobs\nA\t8\t4\t10\nB\t8\tlots\t1\n"
    preview = user_client.post(url(proposal, "jobs"), {"paste-jobs-text": text})
    page = preview.content.decode()
    assert "1 refused" in page and "“lots” is not a number" in page
    user_client.post(url(proposal, "jobs"), {"paste-jobs-text": text, "paste_add": "1"})
    assert list(
        JobType.objects.filter(proposal=proposal).values_list("title", flat=True)
    ) == ["A"]


def test_measurements_inherit_code_and_hardware_of_the_last_row(user_client, proposal):
    last = ScalingMeasurementFactory(proposal=proposal, hardware="LUMI-G, 4 nodes")
    preview = user_client.post(
        url(proposal, "measurements"), {"paste-measurements-text": SPREADSHEET}
    )
    assert (
        "Not in the table, taken from the last measurement: hardware “LUMI-G, 4 "
        "nodes”." in preview.content.decode()
    )
    user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": SPREADSHEET, "paste_add": "1"},
    )
    pasted = ScalingMeasurement.objects.filter(proposal=proposal).exclude(pk=last.pk)
    assert {row.hardware for row in pasted} == {"LUMI-G, 4 nodes"}


@pytest.mark.parametrize("kind", ["codes", "nothing"])
def test_only_the_three_tables(user_client, proposal, kind):
    assert user_client.get(url(proposal, kind)).status_code == 404


def test_someone_elses_proposal_is_a_404(client, other_user, proposal):
    client.force_login(other_user)
    response = client.post(
        url(proposal, "jobs"), {"paste-jobs-text": PLAN, "paste_add": "1"}
    )
    assert response.status_code == 404
    assert not JobType.objects.filter(proposal=proposal).exists()


def test_gcds_need_a_system(user_client, proposal):
    proposal.system = None
    proposal.save()
    page = user_client.post(url(proposal, "jobs"), {"paste-jobs-text": PLAN}).content
    assert "choose the target system first" in page.decode()
    proposal.system = cluster("lumi-g")
    proposal.save()


def test_the_step_shows_a_paste_control_per_table(user_client, proposal):
    page = user_client.get(reverse("proposals:step", args=[proposal.pk, "scalability"]))
    for kind in ("measurements", "jobs", "schedule"):
        assert f'data-testid="paste-{kind}-text"'.encode() in page.content


def test_without_javascript_the_steps_typed_values_are_saved_first(
    user_client, proposal
):
    # The paste button posts the whole step form (formaction): what was typed in
    # the step is stored before the preview page is shown.
    response = user_client.post(
        url(proposal, "jobs"),
        {
            "bases": "{}",
            "scalability_narrative": "Typed before pasting.",
            "paste-jobs-text": PLAN,
            "paste": "1",
        },
    )
    assert response.status_code == 200
    assert "2 rows to add" in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.scalability_narrative == "Typed before pasting."


def test_the_header_unit_and_the_only_code_entry_are_stored(user_client, proposal):
    """Issue 22: "Throughput (tokens/s)" rows were stored as samples/s and without a
    code, so the chart said samples/s and PLAN-2 stayed silent."""
    from tests.factories import CodeEntryFactory

    code = CodeEntryFactory(proposal=proposal, name="Megatron-LM")
    text = "GPUs\tThroughput (tokens/s)\n8\t12,000\n16\t23,500\n"
    preview = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": text, "paste": "1"},
    )
    assert "only code entry, “Megatron-LM”" in preview.content.decode()
    added = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": text, "paste_add": "1"},
    )
    assert added.status_code == 302
    stored = ScalingMeasurement.objects.filter(proposal=proposal).order_by("gpus")
    assert [(m.gpus, m.unit, m.code_id) for m in stored] == [
        (8, "tokens/s", code.pk),
        (16, "tokens/s", code.pk),
    ]


def test_the_preview_says_how_each_header_unit_was_read(user_client, proposal):
    """Issue 32: "Durchsatz (Token/s)" is stored as tokens/s and the preview says
    so; "Débit (échantillons/s)" is not cut to "chantillons/s"; a unit that cannot
    be read is refused beside the table, and nothing can be added."""
    text = "Anzahl GPUs\tDurchsatz (Token/s)\n8\t12,000\n"
    page = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": text, "paste": "1"},
    ).content.decode()
    assert "(unit “Token/s” read as tokens/s)" in page
    text = "GPUs\tDébit (échantillons/s)\n8\t1,200\n"
    page = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": text, "paste": "1"},
    ).content.decode()
    assert "(unit “échantillons/s” read as samples/s)" in page
    assert "chantillons/s”" not in page.replace("échantillons/s”", "")
    text = "GPUs\tThroughput (frames/s)\n8\t100\n"
    refused = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": text, "paste": "1"},
    ).content.decode()
    assert "(unit “frames/s”: cannot be read)" in refused
    assert "the unit “frames/s” cannot be read as tokens/s" in refused
    assert 'data-testid="paste-measurements-add" disabled' in refused
    added = user_client.post(
        url(proposal, "measurements"),
        {"paste-measurements-text": text, "paste_add": "1"},
    )
    assert added.status_code != 302
    assert not ScalingMeasurement.objects.filter(proposal=proposal, gpus=8).exists()
