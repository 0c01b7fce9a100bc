"""The applicant's path through the wizard (issue 15): progress per step and overall
from the badges' counts, the job plan folded for Playground by the server, and the
step heading marked for focus after moving between steps."""

import re

import pytest

from proposals import services
from proposals.live import live_context
from proposals.wizard.progress import (
    StepProgress,
    has_plan_data,
    plan_folded,
    wizard_progress,
)
from proposals.wizard.steps import navigated_here
from tests.factories import JobTypeFactory, ProposalFactory

from .test_wizard import HX, step_url

pytestmark = pytest.mark.django_db

FILLABLE = ["organisation", "selection", "codes", "scalability", "optimisation"]


def counts(**by_step):
    """``counts(codes=(1, 0, 2))``: errors, warnings, to do for a step."""
    return {
        slug: dict(zip(("error", "warning", "todo"), values, strict=True), info=3)
        for slug, values in by_step.items()
    }


PROGRESS_CASES = [
    # (counts, refused, visited, complete, items, text)
    ({}, {}, [], 0, 0, "0 of 5 steps complete, nothing to do"),
    # An untouched step is not complete, even with nothing to flag.
    ({}, {}, ["organisation"], 1, 0, "1 of 5 steps complete, nothing to do"),
    (
        counts(selection=(1, 1, 0), codes=(0, 0, 2)),
        {},
        FILLABLE,
        3,
        4,
        "3 of 5 steps complete, 4 items to do",
    ),
    # Notes (info) are advice, not items; inputs not saved are.
    (counts(codes=(0, 0, 0)), {"codes": 1}, FILLABLE, 4, 1, None),
    (
        counts(codes=(0, 1, 0)),
        {},
        FILLABLE,
        4,
        1,
        "4 of 5 steps complete, 1 item to do",
    ),
    ({}, {}, [*FILLABLE, "review"], 5, 0, "5 of 5 steps complete, nothing to do"),
]


@pytest.mark.parametrize(
    "by_step, refused, visited, complete, items, text", PROGRESS_CASES
)
def test_progress_is_derived_from_the_badge_counts(
    by_step, refused, visited, complete, items, text
):
    progress = wizard_progress(by_step, refused, visited)
    assert [s.slug for s in progress.steps] == FILLABLE  # review: nothing to fill
    assert (progress.complete, progress.total, progress.items) == (complete, 5, items)
    if text:
        assert progress.text == text


@pytest.mark.parametrize(
    "started, items, state, text",
    [
        (False, 0, "not-started", "not started"),
        (False, 3, "not-started", "not started"),
        (True, 0, "complete", "complete"),
        (True, 1, "todo", "1 item to do"),
        (True, 2, "todo", "2 items to do"),
    ],
)
def test_a_step_says_its_state_in_words(started, items, state, text):
    step = StepProgress("codes", started, items)
    assert (step.state, step.text, step.complete) == (state, text, state == "complete")


def test_playground_folds_the_plan_until_data_exists(user):
    proposal = ProposalFactory(owner=user)  # 4,000 GPU-hours: Playground
    mode = live_context(proposal, step="scalability")["mode_terms"]
    assert mode.slug == "playground"
    assert not has_plan_data(proposal) and plan_folded(mode, proposal)
    JobTypeFactory(proposal=proposal)
    assert has_plan_data(proposal) and not plan_folded(mode, proposal)
    stability = ProposalFactory(owner=user, runtime_stability_pct=5)
    assert not plan_folded(mode, stability)
    fast_lane = ProposalFactory(owner=user, total_gpu_hours=18176)
    fast = live_context(fast_lane, step="scalability")["mode_terms"]
    assert not plan_folded(fast, fast_lane)
    assert not plan_folded(None, proposal)  # the tier is not known yet


def test_the_scalability_step_folds_on_the_server(user_client, user):
    playground = ProposalFactory(owner=user)
    page = user_client.get(step_url(playground, "scalability")).content.decode()
    fold = _details_body(page, 'data-testid="plan-fold"')
    for inside in ('data-testid="jobs-table"', 'data-testid="measurements-table"'):
        assert inside in fold
    assert 'name="workload"' in fold
    fast_lane = ProposalFactory(owner=user, total_gpu_hours=18176)
    page = user_client.get(step_url(fast_lane, "scalability")).content.decode()
    assert 'data-testid="plan-fold"' not in page
    assert 'data-testid="jobs-table"' in page


def test_autosave_answers_with_the_progress_out_of_band(user_client, user):
    proposal = ProposalFactory(owner=user)
    page = user_client.get(step_url(proposal, "optimisation")).content.decode()
    assert "0 of 5 steps complete" in page
    assert 'data-testid="step-not-started"' in _badges(page, "optimisation")
    response = user_client.post(
        step_url(proposal, "optimisation"),
        {"optimisation_narrative": "We will learn PyTorch DDP.", "autosave": "1"},
        headers=HX,
    ).content.decode()
    summary = re.search(r'<div id="wizard-progress"[^>]*>', response)
    assert summary and 'hx-swap-oob="true"' in summary.group(0)
    assert "1 of 5 steps complete" in response
    assert 'data-testid="step-complete"' in _badges(response, "optimisation")


def _details_body(page: str, marker: str) -> str:
    """The content of the ``<details>`` carrying ``marker``, nested ones included."""
    body = page.split(marker, 1)[1]
    depth, position = 1, 0
    for match in re.finditer(r"<details\b|</details>", body):
        depth += 1 if match.group(0) != "</details>" else -1
        if depth == 0:
            position = match.start()
            break
    assert position, "the fold is not closed"
    return body[:position]


def _badges(page: str, step: str) -> str:
    return page.split(f'id="badges-{step}"')[1].split("</span></span>")[0]


def test_the_heading_is_marked_for_focus_after_moving_between_steps(
    user_client, proposal
):
    marked = 'id="step-heading" tabindex="-1" data-focus-on-load'
    url = step_url(proposal, "selection")
    assert marked not in user_client.get(url).content.decode()  # opened directly
    page = user_client.get(url + "?from=organisation").content.decode()  # a tab
    assert marked in page
    # Next / Previous: the form was on another step page of this proposal.
    referer = "http://testserver" + step_url(proposal, "organisation")
    page = user_client.get(url, headers={"Referer": referer}).content.decode()
    assert marked in page
    page = user_client.get(url, headers={"Referer": "http://testserver/proposals/"})
    assert marked not in page.content.decode()
    assert 'id="step-heading" tabindex="-1"' in page.content.decode()


def test_navigated_here_reads_the_tab_or_the_page_left():
    paths = ["/proposals/1/organisation/", "/proposals/1/selection/"]
    assert navigated_here("organisation", "", paths)
    assert navigated_here(None, "/proposals/1/organisation/", paths)
    assert not navigated_here(None, "/proposals/2/organisation/", paths)
    assert not navigated_here("nowhere", "", paths)


def test_visiting_marks_a_step_started(user):
    proposal = ProposalFactory(owner=user)
    services.proposal_mark_visited(proposal=proposal, step="codes")
    live = live_context(proposal, step="codes")
    progress = wizard_progress(
        live["counts_by_step"], live["refused_by_step"], proposal.visited_steps
    )
    assert progress.by_step["codes"].started
    assert not progress.by_step["selection"].started


def test_a_refused_next_keeps_focus_in_the_step(user_client, proposal):
    from .test_wizard import selection_data

    data = selection_data(proposal, goto="codes", duration_months="99")
    data.pop("autosave")
    page = user_client.post(step_url(proposal, "selection"), data)
    assert page.status_code == 200  # stays, with the message
    assert 'id="step-heading" tabindex="-1" data-focus-on-load' in page.text


def test_an_imported_proposal_is_not_shown_as_never_started(user_client, user):
    """A file imported (or a demo loaded) fills every section: its steps are counted
    as started, complete where nothing is left to do, never "not started"."""
    from pathlib import Path

    from proposals.domain import jsonformat

    text = (
        Path(__file__).resolve().parents[2] / "fixtures/examples/lumi-fast-lane.json"
    ).read_text(encoding="utf-8")
    proposal = services.proposal_import(owner=user, document=jsonformat.loads(text))
    page = user_client.get(step_url(proposal, "organisation")).content.decode()
    for step in ("organisation", "selection", "codes", "scalability", "optimisation"):
        assert 'data-testid="step-not-started"' not in _badges(page, step)
    assert re.search(r"[1-5] of 5 steps complete", page)


@pytest.mark.parametrize(
    "slug, present, absent",
    [
        ("lumi-g", ["MI250X, that is two GCDs", "LUMI-C", "LUMI-K"], ["H100"]),
        ("marenostrum5-acc", ["one GPU is one H100"], ["LUMI"]),
    ],
)
def test_the_selection_help_speaks_of_the_chosen_system(
    user_client, user, slug, present, absent
):
    from tests.factories import cluster

    proposal = ProposalFactory(owner=user, system=cluster(slug))
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    help_texts = " ".join(re.findall(r'<div class="form-text">(.*?)</div>', page, re.S))
    for text in present:
        assert text in help_texts
    for text in absent:
        assert text not in help_texts


def test_playground_folds_the_gcd_choice_on_the_selection_step(user_client, user):
    playground = ProposalFactory(owner=user)  # LUMI-G, 4,000 GPU-hours
    page = user_client.get(step_url(playground, "selection")).content.decode()
    fold = _details_body(page, 'data-testid="gpu-unit-fold"')
    assert 'name="gpu_unit"' in fold
    # Chosen already: the choice stays in view.
    gcds = ProposalFactory(owner=user, gpu_unit="gcds")
    page = user_client.get(step_url(gcds, "selection")).content.decode()
    assert 'data-testid="gpu-unit-fold"' not in page and 'name="gpu_unit"' in page
    fast_lane = ProposalFactory(owner=user, total_gpu_hours=18176)
    page = user_client.get(step_url(fast_lane, "selection")).content.decode()
    assert 'data-testid="gpu-unit-fold"' not in page and 'name="gpu_unit"' in page
