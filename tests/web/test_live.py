"""The wizard's live feedback: the queries of an autosave per step, the chart at its
own URL (owner only, immutable), the regions an autosave leaves out, and the
catalogue and call terms kept in process and forgotten when an administrator edits
them."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from proposals import charts, selectors
from proposals.models import Proposal
from proposals.views.charts import CACHE_CONTROL
from proposals.wizard.regions import parse_shown
from proposals.wizard.steps import STEP_BY_SLUG, STEPS, build_step_forms
from tests.factories import (
    CodeEntryFactory,
    JobTypeFactory,
    ProposalFactory,
    ScalingMeasurementFactory,
    UsageMonthFactory,
    cluster,
)

pytestmark = pytest.mark.django_db
HX = {"HX-Request": "true"}
# Session, user, the proposal (locked, with its system, owner and preferences), its
# four tables (one query), the UPDATE of the row typed in, the UPDATE of the
# proposal's fields and revision. (A row's UPDATE runs in a savepoint of its own:
# its values together may break a constraint, which refuses that row only.)
AUTOSAVE_QUERIES = 6


def step_url(proposal, step):
    return reverse("proposals:step", args=[proposal.pk, step])


def page_data(proposal, step: str, **changes) -> dict:
    """What the step's page posts: every input with the value it shows, the bases,
    then ``changes`` (input name -> typed text)."""
    proposal = selectors.proposal_get_for_member(user=proposal.owner, pk=proposal.pk)
    forms = build_step_forms(STEP_BY_SLUG[step], proposal)
    data = {"autosave": "1"}
    for form in forms.all_forms():
        for field in form:
            value = field.value()
            data[field.html_name] = "" if value is None else str(value)
    return {**data, **changes}


def statements(queries) -> list[str]:
    """The SQL statements (the savepoint markers of the test's own transaction and
    of a row's UPDATE left out)."""
    return [
        q["sql"]
        for q in queries.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]


@pytest.fixture
def full(user):
    proposal = ProposalFactory(owner=user, system=cluster(), total_gpu_hours=5000)
    code = CodeEntryFactory(proposal=proposal, position=0)
    for position, (gpus, throughput) in enumerate([(4, 1200), (8, 2280), (16, 4225)]):
        ScalingMeasurementFactory(
            proposal=proposal,
            code=code,
            gpus=gpus,
            throughput=throughput,
            position=position,
        )
    JobTypeFactory(proposal=proposal, position=0)
    UsageMonthFactory(proposal=proposal, position=0)
    return Proposal.objects.get(pk=proposal.pk)


TYPED = {
    "organisation": {"organisation_name": "Nordlicht Labs"},
    "selection": {"libraries": "PyTorch 2.4"},
    "codes": {"codes-{code}-name": "trainer"},
    "scalability": {"scalability_narrative": "We measured.", "jobs-{job}-title": "x"},
    "optimisation": {"optimisation_narrative": "Mixed precision."},
    "review": {},
}


@pytest.mark.parametrize("step", [step.slug for step in STEPS])
def test_an_autosave_costs_at_most_six_queries_on_every_step(user_client, full, step):
    user_client.get(step_url(full, step))  # the page the autosave comes from
    # The first autosave of a step also notes that the step was visited (once).
    user_client.post(step_url(full, step), {"autosave": "1"}, headers=HX)
    names = {"code": full.codes.get().pk, "job": full.jobs.get().pk}
    typed = {key.format(**names): value for key, value in TYPED[step].items()}
    data = page_data(full, step, **typed)
    with CaptureQueriesContext(connection) as queries:
        response = user_client.post(step_url(full, step), data, headers=HX)
    assert response.status_code == 200
    sql = statements(queries)
    assert len(sql) <= AUTOSAVE_QUERIES, "\n".join(sql)
    stored = Proposal.objects.get(pk=full.pk)
    assert stored.revision == full.revision + (1 if typed else 0)
    for key, value in typed.items():
        if "-" not in key:
            assert getattr(stored, key) == value
    if step == "codes":
        assert stored.codes.get().name == "trainer"


def test_a_stale_page_still_sees_the_change_made_elsewhere(user_client, full):
    """When the revision moved since the page (another tab saved), the stored
    values are read again and compared: the other tab's value is a conflict."""
    page = page_data(full, "scalability", scalability_narrative="mine")
    bases = {"scalability_narrative": full.scalability_narrative}
    Proposal.objects.filter(pk=full.pk).update(
        scalability_narrative="theirs", revision=full.revision + 1
    )
    import json

    page["bases"] = json.dumps(bases)
    response = user_client.post(step_url(full, "scalability"), page, headers=HX)
    assert 'data-testid="conflict"' in response.content.decode()
    assert Proposal.objects.get(pk=full.pk).scalability_narrative == "theirs"


# --- The chart at its own URL ----------------------------------------------------------


def chart_src(content: str) -> str:
    return content.split('data-testid="scaling-chart"><img src="')[1].split('"')[0]


def test_the_chart_is_an_immutable_image_of_its_data(user_client, full):
    page = user_client.get(step_url(full, "scalability")).content.decode()
    src = chart_src(page)
    assert "<svg" not in page.split('id="live-chart"')[1].split("</section>")[0]
    # The figures stay in the page, as a table, for screen readers.
    assert 'data-testid="scaling-table"' in page and "1.90x" in page
    response = user_client.get(src)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Cache-Control"] == CACHE_CONTROL
    body = response.content.decode()
    assert "<svg" in body and "<text" in body  # text stays text (no font paths)
    etag = response["ETag"]
    again = user_client.get(src, headers={"If-None-Match": etag})
    assert again.status_code == 304


def test_the_chart_is_drawn_again_after_the_cache_forgot_it(user_client, full):
    from django.core.cache import cache

    src = chart_src(user_client.get(step_url(full, "scalability")).content.decode())
    cache.clear()
    assert b"<svg" in user_client.get(src).content


def test_a_chart_key_the_proposal_does_not_show_is_404(user_client, full):
    src = chart_src(user_client.get(step_url(full, "scalability")).content.decode())
    key = src.rsplit("/", 1)[1].removesuffix(".svg")
    other = src.replace(key, "0" * len(key))
    assert user_client.get(other).status_code == 404


def test_nobody_else_sees_the_chart(client, full, other_user, staff_user):
    owner_client = type(client)()
    owner_client.force_login(full.owner)
    src = chart_src(owner_client.get(step_url(full, "scalability")).content.decode())
    assert owner_client.get(src).status_code == 200  # now in the cache
    for intruder in (other_user, staff_user):
        client.force_login(intruder)
        assert client.get(src).status_code == 404
    client.logout()
    assert client.get(src).status_code == 302  # to the login page
    # Another user's proposal with the same data: its own key does not open ours.
    twin = ProposalFactory(owner=other_user)
    client.force_login(other_user)
    key = src.rsplit("/", 1)[1].removesuffix(".svg")
    url = reverse("proposals:chart", args=[twin.pk, key])
    assert client.get(url).status_code == 404


def test_the_chart_follows_the_data(user_client, full):
    before = chart_src(user_client.get(step_url(full, "scalability")).content.decode())
    m = full.measurements.order_by("position").last()
    data = page_data(full, "scalability", **{f"measurements-{m.pk}-throughput": "4000"})
    response = user_client.post(step_url(full, "scalability"), data, headers=HX)
    content = response.content.decode()
    after = chart_src(content)
    assert after != before
    assert b"<svg" in user_client.get(after).content


# --- Regions an autosave leaves out ---------------------------------------------------


def keys_of(content: str) -> dict:
    """What the page sends back: the keys of the regions it shows."""
    field = content.split('name="regions"')[1].split('value="')[1].split('"')[0]
    return {"regions": field}


def region_key(keys: dict, name: str) -> str:
    return parse_shown(keys["regions"])[name]


def test_unchanged_regions_are_not_sent_again(user_client, full):
    page = user_client.get(step_url(full, "scalability")).content.decode()
    # The first autosave marks the step visited: its open items are no longer "to do".
    first = user_client.post(
        step_url(full, "scalability"), {"autosave": "1", **keys_of(page)}, headers=HX
    ).content.decode()
    assert 'id="live-findings"' in first
    keys = keys_of(first)
    data = page_data(full, "scalability", scalability_narrative="Only words.")
    content = user_client.post(
        step_url(full, "scalability"), {**data, **keys}, headers=HX
    ).content.decode()
    for region in SUMMARY_REGIONS + (
        'id="live-chart"',
        'id="live-findings"',
        'id="badges-scalability"',
    ):
        assert region not in content
    assert 'id="save-status"' in content
    # The feedback under the step's own fields is a region too: unchanged, not sent.
    assert 'id="fb-id_scalability_narrative"' not in content
    assert keys_of(content) == keys
    # A change the findings and the totals show: they come again; the chart, the
    # tier and the energy (from the hours requested) do not.
    data = page_data(full, "scalability", **{f"jobs-{full.jobs.get().pk}-gpus": "9999"})
    content = user_client.post(
        step_url(full, "scalability"), {**data, **keys}, headers=HX
    ).content.decode()
    assert 'id="live-findings"' in content and 'id="badges-scalability"' in content
    assert 'id="live-totals"' in content
    for region in ('id="live-chart"', 'id="live-tier"', 'id="live-energy"'):
        assert region not in content
    assert region_key(keys_of(content), "live-findings") != region_key(
        keys, "live-findings"
    )
    assert region_key(keys_of(content), "live-totals") != region_key(
        keys, "live-totals"
    )


def test_the_step_fields_feedback_is_sent_when_it_changed_and_only_then(
    user_client, full
):
    """The blocks under the step's own fields are one keyed region (``fb-step``):
    a value refused shows its error; the same autosave again sends no block (the
    page shows it already); the value fixed sends them again, the error gone."""
    url = step_url(full, "scalability")
    keys = keys_of(user_client.get(url).content.decode())
    block = 'id="fb-id_runtime_stability_pct"'

    def autosave(value):
        data = page_data(full, "scalability", runtime_stability_pct=value)
        content = user_client.post(url, {**data, **keys}, headers=HX).content.decode()
        keys.update(keys_of(content))
        return content

    refused = autosave("abc")
    assert block in refused
    shown = refused.split(block, 1)[1].split('<div id="fb-', 1)[0]
    assert "invalid-feedback" in shown
    refused_key = region_key(keys, "fb-step")
    again = autosave("abc")
    assert block not in again and 'id="fb-id_scalability_narrative"' not in again
    assert region_key(keys, "fb-step") == refused_key
    fixed = autosave("95")
    assert block in fixed
    assert "invalid-feedback" not in fixed.split(block, 1)[1].split('<div id="fb-')[0]
    assert region_key(keys, "fb-step") != refused_key


SUMMARY_PARTS = ("tier", "totals", "compute", "energy", "calendar", "bar")
SUMMARY_REGIONS = (
    'id="live-tier"',
    'id="live-totals"',
    'id="live-compute"',
    'id="live-energy"',
    'id="live-calendar"',
    'id="live-bar"',
)


def test_the_tier_and_totals_follow_the_hours_typed(user_client, full):
    """Each part of the summary is left out only while what it shows is the same:
    fewer GPU-hours within the tier send the totals, the energy and the bar again,
    not the tier; more GPU-hours than the tier allows send the tier too."""
    page = user_client.get(step_url(full, "selection")).content.decode()
    tier = page.split('id="live-tier"')[1].split("</section>")[0]
    assert 'data-testid="tier">Playground<' in tier
    keys = keys_of(page)
    data = page_data(full, "selection", total_gpu_hours="500")
    content = user_client.post(
        step_url(full, "selection"), {**data, **keys}, headers=HX
    ).content.decode()
    for region in ('id="live-totals"', 'id="live-energy"', 'id="live-bar"'):
        assert region in content
    assert 'id="live-tier"' not in content
    assert 'data-testid="requested-hours">500<' in content
    assert region_key(keys_of(content), "live-totals") != region_key(
        keys, "live-totals"
    )
    keys = keys_of(content)
    data = page_data(full, "selection", total_gpu_hours="120000")
    content = user_client.post(
        step_url(full, "selection"), {**data, **keys}, headers=HX
    ).content.decode()
    tier = content.split('id="live-tier"')[1].split("</section>")[0]
    assert 'data-testid="tier">Playground<' not in tier


def test_a_page_without_summary_fingerprints_gets_every_part(user_client, full):
    """An autosave that sends no (or an unreadable, or another) fingerprint of the
    summary's parts gets every part of the summary."""
    page = user_client.get(step_url(full, "scalability")).content.decode()
    other = " ".join(
        f"{name}:{'0' * 12}" for name in parse_shown(keys_of(page)["regions"])
    )
    for sent in ("", "not.a.fingerprint", other):
        keys = {"regions": sent}
        data = page_data(full, "scalability", scalability_narrative=f"Text {sent}")
        content = user_client.post(
            step_url(full, "scalability"), {**data, **keys}, headers=HX
        ).content.decode()
        for region in SUMMARY_REGIONS:
            assert region in content, (sent, region)


def test_the_chart_region_follows_the_tier_without_measurements(user_client, user):
    """Without measurements the chart region only says whether the tier asks for
    scaling data: a new tier sends it again."""
    proposal = ProposalFactory(owner=user, total_gpu_hours=500)
    page = user_client.get(step_url(proposal, "selection")).content.decode()
    keys = keys_of(page)
    assert "needs no scaling data" in page
    data = page_data(proposal, "selection", total_gpu_hours="20000")
    content = user_client.post(
        step_url(proposal, "selection"), {**data, **keys}, headers=HX
    ).content.decode()
    region = content.split('id="live-chart"')[1].split("</section>")[0]
    assert "Enter scaling measurements" in region


def test_a_page_without_keys_gets_every_region(user_client, full):
    data = page_data(full, "scalability", scalability_narrative="No keys.")
    content = user_client.post(
        step_url(full, "scalability"), data, headers=HX
    ).content.decode()
    for region in ('id="live-chart"', 'id="live-findings"', 'id="badges-review"'):
        assert region in content


def test_chart_data_and_key_are_stable():
    data = {
        "series": [{"label": "A", "unit": "x/s", "points": [(4, 1.0, 1.0)]}],
        "projection": None,
    }
    assert charts.url_key(data) == charts.url_key(dict(data))
    assert len(charts.url_key(data)) == charts.URL_KEY_LENGTH


def test_a_nul_character_typed_is_refused_not_a_server_error(user_client, full):
    """PostgreSQL's JSON holds no NUL: the refused text is kept with U+FFFD."""
    data = page_data(full, "organisation", organisation_name="Nord\x00licht")
    response = user_client.post(step_url(full, "organisation"), data, headers=HX)
    assert response.status_code == 200
    stored = Proposal.objects.get(pk=full.pk)
    assert stored.refused_inputs["organisation_name"]["text"] == "Nord\ufffdlicht"


def _summary_parts(page: str) -> dict:
    """Each part of the live summary on a full step page: its fingerprint (from
    the page's ``regions``) and its HTML."""
    shown = parse_shown(keys_of(page)["regions"])
    keys = [shown[f"live-{part}"] for part in SUMMARY_PARTS]
    html = {}
    for part in SUMMARY_PARTS:
        if part == "bar":
            start = page.index('<div id="live-bar"')
            html[part] = page[start : page.index("</a>", start)]
        else:
            start = page.index(f'<section id="live-{part}"')
            html[part] = page[start : page.index("</section>", start)]
    return {
        part: (key, html[part]) for part, key in zip(SUMMARY_PARTS, keys, strict=True)
    }


def test_an_unchanged_summary_fingerprint_is_an_unchanged_part(user_client, full):
    """An autosave leaves out a part of the summary whose fingerprint the page
    already has: after edits of every kind, two states with the same fingerprint
    for a part show that part byte for byte alike (and every part changes at least
    once, so the comparison is not empty)."""

    code = full.codes.get()
    point = full.measurements.order_by("position").last()
    job = full.jobs.get()
    edits = [
        ("scalability", {"scalability_narrative": "Words only."}),
        ("scalability", {f"measurements-{point.pk}-throughput": "4000"}),
        ("codes", {f"codes-{code.pk}-model_parameters": "1400000000"}),
        ("codes", {f"codes-{code.pk}-training_tokens": "30000000000"}),
        ("codes", {f"codes-{code.pk}-assumed_mfu_pct": "35"}),
        ("scalability", {f"measurements-{point.pk}-mfu_pct": "38"}),
        ("scalability", {f"jobs-{job.pk}-gpus": "64"}),
        ("scalability", {f"jobs-{job.pk}-hours": "30"}),
        ("scalability", {f"jobs-{job.pk}-count": "500"}),
        ("selection", {"duration_months": "2"}),
        ("selection", {"total_gpu_hours": "500"}),
        ("selection", {"total_gpu_hours": "120000"}),
        ("selection", {"max_gpus_per_job": "128"}),
        ("scalability", {f"measurements-{point.pk}-throughput": "4225"}),
        ("selection", {"total_gpu_hours": "5000", "duration_months": "12"}),
    ]
    seen: dict[str, dict[str, str]] = {part: {} for part in SUMMARY_PARTS}

    def look():
        page = user_client.get(step_url(full, "scalability")).content.decode()
        for part, (key, html) in _summary_parts(page).items():
            assert seen[part].setdefault(key, html) == html, part

    look()
    for step, changes in edits:
        data = page_data(full, step, **changes)
        response = user_client.post(step_url(full, step), data, headers=HX)
        assert 'data-state="saved"' in response.content.decode(), changes
        look()
    assert all(len(keys) > 1 for keys in seen.values()), {
        part: len(keys) for part, keys in seen.items()
    }


def test_unsaved_fields_are_listed_in_page_order_whatever_the_key_order():
    """PostgreSQL's ``jsonb`` keeps keys sorted by length, SQLite as written: the
    tier card's "last saved value of ..." list is in the page's order either way
    (the step's fields, then the rows by table, row and field)."""
    import itertools
    from types import SimpleNamespace

    from proposals import live

    typed = {
        "transfer_out_tb": {"text": "x"},
        "transfer_in_tb": {"text": "y"},
        "extra_cpu_hours": {"text": "z"},
        "jobs-7-hours": {"text": "1,5,"},
        "jobs-3-gpus": {"text": "?"},
        "jobs-3-hours": {"text": "?"},
    }
    rows = {"jobs": [SimpleNamespace(pk=3), SimpleNamespace(pk=7)]}
    answers = {
        tuple(
            live.refused_inputs(
                SimpleNamespace(pk=1, refused_inputs=dict(order)), rows, "selection"
            ).refused_labels
        )
        for order in itertools.permutations(typed.items())
    }
    assert len(answers) == 1, answers
    (labels,) = answers
    assert len(labels) == 6
    assert [label.startswith("Job") for label in labels] == [False] * 3 + [True] * 3
    assert labels[3].startswith("Job type 1") and labels[5].startswith("Job type 2")
