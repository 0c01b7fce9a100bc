"""The desk's clock (issue 34): closure days set in the admin, each staff member's
own public-holiday calendar, a target (or "none" with its source) for every call
mode, and the queue sorted by the working days left."""

import datetime
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from proposals import reference_data, selectors, services
from proposals.domain.response_times import (
    DAY,
    response_time,
    sending_days_back,
    wait_for,
    working_days_between,
)
from proposals.models import CallMode, DeskClosure, Proposal, ReviewState
from tests.review_data import queue_rows

pytestmark = pytest.mark.django_db


def aware(day: datetime.date, hour: int = 10) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour)))


# --- Closure days -------------------------------------------------------------


def test_closure_days_are_not_working_days():
    monday = datetime.date(2026, 12, 21)
    christmas_week = [monday + n * DAY for n in range(12)]  # to Friday 1 January
    assert working_days_between(monday, monday + 14 * DAY) == 10
    assert working_days_between(monday, monday + 14 * DAY, closed=christmas_week) == 1


def test_sending_days_back_agree_with_the_working_day_count():
    today = datetime.date(2026, 9, 14)
    closed = [datetime.date(2026, 8, 24) + n * DAY for n in range(5)]
    back = sending_days_back(today=today, waits=40, country="ES-CT", closed=closed)
    assert sorted(back) == list(range(1, 41))
    for waited, day in back.items():
        count = working_days_between(day, today, country="ES-CT", closed=closed)
        later = working_days_between(day + DAY, today, country="ES-CT", closed=closed)
        assert count >= waited > later


def test_a_closure_made_in_the_admin_counts_in_the_queue(
    client, settings, staff_user, submitted
):
    settings.HOLIDAY_COUNTRY = ""  # weekends only, whatever the date of the run
    today = timezone.localdate()
    ReviewState.objects.filter(proposal=submitted).update(
        submitted_at=timezone.now() - timedelta(days=14)
    )
    client.force_login(staff_user)
    assert "10 days</time>" in client.get(reverse("proposals:review_queue")).text
    admin = type(staff_user).objects.create_superuser("root", "root@example.eu", "x")
    client.force_login(admin)
    response = client.post(
        reverse("admin:proposals_deskclosure_add"),
        {
            "label": "Site shutdown",
            "start": (today - timedelta(days=13)).isoformat(),
            "end": (today - timedelta(days=7)).isoformat(),  # 5 weekdays
        },
    )
    assert response.status_code == 302, response.text
    client.force_login(staff_user)
    page = client.get(reverse("proposals:review_queue")).text
    assert "5 days</time>" in page
    assert "and 7 desk closure days skipped" in page
    settings_page = client.get(reverse("proposals:staff_settings")).text
    assert "Site shutdown" in settings_page


def test_a_closure_cannot_end_before_it_starts():
    closure = DeskClosure(
        label="x", start=datetime.date(2026, 5, 2), end=datetime.date(2026, 5, 1)
    )
    with pytest.raises(ValidationError):
        closure.full_clean()


# --- Each staff member's calendar ---------------------------------------------


def test_a_staff_members_own_calendar_decides_late(settings, catalogue, staff_user):
    """Diada (11 September, Catalonia only): sent on Wednesday 9 September 2026, a
    Playground proposal has waited 3 working days in Spain by Monday 14 (late
    against 2) and 2 in Catalonia (not late)."""
    settings.HOLIDAY_COUNTRY = "ES"
    proposal = queue_rows(1)[0]
    ReviewState.objects.filter(proposal=proposal).update(
        submitted_at=aware(datetime.date(2026, 9, 9))
    )
    assert proposal.status == Proposal.Status.SUBMITTED
    today = datetime.date(2026, 9, 14)
    desk = selectors.staff_clock()
    assert desk.country == "ES"
    assert selectors.review_queue(late=True, today=today, clock=desk).count() == 1
    services.staff_settings_set(user=staff_user, holiday_calendar="es-ct")
    own = selectors.staff_clock(preferences=staff_user.preferences)
    assert own.country == "ES-CT"
    assert selectors.review_queue(late=True, today=today, clock=own).count() == 0


def test_desk_settings_page_sets_the_calendar(client, settings, staff_user, submitted):
    settings.HOLIDAY_COUNTRY = "ES"
    client.force_login(staff_user)
    url = reverse("proposals:staff_settings")
    refused = client.post(url, {"holiday_calendar": "XX-YY"})
    assert refused.status_code == 422
    assert "XX-YY is not a calendar the wizard knows" in refused.text
    assert client.post(url, {"holiday_calendar": "es-ct"}).status_code == 302
    staff_user.preferences.refresh_from_db()
    assert staff_user.preferences.holiday_calendar == "ES-CT"
    queue = client.get(reverse("proposals:review_queue")).text
    assert "weekends and ES-CT public holidays skipped" in queue
    client.post(url, {"holiday_calendar": ""})  # back to the desk's
    queue = client.get(reverse("proposals:review_queue")).text
    assert "weekends and ES public holidays skipped" in queue


def test_an_applicant_has_no_desk_settings(client, user):
    client.force_login(user)
    assert client.get(reverse("proposals:staff_settings")).status_code == 404


# --- Targets -------------------------------------------------------------------


def test_every_call_mode_has_a_target_or_none_with_its_source(catalogue):
    terms = reference_data.cached_terms()
    found = {}
    for mode in CallMode.objects.select_related("family"):
        assert mode.sources["target_working_days"]["source"]
        found[(mode.family.slug, mode.slug)] = mode.target_working_days
        answer = response_time(terms, mode.family.slug, mode.slug)
        assert answer.working_days == mode.target_working_days
        assert answer.source
    assert found == {
        ("industrial_innovation", "playground"): 2,
        ("industrial_innovation", "fast_lane"): 4,
        ("industrial_innovation", "large_scale"): None,
        ("ai_for_science", "ai_for_science"): None,
    }
    large = response_time(terms, "industrial_innovation", "large_scale")
    assert large.label == "none" and "cut-offs" in large.source
    # A target set in the admin counts at once; a mode without a source is refused.
    mode = CallMode.objects.get(slug="large_scale")
    mode.target_working_days = 15
    mode.sources = {
        **mode.sources,
        "target_working_days": {"source": "Desk meeting 2026-12-01", "checked": ""},
    }
    mode.save()
    terms = reference_data.cached_terms()
    assert (
        response_time(terms, "industrial_innovation", "large_scale").working_days == 15
    )
    mode.sources = {k: v for k, v in mode.sources.items() if k != "target_working_days"}
    with pytest.raises(ValidationError):
        mode.full_clean()


# --- Sorted by the time left ---------------------------------------------------


def test_queue_sorts_by_working_days_left(settings, catalogue):
    settings.HOLIDAY_COUNTRY = "BE"
    today = datetime.date(2026, 12, 7)  # a Monday
    proposals = queue_rows(30)  # tiers playground, fast lane, large scale by threes
    Proposal.objects.filter(pk__in=[p.pk for p in proposals]).update(
        status=Proposal.Status.SUBMITTED
    )
    for i, proposal in enumerate(proposals):
        ReviewState.objects.filter(proposal=proposal).update(
            submitted_at=aware(today - timedelta(days=(i * 7) % 40), hour=9 + i % 8)
        )
    clock = selectors.staff_clock()
    rows = list(selectors.review_queue(order="time_left", today=today, clock=clock))
    terms = reference_data.cached_terms()
    expected = []
    for state in rows:
        response = response_time(
            terms, state.proposal.call_family, state.latest_revision.tier
        )
        wait = wait_for(
            sent=timezone.localdate(state.submitted_at),
            today=today,
            response=response,
            **clock(),
        )
        left = (
            None
            if response.working_days is None
            else response.working_days - wait.working_days
        )
        assert state.time_left == left
        expected.append(left)
    with_target = [left for left in expected if left is not None]
    large = sum(state.latest_revision.tier == "large_scale" for state in rows)
    assert with_target == sorted(with_target) and len(with_target) == 30 - large
    assert expected[30 - large :] == [None] * large  # no target (Large Scale): last
    assert with_target[0] < 0 < with_target[-1]  # late ones first
    # The form offers it, and the page answers in it.
    assert ("time_left", "Least time left first") in [
        (value, str(label))
        for value, label in __import__(
            "proposals.review_forms", fromlist=["QueueFilterForm"]
        )
        .QueueFilterForm()
        .fields["order"]
        .choices
    ]
