"""Staff mail that scales (issue 34): each staff member chooses which mail they
get ("only mine" once they handle something), and a hand-over to a colleague whose
address is unconfirmed warns and reaches the desk's address or the other staff."""

import pytest
from django.urls import reverse

from proposals import services
from proposals.models import OutgoingMail, Preferences
from tests.factories import CodeEntryFactory, ProposalFactory, StaffUserFactory

pytestmark = pytest.mark.django_db


def send(user, title):
    proposal = ProposalFactory(owner=user, title=title)
    CodeEntryFactory(proposal=proposal, position=0)
    services.review_submit(proposal=proposal, user=user)
    return proposal


def told(title) -> set[str]:
    """Who was mailed that ``title`` was sent for review."""
    return set(
        OutgoingMail.objects.filter(subject__contains=title).values_list(
            "to", flat=True
        )
    )


def test_only_mine_once_a_person_handles_something(user, staff_user, second_staff):
    first = send(user, "First proposal")
    assert told("First proposal") == {staff_user.email, second_staff.email}
    services.review_assign(proposal=first, user=staff_user, to=staff_user)
    assert Preferences.objects.get(user=staff_user).staff_mail == "mine"
    send(user, "Second proposal")
    assert told("Second proposal") == {second_staff.email}
    # A choice made on purpose stays: "all" again.
    services.staff_settings_set(user=staff_user, holiday_calendar="", staff_mail="all")
    services.review_assign(proposal=first, user=staff_user, to=staff_user)
    send(user, "Third proposal")
    assert told("Third proposal") == {staff_user.email, second_staff.email}


def test_digest_readers_get_no_mail_at_once_and_the_desk_address_catches_the_rest(
    user, staff_user, second_staff, settings
):
    services.staff_settings_set(
        user=staff_user, holiday_calendar="", staff_mail="digest", digest_hour=9
    )
    services.staff_settings_set(
        user=second_staff, holiday_calendar="", staff_mail="mine"
    )
    settings.DESK_EMAIL = ""
    send(user, "Nobody wants it")
    mail = OutgoingMail.objects.get(subject__contains="Nobody wants it")
    assert mail.status == "undeliverable"  # stored and shown, never dropped
    settings.DESK_EMAIL = "desk@aifactory.example"
    send(user, "The desk takes it")
    assert told("The desk takes it") == {"desk@aifactory.example"}


def test_hand_over_to_an_unconfirmed_address_warns_and_reaches_someone(
    client, user, staff_user, second_staff, settings
):
    settings.DESK_EMAIL = ""
    unconfirmed = StaffUserFactory(verified=False)
    proposal = send(user, "Relay")
    client.force_login(staff_user)
    page = client.post(
        reverse("proposals:staff_assign", args=[proposal.pk]),
        {"action": "hand_over", "to": unconfirmed.pk},
        follow=True,
    ).text
    assert "has not confirmed their e-mail address" in page
    assert "went to the other staff instead" in page
    handover = OutgoingMail.objects.filter(subject__contains="who cannot be mailed")
    assert set(handover.values_list("to", flat=True)) == {second_staff.email}
    assert not handover.filter(status="undeliverable").exists()
    # With the desk's shared address, it goes there.
    settings.DESK_EMAIL = "desk@aifactory.example"
    handover.delete()
    services.review_assign(
        proposal=proposal, user=staff_user, to=staff_user, expected_handler=unconfirmed
    )
    client.post(
        reverse("proposals:staff_assign", args=[proposal.pk]),
        {"action": "hand_over", "to": unconfirmed.pk},
    )
    assert set(
        OutgoingMail.objects.filter(
            subject__contains="who cannot be mailed"
        ).values_list("to", flat=True)
    ) == {"desk@aifactory.example"}


def test_desk_settings_page_stores_the_mail_choice(client, staff_user):
    client.force_login(staff_user)
    url = reverse("proposals:staff_settings")
    page = client.get(url).text
    assert "Only the proposals I handle" in page
    response = client.post(url, {"holiday_calendar": "", "staff_mail": "mine"})
    assert response.status_code == 302
    assert Preferences.objects.get(user=staff_user).staff_mail == "mine"
    # The digest is offered now that it is sent (tests/web/test_desk_digest.py).
    assert "daily digest" in page


def test_an_archived_proposal_under_review_is_marked_in_the_queue(
    client, user, staff_user
):
    proposal = send(user, "Filed away")
    client.force_login(staff_user)
    page = client.get(reverse("proposals:review_queue")).text
    assert 'data-testid="queue-archived"' not in page
    services.proposal_set_archived(proposal=proposal, archived=True)
    page = client.get(reverse("proposals:review_queue")).text
    assert 'data-testid="queue-archived"' in page
    assert "archived by the applicant" in page
