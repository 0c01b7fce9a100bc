"""Conflict of interest (issue 31, the desk's side): a staff member on a
proposal's team (owner, editor, viewer) or who declared a conflict with its
organisation reads nothing internal about it and does nothing on it as staff,
through any staff URL, the exports, the services or the admin; gets no staff
mail about it; and sees it in the queue marked, without a link.

The matrix runs every staff URL pattern (read from ``proposals.urls``, so a new
one cannot be forgotten) for each kind of conflicted staff member."""

import pytest
from django.contrib.auth.models import Permission
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from proposals import selectors, services
from proposals.domain.team import organisation_key
from proposals.models import (
    Membership,
    OutgoingMail,
    PdfExport,
    Proposal,
    ReviewComment,
    ReviewState,
    ReviewVisit,
    StaffConflict,
    StatusChange,
    TechnicalAssessment,
)
from proposals.urls import urlpatterns
from proposals.views import staff, staff_diff, staff_settings
from tests.factories import CodeEntryFactory, ProposalFactory, StaffUserFactory

pytestmark = pytest.mark.django_db
S = Proposal.Status

SECRET = "SECRET-internal-7d1f"
KINDS = ["owner", "editor", "viewer", "organisation"]
HTMX = {"HTTP_HX_REQUEST": "true"}


def _submit(proposal, user, capture):
    with capture(execute=True):
        services.review_submit(proposal=proposal, user=user)
    proposal.refresh_from_db()
    return proposal


def declare(user, organisation: str) -> StaffConflict:
    return StaffConflict.objects.create(
        user=user,
        organisation=organisation,
        key=organisation_key(organisation),
        declared_at=timezone.now(),
    )


@pytest.fixture
def colleague(catalogue):
    """A staff member with no conflict: writes the internal notes."""
    return StaffUserFactory(username="colleague")


@pytest.fixture
def conflicted(request, user, colleague, django_capture_on_commit_callbacks):
    """``(staff member, proposal)`` for the kind of conflict asked for, the
    proposal sent for review and carrying an internal note and a reply to it."""
    kind = request.param
    member = StaffUserFactory(username=f"conflicted-{kind}")
    owner = member if kind == "owner" else user
    proposal = ProposalFactory(
        owner=owner, title="Conflicted GPU request", organisation_name="Example AI Oy"
    )
    CodeEntryFactory(proposal=proposal, position=0)
    if kind in ("editor", "viewer"):
        Membership.objects.create(
            proposal=proposal, user=member, role=kind, since=timezone.now()
        )
    if kind == "organisation":
        declare(member, "example ai")
    _submit(proposal, owner, django_capture_on_commit_callbacks)
    note = services.comment_add(
        proposal=proposal,
        author=colleague,
        section="general",
        body=f"{SECRET} do not tell the applicant",
        staff_only=True,
    )
    services.comment_add(
        proposal=proposal,
        author=colleague,
        section="general",
        body=f"{SECRET} reply",
        parent=note,
    )
    mail.outbox.clear()
    member.kind = kind
    member.note = note
    return member, proposal


def _staff_patterns():
    return {
        pattern.name: str(pattern.pattern)
        for pattern in urlpatterns
        if pattern.callback.__module__
        in (staff.__name__, staff_diff.__name__, staff_settings.__name__)
    }


# Every request a staff page answers about one proposal: (name, method, data, htmx).
PROPOSAL_REQUESTS = [
    ("staff_review", "get", {}, False),
    ("staff_review", "get", {"revision": "1"}, False),
    ("staff_diff", "get", {}, False),
    ("staff_diff", "get", {"a": "1", "b": "current"}, False),
    ("staff_comment", "post", {"section": "general", "body": "Hello"}, False),
    ("staff_comment", "post", {"section": "codes", "body": "Hi", "staff_only": "on"}, True),
    ("staff_comment", "post", {"section": "general", "body": "Me too", "parent": "NOTE"}, False),
    ("staff_set_status", "post", {"to_status": "ready", "note": "ok"}, False),
    ("staff_set_status", "post",
     {"to_status": "closed", "note": "no", "from_status": "submitted"}, False),
    ("staff_assign", "post", {"action": "take"}, False),
    ("staff_assign", "post", {"action": "release"}, False),
    ("staff_assign", "post", {"action": "hand_over", "to": "COLLEAGUE"}, False),
    ("staff_assess", "post", {"outcome": "feasible", "text": "fine", "action": "record"}, False),
    ("staff_assess", "post", {"outcome": "feasible", "action": "request_changes"}, False),
]  # fmt: skip
# Staff URLs that name no proposal: they list it (the queue) or have nothing of it.
LIST_REQUESTS = [
    ("review_queue", "get", {"show": "all"}, False),
    ("review_queue", "get", {"show": "all", "q": "Conflicted"}, True),
    ("review_queue_csv", "get", {"show": "all"}, False),
    ("staff_conflicts", "get", {}, False),
    ("staff_settings", "get", {}, False),
    ("landing", "get", {}, False),
]
# The exports a staff member reads as staff (``proposal_get_for_reader``).
EXPORT_REQUESTS = [
    ("export_portal", {}),
    ("export_portal", {"revision": "1"}),
    ("export_markdown", {}),
    ("export_markdown_view", {"revision": "1"}),
    ("export_json", {}),
    ("export_pdf", {}),
]


def test_the_matrix_covers_every_staff_url():
    named = {name for name, *_ in PROPOSAL_REQUESTS + LIST_REQUESTS}
    assert named == set(_staff_patterns())
    with_pk = {name for name, route in _staff_patterns().items() if "<int:pk>" in route}
    assert with_pk == {name for name, *_ in PROPOSAL_REQUESTS}


def _written(proposal):
    """Everything a staff action on ``proposal`` could write."""
    state = ReviewState.objects.get(proposal=proposal)
    return (
        ReviewComment.objects.filter(proposal=proposal).count(),
        StatusChange.objects.filter(proposal=proposal).count(),
        TechnicalAssessment.objects.filter(proposal=proposal).count(),
        ReviewVisit.objects.filter(proposal=proposal).count(),
        OutgoingMail.objects.filter(proposal=proposal).count(),
        state.handled_by_id,
        state.last_activity_at,
        Proposal.objects.get(pk=proposal.pk).status,
    )


@pytest.mark.parametrize("conflicted", KINDS, indirect=True)
@pytest.mark.parametrize("name,method,data,htmx", PROPOSAL_REQUESTS)
def test_every_staff_url_refuses_a_conflicted_staff_member(
    client, colleague, conflicted, name, method, data, htmx
):
    member, proposal = conflicted
    data = {
        key: {"NOTE": member.note.pk, "COLLEAGUE": colleague.pk}.get(value, value)
        for key, value in data.items()
    }
    before = _written(proposal)
    client.force_login(member)
    url = reverse(f"proposals:{name}", args=[proposal.pk])
    response = getattr(client, method)(url, data, **(HTMX if htmx else {}))
    body = response.content.decode()
    assert SECRET not in body
    assert response.status_code == 403, body[:300]
    assert "conflict of interest" in body
    assert _written(proposal) == before


@pytest.mark.parametrize("conflicted", KINDS, indirect=True)
@pytest.mark.parametrize("name,method,data,htmx", LIST_REQUESTS)
def test_lists_mark_the_proposal_and_never_link_to_it(
    client, conflicted, name, method, data, htmx
):
    member, proposal = conflicted
    client.force_login(member)
    response = getattr(client, method)(
        reverse(f"proposals:{name}"), data, follow=True, **(HTMX if htmx else {})
    )
    body = response.content.decode("utf-8-sig")
    assert response.status_code == 200
    assert SECRET not in body
    assert reverse("proposals:staff_review", args=[proposal.pk]) not in body
    if name not in ("staff_conflicts", "staff_settings"):
        assert proposal.title in body
        mark = (
            "conflict: organisation example ai"
            if member.kind == "organisation"
            else "you are on this team"
        )
        assert mark in body


@pytest.mark.parametrize("conflicted", KINDS, indirect=True)
@pytest.mark.parametrize("name,query", EXPORT_REQUESTS)
def test_exports_are_never_read_as_staff(client, conflicted, name, query):
    """A member reads the team's export; an organisation-conflicted staff member
    reads none (404, as anybody off the team)."""
    member, proposal = conflicted
    client.force_login(member)
    response = client.get(reverse(f"proposals:{name}", args=[proposal.pk]), query)
    body = response.content.decode(errors="replace")
    assert SECRET not in body
    assert reverse("proposals:staff_review", args=[proposal.pk]) not in body
    if member.kind == "organisation":
        assert response.status_code == 404
    else:
        assert response.status_code in (200, 302)
    assert not PdfExport.objects.filter(proposal=proposal, for_staff=True).exists()


@pytest.mark.parametrize("conflicted", KINDS, indirect=True)
def test_services_refuse_whatever_the_view_did(conflicted, colleague):
    member, proposal = conflicted
    state = proposal.review_state
    before = _written(proposal)
    refusals = [
        lambda: services.review_set_status(
            proposal=proposal, user=member, to_status=S.CLOSED, note="no"
        ),
        lambda: services.review_assess(
            proposal=proposal,
            user=member,
            revision=state.latest_revision,
            outcome="feasible",
            items=[],
        ),
        lambda: services.review_assign(proposal=proposal, user=member, to=member),
        lambda: services.review_assign(proposal=proposal, user=member, to=colleague),
        lambda: services.review_assign(proposal=proposal, user=member, to=None),
        lambda: services.review_assign(proposal=proposal, user=colleague, to=member),
        lambda: services.comment_add(
            proposal=proposal,
            author=member,
            section="general",
            body="internal?",
            staff_only=True,
        ),
        lambda: services.comment_add(
            proposal=proposal,
            author=member,
            section="general",
            body="reply to a note",
            parent=member.note,
        ),
    ]
    for refuse in refusals:
        with pytest.raises(services.ReviewError, match="conflict of interest"):
            refuse()
    assert _written(proposal) == before


@pytest.mark.parametrize("conflicted", ["editor", "organisation"], indirect=True)
def test_a_conflicted_comment_is_the_teams_or_nothing(conflicted):
    """On the team, a staff member comments as the applicant's side (never as
    staff); with an organisation conflict only, not at all."""
    member, proposal = conflicted
    if member.kind == "organisation":
        with pytest.raises(services.ReviewError, match="conflict of interest"):
            services.comment_add(
                proposal=proposal, author=member, section="general", body="hm"
            )
        return
    comment = services.comment_add(
        proposal=proposal, author=member, section="general", body="From the team"
    )
    assert not comment.by_staff and not comment.staff_only


def test_handing_over_offers_only_free_colleagues(
    client, staff_user, colleague, user, django_capture_on_commit_callbacks
):
    proposal = ProposalFactory(owner=user, title="Shared")
    CodeEntryFactory(proposal=proposal, position=0)
    _submit(proposal, user, django_capture_on_commit_callbacks)
    declare(colleague, "EXAMPLE A.I. OY")
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[proposal.pk])).text
    assert f'value="{colleague.pk}"' not in page
    answer = client.post(
        reverse("proposals:staff_assign", args=[proposal.pk]),
        {"action": "hand_over", "to": colleague.pk},
        follow=True,
    )
    assert "conflict of interest" in answer.text
    assert ReviewState.objects.get(proposal=proposal).handled_by is None


# Mail ------------------------------------------------------------------------------


def _mailed(address):
    return list(
        OutgoingMail.objects.filter(to=address).values_list("subject", flat=True)
    )


@pytest.mark.parametrize("kind", ["editor", "organisation"])
def test_no_staff_mail_to_a_conflicted_staff_member(
    kind, user, colleague, django_capture_on_commit_callbacks
):
    """Review needed, reply, edited, withdrawn: the colleagues are told, the
    conflicted staff member is not (a team member still gets the team's mail)."""
    member = StaffUserFactory(username="conflicted")
    proposal = ProposalFactory(owner=user, title="Mailed")
    CodeEntryFactory(proposal=proposal, position=0)
    if kind == "editor":
        Membership.objects.create(
            proposal=proposal, user=member, role=kind, since=timezone.now()
        )
    else:
        declare(member, "Example AI")
    _submit(proposal, user, django_capture_on_commit_callbacks)  # review needed
    services.comment_add(
        proposal=proposal, author=user, section="general", body="A question"
    )  # reply to staff (a new thread: every staff member)
    services.review_record_edit(proposal=proposal)  # edited during review
    services.review_withdraw(proposal=proposal, note="Deleted")  # withdrawn
    assert len(_mailed(colleague.email)) == 4
    # As a member of the team, the editor hears of the owner's comment as the
    # team does; no staff mail (a link to the staff's pages) reaches them.
    to_member = OutgoingMail.objects.filter(to=member.email)
    assert not [mail for mail in to_member if "/staff/" in mail.body]
    assert to_member.count() == (1 if kind == "editor" else 0)


def test_no_staff_mail_to_a_staff_member_who_sends_their_own(
    staff_user, colleague, django_capture_on_commit_callbacks
):
    proposal = ProposalFactory(owner=staff_user, title="Mine")
    CodeEntryFactory(proposal=proposal, position=0)
    _submit(proposal, staff_user, django_capture_on_commit_callbacks)
    assert _mailed(staff_user.email) == []
    assert len(_mailed(colleague.email)) == 1


def test_a_conflicted_handler_is_not_mailed(
    staff_user, colleague, user, django_capture_on_commit_callbacks
):
    """A handler who declares a conflict afterwards: the proposal's mail goes to
    the free colleagues, and taking it over from them tells them nothing."""
    proposal = ProposalFactory(owner=user, title="Handled")
    CodeEntryFactory(proposal=proposal, position=0)
    _submit(proposal, user, django_capture_on_commit_callbacks)
    services.review_assign(proposal=proposal, user=staff_user, to=staff_user)
    declare(staff_user, "FI20774740")  # by VAT number
    OutgoingMail.objects.all().delete()
    services.comment_add(proposal=proposal, author=user, section="general", body="?")
    services.review_assign(
        proposal=proposal, user=colleague, to=colleague, expected_handler=staff_user
    )
    assert _mailed(staff_user.email) == []
    assert _mailed(colleague.email) != []


# Admin -----------------------------------------------------------------------------


@pytest.fixture
def admin_member(conflicted):
    """The conflicted staff member with every right in the admin."""
    member, proposal = conflicted
    member.is_staff = member.is_superuser = True
    member.save()
    return member, proposal


@pytest.mark.parametrize("conflicted", KINDS, indirect=True)
def test_admin_hides_internal_notes_from_a_conflicted_staff_member(
    client, admin_member, colleague, django_capture_on_commit_callbacks
):
    member, proposal = admin_member
    notes = ReviewComment.objects.filter(proposal=proposal, staff_only=True)
    assert notes.count() == 2
    links = [
        reverse("admin:proposals_reviewcomment_change", args=[note.pk])
        for note in notes
    ]
    client.force_login(member)
    changelist = reverse("admin:proposals_reviewcomment_changelist")
    for query in ({}, {"q": "do not tell"}, {"staff_only__exact": "1"}):
        page = client.get(changelist, query).text
        assert not any(link in page for link in links)
    for link in links:
        page = client.get(link, follow=True)
        assert SECRET not in page.text
    # A colleague handing it over is staff mail about it: not shown to them.
    services.review_assign(proposal=proposal, user=colleague, to=colleague)
    mails = reverse("admin:proposals_outgoingmail_changelist")
    assert OutgoingMail.objects.filter(proposal=proposal).exists()
    assert "Conflicted GPU request" not in client.get(mails).text
    # A free colleague with the same rights sees the notes and the mail.
    colleague.is_staff = colleague.is_superuser = True
    colleague.save()
    client.force_login(colleague)
    page = client.get(changelist).text
    assert all(link in page for link in links)
    assert "Conflicted GPU request" in client.get(mails).text


def test_support_staff_mail_delivery_hides_a_conflicted_proposals_staff_mail(
    client, user, colleague, django_capture_on_commit_callbacks
):
    """The staff group's own admin right (mail delivery) obeys it too."""
    member = StaffUserFactory(username="declared")
    member.is_staff = True
    member.save()
    member.user_permissions.add(Permission.objects.get(codename="view_outgoingmail"))
    proposal = ProposalFactory(owner=user, title="Their organisation's")
    CodeEntryFactory(proposal=proposal, position=0)
    declare(member, "Example AI")
    _submit(proposal, user, django_capture_on_commit_callbacks)
    client.force_login(member)
    page = client.get(reverse("admin:proposals_outgoingmail_changelist")).text
    assert "Their organisation" not in page


# The team on the review page, and the settings ---------------------------------------


def test_review_page_lists_the_team(client, staff_user, user, submitted, other_user):
    since = timezone.now()
    Membership.objects.create(
        proposal=submitted, user=other_user, role="viewer", since=since
    )
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[submitted.pk])).text
    team = page.split('data-testid="team"', 1)[1].split("</section>", 1)[0]
    assert user.get_username() in team and "Owner" in team
    assert other_user.get_username() in team and "Viewer" in team


def test_staff_declare_and_remove_a_conflict(client, staff_user, submitted):
    client.force_login(staff_user)
    url = reverse("proposals:staff_conflicts")
    answer = client.post(url, {"organisation": "Example AI"}, follow=True)
    assert "Example AI" in answer.text
    assert StaffConflict.objects.filter(user=staff_user, key="example ai").exists()
    assert selectors.review_conflict(user=staff_user, proposal=submitted)
    review = reverse("proposals:staff_review", args=[submitted.pk])
    assert client.get(review).status_code == 403
    conflict = StaffConflict.objects.get(user=staff_user)
    client.post(url, {"remove": conflict.pk}, follow=True)
    assert not StaffConflict.objects.filter(user=staff_user).exists()
    assert client.get(review).status_code == 200


def test_settings_link_to_conflicts_for_staff_only(client, staff_user, user):
    settings_url = reverse("account_settings")
    conflicts = reverse("proposals:staff_conflicts")
    client.force_login(staff_user)
    assert conflicts in client.get(settings_url).text
    client.force_login(user)
    assert conflicts not in client.get(settings_url).text
    assert client.get(conflicts).status_code == 404
