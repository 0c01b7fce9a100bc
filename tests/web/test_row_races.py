"""Two tabs on one proposal, over HTTP (issue 20): a row changed in one tab is not
deleted by a stale other tab without the person choosing; an edit of a row another
tab removed is kept and offered back; no answer says "Saved" for something not
stored; rows are moved past the neighbour the page showed. (Another tab's newer
field values and the undo of a paste are in ``test_row_refresh``.)"""

import json
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from proposals.models import JobType, Proposal
from tests.factories import JobTypeFactory

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


class _Form(HTMLParser):
    """The values the wizard's form would post as shown (no button pressed)."""

    def __init__(self):
        super().__init__()
        self.inside = False
        self.data: dict[str, str] = {}
        self._textarea = self._select = None
        self._first_option = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == "wizard-form":
            self.inside = True
        if not self.inside:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text")
            if kind in ("submit", "button"):
                return
            if kind in ("radio", "checkbox") and "checked" not in attrs:
                return
            self.data[name] = attrs.get("value", "on" if kind == "checkbox" else "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = ""
        elif tag == "select" and name:
            self._select, self._first_option = name, None
        elif tag == "option" and self._select:
            value = attrs.get("value", "")
            if self._first_option is None:
                self._first_option = value
                self.data.setdefault(self._select, value)
            if "selected" in attrs:
                self.data[self._select] = value

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._textarea:
            self.data[self._textarea] += data.removeprefix("\n")


def form_of(page: str) -> dict[str, str]:
    parser = _Form()
    parser.feed(page)
    return parser.data


def step_url(proposal, step="scalability"):
    return reverse("proposals:step", args=[proposal.pk, step])


def row_url(proposal, operation, row_pk, kind="jobs", step="scalability"):
    return reverse(
        "proposals:row",
        kwargs={
            "pk": proposal.pk,
            "step": step,
            "kind": kind,
            "operation": operation,
            "row": row_pk,
        },
    )


def load(client, proposal, step="scalability") -> dict[str, str]:
    """A tab opening ``step``: the data its form posts."""
    return form_of(client.get(step_url(proposal, step)).content.decode())


def status_of(content: str) -> str:
    """The save indicator's state in an answer (``saved``, ``refused``, ...)."""
    return content.split('id="save-status"')[1].split('data-state="')[1].split('"')[0]


def autosave(client, proposal, data, step="scalability"):
    return client.post(step_url(proposal, step), {**data, "autosave": "1"}, headers=HX)


# --- A stale delete -------------------------------------------------------------


@pytest.mark.parametrize("htmx", [True, False])
def test_stale_delete_of_a_row_changed_in_another_tab_asks_first(
    user_client, proposal, htmx
):
    job = JobTypeFactory(proposal=proposal, title="Pretraining")
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    tab_1[f"jobs-{job.pk}-title"] = "Pretraining, renamed in tab 1"
    assert status_of(autosave(user_client, proposal, tab_1).content.decode()) == (
        "saved"
    )
    headers = HX if htmx else {}
    response = user_client.post(
        row_url(proposal, "delete", job.pk), tab_2, headers=headers
    )
    assert response.status_code == 200  # a page that asks, not a redirect
    content = response.content.decode()
    job.refresh_from_db()  # not deleted: tab 1's edit is there
    assert job.title == "Pretraining, renamed in tab 1"
    # The table kind's own word, the change, and the two choices.
    assert "This job type was changed in another tab" in content
    assert "Pretraining, renamed in tab 1" in content
    assert 'data-testid="delete-anyway"' in content and "Delete anyway" in content
    assert 'data-testid="keep-row"' in content and "Keep it" in content
    assert status_of(content) == "question"
    # "Delete anyway" is a real submit button of the form, posting to the delete.
    anyway = content.split('data-testid="delete-anyway"')[0].rsplit("<button", 1)[1]
    assert f'formaction="{row_url(proposal, "delete", job.pk)}"' in anyway
    # The answer shows the stored row: "Delete anyway" from it removes it.
    again = form_of(content)
    assert again[f"jobs-{job.pk}-title"] == "Pretraining, renamed in tab 1"
    response = user_client.post(
        row_url(proposal, "delete", job.pk), again, headers=headers
    )
    assert not JobType.objects.filter(pk=job.pk).exists()


def test_keep_it_keeps_the_row_and_clears_the_question(user_client, proposal):
    job = JobTypeFactory(proposal=proposal, title="Pretraining")
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    tab_1[f"jobs-{job.pk}-title"] = "Renamed"
    autosave(user_client, proposal, tab_1)
    content = user_client.post(
        row_url(proposal, "delete", job.pk), tab_2, headers=HX
    ).content.decode()
    # "Keep it": an autosave of the form as answered (no JavaScript: a Save).
    kept = {**form_of(content), "save": "1"}
    content = autosave(user_client, proposal, kept).content.decode()
    assert 'data-testid="row-changed"' not in content
    assert status_of(content) in ("saved", "idle")
    assert JobType.objects.get(pk=job.pk).title == "Renamed"
    response = user_client.post(step_url(proposal), kept)  # without JavaScript
    assert response.status_code == 302
    assert JobType.objects.filter(pk=job.pk).exists()


def test_delete_of_an_unchanged_row_and_of_one_edited_in_this_tab(
    user_client, proposal
):
    kept, edited = JobTypeFactory(proposal=proposal), JobTypeFactory(proposal=proposal)
    tab = load(user_client, proposal)
    # The other row changed elsewhere does not stop this one's delete.
    other = load(user_client, proposal)
    other[f"jobs-{kept.pk}-title"] = "changed elsewhere"
    autosave(user_client, proposal, other)
    tab[f"jobs-{edited.pk}-title"] = "typed here, then deleted"
    response = user_client.post(row_url(proposal, "delete", edited.pk), tab, headers=HX)
    assert 'data-testid="row-changed"' not in response.content.decode()
    assert not JobType.objects.filter(pk=edited.pk).exists()
    assert JobType.objects.get(pk=kept.pk).title == "changed elsewhere"


def test_delete_of_a_row_already_removed_says_so(user_client, proposal):
    job = JobTypeFactory(proposal=proposal)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1, headers=HX)
    for operation in ("delete", "up", "down"):
        response = user_client.post(
            row_url(proposal, operation, job.pk), tab_2, headers=HX
        )
        assert response.status_code == 200, operation
        content = response.content.decode()
        assert "This job type had already been removed in another tab" in content


# --- An edit of a row another tab removed ---------------------------------------


def test_edit_of_a_row_removed_elsewhere_is_kept_and_offered_back(
    user_client, proposal
):
    job = JobTypeFactory(proposal=proposal, title="Ablations", gpus=8, count=10)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1, headers=HX)
    tab_2[f"jobs-{job.pk}-title"] = "Ablations, longer"
    tab_2[f"jobs-{job.pk}-count"] = "12"
    content = autosave(user_client, proposal, tab_2).content.decode()
    assert status_of(content) == "refused"
    assert "Saved" not in content.split('id="save-status"')[1].split("</div>")[0]
    assert "Not saved: a job type you edited was removed in another tab" in content
    assert "Ablations, longer" in content  # what was typed, shown back
    assert 'data-testid="restore-row"' in content
    # Kept across a reload (and counted as not saved).
    page = user_client.get(step_url(proposal)).content.decode()
    assert 'data-testid="row-gone"' in page and "Ablations, longer" in page
    assert 'data-testid="step-not-saved"' in page
    # One click adds it back with the typed values.
    response = user_client.post(
        row_url(proposal, "restore", job.pk), form_of(page), headers=HX
    )
    assert response.status_code == 200
    restored = JobType.objects.get(proposal=proposal)
    assert (restored.title, restored.gpus, restored.count) == (
        "Ablations, longer",
        8,
        12,
    )
    content = response.content.decode()
    assert 'data-testid="row-gone"' not in content
    assert Proposal.objects.get(pk=proposal.pk).refused_inputs == {}


def save_status(content: str) -> str:
    """The text of the save indicator in an answer."""
    return content.split('id="save-status"')[1].split("</div>")[0]


def test_later_saves_say_saved_under_the_pending_note_of_the_removed_row(
    user_client, proposal
):
    """Once the removed row's typing is kept (and said to be), each later save of
    the step, from either tab, says what it did itself: it stored its change."""
    job = JobTypeFactory(proposal=proposal, title="Ablations")
    prefix = f"jobs-{job.pk}"
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1, headers=HX)
    tab_2[f"{prefix}-title"] = "Ablations, longer"
    content = autosave(user_client, proposal, tab_2).content.decode()
    assert status_of(content) == "refused"
    # The page's script sends again only the rows typed into since its last save.
    tab_2 = {k: v for k, v in tab_2.items() if not k.startswith(f"{prefix}-")}
    tab_1 = load(user_client, proposal)
    edits = [
        (tab_2, "scalability_narrative", "Ablations first.", "Ablations first."),
        (tab_1, "runtime_stability_pct", "90", Decimal(90)),
        (tab_2, "scalability_narrative", "Then training.", "Then training."),
    ]
    for tab, name, value, stored in edits:
        tab[name] = value
        content = autosave(user_client, proposal, tab).content.decode()
        tab["bases"] = json.dumps({**json.loads(tab["bases"]), name: value})
        assert status_of(content) == "saved", name
        assert "Saved" in save_status(content), name
        assert "removed in another tab" not in save_status(content), name
        assert getattr(Proposal.objects.get(pk=proposal.pk), name) == stored
        # The row's note stays until it is added back or discarded.
        banner = content.split('data-testid="row-gone"')[1]
        assert "This job type was removed in another tab" in banner, name
        assert "Ablations, longer" in banner, name
    # A reload shows the note, and the typing still kept.
    page = user_client.get(step_url(proposal)).content.decode()
    assert 'data-testid="row-gone"' in page and "Ablations, longer" in page


def test_restore_prefers_the_values_the_page_still_shows(user_client, proposal):
    job = JobTypeFactory(proposal=proposal, title="Ablations")
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1, headers=HX)
    tab_2[f"jobs-{job.pk}-title"] = "first text"
    autosave(user_client, proposal, tab_2)
    tab_2[f"jobs-{job.pk}-title"] = "typed after the answer"
    user_client.post(row_url(proposal, "restore", job.pk), tab_2, headers=HX)
    assert JobType.objects.get(proposal=proposal).title == "typed after the answer"


def test_discard_forgets_what_was_typed_into_a_removed_row(user_client, proposal):
    job = JobTypeFactory(proposal=proposal)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1, headers=HX)
    tab_2[f"jobs-{job.pk}-title"] = "never mind"
    autosave(user_client, proposal, tab_2)
    page = user_client.get(step_url(proposal)).content.decode()
    user_client.post(row_url(proposal, "discard", job.pk), form_of(page), headers=HX)
    assert Proposal.objects.get(pk=proposal.pk).refused_inputs == {}
    assert not JobType.objects.filter(proposal=proposal).exists()
    page = user_client.get(step_url(proposal)).content.decode()
    assert 'data-testid="row-gone"' not in page


def test_without_javascript_an_edit_of_a_removed_row_is_not_called_saved(
    user_client, proposal
):
    job = JobTypeFactory(proposal=proposal, title="Ablations")
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1)
    tab_2[f"jobs-{job.pk}-title"] = "typed without JavaScript"
    response = user_client.post(step_url(proposal), {**tab_2, "save": "1"})
    assert response.status_code == 200  # the step again, not a redirect onwards
    content = response.content.decode()
    assert status_of(content) == "refused"
    assert "typed without JavaScript" in content
    # "Add it back" is a real button of the form: the values come from the server.
    response = user_client.post(row_url(proposal, "restore", job.pk), form_of(content))
    assert response.status_code == 302
    assert JobType.objects.get(proposal=proposal).title == "typed without JavaScript"


def test_a_row_merely_sent_along_is_not_an_edit(user_client, proposal):
    """A stale tab's plain Save posts every row; one it did not touch that another
    tab removed is nothing lost."""
    job = JobTypeFactory(proposal=proposal)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1)
    response = user_client.post(step_url(proposal), {**tab_2, "save": "1"})
    assert response.status_code == 302
    assert Proposal.objects.get(pk=proposal.pk).refused_inputs == {}


# --- Reorder --------------------------------------------------------------------


def titles(proposal) -> list[str]:
    return list(proposal.jobs.order_by("position").values_list("title", flat=True))


@pytest.mark.parametrize("htmx", [True, False])
def test_a_stale_move_goes_past_the_row_the_page_showed(user_client, proposal, htmx):
    a, b, c = (
        JobTypeFactory(proposal=proposal, title=title, position=position)
        for position, title in enumerate("ABC")
    )
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    headers = HX if htmx else {}
    user_client.post(row_url(proposal, "up", c.pk), tab_2, headers=headers)
    assert titles(proposal) == ["A", "C", "B"]
    # Tab 1 still shows A, B, C: "up" on B puts it above A, as it showed.
    user_client.post(row_url(proposal, "up", b.pk), tab_1, headers=headers)
    assert titles(proposal) == ["B", "A", "C"]
    # A page that shows the stored order moves as before.
    tab_1 = load(user_client, proposal)  # B, A, C
    user_client.post(row_url(proposal, "down", b.pk), tab_1, headers=headers)
    assert titles(proposal) == ["A", "B", "C"]


def test_a_move_past_a_row_removed_elsewhere_uses_the_stored_neighbour(
    user_client, proposal
):
    a, b, c = (
        JobTypeFactory(proposal=proposal, title=title, position=position)
        for position, title in enumerate("ABC")
    )
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", b.pk), tab_2, headers=HX)
    user_client.post(row_url(proposal, "up", c.pk), tab_1, headers=HX)
    assert titles(proposal) == ["C", "A"]


@pytest.mark.parametrize(
    "bases",
    [
        {"jobs-{pk}-position": "99", "jobs-{pk}-nonsense": "x", "jobs-²-title": "x"},
        {"measurements-{pk}-code": "not an id", "jobs-{pk}-title": "other"},
    ],
)
def test_odd_bases_of_a_delete_or_undo_are_no_server_error(
    user_client, proposal, bases
):
    from tests.factories import ScalingMeasurementFactory

    job = JobTypeFactory(proposal=proposal, title="Training")
    point = ScalingMeasurementFactory(proposal=proposal)
    bases = {
        key.format(pk=point.pk if key.startswith("meas") else job.pk): value
        for key, value in bases.items()
    }
    data = {"bases": json.dumps(bases)}
    response = user_client.post(row_url(proposal, "delete", job.pk), data)
    assert response.status_code in (200, 302)
    response = user_client.post(
        row_url(proposal, "delete", point.pk, kind="measurements"), data
    )
    assert response.status_code in (200, 302)
    undo = reverse("proposals:paste_undo", args=[proposal.pk, "jobs"])
    assert user_client.post(undo, data).status_code == 302
