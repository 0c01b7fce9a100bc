"""Training logs are read by the task worker, never by a web worker: the request
stores the files and answers at once with the worker's progress, polled by htmx (a
page without JavaScript refreshes itself); a failed or stalled reading offers to
read again; rows are added only from a finished reading."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from proposals.domain import training_logs
from proposals.domain.training_logs import scan
from proposals.models import LogReading, LogUpload, ScalingMeasurement
from proposals.services.training_logs import log_reading_run
from tests.domain.test_training_logs import LOGS

pytestmark = pytest.mark.django_db

RUN = "megatron-2024-8gpus.log"
GPUS = {"logs-count": "gpus"}


def url(proposal, name="logs", *args):
    return reverse(f"proposals:{name}", args=[proposal.pk, *args])


def upload(name=RUN):
    return SimpleUploadedFile(name, (LOGS / name).read_bytes(), "text/plain")


def _refuse(*args, **kwargs):
    raise AssertionError("a web worker parsed a log")


def test_the_request_stores_the_files_and_parses_nothing(
    user_client, proposal, monkeypatch, run_tasks
):
    for name in ("read_file", "read_log", "read_text", "iter_lines"):
        monkeypatch.setattr(training_logs, name, _refuse)
    response = user_client.post(
        url(proposal), {"logs-files": [upload()], "logs": "1", **GPUS}
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Waiting for the task worker to read the logs" in page
    reading = LogReading.objects.get(proposal=proposal)
    assert reading.status == LogReading.Status.PENDING
    (stored,) = LogUpload.objects.filter(reading=reading)
    assert stored.name == RUN and bytes(stored.data) == (LOGS / RUN).read_bytes()
    assert reading.bytes_total == stored.size
    monkeypatch.undo()
    assert run_tasks() == 1
    reading.refresh_from_db()
    assert reading.status == LogReading.Status.DONE
    assert reading.bytes_read == reading.bytes_total
    # The file is gone once read; what the page shows is kept.
    assert not LogUpload.objects.filter(reading=reading).exists()
    assert reading.result["files"] == [RUN]


def test_the_preview_polls_the_worker_and_shows_its_progress(user_client, proposal):
    user_client.post(url(proposal), {"logs-files": [upload()], "logs": "1", **GPUS})
    reading = LogReading.objects.get(proposal=proposal)
    LogReading.objects.filter(pk=reading.pk).update(
        status=LogReading.Status.READING,
        bytes_total=3 * 2**20,
        bytes_read=3 * 2**19,
        started_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )
    status = url(proposal, "logs_status", reading.pk)
    fragment = user_client.get(status, GPUS, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in fragment
    assert "Reading the logs: 1.5 of 3.0 MB" in fragment
    assert 'aria-valuenow="50"' in fragment
    # It asks again with the choices of the form, every second.
    assert f'hx-get="{status}?logs-count=gpus"' in fragment
    assert 'hx-trigger="every 1s"' in fragment
    # Without JavaScript the page refreshes itself.
    page = user_client.get(status, GPUS).content.decode()
    assert f'<meta http-equiv="refresh" content="2;url={status}?logs-count=gpus">' in (
        page
    )


def test_the_finished_reading_is_the_preview_and_stops_polling(
    user_client, proposal, run_tasks
):
    user_client.post(url(proposal), {"logs-files": [upload()], "logs": "1", **GPUS})
    run_tasks()
    reading = LogReading.objects.get(proposal=proposal)
    fragment = user_client.get(
        url(proposal, "logs_status", reading.pk), GPUS, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "1 measurement and 0 job-plan rows to add" in fragment
    assert "248,660.3903" in fragment
    assert "hx-trigger" not in fragment.split('data-testid="logs-summary"')[0]


def test_rows_are_added_only_from_a_finished_reading(user_client, proposal, run_tasks):
    user_client.post(url(proposal), {"logs-files": [upload()], "logs": "1", **GPUS})
    early = user_client.post(url(proposal), {"logs_add": "1", **GPUS})
    assert early.status_code == 200
    assert "The logs are still being read" in early.content.decode()
    assert not ScalingMeasurement.objects.filter(proposal=proposal).exists()
    run_tasks()
    added = user_client.post(url(proposal), {"logs_add": "1", **GPUS})
    assert added.status_code == 302
    assert ScalingMeasurement.objects.filter(proposal=proposal).count() == 1


def test_the_worker_stamps_its_progress_as_it_reads(proposal, user, monkeypatch):
    monkeypatch.setattr(scan, "BLOCK", 4096)
    monkeypatch.setattr(LogReading, "PROGRESS_EVERY", timedelta(0))
    reading = LogReading.objects.create(proposal=proposal, user=user)
    data = (LOGS / RUN).read_bytes() * 4
    LogUpload.objects.create(reading=reading, name=RUN, size=len(data), data=data)
    LogReading.objects.filter(pk=reading.pk).update(bytes_total=len(data))
    with CaptureQueriesContext(connection) as queries:
        assert log_reading_run(reading_id=reading.pk) == "read"
    stamps = [
        q["sql"] for q in queries.captured_queries if '"bytes_read" =' in q["sql"]
    ]
    # One stamp per block of 4 KB (the last block's is the final update).
    assert len(stamps) >= len(data) // 4096 - 1
    reading.refresh_from_db()
    assert reading.is_done and reading.bytes_read == len(data)


def test_a_failed_reading_says_why_and_reads_again(
    user_client, proposal, run_tasks, monkeypatch
):
    def broken(*args, **kwargs):
        raise ValueError("the reader broke")

    monkeypatch.setattr(training_logs, "read_file", broken)
    user_client.post(url(proposal), {"logs-files": [upload()], "logs": "1", **GPUS})
    run_tasks()
    reading = LogReading.objects.get(proposal=proposal)
    assert reading.is_failed and "the reader broke" in reading.error
    # The file is kept for another try.
    assert LogUpload.objects.filter(reading=reading).exists()
    page = user_client.get(url(proposal, "logs_status", reading.pk)).content.decode()
    assert "The logs could not be read." in page and "the reader broke" in page
    assert "Nothing was added to your proposal" in page
    assert 'http-equiv="refresh"' not in page
    monkeypatch.undo()
    response = user_client.post(url(proposal, "logs_retry", reading.pk))
    assert response.status_code == 302
    reading.refresh_from_db()
    assert reading.status == LogReading.Status.PENDING
    run_tasks()
    reading.refresh_from_db()
    assert reading.is_done


def test_a_reading_no_worker_picked_up_is_said_to_be_stalled(user_client, proposal):
    user_client.post(url(proposal), {"logs-files": [upload()], "logs": "1"})
    reading = LogReading.objects.get(proposal=proposal)
    LogReading.objects.filter(pk=reading.pk).update(
        created_at=timezone.now() - LogReading.STALLED_AFTER - timedelta(seconds=1)
    )
    page = user_client.get(url(proposal, "logs_status", reading.pk)).content.decode()
    assert "No task worker has picked them up" in page
    assert 'data-testid="logs-retry"' in page


def test_another_persons_reading_is_not_found(
    user_client, proposal, client, django_user_model
):
    user_client.post(url(proposal), {"logs-files": [upload()], "logs": "1"})
    reading = LogReading.objects.get(proposal=proposal)
    other = django_user_model.objects.create_user("other", "o@example.org", "pw")
    client.force_login(other)
    assert client.get(url(proposal, "logs_status", reading.pk)).status_code == 404
    assert client.post(url(proposal, "logs_retry", reading.pk)).status_code == 404


def test_only_the_newest_readings_are_kept(user_client, proposal):
    for _ in range(LogReading.KEEP + 2):
        user_client.post(url(proposal), {"logs-text": "step 1 | 5 tok/s", "logs": "1"})
    assert LogReading.objects.filter(proposal=proposal).count() == LogReading.KEEP


@pytest.mark.parametrize(
    ("language", "reading", "waiting"),
    [
        (
            "de",
            "Die Logs werden gelesen: 1.5 von 3.0 MB",
            "Warten, bis der Task-Worker",
        ),
        ("fr", "Lecture des journaux : 1.5 sur 3.0 Mo", "En attente du processus"),
    ],
)
def test_the_progress_speaks_the_page_language(
    user_client, proposal, language, reading, waiting
):
    user_client.cookies["django_language"] = language
    user_client.post(url(proposal), {"logs-files": [upload()], "logs": "1"})
    pending = LogReading.objects.get(proposal=proposal)
    status = url(proposal, "logs_status", pending.pk)
    assert waiting in user_client.get(status).content.decode()
    LogReading.objects.filter(pk=pending.pk).update(
        status=LogReading.Status.READING,
        bytes_total=3 * 2**20,
        bytes_read=3 * 2**19,
        heartbeat_at=timezone.now(),
    )
    page = user_client.get(status).content.decode()
    assert reading in page
    assert "Reading the logs" not in page
