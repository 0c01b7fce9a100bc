"""A PDF whose worker died mid-render is offered again within seconds (issue 20): the
rendering worker stamps a heartbeat on the export, and a render without one for
``PdfExport.RENDER_STALLED_AFTER`` (30 s) shows "Try again" instead of "This takes a
few seconds" for five minutes."""

import threading
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from proposals import services
from proposals.exports import pdf as pdf_module
from proposals.models import PdfExport
from tests.web.test_exports import load_demo


def _rendering(proposal, *, started_ago: timedelta, beat_ago: timedelta | None):
    now = timezone.now()
    key = f"{PdfExport.objects.count():064d}"
    export = PdfExport.objects.create(proposal=proposal, content_key=key, html="x")
    PdfExport.objects.filter(pk=export.pk).update(
        status=PdfExport.Status.RENDERING,
        started_at=now - started_ago,
        heartbeat_at=None if beat_ago is None else now - beat_ago,
    )
    export.refresh_from_db()
    return export


@pytest.mark.django_db
def test_a_render_without_a_heartbeat_for_30_seconds_has_stalled(proposal):
    limit = PdfExport.RENDER_STALLED_AFTER
    assert limit < PdfExport.STALLED_AFTER
    second = timedelta(seconds=1)
    # A long render whose worker still beats is not stalled, however long it runs.
    alive = _rendering(proposal, started_ago=limit * 10, beat_ago=limit - 5 * second)
    assert not alive.is_stalled
    silent = _rendering(proposal, started_ago=limit * 2, beat_ago=limit + second)
    assert silent.is_stalled
    # From before the heartbeat (or a worker that never beat): its start counts.
    PdfExport.objects.filter(pk=silent.pk).update(heartbeat_at=None)
    silent.refresh_from_db()
    assert silent.is_stalled
    # Waiting for a worker keeps its own, longer limit (the queue may be long).
    waiting = PdfExport.objects.create(proposal=proposal, content_key="w" * 64)
    PdfExport.objects.filter(pk=waiting.pk).update(
        created_at=timezone.now() - limit * 2
    )
    waiting.refresh_from_db()
    assert not waiting.is_stalled


@pytest.mark.django_db
def test_the_page_offers_a_retry_when_the_renderer_went_silent(user, user_client):
    proposal = load_demo("playground", user)
    export = _rendering(
        proposal,
        started_ago=timedelta(seconds=45),
        beat_ago=timedelta(seconds=40),
    )
    url = reverse("proposals:export_pdf_status", args=[proposal.pk, export.pk])
    page = user_client.get(url).text
    assert "This takes a few seconds" not in page
    assert "The task worker stopped while laying out the pages" in page
    assert 'data-testid="pdf-retry"' in page and "hx-trigger" not in page
    # A render that beat 10 s ago is still on its way.
    PdfExport.objects.filter(pk=export.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=10)
    )
    page = user_client.get(url).text
    assert "This takes a few seconds" in page and "pdf-retry" not in page
    # "Try again" queues it for a worker.
    retry = reverse("proposals:export_pdf_retry", args=[proposal.pk, export.pk])
    PdfExport.objects.filter(pk=export.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=40)
    )
    user_client.post(retry)
    export.refresh_from_db()
    assert export.status == PdfExport.Status.PENDING


@pytest.mark.django_db(transaction=True)
def test_the_worker_beats_while_it_renders_and_stops_after(user, monkeypatch, caplog):
    """The worker's step outside any transaction, as ``db_worker`` runs it, with a
    render that takes a while: the heartbeat moves on during it, from a thread that
    is gone afterwards."""
    proposal = load_demo("playground", user)
    export = PdfExport.objects.create(
        proposal=proposal, content_key="h" * 64, html="<p>x</p>"
    )
    monkeypatch.setattr(PdfExport, "HEARTBEAT_EVERY", timedelta(seconds=0.05))

    def slow_render(html, placeholder, chart):
        time.sleep(0.6)
        return b"%PDF-1.7 slow"

    monkeypatch.setattr(pdf_module, "render_job", slow_render)
    assert services.exports.pdf_export_render(export_id=export.pk) == "rendered"
    export.refresh_from_db()
    assert export.status == PdfExport.Status.DONE
    assert export.heartbeat_at > export.started_at + timedelta(seconds=0.1)
    assert not [t for t in threading.enumerate() if t.name.endswith("-heartbeat")]
    assert "no heartbeat" not in caplog.text
