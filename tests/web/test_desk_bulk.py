"""Bulk actions on the queue (issue 34): pick rows, see what will change and which
rows are refused (with the reason), then all of it is done, or nothing."""

import pytest
from django.urls import reverse

from proposals import services
from proposals.models import Proposal, ReviewState, StatusChange
from tests.factories import CodeEntryFactory, ProposalFactory

pytestmark = pytest.mark.django_db
BULK = reverse("proposals:review_queue_bulk")


def send(user, title, organisation="Example Lab"):
    proposal = ProposalFactory(owner=user, title=title, organisation_name=organisation)
    CodeEntryFactory(proposal=proposal, position=0)
    services.review_submit(proposal=proposal, user=user)
    return proposal


def handler(proposal):
    return ReviewState.objects.get(proposal=proposal).handled_by


@pytest.fixture
def three(user, staff_user, second_staff):
    free = send(user, "Free one")
    colleagues = send(user, "Colleague's one")
    services.review_assign(proposal=colleagues, user=second_staff, to=second_staff)
    conflicted = send(user, "Rival's one", organisation="Rival AI Oy")
    services.staff_conflict_declare(user=staff_user, organisation="Rival AI")
    return free, colleagues, conflicted


def test_the_queue_offers_a_pick_per_row_and_the_bulk_form(client, staff_user, three):
    client.force_login(staff_user)
    page = client.get(reverse("proposals:review_queue")).text
    assert page.count('data-testid="queue-pick"') == 3
    assert 'data-testid="queue-bulk"' in page


def test_take_lists_changes_refuses_conflicts_then_does_it_all(
    client, staff_user, second_staff, three
):
    free, colleagues, conflicted = three
    client.force_login(staff_user)
    picks = [free.pk, colleagues.pk, conflicted.pk]
    page = client.post(BULK, {"action": "take", "pick": picks}).text
    assert page.count('data-testid="bulk-row"') == 2
    assert "You take it over from" in page
    assert page.count('data-testid="bulk-refused-row"') == 1
    assert "declared a conflict of interest with Rival AI" in page
    assert handler(free) is None  # nothing done before the confirmation
    seen = {
        "action": "take",
        "confirm": "on",
        "pick": [free.pk, colleagues.pk],
        f"handler-{colleagues.pk}": second_staff.pk,
        f"status-{free.pk}": "submitted",
        f"status-{colleagues.pk}": "submitted",
    }
    done = client.post(BULK, seen, follow=True).text
    assert "Done for 2 proposals." in done
    assert handler(free) == staff_user and handler(colleagues) == staff_user
    assert handler(conflicted) is None


def test_a_row_changed_since_the_confirmation_undoes_everything(
    client, staff_user, second_staff, user, three
):
    free, colleagues, _conflicted = three
    client.force_login(staff_user)
    seen = {
        "action": "take",
        "confirm": "on",
        "pick": [free.pk, colleagues.pk],
        # The page showed the colleague's one handled by nobody.
        f"status-{free.pk}": "submitted",
        f"status-{colleagues.pk}": "submitted",
    }
    page = client.post(BULK, seen, follow=True).text
    assert "Nothing was changed." in page and "changed since you looked" in page
    assert handler(free) is None  # the first row was rolled back too
    assert handler(colleagues) == second_staff


def test_hand_over_refuses_the_rows_the_colleague_is_conflicted_on(
    client, staff_user, second_staff, three
):
    free, _colleagues, _conflicted = three
    rival = send(free.owner, "Second rival", organisation="Other Corp")
    services.staff_conflict_declare(user=second_staff, organisation="Other Corp")
    client.force_login(staff_user)
    page = client.post(
        BULK,
        {"action": "hand_over", "to": second_staff.pk, "pick": [free.pk, rival.pk]},
    ).text
    assert page.count('data-testid="bulk-row"') == 1
    assert "Handed to" in page
    assert "cannot handle this proposal" in page


def test_mark_as_closed_needs_a_note_and_sets_every_status(client, staff_user, three):
    free, colleagues, _conflicted = three
    client.force_login(staff_user)
    data = {"action": "status", "to_status": "closed", "pick": [free.pk, colleagues.pk]}
    refused = client.post(BULK, data, follow=True).text
    assert StatusChange.objects.filter(to_status="closed").count() == 0
    assert "Give the reason for closing the proposal." in refused
    data.update(note="The call closed.")
    page = client.post(BULK, data).text
    assert page.count('data-testid="bulk-row"') == 2
    data.update(
        {"confirm": "on", f"status-{free.pk}": "submitted"},
        **{f"status-{colleagues.pk}": "submitted"},
    )
    data[f"handler-{colleagues.pk}"] = handler(colleagues).pk
    client.post(BULK, data)
    statuses = set(
        Proposal.objects.filter(pk__in=[free.pk, colleagues.pk]).values_list(
            "status", flat=True
        )
    )
    assert statuses == {"closed"}


def test_close_with_a_reason_needs_the_reason_then_closes_them_all(
    client, staff_user, three
):
    free, colleagues, _conflicted = three
    client.force_login(staff_user)
    picks = [free.pk, colleagues.pk]
    page = client.post(BULK, {"action": "close", "pick": picks}, follow=True).text
    assert "Give the reason for closing the proposal." in page
    assert not StatusChange.objects.filter(to_status="closed").exists()
    reason = "Duplicate of the spring call's proposal."
    page = client.post(BULK, {"action": "close", "pick": picks, "note": reason}).text
    assert page.count('data-testid="bulk-row"') == 2
    assert "becomes “Closed by staff”" in page
    confirmed = {
        "action": "status",
        "to_status": "closed",
        "note": reason,
        "confirm": "on",
        "pick": picks,
        f"status-{free.pk}": "submitted",
        f"status-{colleagues.pk}": "submitted",
        f"handler-{colleagues.pk}": handler(colleagues).pk,
    }
    client.post(BULK, confirmed)
    for proposal in (free, colleagues):
        proposal.refresh_from_db()
        assert proposal.status == Proposal.Status.CLOSED
    notes = StatusChange.objects.filter(to_status="closed").values_list(
        "note", flat=True
    )
    assert list(notes) == [reason, reason]


def test_export_downloads_the_picked_rows_as_csv(client, staff_user, three):
    free, colleagues, _conflicted = three
    client.force_login(staff_user)
    response = client.post(BULK, {"action": "export", "pick": [free.pk]})
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    text = response.content.decode("utf-8-sig")
    assert "Free one" in text and "Colleague's one" not in text
    assert len(text.strip().splitlines()) == 2  # the header and the one row
    assert handler(free) is None  # a download changes nothing
