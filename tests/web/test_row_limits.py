"""The format's row limits (``limits.MAX_ROWS``) hold on every path that adds rows
(issue 30): a tester had stored 205 jobs with "+ Job type", and the proposal's own
JSON file was then refused by the import and by ``manage.py assess``. The add
button (with and without JavaScript), "Add it back", a paste, rows read from logs,
an import, a duplicate and a retargeted copy each refuse the row beyond the limit,
keep what was typed, and say so next to the table."""

import dataclasses
import threading

import pytest
from django.db import connection, transaction
from django.urls import reverse

from proposals import domain, services
from proposals.domain import jsonformat, limits
from proposals.domain.sections import TABLE_BY_KIND
from proposals.exports import jsonio
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)
from proposals.services.paste import PasteError, proposal_paste_rows
from proposals.services.row_operations import TableFull
from proposals.services.training_logs import proposal_add_log_rows
from tests.commands.test_commands import EXAMPLES, run
from tests.factories import JobTypeFactory
from tests.web.test_row_races import HX, autosave, form_of, load, status_of

pytestmark = pytest.mark.django_db

STEP_OF = {
    "codes": "codes",
    "measurements": "scalability",
    "jobs": "scalability",
    "schedule": "scalability",
}
KINDS = sorted(limits.MAX_ROWS)


def fill(proposal, kind, rows):
    """Give ``proposal`` ``rows`` rows of ``kind`` (valid ones, in one query)."""
    model = services.ROW_MODELS[kind]
    start = model.objects.filter(proposal=proposal).count()

    def values(i):
        if kind == "codes":
            role = "main" if i == 0 else "other"
            return {"name": f"code {i}", "role": role}
        if kind == "measurements":
            return {"gpus": 4 + i, "throughput": 1000 + i, "unit": "samples/s"}
        if kind == "jobs":
            return {"title": f"Job {i}", "gpus": 8, "hours": 4, "count": 1}
        month = 1 + i // 2 % 60
        return {"from_month": month, "to_month": month, "gpu_hours": 10}

    model.objects.bulk_create(
        model(proposal=proposal, position=i, **values(i))
        for i in range(start, start + rows)
    )


def count(proposal, kind) -> int:
    return services.ROW_MODELS[kind].objects.filter(proposal=proposal).count()


def step_url(proposal, kind):
    return reverse("proposals:step", args=[proposal.pk, STEP_OF[kind]])


def add_url(proposal, kind):
    return reverse(
        "proposals:row",
        kwargs={
            "pk": proposal.pk,
            "step": STEP_OF[kind],
            "kind": kind,
            "operation": "add",
        },
    )


def type_into(proposal, kind, data) -> object:
    """Type into the step's form (a field of the proposal's own, or on the code
    details step the first entry's description); returns how to read it back."""
    text = "Typed just before the click"
    if kind == "codes":
        first = CodeEntry.objects.filter(proposal=proposal).order_by("position")[0]
        data[f"codes-{first.pk}-description"] = text
        return lambda: CodeEntry.objects.get(pk=first.pk).description
    data["scalability_narrative"] = text
    return lambda: Proposal.objects.get(pk=proposal.pk).scalability_narrative


def section(content: str, kind: str) -> str:
    """The markup of table ``kind``'s add button and what is said beside it."""
    start = content.index(f'data-testid="table-room-{kind}"')
    return content[start : content.index("</div>", start)]


# --- The add button -------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-js"])
def test_the_add_button_refuses_the_row_beyond_the_limit_and_keeps_what_was_typed(
    user_client, proposal, kind, htmx
):
    most = limits.MAX_ROWS[kind]
    fill(proposal, kind, most)
    data = load(user_client, proposal, STEP_OF[kind])
    stored = type_into(proposal, kind, data)
    response = user_client.post(
        add_url(proposal, kind), data, headers=HX if htmx else {}
    )
    # Without JavaScript the step is shown again (not a redirect): with the reason.
    assert response.status_code == 200
    assert count(proposal, kind) == most
    content = response.content.decode()
    refused = content[content.index(f'data-testid="rows-refused-{kind}"') :]
    title = TABLE_BY_KIND[kind].title
    assert f"Not added: {title} holds {most} rows" in refused.split("</p>")[0]
    assert stored() == "Typed just before the click"


@pytest.mark.parametrize("kind", KINDS)
def test_a_full_table_says_so_and_its_add_button_is_disabled(
    user_client, proposal, kind
):
    most = limits.MAX_ROWS[kind]
    fill(proposal, kind, most - 1)
    room = section(user_client.get(step_url(proposal, kind)).content.decode(), kind)
    assert "disabled" not in room and "the limit of the JSON format" not in room
    fill(proposal, kind, 1)
    room = section(user_client.get(step_url(proposal, kind)).content.decode(), kind)
    assert f"{most} of {most} rows: the limit of the JSON format" in room
    assert " disabled" in room.split("<button")[1].split(">")[0]


def test_a_table_over_the_limit_says_how_many_rows_to_remove(user_client, proposal):
    """A draft stored before the limits held everywhere (205 jobs) is told what
    keeps its JSON file from being imported again."""
    fill(proposal, "jobs", 205)
    room = section(user_client.get(step_url(proposal, "jobs")).content.decode(), "jobs")
    assert "205 rows, more than the 200 the JSON format allows" in room
    assert "remove 5 rows" in room


def test_two_tabs_cannot_add_past_the_limit(user_client, proposal):
    """Both tabs showed room for one more row; the second add is refused."""
    most = limits.MAX_ROWS["jobs"]
    fill(proposal, "jobs", most - 1)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    first = user_client.post(add_url(proposal, "jobs"), tab_1, headers=HX)
    assert 'data-testid="rows-refused-jobs"' not in first.content.decode()
    second = user_client.post(add_url(proposal, "jobs"), tab_2, headers=HX)
    assert 'data-testid="rows-refused-jobs"' in second.content.decode()
    assert count(proposal, "jobs") == most


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="two simultaneous transactions: SQLite runs one writer at a time anyway",
)
@pytest.mark.django_db(transaction=True)
def test_simultaneous_adds_wait_for_each_other(proposal):
    """The second add counts the rows only once the first has committed: it waits
    for the proposal's lock, rather than counting the 199 it could see."""
    most = limits.MAX_ROWS["jobs"]
    fill(proposal, "jobs", most - 1)
    outcome = {}

    def second_tab():
        try:
            services.proposal_add_row(proposal=proposal, kind="jobs")
            outcome["second"] = "added"
        except TableFull:
            outcome["second"] = "refused"
        finally:
            connection.close()

    with transaction.atomic():
        services.proposal_add_row(proposal=proposal, kind="jobs")
        other = threading.Thread(target=second_tab)
        other.start()
        # Until the other transaction waits for a lock (or has finished without);
        # pg_locks is read live, unlike pg_stat_activity's per-transaction snapshot.
        while other.is_alive():
            with connection.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
                if cursor.fetchone()[0]:
                    break
    other.join()
    assert outcome == {"second": "refused"}
    assert count(proposal, "jobs") == most


# --- "Add it back" --------------------------------------------------------------


def test_add_it_back_into_a_full_table_is_refused_and_keeps_what_was_typed(
    user_client, proposal
):
    job = JobTypeFactory(proposal=proposal, title="Ablations", position=0)
    tab_1, tab_2 = load(user_client, proposal), load(user_client, proposal)
    user_client.post(
        reverse(
            "proposals:row",
            kwargs={
                "pk": proposal.pk,
                "step": "scalability",
                "kind": "jobs",
                "operation": "delete",
                "row": job.pk,
            },
        ),
        tab_1,
        headers=HX,
    )
    tab_2[f"jobs-{job.pk}-title"] = "Ablations, longer"
    autosave(user_client, proposal, tab_2)
    fill(proposal, "jobs", limits.MAX_ROWS["jobs"])  # filled in the other tab
    restore = reverse(
        "proposals:row",
        kwargs={
            "pk": proposal.pk,
            "step": "scalability",
            "kind": "jobs",
            "operation": "restore",
            "row": job.pk,
        },
    )
    page = user_client.get(step_url(proposal, "jobs")).content.decode()
    response = user_client.post(restore, form_of(page), headers=HX)
    content = response.content.decode()
    assert count(proposal, "jobs") == limits.MAX_ROWS["jobs"]
    assert 'data-testid="rows-refused-jobs"' in content
    assert 'data-testid="restore-refused"' not in content  # not a contradiction
    assert status_of(content) != "saved"
    # What was typed into the removed row is still kept, offered back.
    assert "Ablations, longer" in content and 'data-testid="row-gone"' in content
    kept = Proposal.objects.get(pk=proposal.pk).refused_inputs
    assert kept[f"jobs-{job.pk}-title"]["text"] == "Ablations, longer"


# --- A paste and rows read from logs --------------------------------------------


def test_a_paste_into_a_full_table_is_refused(user_client, proposal):
    fill(proposal, "jobs", limits.MAX_ROWS["jobs"])
    response = user_client.post(
        reverse("proposals:paste", args=[proposal.pk, "jobs"]),
        {"paste-jobs-text": "Title\tGPUs\tHours\tJobs\nOne more\t8\t4\t1\n"},
    )
    assert response.status_code == 200
    assert count(proposal, "jobs") == limits.MAX_ROWS["jobs"]
    with pytest.raises(PasteError):
        proposal_paste_rows(
            proposal=proposal, kind="jobs", rows=[{"title": "One more"}]
        )
    assert count(proposal, "jobs") == limits.MAX_ROWS["jobs"]


def test_rows_read_from_logs_are_refused_past_the_limit_all_or_nothing(proposal):
    fill(proposal, "measurements", limits.MAX_ROWS["measurements"])
    with pytest.raises(PasteError):
        proposal_add_log_rows(
            proposal=proposal,
            jobs=[{"title": "From the log", "gpus": 8}],
            measurements=[{"gpus": 8, "throughput": 100, "unit": "samples/s"}],
        )
    assert count(proposal, "measurements") == limits.MAX_ROWS["measurements"]
    assert count(proposal, "jobs") == 0


# --- An import ------------------------------------------------------------------


def _document_with_jobs(jobs: int) -> domain.Proposal:
    """An example file's document with ``jobs`` job-plan rows."""
    document = jsonformat.read((EXAMPLES / "lumi-fast-lane.json").read_bytes())
    job = document.scalability.jobs[0]
    return dataclasses.replace(
        document,
        scalability=dataclasses.replace(document.scalability, jobs=(job,) * jobs),
    )


def test_an_import_of_a_document_past_the_limit_writes_nothing(user, proposal):
    """The service checks the rows itself, whoever built the document (the file
    reader refuses such a file already)."""
    over = _document_with_jobs(limits.MAX_ROWS["jobs"] + 1)
    proposals = Proposal.objects.count()
    with pytest.raises(domain.FormatError) as refused:
        services.proposal_import(owner=user, document=over)
    assert refused.value.problems == [
        ("scalability.jobs", "has 201 rows; at most 200 are allowed")
    ]
    assert Proposal.objects.count() == proposals
    with pytest.raises(domain.FormatError):
        services.proposal_import_revision(
            proposal=proposal, document=over, expected_revision=proposal.revision
        )
    assert count(proposal, "jobs") == 0
    at_most = services.proposal_import(
        owner=user, document=_document_with_jobs(limits.MAX_ROWS["jobs"])
    )
    assert count(at_most, "jobs") == limits.MAX_ROWS["jobs"]


# --- A duplicate and a retargeted copy ------------------------------------------


def test_a_duplicate_of_a_proposal_over_the_limit_is_refused(user_client, proposal):
    fill(proposal, "jobs", limits.MAX_ROWS["jobs"] + 5)
    proposals = Proposal.objects.count()
    response = user_client.post(
        reverse("proposals:duplicate", args=[proposal.pk]), {"title": "A copy"}
    )
    assert response.status_code == 200
    content = response.content.decode()
    assert "Job plan holds 205 rows, more than the 200 the JSON format allows" in (
        content
    )
    assert Proposal.objects.count() == proposals
    with pytest.raises(TableFull):
        services.proposal_duplicate(proposal=proposal, owner=proposal.owner, title="x")
    assert Proposal.objects.count() == proposals


def test_a_duplicate_at_the_limits_is_made(proposal):
    for kind in KINDS:
        fill(proposal, kind, limits.MAX_ROWS[kind])
    copy = services.proposal_duplicate(
        proposal=proposal, owner=proposal.owner, title="x"
    )
    assert {kind: count(copy, kind) for kind in KINDS} == limits.MAX_ROWS


@pytest.mark.parametrize("rescale", ["", "1"])
def test_a_retargeted_copy_of_a_proposal_over_the_limit_is_refused(
    user_client, proposal, rescale
):
    fill(proposal, "schedule", limits.MAX_ROWS["schedule"] + 4)
    proposals = Proposal.objects.count()
    response = user_client.post(
        reverse("proposals:retarget_copy", args=[proposal.pk]),
        {"system": "leonardo-booster", "rescale": rescale},
        follow=True,
    )
    assert Proposal.objects.count() == proposals
    content = response.content.decode()
    assert (
        "Usage schedule holds 124 rows, more than the 120 the JSON format allows"
        in content
    )


# --- Filled to the limits by the add path, exported, imported again -------------


def test_a_proposal_filled_by_the_add_button_exports_a_file_that_imports(
    user, user_client, proposal, tmp_path
):
    """Rows added one by one with "+ ..." until the button refuses: the proposal's
    own JSON file is accepted by the import and by ``manage.py assess``. The first
    rows have values, so the added ones carry what "+ ..." copies (a measurement's
    code, unit and hardware; a period's next month, up to the last month)."""
    code = CodeEntry.objects.create(
        proposal=proposal, role="main", position=0, name="PyTorch"
    )
    ScalingMeasurement.objects.create(
        proposal=proposal,
        position=0,
        code=code,
        gpus=8,
        throughput=1000,
        unit="tokens/s",
        hardware="MI250X",
    )
    UsageMonth.objects.create(
        proposal=proposal, position=0, from_month=1, to_month=1, gpu_hours=10
    )
    for kind in KINDS:
        added = 0
        while True:
            try:
                services.proposal_add_row(proposal=proposal, kind=kind)
            except TableFull:
                break
            added += 1
            assert added <= limits.MAX_ROWS[kind]
        # And once more over HTTP, as the button does.
        user_client.post(add_url(proposal, kind), {}, headers=HX)
        assert count(proposal, kind) == limits.MAX_ROWS[kind]
    exported = user_client.get(
        reverse("proposals:export_json", args=[proposal.pk])
    ).content
    document = jsonio.check_file(exported)
    imported = services.proposal_import(owner=user, document=document)
    assert {kind: count(imported, kind) for kind in KINDS} == limits.MAX_ROWS
    units = ScalingMeasurement.objects.filter(proposal=imported).values("unit")
    assert {row["unit"] for row in units} == {"tokens/s"}
    path = tmp_path / "proposal.json"
    path.write_bytes(exported)
    code, _out, err = run("assess", str(path))
    assert code in (0, 1), err  # 2: the file is refused


def test_models_cover_the_limits():
    assert {kind: model for kind, model in services.ROW_MODELS.items()} == {
        "codes": CodeEntry,
        "measurements": ScalingMeasurement,
        "jobs": JobType,
        "schedule": UsageMonth,
    }
    assert set(services.ROW_MODELS) == set(limits.MAX_ROWS)


def test_a_period_after_one_ending_in_the_last_month_is_added_blank(
    user_client, proposal
):
    """ "+ Period" starts a period after the last one, but not past month 60 (it
    answered a server error: the database refuses month 61)."""
    fill(proposal, "schedule", 120)  # the last ends in month 60
    UsageMonth.objects.filter(proposal=proposal).order_by("-position")[0].delete()
    response = user_client.post(add_url(proposal, "schedule"), {}, headers=HX)
    assert response.status_code == 200
    last = UsageMonth.objects.filter(proposal=proposal).order_by("-position")[0]
    assert (last.from_month, last.to_month) == (None, None)
