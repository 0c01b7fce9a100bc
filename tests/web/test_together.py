"""Writing one proposal together (issue 31): people of one team saving at once get
the same per-field merge as two tabs, a conflict names who saved the other value
and when, the step page shows who else has the proposal open, and every change is
attributed (field stamps, the revision history, the staff diff)."""

import html
import json
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from proposals import selectors
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, format_number
from proposals.models import (
    FieldStamp,
    Membership,
    Preferences,
    Presence,
    Proposal,
)
from proposals.wizard.changes import field_bases
from proposals.wizard.steps import STEP_BY_SLUG, build_step_forms
from tests.factories import JobTypeFactory, ProposalFactory, UserFactory

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


def member(proposal, name: str, *, first: str = "", role="editor"):
    """A person on ``proposal``'s team (``role``), logged in on a client of their
    own."""
    person = UserFactory(username=name, first_name=first)
    Membership.objects.create(
        proposal=proposal, user=person, role=role, since=timezone.now()
    )
    return person, logged_in(person)


def logged_in(person) -> Client:
    client = Client()
    client.force_login(person)
    return client


def url(proposal, step="selection"):
    return reverse("proposals:step", args=[proposal.pk, step])


def opened(proposal, step="selection", user=None) -> dict:
    """What the step's page posts as it was loaded now: every input with the value
    it shows, and their bases."""
    fresh = selectors.proposal_get_for_member(
        user=user or proposal.owner, pk=proposal.pk
    )
    forms = build_step_forms(STEP_BY_SLUG[step], fresh)
    data = {"autosave": "1", "bases": json.dumps(field_bases(forms))}
    for form in forms.all_forms():
        for field in form:
            value = field.value()
            data[field.html_name] = "" if value is None else str(value)
    return data


def typed(client, proposal, page: dict, step="selection", **changes):
    """The autosave of ``page`` with ``changes`` typed in (input name -> text)."""
    response = client.post(url(proposal, step), {**page, **changes}, headers=HX)
    assert response.status_code == 200
    return response.content.decode()


def conflict_items(content: str) -> list[str]:
    """The conflict banner's items, as text."""
    items = re.findall(r'<li class="mb-2" data-conflict=.*?</li>', content, re.S)
    return [
        re.sub(r"[ \t\n]+", " ", html.unescape(re.sub(r"<[^>]+>", " ", item)))
        for item in items
    ]


def field_conflict(content: str) -> str:
    found = re.search(r'data-testid="field-conflict">([^<]*)<', content)
    return html.unescape(found.group(1)).strip() if found else ""


@pytest.fixture
def shared(user):
    user.first_name = "Olga"
    user.save()
    return ProposalFactory(
        owner=user, total_gpu_hours=Decimal(10000), libraries="PyTorch"
    )


# --- Saving at once ---------------------------------------------------------------


def test_two_people_editing_different_fields_both_save(shared, user_client):
    anna, anna_client = member(shared, "anna", first="Anna")
    mine, hers = opened(shared), opened(shared, user=anna)
    typed(user_client, shared, mine, libraries="JAX 0.4")
    answer = typed(anna_client, shared, hers, total_gpu_hours="12000")
    assert 'data-testid="conflict"' not in answer
    stored = Proposal.objects.get(pk=shared.pk)
    assert (stored.libraries, stored.total_gpu_hours) == ("JAX 0.4", 12000)
    stamps = {s.key: s.user_id for s in FieldStamp.objects.filter(proposal=shared)}
    assert stamps["libraries"] == shared.owner_id
    assert stamps["total_gpu_hours"] == anna.pk


def test_the_later_of_two_is_told_who_saved_the_same_field_and_both_values(
    shared, user_client
):
    anna, anna_client = member(shared, "anna", first="Anna")
    # Olga writes numbers the French way: "12 000".
    Preferences.objects.create(user=shared.owner, number_format="fr")
    fr = NUMBER_FORMAT_BY_NAME["fr"]
    mine, hers = opened(shared), opened(shared, user=anna)
    typed(anna_client, shared, hers, total_gpu_hours="12000")
    FieldStamp.objects.filter(proposal=shared, key="total_gpu_hours").update(
        at=timezone.now() - timedelta(seconds=20)
    )
    answer = typed(user_client, shared, mine, total_gpu_hours="11000")
    twelve, eleven = format_number(12000, fr), format_number(11000, fr)
    assert (
        f"Anna saved {twelve} here 20 s ago; you typed {eleven}"
        in (conflict_items(answer)[0])
    )
    # The field says it too, under the input (its feedback block).
    assert field_conflict(answer) == (
        f"Anna saved {twelve} here 20 s ago; you typed {eleven}."
    )
    assert Proposal.objects.get(pk=shared.pk).total_gpu_hours == 12000
    stamp = FieldStamp.objects.get(proposal=shared, key="total_gpu_hours")
    assert stamp.user_id == anna.pk  # the refused save stamped nothing


def test_three_people_at_once_nothing_lost_and_the_last_told(shared, user, user_client):
    anna, anna_client = member(shared, "anna", first="Anna")
    ben, ben_client = member(shared, "ben", first="Ben")
    job = JobTypeFactory(proposal=shared, position=0, title="pretrain", gpus=8)
    pages = {who: opened(shared, "scalability", user=who) for who in (user, anna, ben)}
    prefix = f"jobs-{job.pk}-"
    typed(
        user_client,
        shared,
        pages[user],
        "scalability",
        scalability_narrative="We measured.",
    )
    typed(anna_client, shared, pages[anna], "scalability", **{prefix + "gpus": "16"})
    answer = typed(
        ben_client,
        shared,
        pages[ben],
        "scalability",
        **{prefix + "title": "finetune", prefix + "gpus": "32"},
    )
    # Ben's title is saved; his GPUs are not: Anna saved that field first.
    items = conflict_items(answer)
    assert len(items) == 1 and "Anna saved 16 here" in items[0]
    assert "you typed 32" in items[0]
    stored = Proposal.objects.get(pk=shared.pk)
    job.refresh_from_db()
    assert stored.scalability_narrative == "We measured."
    assert (job.title, job.gpus) == ("finetune", 16)
    stamps = {s.key: s.user_id for s in FieldStamp.objects.filter(proposal=shared)}
    assert stamps["scalability_narrative"] == user.pk
    assert stamps[f"jobs:{job.pk}:gpus"] == anna.pk
    assert stamps[f"jobs:{job.pk}:title"] == ben.pk


def test_the_same_person_in_two_tabs_is_told_it_was_them(shared, user_client):
    member(shared, "anna")
    first, second = opened(shared), opened(shared)
    typed(user_client, shared, first, libraries="JAX")
    answer = typed(user_client, shared, second, libraries="TensorFlow")
    assert (
        "you saved JAX in another tab 0 s ago; here you typed TensorFlow"
        in (conflict_items(answer)[0])
    )
    assert field_conflict(answer).startswith("You saved JAX in another tab")


def test_alone_two_tabs_keep_no_stamps_and_say_it_was_you(user, user_client):
    """A proposal without a team writes no stamp and notes no presence: its
    autosave costs what it did; its two tabs are still told it was them."""
    proposal = ProposalFactory(owner=user, libraries="PyTorch")
    first, second = opened(proposal), opened(proposal)
    typed(user_client, proposal, first, libraries="JAX")
    with CaptureQueriesContext(connection) as queries:
        answer = typed(user_client, proposal, second, libraries="TensorFlow")
    # Only the proposal's read asks (in the same query) whether there is a team.
    assert not [
        q["sql"]
        for q in queries.captured_queries
        if ("fieldstamp" in q["sql"] or "presence" in q["sql"])
        and not q["sql"].startswith('SELECT "proposals_proposal"')
    ]
    assert not FieldStamp.objects.filter(proposal=proposal).exists()
    assert not Presence.objects.exists()
    assert (
        "you saved JAX in another tab; here you typed TensorFlow"
        in (conflict_items(answer)[0])
    )


def test_a_deleted_account_is_a_former_member(shared, user_client):
    anna, anna_client = member(shared, "anna", first="Anna")
    mine, hers = opened(shared), opened(shared, user=anna)
    typed(anna_client, shared, hers, libraries="JAX")
    anna.delete()
    answer = typed(user_client, shared, mine, libraries="TensorFlow")
    assert "a former member saved JAX here" in conflict_items(answer)[0]


def test_stamps_come_with_the_first_team_and_say_who_wrote_before(user, user_client):
    proposal = ProposalFactory(owner=user, libraries="PyTorch")
    typed(user_client, proposal, opened(proposal), libraries="JAX")
    assert not FieldStamp.objects.filter(proposal=proposal).exists()
    anna, anna_client = member(proposal, "anna")
    typed(anna_client, proposal, opened(proposal, user=anna), libraries="Flax")
    stamps = {s.key: s.user_id for s in FieldStamp.objects.filter(proposal=proposal)}
    assert stamps == {"libraries": anna.pk, "*": user.pk}
    # From then on the owner's saves are stamped too, team or not.
    Membership.objects.filter(proposal=proposal).delete()
    typed(user_client, proposal, opened(proposal), libraries="MLX")
    assert FieldStamp.objects.get(proposal=proposal, key="libraries").user == user


def test_a_removed_row_takes_its_stamps_along(shared, user_client):
    member(shared, "anna")
    job = JobTypeFactory(proposal=shared, position=0, title="pretrain")
    page = opened(shared, "scalability")
    typed(user_client, shared, page, "scalability", **{f"jobs-{job.pk}-title": "x"})
    assert FieldStamp.objects.filter(key=f"jobs:{job.pk}:title").exists()
    delete = reverse(
        "proposals:row",
        kwargs={
            "pk": shared.pk,
            "step": "scalability",
            "kind": "jobs",
            "row": job.pk,
            "operation": "delete",
        },
    )
    page = opened(shared, "scalability")
    page.pop("autosave")
    assert user_client.post(delete, page).status_code in (200, 302)
    assert not shared.jobs.exists()
    assert not FieldStamp.objects.filter(key__startswith=f"jobs:{job.pk}:").exists()


# --- Presence ---------------------------------------------------------------------


def present(content: str) -> list[tuple[str, str]]:
    """Who the presence region names, and the step each is on (data-step)."""
    region = content.split('id="live-presence"', 1)[1].split("</div>", 1)[0]
    return re.findall(r'data-step="([^"]+)"><strong>([^<]+)</strong>', region)


def test_the_step_page_shows_who_else_has_the_proposal_open(shared, user_client):
    anna, anna_client = member(shared, "anna", first="Anna")
    ben, ben_client = member(shared, "ben", first="Ben")
    alone = user_client.get(url(shared)).content.decode()
    assert present(alone) == [] and "Also here" not in alone
    anna_client.get(url(shared, "scalability"))
    ben_client.get(url(shared))
    page = user_client.get(url(shared)).content.decode()
    assert present(page) == [("scalability", "Anna"), ("selection", "Ben")]
    assert "(this step)" in page  # Ben is on Olga's step
    # Anna sees Olga and Ben, not herself.
    theirs = anna_client.get(url(shared, "scalability")).content.decode()
    assert [name for _step, name in present(theirs)] == ["Ben", "Olga"]


def test_presence_comes_with_the_autosave_answers_and_expires(shared, user_client):
    anna, anna_client = member(shared, "anna", first="Anna")
    page = user_client.get(url(shared)).content.decode()
    shown = html.unescape(
        page.split('name="regions" id="regions-field" value="')[1].split('"')[0]
    )
    assert "live-presence:" in shown
    anna_client.get(url(shared, "codes"))
    data = {**opened(shared), "regions": shown}
    answer = typed(user_client, shared, data, libraries="JAX")
    assert 'id="live-presence"' in answer and present(answer) == [("codes", "Anna")]
    # Seen three minutes ago: no longer present; the next answer says so.
    Presence.objects.filter(user=anna).update(
        seen_at=timezone.now() - timedelta(minutes=3)
    )
    answered = html.unescape(
        answer.split('name="regions" id="regions-field" value="')[1].split('"')[0]
    )
    data = {**opened(shared), "regions": answered}
    later = typed(user_client, shared, data, libraries="Flax")
    assert 'id="live-presence"' in later and present(later) == []
    # Her own autosave notes her again, on the step she typed on.
    typed(anna_client, shared, opened(shared, user=anna), libraries="MLX")
    again = user_client.get(url(shared)).content.decode()
    assert present(again) == [("selection", "Anna")]


def test_an_autosave_notes_presence_at_most_every_twenty_seconds(shared, user_client):
    member(shared, "anna")
    typed(user_client, shared, opened(shared), libraries="JAX")
    first = Presence.objects.get(user=shared.owner).seen_at
    typed(user_client, shared, opened(shared), libraries="Flax")
    assert Presence.objects.get(user=shared.owner).seen_at == first
    Presence.objects.update(seen_at=first - timedelta(seconds=30))
    typed(user_client, shared, opened(shared), libraries="MLX")
    assert Presence.objects.get(user=shared.owner).seen_at > first


# --- Who changed what ---------------------------------------------------------------


def test_each_field_says_who_changed_it_last(shared, user_client):
    anna, anna_client = member(shared, "anna", first="Anna")
    typed(anna_client, shared, opened(shared, user=anna), libraries="JAX")
    page = user_client.get(url(shared)).content.decode()
    wrap = page.split('id="wrap-id_libraries"', 1)[1].split('id="fb-id_libraries"')[0]
    assert 'data-testid="field-history"' in wrap and 'type="button"' in wrap
    tip = re.search(r'role="tooltip"\s+id="fh-id_libraries">([^<]+)<', wrap)
    assert tip and tip.group(1).startswith("Last changed by Anna on ")
    # A field nobody stamped has no history link.
    other = page.split('id="wrap-id_total_gpu_hours"', 1)[1].split("fb-id_total")[0]
    assert 'data-testid="field-history"' not in other


def _send(proposal, user):
    from proposals import services

    services.review_submit(proposal=proposal, user=user)


def test_revision_history_and_staff_diff_name_the_person(
    shared, user, user_client, client, staff_user
):
    from proposals import services

    anna, anna_client = member(shared, "anna", first="Anna")
    ben, ben_client = member(shared, "ben", first="Ben")
    _send(shared, user)  # revision 1
    services.review_set_status(
        proposal=shared,
        user=staff_user,
        to_status=Proposal.Status.CHANGES_REQUESTED,
        note="More hours?",
    )
    typed(anna_client, shared, opened(shared, user=anna), total_gpu_hours="12000")
    typed(ben_client, shared, opened(shared, user=ben), libraries="JAX")
    ben.delete()  # Ben's account is gone: a former member
    _send(Proposal.objects.get(pk=shared.pk), user)  # revision 2
    history = user_client.get(reverse("proposals:review_status", args=[shared.pk]))
    authors = history.content.decode().split('data-testid="revision-authors"')[1]
    authors = authors.split("</ul>")[0]
    assert "Anna changed Total GPU-hours" in authors
    assert "former member changed Software libraries and codes" in authors
    client.force_login(staff_user)
    diff = client.get(
        reverse("proposals:staff_diff", args=[shared.pk]), {"a": 1, "b": 2}
    ).content.decode()
    names = re.findall(
        r'<dt class="col-sm-4 fw-normal">([^<]+)<.*?data-testid="changed-by">by ([^<]+)<',
        diff,
        re.S,
    )
    assert {label.strip(): name for label, name in names} == {
        "Total GPU-hours": "Anna",
        "Software libraries and codes": "former member",
    }


def test_a_revisions_stamps_are_as_immutable_as_the_rest(shared, user):
    """The database refuses an update of a revision's record, its stamps included
    (the guard survives adding the column)."""
    from django.db import IntegrityError, transaction

    from proposals.models import ProposalRevision

    member(shared, "anna")
    _send(shared, user)
    revisions = ProposalRevision.objects.filter(proposal=shared)
    assert revisions.get().stamps["*"]["id"] == user.pk
    for values in (
        {"snapshot": {"format": "forged"}},
        {"stamps": {"*": {}}},
        {"row_ids": {"jobs": [1]}},
    ):
        with pytest.raises(IntegrityError), transaction.atomic():
            revisions.update(**values)
