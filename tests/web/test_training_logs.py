"""Measurements and job-plan rows from training logs in the scalability step: files
read by the task worker with a progress answer, a preview that stores no row, Add
(through the paste's service), Undo, the GPU count asked for, the code entry, a page
of its own without JavaScript."""

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proposals import domain, services
from proposals.domain import training_logs
from proposals.models import JobType, LogUpload, ScalingMeasurement
from tests.domain.test_training_logs import LOGS
from tests.factories import CodeEntryFactory, ScalingMeasurementFactory
from tests.web.conftest import EXAMPLES
from tests.web.test_exports import get_pdf, pdf_text

pytestmark = pytest.mark.django_db


def upload(name):
    return SimpleUploadedFile(name, (LOGS / name).read_bytes(), "text/plain")


def url(proposal, name="logs"):
    return reverse(f"proposals:{name}", args=[proposal.pk])


RUNS = [f"megatron-2024-{g}gpus.log" for g in (8, 16, 32)]


def read(client, proposal, run_tasks, data, **headers):
    """Send ``data`` (files, text, choices), let the worker read it, then ask for
    the preview with the same choices (the files are not sent again)."""
    sent = client.post(url(proposal), data, **headers)
    assert sent.status_code == 200
    assert "Waiting for the task worker to read the logs" in sent.content.decode()
    run_tasks()
    choices = {k: v for k, v in data.items() if k not in ("logs-files", "logs-text")}
    return client.post(url(proposal), {**choices, "logs": "1"}, **headers)


# The factory's proposal is on LUMI-G (2 GCDs per GPU): these logs count GPUs.
GPUS = {"logs-count": "gpus"}


def test_preview_stores_nothing_and_shows_rows_and_where_they_came_from(
    user_client, proposal, run_tasks
):
    response = read(
        user_client,
        proposal,
        run_tasks,
        {"logs-files": [upload(n) for n in RUNS], "logs": "1", **GPUS},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "3 measurements and 0 job-plan rows to add" in page
    assert "248,660.3903" in page  # 8 GPUs, tokens/s, in the person's format
    assert "megatron-2024-8gpus.log, lines 19, 22," in page
    assert "the first interval (warm-up)" in page
    assert ScalingMeasurement.objects.filter(proposal=proposal).count() == 0


def test_add_then_undo_removes_exactly_those_rows(user_client, proposal, run_tasks):
    code = CodeEntryFactory(proposal=proposal, name="Megatron-LM")
    kept = ScalingMeasurementFactory(proposal=proposal, position=0)
    user_client.post(url(proposal), {"logs-files": [upload(n) for n in RUNS], **GPUS})
    run_tasks()
    response = user_client.post(url(proposal), {"logs_add": "1", **GPUS})
    assert response.status_code == 302
    assert response["Location"].endswith("/scalability/#section-measurements")
    rows = list(
        ScalingMeasurement.objects.filter(proposal=proposal).order_by("position")
    )
    assert [(r.gpus, r.unit) for r in rows[1:]] == [
        (8, "tokens/s"),
        (16, "tokens/s"),
        (32, "tokens/s"),
    ]
    assert rows[1].throughput == Decimal("248660.3903")
    assert all(r.code_id == code.pk for r in rows[1:])
    assert rows[1].source.startswith("megatron-2024-8gpus.log, lines 19, 22,")
    assert "Left out: line 36, the first interval (warm-up)" in rows[1].source
    assert rows[0].source == ""
    step = user_client.get(reverse("proposals:step", args=[proposal.pk, "scalability"]))
    assert b"The last reading of logs added 3 rows" in step.content
    response = user_client.post(url(proposal, "logs_undo"))
    assert response.status_code == 302
    assert list(ScalingMeasurement.objects.filter(proposal=proposal)) == [kept]


def test_sacct_adds_job_plan_rows(user_client, proposal, run_tasks):
    # LUMI-G: Slurm's gres/gpu counts GCDs; by default they become GPUs.
    response = read(
        user_client, proposal, run_tasks, {"logs-files": [upload("sacct-lumi.txt")]}
    )
    assert "stored as physical GPUs (2 GCDs each)" in response.content.decode()
    user_client.post(url(proposal), {"logs_add": "1"})
    rows = [
        (j.title, j.gpus, j.hours, j.count)
        for j in JobType.objects.filter(proposal=proposal).order_by("position")
    ]
    assert rows[-2:] == [
        ("eval", 4, Decimal("2.00"), 2),
        ("train-7b", 32, Decimal("24.00"), 3),
    ]
    source = JobType.objects.get(proposal=proposal, title="eval").source
    assert "7100010, 7100011" in source and "job steps" in source
    assert "8 GCDs = 4 GPUs on LUMI-G (2 GCDs per GPU)" in source


def test_a_log_without_gpu_count_asks_for_it(user_client, proposal, run_tasks):
    name = "torchtitan-2024-wps-no-mesh.log"
    response = read(
        user_client, proposal, run_tasks, {"logs-files": [upload(name)], **GPUS}
    )
    page = response.content.decode()
    assert "Not added: needs the GPU count: the log does not state it" in page
    assert "0 measurements" in page
    # The count typed afterwards applies to what was read (the file is not resent).
    response = user_client.post(url(proposal), {"logs-gpus": "4", "logs": "1", **GPUS})
    assert "1 measurement and 0 job-plan rows to add" in response.content.decode()
    user_client.post(url(proposal), {"logs-gpus": "4", "logs_add": "1", **GPUS})
    (row,) = ScalingMeasurement.objects.filter(proposal=proposal, source__gt="")
    assert (row.gpus, row.throughput) == (4, Decimal("8026.0000"))
    assert "4, as given (the log does not state it)" in row.source


def test_an_odd_number_of_gcds_is_kept_and_said(user_client, proposal, run_tasks):
    text = (
        "world_size=3\nstep 1 | 100 tokens/s\nstep 2 | 200 tokens/s\n"
        "step 3 | 200 tokens/s"
    )
    data = {"logs-text": text, "logs": "1", "logs-count": "gcds"}
    response = read(user_client, proposal, run_tasks, data)
    assert "3 GCDs is not a whole number of LUMI-G GPUs" in response.content.decode()


def test_a_gpu_count_that_is_not_a_number_is_said(user_client, proposal, run_tasks):
    user_client.post(url(proposal), {"logs-files": [upload(RUNS[0])]})
    run_tasks()
    response = user_client.post(url(proposal), {"logs-gpus": "sixteen", "logs": "1"})
    assert "“sixteen” is not a GPU count" in response.content.decode()


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de", "„sechzehn“ ist keine Anzahl von GPUs"),
        ("fr", "« sechzehn » n’est pas un nombre de GPU"),
    ],
)
def test_a_gpu_count_that_is_not_a_number_is_said_in_the_readers_language(
    user_client, proposal, run_tasks, language, said
):
    user_client.post(url(proposal), {"logs-files": [upload(RUNS[0])]})
    run_tasks()
    response = user_client.post(
        url(proposal),
        {"logs-gpus": "sechzehn", "logs": "1"},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    page = response.content.decode()
    assert said in page
    assert "is not a GPU count" not in page


def test_an_unknown_file_is_refused_and_pasted_text_is_read(
    user_client, proposal, run_tasks
):
    text = (LOGS / "llmc-2024-07-8gpus.log").read_text()
    response = read(
        user_client,
        proposal,
        run_tasks,
        {"logs-files": [upload("not-a-log.txt")], "logs-text": text, **GPUS},
    )
    page = response.content.decode()
    assert "not-a-log.txt: not a log this reader knows" in page
    assert "pasted text" in page and "1 measurement" in page


def test_the_page_of_its_own_works_without_javascript(user_client, proposal):
    page = user_client.get(url(proposal)).content.decode()
    assert 'enctype="multipart/form-data"' in page and 'name="logs-files"' in page
    step = user_client.get(reverse("proposals:step", args=[proposal.pk, "scalability"]))
    assert b'formenctype="multipart/form-data"' in step.content
    assert b"Add measurements from training logs" in step.content


def test_htmx_preview_is_the_fragment(user_client, proposal, run_tasks):
    response = read(
        user_client,
        proposal,
        run_tasks,
        {"logs-files": [upload(RUNS[0])], "logs": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b'data-testid="logs-measurements"' in response.content


def test_another_users_proposal_is_not_found(client, proposal, django_user_model):
    other = django_user_model.objects.create_user("other", "o@example.org", "pw")
    client.force_login(other)
    assert client.post(url(proposal), {"logs": "1"}).status_code == 404


def _with_sources(user):
    """The LUMI Fast Lane example whose first measurement and job came from logs."""
    data = json.loads((EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8"))
    data["scalability"]["measurements"][0]["source"] = MEASURED
    data["scalability"]["jobs"][0]["source"] = ACCOUNTED
    return services.proposal_import(owner=user, document=domain.loads(json.dumps(data)))


MEASURED = (
    "run-8.log, lines 19, 22, 38: median over 9 interval(s) of global batch size"
    "\n  ``` iteration 20/ 500 | elapsed time per iteration (ms): 4241.5 |"
)
ACCOUNTED = "sacct.txt, lines 2, 6: 2 job(s) (7100010, 7100011) with gres/gpu = 8"


def test_the_exports_show_where_the_rows_came_from(user, user_client):
    proposal = _with_sources(user)
    markdown = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    assert "### Read from training logs and accounting" in markdown
    # Verbatim, in a fence that the excerpt's own backticks cannot close.
    assert "````text\n" + MEASURED + "\n````" in markdown
    assert ACCOUNTED in markdown
    exported = json.loads(
        user_client.get(reverse("proposals:export_json", args=[proposal.pk])).content
    )
    assert exported["scalability"]["measurements"][0]["source"] == MEASURED
    assert exported["scalability"]["measurements"][1]["source"] == ""
    assert exported["scalability"]["jobs"][0]["source"] == ACCOUNTED


def test_typed_rows_add_no_provenance_section(user, user_client):
    data = (EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8")
    proposal = services.proposal_import(owner=user, document=domain.loads(data))
    markdown = user_client.get(
        reverse("proposals:export_markdown", args=[proposal.pk])
    ).content.decode()
    assert "Read from training logs" not in markdown


def test_the_pdf_shows_where_the_rows_came_from(user, user_client, run_tasks):
    proposal = _with_sources(user)
    url = reverse("proposals:export_pdf", args=[proposal.pk])
    text = " ".join(pdf_text(get_pdf(user_client, url, run_tasks).content))
    assert "Read from training logs and accounting" in text
    assert "median over 9 interval(s) of global batch size" in text
    assert "7100010, 7100011" in text


def test_the_staff_page_shows_where_the_rows_came_from(
    user, client, staff_user, django_capture_on_commit_callbacks
):
    proposal = _with_sources(user)
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=proposal, user=user)
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[proposal.pk])).text
    assert 'data-testid="row-sources"' in page
    assert "median over 9 interval(s)" in page
    assert "7100010, 7100011" in page


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    text=st.text(max_size=600),
    file=st.binary(max_size=600),
    gpus=st.text(max_size=8),
    count=st.sampled_from(["gcds", "gpus", "", "x"]),
    add=st.booleans(),
)
def test_any_text_or_file_is_answered_without_a_server_error(
    user_client, proposal, text, file, gpus, count, add
):
    data = {
        "logs-text": text,
        "logs-files": [SimpleUploadedFile("random.log", file)],
        "logs-gpus": gpus,
        "logs-count": count,
        "logs-code": gpus,
        "logs_add" if add else "logs": "1",
    }
    response = user_client.post(url(proposal), data)
    assert response.status_code in (200, 302)


def test_a_file_above_the_limit_is_refused_unread(
    user_client, proposal, monkeypatch, run_tasks
):
    monkeypatch.setattr(training_logs, "MAX_FILE_BYTES", 2 * 2**20)
    big = SimpleUploadedFile("big.log", b"x" * (2 * 2**20 + 1))
    response = read(
        user_client, proposal, run_tasks, {"logs-files": [big], "logs": "1"}
    )
    assert LogUpload.objects.filter(name="big.log").count() == 0  # read, deleted
    assert "big.log: larger than 2 MB; not read." in response.content.decode()
