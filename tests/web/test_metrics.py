"""``/metrics`` (aifactory/metrics.py, issue 33): the queue's depth and age, the
workers, mails, PDFs and log readings from the database, the autosave latency from
the processes (shared by an instance's gunicorn workers), behind a bearer token."""

from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.db import OperationalError
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max
from prometheus_client.parser import text_string_to_metric_families

from aifactory import metrics
from aifactory.models import TaskWorker
from proposals.models import LogReading, OutgoingMail, PdfExport
from tests.web.test_wizard import HX, selection_data, step_url

pytestmark = pytest.mark.django_db

TOKEN = "m" * 40
BEARER = {"Authorization": f"Bearer {TOKEN}"}
PDF = "proposals.services.exports.render_pdf_export"
MAIL = "proposals.services.mail.deliver_mail"


@pytest.fixture(autouse=True)
def token(settings, monkeypatch):
    settings.METRICS_TOKEN = TOKEN
    # Each test measures in a process of its own kind (no multiprocess directory
    # unless the test sets one).
    monkeypatch.delenv(metrics.MULTIPROCESS_DIRECTORY, raising=False)
    monkeypatch.delenv(metrics.SLOT, raising=False)
    metrics.forget_process_metrics()
    yield
    metrics.forget_process_metrics()


def scrape(client, **kwargs) -> dict[tuple, float]:
    """The samples, by (name, sorted labels)."""
    response = client.get("/metrics", headers=BEARER, **kwargs)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def task(path=PDF, *, status="READY", enqueued_ago=None, run_after=None, **fields):
    record = DBTaskResult.objects.create(
        task_path=path,
        args_kwargs={"args": [1], "kwargs": {}},
        backend_name="default",
        queue_name="default",
        run_after=run_after or get_date_max(),
    )
    changes = dict(fields, status=status)
    if enqueued_ago is not None:
        changes["enqueued_at"] = timezone.now() - enqueued_ago
    DBTaskResult.objects.filter(pk=record.pk).update(**changes)
    return record


def labels(**given) -> tuple:
    return tuple(sorted(given.items()))


# Protection ------------------------------------------------------------------------


def test_without_a_token_configured_the_endpoint_is_off(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", headers=BEARER).status_code == 404


@pytest.mark.parametrize(
    "header",
    [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer "],
)
def test_a_scraper_without_the_token_gets_nothing(client, header):
    headers = {"Authorization": header} if header is not None else {}
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert b"aifactory" not in response.content


def test_it_answers_on_the_instance_s_own_address_over_plain_http(client, settings):
    """Like /readyz: before the host check and the HTTPS redirect, so a scraper
    asks http://127.0.0.1:8001/metrics of each instance."""
    settings.DEBUG = False
    settings.SECURE_SSL_REDIRECT = True
    settings.ALLOWED_HOSTS = ["wizard.example.eu"]
    samples = scrape(client, HTTP_HOST="127.0.0.1:8001")
    assert samples[("aifactory_database_up", ())] == 1
    assert client.post("/metrics", headers=BEARER).status_code == 405


# The queue ---------------------------------------------------------------------------


def test_the_queue_s_depth_and_oldest_wait_by_task(client):
    """A deadline's backlog: PDFs waiting, a mail waiting for its retry time."""
    for minutes in (3, 10, 7):
        task(PDF, enqueued_ago=timedelta(minutes=minutes))
    task(PDF, status="RUNNING", started_at=timezone.now(), worker_ids=["w1"])
    task(PDF, status="FAILED", finished_at=timezone.now())
    task(PDF, status="SUCCESSFUL", finished_at=timezone.now())
    task(MAIL, enqueued_ago=timedelta(hours=1))  # queued, then retried:
    DBTaskResult.objects.filter(task_path=MAIL).update(
        run_after=timezone.now() + timedelta(minutes=4)
    )
    samples = scrape(client)
    pdf = {"queue": "default", "task": PDF}
    assert samples[("aifactory_tasks", labels(**pdf, state="waiting"))] == 3
    assert samples[("aifactory_tasks", labels(**pdf, state="running"))] == 1
    assert samples[("aifactory_tasks", labels(**pdf, state="failed"))] == 1
    assert samples[("aifactory_tasks", labels(**pdf, state="successful"))] == 1
    assert samples[("aifactory_tasks", labels(**pdf, state="scheduled"))] == 0
    age = samples[("aifactory_task_queue_oldest_age_seconds", labels(**pdf))]
    assert 600 <= age < 700
    mail_task = {"queue": "default", "task": MAIL}
    assert samples[("aifactory_tasks", labels(**mail_task, state="scheduled"))] == 1
    assert samples[("aifactory_tasks", labels(**mail_task, state="waiting"))] == 0
    # Waiting for its retry time is not waiting for a worker.
    assert (
        samples[("aifactory_task_queue_oldest_age_seconds", labels(**mail_task))] == 0
    )
    # Its worker w1 never stamped a row: the claim is fresh, not lost yet.
    assert samples[("aifactory_tasks_held_by_lost_worker", ())] == 0


def test_workers_alive_and_lost(client, settings):
    now = timezone.now()
    for worker_id, seen in (("a", now), ("b", now - timedelta(seconds=5))):
        TaskWorker.objects.create(worker_id=worker_id, started_at=now, seen_at=seen)
    gone = now - settings.TASK_WORKER_LOST_AFTER - timedelta(seconds=1)
    TaskWorker.objects.create(worker_id="c", started_at=gone, seen_at=gone)
    task(PDF, status="RUNNING", started_at=gone, worker_ids=["c"])
    samples = scrape(client)
    assert samples[("aifactory_task_workers", labels(state="alive"))] == 2
    assert samples[("aifactory_task_workers", labels(state="lost"))] == 1
    assert samples[("aifactory_tasks_held_by_lost_worker", ())] == 1


def test_mails_pdfs_and_log_readings_by_status(client, proposal, user):
    statuses = OutgoingMail.Status
    for status in (statuses.QUEUED, statuses.RETRYING, statuses.FAILED):
        sent = OutgoingMail.objects.create(to="a@example.org", subject="s", body="")
        OutgoingMail.objects.filter(pk=sent.pk).update(
            status=status, created_at=timezone.now() - timedelta(minutes=20)
        )
    for key, status in (("a", "done"), ("b", "done"), ("c", "failed")):
        PdfExport.objects.create(proposal=proposal, content_key=key * 64, status=status)
    LogReading.objects.create(proposal=proposal, user=user)
    samples = scrape(client)
    for status, count in [("queued", 1), ("retrying", 1), ("failed", 1), ("sent", 0)]:
        assert samples[("aifactory_mails", labels(status=status))] == count
    assert 1200 <= samples[("aifactory_mail_oldest_waiting_age_seconds", ())] < 1300
    assert samples[("aifactory_pdf_exports", labels(status="done"))] == 2
    assert samples[("aifactory_pdf_exports", labels(status="failed"))] == 1
    assert samples[("aifactory_pdf_exports", labels(status="pending"))] == 0
    assert samples[("aifactory_log_readings", labels(status="pending"))] == 1


def test_a_database_outage_is_a_figure_not_an_error(client, settings):
    """Scraped every 15 s: an outage answers 200 with aifactory_database_up 0 (and
    the process's own figures), never a 500 mailed to the admins each time."""
    settings.ADMINS = [("Ops", "ops@example.eu")]
    settings.DEBUG = False
    with mock.patch(
        "aifactory.task_queue.queue_lines", side_effect=OperationalError("refused")
    ):
        samples = scrape(client)
    assert samples[("aifactory_database_up", ())] == 0
    assert not any(name == "aifactory_tasks" for name, _ in samples)
    assert samples[("aifactory_autosave_scope", labels(scope="process"))] == 1
    assert mail.outbox == []


# Autosave latency --------------------------------------------------------------------


def _count(samples, code="200") -> float:
    return samples.get(("aifactory_autosave_seconds_count", labels(code=code)), 0)


def test_each_autosave_is_timed_and_nothing_else(client, user_client, proposal):
    before = _count(scrape(client))
    url = step_url(proposal, "selection")
    for hours in ("5000", "6000"):
        response = user_client.post(
            url, selection_data(proposal, total_gpu_hours=hours), headers=HX
        )
        assert response.status_code == 200
    # A plain save (a submit button) and a page view are not autosaves.
    plain = dict(selection_data(proposal, total_gpu_hours="7000"))
    plain.pop("autosave", None)
    user_client.post(url, plain)
    user_client.get(url)
    samples = scrape(client)
    assert _count(samples) == before + 2
    assert samples[("aifactory_autosave_seconds_sum", labels(code="200"))] > 0
    slowest = ("aifactory_autosave_seconds_bucket", labels(code="200", le="+Inf"))
    assert samples[slowest] == 2
    assert samples[("aifactory_autosave_scope", labels(scope="process"))] == 1


def test_an_instance_s_workers_share_their_counts_and_a_recycled_one_goes_on(
    client, monkeypatch, tmp_path
):
    """gunicorn's workers write to one directory per instance, each in its slot: a
    scrape that one worker answers counts them all, and the worker that replaces a
    recycled one takes its slot (and its file) over, so the counts never go back and
    the files do not pile up."""
    monkeypatch.setenv(metrics.MULTIPROCESS_DIRECTORY, str(tmp_path))

    def autosave_in(slot: str, seconds: float):
        monkeypatch.setenv(metrics.SLOT, slot)
        metrics.forget_process_metrics()  # a new process
        request = mock.Mock()
        metrics.time_as_autosave(request)
        metrics.request_done(request, 200, seconds)

    autosave_in("worker0", 0.04)
    autosave_in("worker1", 0.3)
    autosave_in("worker1", 0.2)
    autosave_in("worker0", 3.0)  # worker 0 recycled: its successor counts on
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "histogram_worker0.db",
        "histogram_worker1.db",
    ]
    samples = scrape(client)
    assert _count(samples) == 4
    assert samples[("aifactory_autosave_seconds_sum", labels(code="200"))] == (
        pytest.approx(3.54)
    )
    bucket = "aifactory_autosave_seconds_bucket"
    assert samples[(bucket, labels(code="200", le="0.05"))] == 1
    assert samples[(bucket, labels(code="200", le="0.5"))] == 3
    assert samples[(bucket, labels(code="200", le="5.0"))] == 4
    assert samples[("aifactory_autosave_scope", labels(scope="instance"))] == 1
