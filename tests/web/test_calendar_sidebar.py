"""The calendar in the live sidebar, the staff review page and the exports."""

from decimal import Decimal

from django.urls import reverse

from proposals.models import Preferences
from tests.factories import JobTypeFactory


def test_step_sidebar_shows_the_calendar(user_client, proposal):
    proposal.total_gpu_hours = Decimal("2000")
    proposal.duration_months = 3
    proposal.save()
    JobTypeFactory(proposal=proposal, gpus=4, hours=Decimal("2"), count=250)
    page = user_client.get(reverse("proposals:step", args=[proposal.pk, "selection"]))
    text = page.content.decode()
    assert 'id="live-calendar"' in text
    assert "keep <strong>0.9 GPUs</strong> (0.23 nodes) busy" in text
    assert 'data-testid="calendar-parallel">1,000 GPUs' in text
    assert 'data-testid="calendar-share">0.0%' in text


def test_calendar_warns_when_the_plan_cannot_use_the_hours(user_client, proposal):
    proposal.total_gpu_hours = Decimal("20000")
    proposal.duration_months = 1
    proposal.save()
    JobTypeFactory(proposal=proposal, gpus=4, hours=Decimal("5000"), count=1)
    text = user_client.get(
        reverse("proposals:step", args=[proposal.pk, "scalability"])
    ).content.decode()
    assert "The job plan cannot use these hours up in time (PLAN-3)." in text
    assert "PLAN-3" in text


def test_without_duration_the_calendar_asks_for_it(user_client, proposal):
    proposal.duration_months = None
    proposal.save()
    text = user_client.get(
        reverse("proposals:step", args=[proposal.pk, "selection"])
    ).content.decode()
    assert "Enter the total GPU-hours and the duration" in text


def test_markdown_export_has_the_calendar(user_client, proposal):
    proposal.duration_months = 2
    proposal.save()
    text = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    assert "**Calendar:** 4,000 GPU-hours over 2 months" in text


def test_the_calendar_shows_a_fractional_request_exactly(user_client, proposal):
    """4,800.5 GPU-hours once showed as 4,800 in the sidebar and the exports."""
    proposal.total_gpu_hours = Decimal("4800.5")
    proposal.duration_months = 2
    proposal.save()
    step = reverse("proposals:step", args=[proposal.pk, "selection"])
    sidebar = user_client.get(step).content.decode()
    assert "4,800.5 GPU-hours over 2 months" in " ".join(sidebar.split())
    markdown = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    assert "**Calendar:** 4,800.5 GPU-hours over 2 months" in markdown
    Preferences.objects.update_or_create(
        user=proposal.owner, defaults={"number_format": "de"}
    )
    german = " ".join(user_client.get(step).content.decode().split())
    assert "4.800,5 GPU-hours over 2 months" in german
