"""The wizard's server side: autosave, partial saves, conflicts, rows, units, no-JS."""

import html
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from proposals.models import JobType, Proposal
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    cluster,
)

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}


def step_url(proposal, step):
    return reverse("proposals:step", args=[proposal.pk, step])


def row_url(proposal, step, kind, operation, row=None):
    kwargs = {"pk": proposal.pk, "step": step, "kind": kind, "operation": operation}
    if row is not None:
        kwargs["row"] = row.pk
    return reverse("proposals:row", kwargs=kwargs)


def selection_data(proposal, **overrides):
    data = {
        "system": proposal.system_id or "",
        "libraries": proposal.libraries,
        "total_gpu_hours": proposal.total_gpu_hours or "",
        "max_gpus_per_job": proposal.max_gpus_per_job or "",
        "storage_tb": "",
        "storage_justification": "",
        "transfer_in_tb": "",
        "transfer_out_tb": "",
        "transfer_justification": "",
        "extra_cpu_hours": "",
        "auxiliary_services": "",
        "duration_months": "",
        "autosave": "1",
    }
    data.update(overrides)
    return data


def test_every_step_renders_with_live_regions(user_client, proposal):
    for step in ("organisation", "selection", "codes", "scalability", "optimisation"):
        content = user_client.get(step_url(proposal, step)).content.decode()
        for region in ("live-tier", "live-totals", "live-findings", "live-energy"):
            assert f'id="{region}"' in content, (step, region)
        assert 'name="bases"' in content


def test_autosave_saves_and_answers_with_fragments_only(user_client, proposal):
    response = user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, total_gpu_hours="18176"),
        headers=HX,
    )
    assert response.status_code == 200
    content = response.content.decode()
    proposal.refresh_from_db()
    assert proposal.total_gpu_hours == Decimal("18176")
    assert proposal.revision == 2
    assert 'id="bases-update" hidden data-bases="' in content  # the saved bases
    assert "Fast Lane" in content
    assert (
        'id="live-tier" class="card mb-3" aria-labelledby="live-tier-h" hx-swap-oob'
        in (content)
    )
    # Inputs are never sent back: the field being typed in must not be replaced.
    assert 'name="total_gpu_hours"' not in content


def test_invalid_value_is_refused_while_the_rest_is_saved(user_client, proposal):
    response = user_client.post(
        step_url(proposal, "selection"),
        selection_data(
            proposal, total_gpu_hours="-5", libraries="PyTorch 2.5, DeepSpeed"
        ),
        headers=HX,
    )
    content = response.content.decode()
    proposal.refresh_from_db()
    assert proposal.libraries == "PyTorch 2.5, DeepSpeed"
    assert proposal.total_gpu_hours == Decimal("4000")
    assert 'id="fb-id_total_gpu_hours"' in content
    assert "Enter 0 or more: GPU-hours cannot be negative." in content
    assert "Ensure" not in content  # never Django's own wording


def test_not_a_number_is_explained_next_to_the_field(user_client, proposal):
    response = user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, max_gpus_per_job="eight"),
        headers=HX,
    )
    content = response.content.decode()
    start = content.index('id="fb-id_max_gpus_per_job"')
    assert "“eight” is not a number" in content[start : start + 400]


def bases_of(client, proposal, step):
    """The ``bases`` the page of ``step`` sends back (what each input showed)."""
    page = client.get(step_url(proposal, step)).content.decode()
    raw = page.split('name="bases" id="bases-field" value="')[1].split('"')[0]
    return html.unescape(raw)


def test_two_tabs_changing_different_fields_both_save(user_client, proposal):
    url = step_url(proposal, "selection")
    bases = bases_of(user_client, proposal, "selection")  # both tabs load the page
    tab_a = selection_data(proposal, libraries="tab A", bases=bases)
    tab_b = selection_data(proposal, duration_months="6", bases=bases)
    assert user_client.post(url, tab_a, headers=HX).status_code == 200
    response = user_client.post(url, tab_b, headers=HX)
    assert response.status_code == 200
    assert 'data-testid="conflict"' not in response.content.decode()
    proposal.refresh_from_db()
    assert (proposal.libraries, proposal.duration_months) == ("tab A", 6)


def test_same_field_changed_in_two_tabs_is_a_conflict_with_both_values(
    user_client, proposal
):
    url = step_url(proposal, "selection")
    bases = bases_of(user_client, proposal, "selection")
    user_client.post(url, selection_data(proposal, libraries="tab A", bases=bases))
    stale = selection_data(proposal, libraries="tab B", bases=bases)
    content = user_client.post(url, stale, headers=HX).content.decode()
    assert 'data-testid="conflict"' in content
    assert "tab A" in content and "tab B" in content
    proposal.refresh_from_db()
    assert proposal.libraries == "tab A"
    # "Keep mine": this tab's value wins.
    keep = selection_data(proposal, libraries="tab B", bases=bases, keep="libraries")
    content = user_client.post(url, keep, headers=HX).content.decode()
    assert 'data-testid="conflict"' not in content
    proposal.refresh_from_db()
    assert proposal.libraries == "tab B"


def test_unchanged_autosave_does_not_bump_the_revision(user_client, proposal):
    user_client.post(
        step_url(proposal, "selection"), selection_data(proposal), headers=HX
    )
    proposal.refresh_from_db()
    assert proposal.revision == 1


def test_gcd_entry_is_converted_to_physical_gpus(user_client, proposal):
    assert proposal.system.slug == "lumi-g"
    data = selection_data(proposal, max_gpus_per_job="16", gpu_unit="gcds")
    user_client.post(step_url(proposal, "selection"), data, headers=HX)
    proposal.refresh_from_db()
    assert proposal.max_gpus_per_job == 8
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    assert 'name="max_gpus_per_job" value="16"' in page  # shown in GCDs as chosen
    data = selection_data(proposal, max_gpus_per_job="7", gpu_unit="gcds")
    response = user_client.post(step_url(proposal, "selection"), data, headers=HX)
    assert "not a whole number of GPUs" in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.max_gpus_per_job == 8


def test_gcd_choice_is_ignored_on_single_die_systems(user_client, user):
    proposal = ProposalFactory(owner=user, system=cluster("marenostrum5-acc"))
    data = selection_data(proposal, max_gpus_per_job="16", gpu_unit="gcds")
    user_client.post(step_url(proposal, "selection"), data, headers=HX)
    proposal.refresh_from_db()
    assert proposal.max_gpus_per_job == 16


def test_job_rows_add_fill_total_and_remove(user_client, proposal):
    url = step_url(proposal, "scalability")
    add = row_url(proposal, "scalability", "jobs", "add")
    response = user_client.post(add, {}, headers=HX)
    assert response.status_code == 200
    job = proposal.jobs.get()
    assert (job.gpus, job.hours, job.count) == (None, None, None)
    base = {
        "scalability_narrative": "",
        "workload": "",
        "runtime_stability_pct": "",
        "autosave": "1",
    }
    row = {
        f"jobs-{job.pk}-title": "Ablation training",
        f"jobs-{job.pk}-gpus": "32",
        f"jobs-{job.pk}-hours": "24",
        f"jobs-{job.pk}-count": "16",
    }
    response = user_client.post(url, {**base, **row}, headers=HX)
    content = response.content.decode()
    assert f'id="jobs-{job.pk}-computed"' in content
    assert "12,288" in content
    job.refresh_from_db()
    assert (job.gpus, job.hours, job.count) == (32, Decimal("24"), 16)
    delete = row_url(proposal, "scalability", "jobs", "delete", job)
    response = user_client.post(delete, {}, headers=HX)
    assert response.status_code == 200
    assert not proposal.jobs.exists()


def test_rows_move_up_and_down(user_client, proposal):
    first = JobTypeFactory(proposal=proposal, title="first", position=0)
    second = JobTypeFactory(proposal=proposal, title="second", position=1)
    user_client.post(row_url(proposal, "scalability", "jobs", "up", second))
    titles = list(proposal.jobs.order_by("position").values_list("title", flat=True))
    assert titles == ["second", "first"]
    user_client.post(row_url(proposal, "scalability", "jobs", "down", second))
    titles = list(proposal.jobs.order_by("position").values_list("title", flat=True))
    assert titles == ["first", "second"]
    assert first.pk != second.pk


def test_new_code_entry_is_not_a_second_main_loop(user_client, proposal):
    CodeEntryFactory(proposal=proposal)
    user_client.post(row_url(proposal, "codes", "codes", "add"))
    assert list(proposal.codes.values_list("role", flat=True)) == ["main", "other"]


def test_plain_post_saves_and_moves_to_the_next_step(user_client, proposal):
    response = user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, goto="codes", duration_months="3"),
    )
    assert response.status_code == 302
    assert response.headers["Location"] == step_url(proposal, "codes")
    proposal.refresh_from_db()
    assert proposal.duration_months == 3


def test_plain_post_with_an_error_stays_and_keeps_the_rest(user_client, proposal):
    response = user_client.post(
        step_url(proposal, "selection"),
        selection_data(
            proposal, goto="codes", duration_months="99", libraries="JAX 0.4"
        ),
    )
    assert response.status_code == 200
    assert "Enter at most 60" in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.libraries == "JAX 0.4"
    assert proposal.duration_months is None


def test_contradicting_row_values_are_not_stored(user_client, proposal):
    from tests.factories import UsageMonthFactory

    usage = UsageMonthFactory(proposal=proposal, from_month=1, to_month=2)
    data = {
        "scalability_narrative": "",
        "workload": "",
        "runtime_stability_pct": "",
        "autosave": "1",
        f"schedule-{usage.pk}-from_month": "4",
        f"schedule-{usage.pk}-to_month": "3",
        f"schedule-{usage.pk}-gpu_hours": "1000",
        f"schedule-{usage.pk}-activity": "",
    }
    response = user_client.post(step_url(proposal, "scalability"), data, headers=HX)
    assert response.status_code == 200
    usage.refresh_from_db()
    assert (usage.from_month, usage.to_month) == (1, 2)


def test_findings_link_to_the_row_input(user_client, proposal):
    job = JobTypeFactory(proposal=proposal, gpus=64)  # above max GPUs per job (4)
    content = user_client.get(step_url(proposal, "review")).content.decode()
    assert f"/scalability/#id_jobs-{job.pk}-gpus" in content
    assert "SCAL-4" in content


def test_lumi_guide_figures_show_on_the_scalability_step(user_client, user):
    proposal = ProposalFactory(
        owner=user, total_gpu_hours=Decimal("18176"), max_gpus_per_job=32
    )
    for position, (gpus, hours, count) in enumerate(
        [(8, 4, 120), (32, 24, 1), (32, 24, 16), (4, 2, 160)]
    ):
        JobTypeFactory(
            proposal=proposal, gpus=gpus, hours=hours, count=count, position=position
        )
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280), (16, 4225)]):
        ScalingMeasurementFactory(
            proposal=proposal, gpus=gpus, throughput=throughput, position=position
        )
    content = user_client.get(step_url(proposal, "scalability")).content.decode()
    assert 'data-testid="jobs-total">18,176</span>' in content
    assert "1.90x" in content and "95%" in content
    assert "3.52x" in content and "88%" in content
    assert "<svg" in chart_of(user_client, content)  # the chart, at its own URL


def chart_of(client, page: str) -> str:
    """The SVG of the chart ``page`` shows (its image has a URL of its own)."""
    src = page.split('data-testid="scaling-chart"><img src="')[1].split('"')[0]
    response = client.get(src)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    return response.content.decode()


def _autosave_queries(client, proposal, rows):
    for position in range(rows):
        JobTypeFactory(proposal=proposal, position=position)
        ScalingMeasurementFactory(
            proposal=proposal, gpus=4 + position, position=position
        )
    proposal.refresh_from_db()
    client.get(step_url(proposal, "scalability"))  # the page the autosave comes from
    data = {
        "scalability_narrative": f"narrative {rows}",
        "workload": "",
        "runtime_stability_pct": "",
        "autosave": "1",
    }
    with CaptureQueriesContext(connection) as queries:
        response = client.post(step_url(proposal, "scalability"), data, headers=HX)
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries]


def test_recompute_queries_do_not_grow_with_rows(user_client, user):
    small = _autosave_queries(user_client, ProposalFactory(owner=user), 3)
    large = _autosave_queries(user_client, ProposalFactory(owner=user), 40)
    assert len(small) == len(large), "\n".join(large)


def test_unknown_step_is_404(user_client, proposal):
    url = f"/proposals/{proposal.pk}/nonsense/"
    assert user_client.get(url).status_code == 404


def test_rule_reference_lists_every_registered_rule(client, catalogue):
    from proposals.domain.findings import rules

    content = client.get(reverse("proposals:rules")).content.decode()
    for rule in rules():
        assert f'<tr id="{rule.code}">' in content


def test_row_of_wrong_table_for_step_is_404(user_client, proposal):
    job = JobTypeFactory(proposal=proposal)
    response = user_client.post(row_url(proposal, "codes", "jobs", "delete", job))
    assert response.status_code == 404
    assert JobType.objects.filter(pk=job.pk).exists()
    assert Proposal.objects.get(pk=proposal.pk).revision == 1


def test_chart_is_resent_only_when_its_data_changed(user_client, proposal):
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280)]):
        ScalingMeasurementFactory(
            proposal=proposal, gpus=gpus, throughput=throughput, position=position
        )
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    key = page.split('name="regions" id="regions-field" value="')[1].split('"')[0]
    data = selection_data(proposal, libraries="same chart", regions=key)
    content = user_client.post(step_url(proposal, "selection"), data, headers=HX)
    assert 'id="live-chart"' not in content.content.decode()
    data = selection_data(proposal, max_gpus_per_job="16", regions=key)
    content = user_client.post(step_url(proposal, "selection"), data, headers=HX)
    assert 'id="live-chart"' in content.content.decode()  # new target: new projection


def test_switching_system_in_gcd_mode_keeps_the_gpu_count(user_client, proposal):
    """LUMI-G in GCDs shows 16 for 8 GPUs; choosing MareNostrum 5 must not make it 16."""
    proposal.max_gpus_per_job = 8
    proposal.save()
    mn5 = cluster("marenostrum5-acc")
    data = selection_data(
        proposal, max_gpus_per_job="16", gpu_unit="gcds", system=mn5.pk
    )
    response = user_client.post(step_url(proposal, "selection"), data, headers=HX)
    proposal.refresh_from_db()
    assert (proposal.system_id, proposal.max_gpus_per_job) == (mn5.pk, 8)
    # The step is shown afresh: no GCD choice any more, the count in GPUs.
    assert response.headers["HX-Retarget"] == "#wizard-form"
    content = response.content.decode()
    assert 'name="gpu_unit"' not in content
    assert 'name="max_gpus_per_job" value="8"' in content
    # The next keystroke posts what that fresh form shows.
    data = selection_data(proposal, libraries="x")
    user_client.post(step_url(proposal, "selection"), data, headers=HX)
    proposal.refresh_from_db()
    assert proposal.max_gpus_per_job == 8


def test_gcd_choice_of_another_proposal_does_not_leak(user_client, user, proposal):
    user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, max_gpus_per_job="8", gpu_unit="gcds"),
        headers=HX,
    )
    other = ProposalFactory(
        owner=user, system=cluster("marenostrum5-acc"), max_gpus_per_job=8
    )
    lumi = cluster("lumi-g")
    data = selection_data(other, system=lumi.pk, max_gpus_per_job="8")  # no radio
    user_client.post(step_url(other, "selection"), data, headers=HX)
    other.refresh_from_db()
    assert (other.system_id, other.max_gpus_per_job) == (lumi.pk, 8)
    page = user_client.get(step_url(other, "selection")).content.decode()
    assert 'id="gpu-unit-gpus" value="gpus" checked' in page


@pytest.mark.parametrize("name", ["Trainer $x^$", "_private", "50% $ of $ time"])
def test_applicant_text_in_chart_labels_never_breaks_a_page(
    user_client, proposal, name
):
    code = CodeEntryFactory(proposal=proposal, name=name)
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280)]):
        ScalingMeasurementFactory(
            proposal=proposal,
            code=code,
            gpus=gpus,
            throughput=throughput,
            unit="$tok/s",
            position=position,
        )
    for step in ("organisation", "scalability", "review"):
        response = user_client.get(step_url(proposal, step))
        assert response.status_code == 200, step
        assert "<svg" in chart_of(user_client, response.content.decode())


def test_recompute_queries_do_not_grow_with_posted_rows(user_client, user):
    def queries_for(rows):
        proposal = ProposalFactory(owner=user)
        jobs = [JobTypeFactory(proposal=proposal, position=i) for i in range(rows)]
        user_client.get(step_url(proposal, "scalability"))  # the page that autosaves
        data = {
            "scalability_narrative": "",
            "workload": "",
            "runtime_stability_pct": "",
            "autosave": "1",
        }
        for job in jobs[:3]:
            data.update(
                {
                    f"jobs-{job.pk}-title": "edited",
                    f"jobs-{job.pk}-gpus": "8",
                    f"jobs-{job.pk}-hours": "2",
                    f"jobs-{job.pk}-count": "3",
                }
            )
        with CaptureQueriesContext(connection) as queries:
            response = user_client.post(
                step_url(proposal, "scalability"), data, headers=HX
            )
        assert response.status_code == 200
        return len(queries)

    assert queries_for(3) == queries_for(40)
