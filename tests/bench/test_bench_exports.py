"""Export performance for the Large Scale demo: PDF (target under 2 s), Markdown and
portal text, each through its view and as the bare rendering step.

The PDF view never renders (issue 16): its first request hands the PDF to the task
worker, and the same content afterwards is the stored file (target under 50 ms)."""

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from proposals import exports
from proposals.exports.portal import portal_text
from proposals.models import Proposal
from tests.bench.conftest import median_ms, meets, report
from tests.web.test_exports import load_demo

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.bench.urls")]
PDF_TARGET_MS = 2000
STORED_TARGET_MS = 50


def test_bench_exports_large_scale(user, run_tasks):
    proposal = load_demo("bsc-large-scale", user)
    client = Client()
    client.force_login(user)

    def view(name):
        url = reverse(f"proposals:{name}", args=[proposal.pk])
        return lambda: client.get(url)

    def fresh_source():
        model = Proposal.objects.get(pk=proposal.pk)
        return exports.source_for(model)

    source = fresh_source()
    cache.clear()
    cold_pdf = median_ms(lambda: exports.pdf_for(source), repeat=1, warmup=0)
    pdf_url = reverse("proposals:export_pdf", args=[proposal.pk])
    handoff = median_ms(lambda: client.get(pdf_url), repeat=1, warmup=0)
    assert client.get(pdf_url).status_code == 302  # waiting for the worker
    worker = median_ms(run_tasks, repeat=1, warmup=0)
    assert client.get(pdf_url)["Content-Type"] == "application/pdf"
    trivial = median_ms(lambda: client.get("/bench/trivial/"), repeat=50)
    stored = median_ms(view("export_pdf"), repeat=30)
    figures = {
        "PDF view, stored file (same content)": stored,
        "Markdown view": median_ms(view("export_markdown"), repeat=30),
        "portal text view": median_ms(view("export_portal"), repeat=30),
        "PDF render only": median_ms(lambda: exports.pdf_for(source), repeat=15),
        "Markdown render only": median_ms(lambda: exports.markdown_for(source)),
        "portal text render only": median_ms(
            lambda: portal_text(exports.portal_for(source))
        ),
        "assessment (shared by all)": median_ms(fresh_source),
    }
    rows = [("PDF, first call (chart not cached)", f"{cold_pdf:8.1f} ms")]
    rows.append(("PDF view, first request (hand-off)", f"{handoff:8.1f} ms"))
    rows.append(("PDF in the task worker (one task)", f"{worker:8.1f} ms"))
    rows.append(("trivial view (baseline)", f"{trivial:8.1f} ms (median)"))
    rows += [(label, f"{ms:8.1f} ms (median)") for label, ms in figures.items()]
    verdict = meets("stored PDF view (ms)", stored, STORED_TARGET_MS)
    rows.append(
        (
            "stored-PDF target",
            f"< {STORED_TARGET_MS} ms: {verdict} "
            f"({stored / figures['PDF render only']:.3f}x rendering it)",
        )
    )
    pdf = figures["PDF render only"]
    rows.append(
        ("PDF target", f"< {PDF_TARGET_MS} ms: {meets('PDF (ms)', pdf, PDF_TARGET_MS)}")
    )
    report("Exports of the Large Scale demo", rows)
    assert figures["PDF render only"] < PDF_TARGET_MS * 3, "PDF far beyond its target"
