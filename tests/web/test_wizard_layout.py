"""The scalability step's regions, as the browser needs them: an out-of-band fragment is
sent only when its target is on the page (htmx logs an error for one without), and
the live summary bar is on every step and in every autosave answer."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from tests.factories import JobTypeFactory, UsageMonthFactory

HX = {"HX-Request": "true"}
NARRATIVE = {"scalability_narrative": "", "workload": "", "runtime_stability_pct": ""}


def _autosave(client, proposal, job):
    url = reverse("proposals:step", args=[proposal.pk, "scalability"])
    page = client.get(url).content.decode()
    answer = client.post(
        url,
        {**NARRATIVE, f"jobs-{job.pk}-title": "Evaluation", "autosave": "1"},
        headers=HX,
    ).content.decode()
    return page, answer


@pytest.mark.parametrize(
    ("hours", "schedule_rows", "shown"),
    [
        (Decimal("4000"), 0, False),  # Playground, no plan: no table, no total
        (Decimal("20000"), 0, False),  # Fast Lane
        (Decimal("20000"), 1, True),  # a plan kept from before: table and total
        (Decimal("200000"), 0, True),  # Large Scale: the table, empty
    ],
)
def test_the_schedule_total_is_sent_only_where_its_table_is(
    user_client, proposal, hours, schedule_rows, shown
):
    proposal.total_gpu_hours = hours
    proposal.save()
    job = JobTypeFactory(proposal=proposal, gpus=4, hours=2, count=3)
    for month in range(schedule_rows):
        UsageMonthFactory(proposal=proposal, from_month=month + 1, to_month=month + 1)
    page, answer = _autosave(user_client, proposal, job)
    assert ('id="schedule-total"' in page) is shown
    assert ('id="schedule-total"' in answer) is shown
    # The job plan's total is always on the page, and always sent.
    assert 'id="jobs-total"' in page and 'id="jobs-total"' in answer


def test_every_oob_fragment_of_an_autosave_has_its_target_on_the_page(
    user_client, proposal
):
    job = JobTypeFactory(proposal=proposal, gpus=4, hours=2, count=3)
    page, answer = _autosave(user_client, proposal, job)
    targets = re.findall(r'<[^>]*\bid="([^"]+)"[^>]*hx-swap-oob="true"', answer)
    assert targets
    assert "live-bar" in targets
    missing = [t for t in targets if f'id="{t}"' not in page]
    assert missing == []


def test_rows_cells_carry_their_labels_and_feedback_follows_the_row(
    user_client, proposal
):
    job = JobTypeFactory(proposal=proposal, gpus=4, hours=2, count=3)
    page = user_client.get(
        reverse("proposals:step", args=[proposal.pk, "scalability"])
    ).content.decode()
    row = page[page.index(f'<tr id="jobs-{job.pk}">') :]
    row, after = row.split("</tr>", 1)
    assert 'data-label="Job type"' in row and 'data-label="Hours per job"' in row
    assert f'id="fb-id_jobs-{job.pk}-hours"' not in row
    feedback = after[: after.index("</tr>")]
    assert 'class="row-feedback"' in feedback
    assert f'id="fb-id_jobs-{job.pk}-hours"' in feedback
    assert f'id="err-jobs-{job.pk}"' in feedback
