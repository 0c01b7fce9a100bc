"""Two tabs on one proposal, over HTTP (issue 20): another tab's newer field values
reach the page, and an undo of a paste asks before undoing rows changed elsewhere.
(The rows' deletes, restores and moves are in ``test_row_races``.)"""

import html
import json

import pytest
from django.urls import reverse

from proposals.models import JobType, Proposal
from tests.factories import JobTypeFactory
from tests.web.test_row_races import (
    HX,
    autosave,
    form_of,
    load,
    row_url,
    status_of,
    step_url,
)

pytestmark = pytest.mark.django_db

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
