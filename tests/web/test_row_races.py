"""Two tabs on one proposal, over HTTP (issue 20): a row changed in one tab is not
deleted by a stale other tab without the person choosing; an edit of a row another
tab removed is kept and offered back; no answer says "Saved" for something not
stored; another tab's newer field values reach the page."""

import html
import json
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


# --- Another tab's newer field values -------------------------------------------


def refresh_of(content: str) -> dict:
    raw = content.split('id="refresh-values"')[1].split('data-values="')[1]
    return json.loads(html.unescape(raw.split('"')[0]) or "{}")


def test_autosave_sends_another_tabs_newer_values(user_client, proposal):
    proposal.total_gpu_hours = 28000
    proposal.save()
    job = JobTypeFactory(proposal=proposal, title="Training")
    tab_a, tab_b = load(user_client, proposal), load(user_client, proposal)
    tab_b["scalability_narrative"] = "narrative from tab B"
    tab_b[f"jobs-{job.pk}-count"] = "11"
    autosave(user_client, proposal, tab_b)
    # Tab A's next autosave (another field; its rows are not sent).
    tab_a["workload"] = "training"
    posted = {k: v for k, v in tab_a.items() if not k.startswith("jobs-")}
    content = autosave(user_client, proposal, posted).content.decode()
    refresh = refresh_of(content)["inputs"]
    assert refresh["scalability_narrative"] == {
        "value": "narrative from tab B",
        "base": "narrative from tab B",
    }
    assert refresh[f"jobs-{job.pk}-count"] == {"value": "11", "base": "11"}
    assert "workload" not in refresh  # its own save


def test_total_gpu_hours_saved_in_tab_b_reaches_tab_a(user_client, proposal):
    proposal.total_gpu_hours = 28000
    proposal.save()
    tab_a = load(user_client, proposal, "selection")
    tab_b = load(user_client, proposal, "selection")
    tab_b["total_gpu_hours"] = "27000"
    autosave(user_client, proposal, tab_b, "selection")
    tab_a["libraries"] = "PyTorch"
    content = autosave(user_client, proposal, tab_a, "selection").content.decode()
    assert refresh_of(content)["inputs"]["total_gpu_hours"] == {
        "value": "27000",
        "base": "27000",
    }
    # The base the page keeps stays the old one until the page takes the value.
    bases = json.loads(
        html.unescape(
            content.split('id="bases-update" hidden data-bases="')[1].split('"')[0]
        )
    )
    assert bases["total_gpu_hours"] == "28000"


def test_an_input_typed_in_here_is_a_conflict_not_a_refresh(user_client, proposal):
    proposal.total_gpu_hours = 28000
    proposal.save()
    tab_a = load(user_client, proposal, "selection")
    tab_b = load(user_client, proposal, "selection")
    tab_b["total_gpu_hours"] = "27000"
    autosave(user_client, proposal, tab_b, "selection")
    tab_a["total_gpu_hours"] = "29000"
    content = autosave(user_client, proposal, tab_a, "selection").content.decode()
    assert "total_gpu_hours" not in refresh_of(content)["inputs"]
    assert 'data-testid="conflict"' in content
    assert status_of(content) == "conflict"


def test_without_javascript_a_page_answer_shows_the_newer_value(user_client, proposal):
    proposal.total_gpu_hours = 28000
    proposal.save()
    tab_a = load(user_client, proposal, "selection")
    tab_b = load(user_client, proposal, "selection")
    tab_b["total_gpu_hours"] = "27000"
    autosave(user_client, proposal, tab_b, "selection")
    tab_a["max_gpus_per_job"] = "eight"  # refused: the step is shown again
    response = user_client.post(step_url(proposal, "selection"), {**tab_a, "save": "1"})
    assert response.status_code == 200
    shown = form_of(response.content.decode())
    assert shown["total_gpu_hours"] == "27000"
    assert json.loads(shown["bases"])["total_gpu_hours"] == "27000"
    # Saving that page again keeps tab B's value.
    shown["max_gpus_per_job"] = "8"
    user_client.post(step_url(proposal, "selection"), {**shown, "save": "1"})
    assert Proposal.objects.get(pk=proposal.pk).total_gpu_hours == 27000


def test_a_row_operation_answer_is_based_on_what_it_shows(user_client, proposal):
    job = JobTypeFactory(proposal=proposal, title="Training")
    tab_a, tab_b = load(user_client, proposal), load(user_client, proposal)
    tab_b[f"jobs-{job.pk}-title"] = "from tab B"
    autosave(user_client, proposal, tab_b)
    content = user_client.post(
        reverse(
            "proposals:row",
            kwargs={
                "pk": proposal.pk,
                "step": "scalability",
                "kind": "jobs",
                "operation": "add",
            },
        ),
        tab_a,
        headers=HX,
    ).content.decode()
    shown = form_of(content)
    assert shown[f"jobs-{job.pk}-title"] == "from tab B"
    assert json.loads(shown["bases"])[f"jobs-{job.pk}-title"] == "from tab B"
    # So tab A now deletes the row it shows without being asked.
    user_client.post(row_url(proposal, "delete", job.pk), shown, headers=HX)
    assert not JobType.objects.filter(pk=job.pk).exists()


# --- Undo paste -----------------------------------------------------------------

PLAN = """| Job type | GPUs per job | Hours | Jobs |
|---|---:|---:|---:|
| Sweep | 16 | 4 | 120 |
| Pre-training | 64 | 24 | 16 |
"""


@pytest.mark.parametrize("htmx", [True, False])
def test_undo_paste_of_rows_changed_in_another_tab_asks_first(
    user_client, proposal, htmx
):
    paste = reverse("proposals:paste", args=[proposal.pk, "jobs"])
    undo = reverse("proposals:paste_undo", args=[proposal.pk, "jobs"])
    user_client.post(paste, {"paste-jobs-text": PLAN, "paste_add": "1"})
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    sweep = JobType.objects.get(proposal=proposal, title="Sweep")
    tab_1[f"jobs-{sweep.pk}-count"] = "130"
    autosave(user_client, proposal, tab_1)
    headers = HX if htmx else {}
    response = user_client.post(undo, tab_2, headers=headers)
    assert response.status_code == 200
    content = response.content.decode()
    assert JobType.objects.filter(proposal=proposal).count() == 2  # nothing undone
    assert "A pasted job type was changed in another tab" in content
    assert "Undo anyway" in content and "Keep them" in content
    if htmx:
        assert response.headers["HX-Retarget"] == "#wizard-form"
    # "Undo anyway" from the answer (which shows the stored rows).
    user_client.post(undo, form_of(content), headers=headers)
    assert not JobType.objects.filter(proposal=proposal).exists()


def test_undo_paste_of_rows_edited_in_this_tab_needs_no_question(user_client, proposal):
    paste = reverse("proposals:paste", args=[proposal.pk, "jobs"])
    undo = reverse("proposals:paste_undo", args=[proposal.pk, "jobs"])
    user_client.post(paste, {"paste-jobs-text": PLAN, "paste_add": "1"})
    tab = load(user_client, proposal)
    sweep = JobType.objects.get(proposal=proposal, title="Sweep")
    tab[f"jobs-{sweep.pk}-count"] = "130"  # typed here, saved by the undo's post
    response = user_client.post(undo, tab)
    assert response.status_code == 302
    assert not JobType.objects.filter(proposal=proposal).exists()


def test_autosave_names_the_rows_removed_elsewhere(user_client, proposal):
    job = JobTypeFactory(proposal=proposal)  # 8 GPUs x 4 h x 10 = 320 GPU-hours
    JobTypeFactory(proposal=proposal, count=20)  # 640
    tab_a, tab_b = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_b, headers=HX)
    tab_a["workload"] = "training"
    posted = {k: v for k, v in tab_a.items() if not k.startswith("jobs-")}
    content = autosave(user_client, proposal, posted).content.decode()
    assert refresh_of(content)["removed"] == [f"jobs-{job.pk}"]
    # The job plan's total is the stored one, not the page's.
    total = content.split('data-testid="jobs-total"')[1].split("</span>")[0]
    assert total.endswith(">640")


def test_a_newer_gpu_count_is_shown_in_the_unit_the_page_uses(user_client, proposal):
    assert proposal.system.gcds_per_gpu == 2  # LUMI-G
    Proposal.objects.filter(pk=proposal.pk).update(gpu_unit="gcds")
    tab_a = load(user_client, proposal, "selection")
    tab_b = load(user_client, proposal, "selection")
    assert tab_a["max_gpus_per_job"] == "8"  # 4 GPUs, shown in GCDs
    tab_b["max_gpus_per_job"] = "16"
    autosave(user_client, proposal, tab_b, "selection")
    assert Proposal.objects.get(pk=proposal.pk).max_gpus_per_job == 8
    tab_a["libraries"] = "JAX"
    content = autosave(user_client, proposal, tab_a, "selection").content.decode()
    assert refresh_of(content)["inputs"]["max_gpus_per_job"] == {
        "value": "16",
        "base": "8",
    }


def test_a_page_that_has_seen_every_write_is_not_searched_for_stale_values(
    user_client, proposal
):
    tab = load(user_client, proposal, "selection")
    tab["libraries"] = "PyTorch"
    content = autosave(user_client, proposal, tab, "selection").content.decode()
    revision = content.split('id="revision-field" value="')[1].split('"')[0]
    assert revision == str(Proposal.objects.get(pk=proposal.pk).revision)
    # A write the page has not seen (the stored value changed behind its back)...
    Proposal.objects.filter(pk=proposal.pk).update(
        total_gpu_hours=27000, revision=int(revision) + 1
    )
    tab.update(libraries="PyTorch 2.5", revision=revision)
    content = autosave(user_client, proposal, tab, "selection").content.decode()
    assert refresh_of(content)["inputs"]["total_gpu_hours"]["value"] == "27000"
    # Its own next autosave, with the revision of that answer: nothing to look for
    # (a value changed without a revision, which no write does, is not seen).
    revision = content.split('id="revision-field" value="')[1].split('"')[0]
    Proposal.objects.filter(pk=proposal.pk).update(total_gpu_hours=26000)
    tab.update(libraries="PyTorch 2.6", revision=revision)
    content = autosave(user_client, proposal, tab, "selection").content.decode()
    assert refresh_of(content)["inputs"] == {}


def test_a_second_add_it_back_adds_nothing(user_client, proposal):
    job = JobTypeFactory(proposal=proposal, title="Ablations")
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1)
    tab_2[f"jobs-{job.pk}-title"] = "typed"
    page = user_client.post(step_url(proposal), {**tab_2, "save": "1"})
    form = form_of(page.content.decode())
    user_client.post(row_url(proposal, "restore", job.pk), form)
    response = user_client.post(row_url(proposal, "restore", job.pk), form)
    assert response.status_code == 302
    assert list(JobType.objects.filter(proposal=proposal).values_list("title")) == [
        ("typed",)
    ]


def test_typed_text_refused_in_a_removed_row_comes_back_refused(user_client, proposal):
    job = JobTypeFactory(proposal=proposal, title="Ablations", gpus=8)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(row_url(proposal, "delete", job.pk), tab_1)
    tab_2[f"jobs-{job.pk}-title"] = "Ablations, longer"
    tab_2[f"jobs-{job.pk}-gpus"] = "eight"
    autosave(user_client, proposal, tab_2)
    page = user_client.get(step_url(proposal)).content.decode()
    assert "eight" in page  # kept
    user_client.post(row_url(proposal, "restore", job.pk), form_of(page))
    # A row is stored whole or not at all: it comes back blank, with every typed
    # value kept (the text that is not a number refused, the others held).
    restored = JobType.objects.get(proposal=proposal)
    assert (restored.title, restored.gpus) == ("", None)
    refused = Proposal.objects.get(pk=proposal.pk).refused_inputs
    assert refused[f"jobs-{restored.pk}-gpus"]["text"] == "eight"
    assert refused[f"jobs-{restored.pk}-title"]["held"] is True
    page = user_client.get(step_url(proposal)).content.decode()
    assert status_of(page) == "refused"
    assert f'name="jobs-{restored.pk}-gpus" value="eight"' in page
    assert f'name="jobs-{restored.pk}-title" value="Ablations, longer"' in page


@pytest.mark.parametrize("pk", ["007", "١٢", "9" * 30])
def test_posted_inputs_of_no_row_the_page_could_show_are_ignored(
    user_client, proposal, pk
):
    tab = load(user_client, proposal)
    tab[f"jobs-{pk}-title"] = "typed"
    response = autosave(user_client, proposal, tab)
    assert response.status_code == 200
    assert Proposal.objects.get(pk=proposal.pk).refused_inputs == {}
    assert user_client.get(step_url(proposal)).status_code == 200


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
