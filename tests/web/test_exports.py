"""Exports: portal text, Markdown and PDF of the demo proposals, and who may see them.

Golden files under ``tests/golden/`` hold the exact portal text and Markdown of the
demo proposals; regenerate them with ``AIFACTORY_UPDATE_GOLDEN=1`` and review the diff
before committing.
"""

import datetime
import io
import os
import re
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from proposals import domain, exports, services
from proposals.exports.portal import portal_text
from tests.factories import CodeEntryFactory, ProposalFactory

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "fixtures" / "examples"
GOLDEN = ROOT / "tests" / "golden"
DEMOS = ["playground", "lumi-fast-lane", "bsc-large-scale"]
TODAY = datetime.date(2025, 3, 14)
CHART = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")


def load_demo(name: str, owner):
    document = domain.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return services.proposal_import(owner=owner, document=document)


def check_golden(name: str, text: str):
    path = GOLDEN / name
    if os.environ.get("AIFACTORY_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.fixture
def frozen_today(monkeypatch):
    monkeypatch.setattr(timezone, "localdate", lambda *args, **kwargs: TODAY)


def get_pdf(client, url: str, run_tasks):
    """The PDF at ``url`` as a person gets it: the first request hands it to the task
    worker (a redirect to its progress page), the worker renders it, and the same
    URL then answers with the stored file."""
    response = client.get(url)
    assert response.status_code == 302, response.status_code
    assert "/export/pdf/" in response["Location"]
    run_tasks()
    response = client.get(url)
    assert response.status_code == 200
    return response


def pdf_text(data: bytes) -> list[str]:
    """The text of each page, with runs of blanks and line breaks as one space."""
    pages = PdfReader(io.BytesIO(data)).pages
    return [" ".join(page.extract_text().split()) for page in pages]


@pytest.mark.parametrize("name", DEMOS)
def test_portal_text_matches_golden(name, user, user_client):
    proposal = load_demo(name, user)
    response = user_client.get(reverse("proposals:export_portal", args=[proposal.pk]))
    assert response.status_code == 200
    check_golden(f"portal-{name}.txt", portal_text(response.context["sections"]))


@pytest.mark.parametrize("name", DEMOS)
def test_markdown_matches_golden(name, user, user_client, frozen_today):
    proposal = load_demo(name, user)
    response = user_client.get(reverse("proposals:export_markdown", args=[proposal.pk]))
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"].startswith(
        f'attachment; filename="proposal-{proposal.pk}-draft-'
    )
    text = response.content.decode()
    assert len(CHART.findall(text)) == 1  # every demo has measurements
    check_golden(f"markdown-{name}.md", CHART.sub("data:image/png;base64,...", text))


def test_portal_page_shows_blocks_with_counts_and_copy_buttons(user, user_client):
    proposal = load_demo("lumi-fast-lane", user)
    response = user_client.get(reverse("proposals:export_portal", args=[proposal.pk]))
    html = response.content.decode()
    assert 'data-copy-target="block-selection-total-gpu-hours"' in html
    assert (
        '<pre class="portal-text card-body mb-0" id="block-selection-total-gpu-hours"'
        in html
    )
    assert ">18,176</pre>" in html
    assert "6 characters" in html
    assert "js/exports.js" in html and "<script>" not in html  # no inline script
    assert "onclick" not in html
    # (d) ends with the generated tables and the projection sentence.
    assert (
        "Projected 76-82% efficiency at 32 GPUs, from measurements up to 16 GPUs"
        in html
    )
    assert (
        "Total                                                                     18,176"
        in html
    )
    assert "Fix these before you submit" not in html


def test_error_findings_are_shown_above_the_blocks(user, user_client):
    proposal = ProposalFactory(owner=user, total_gpu_hours=None, system=None)
    response = user_client.get(reverse("proposals:export_portal", args=[proposal.pk]))
    html = response.content.decode()
    assert "Fix these before you submit" in html
    assert "SEL-1" in html
    assert html.index("Fix these before you submit") < html.index(
        "AI Factory (target system)"
    )
    assert "Nothing to paste yet" in html


def test_portal_order_follows_the_portal(user):
    proposal = load_demo("lumi-fast-lane", user)
    sections = exports.portal_for(exports.source_for(proposal))
    keys = [block.key for section in sections for block in section.blocks]
    assert keys == [
        "selection.system",
        "selection.libraries",
        "selection.total_gpu_hours",
        "selection.max_gpus_per_job",
        "selection.storage_tb",
        "selection.transfer_in_tb",
        "selection.extra_cpu_hours",
        "selection.auxiliary_services",
        "selection.duration_months",
        "codes[0].name",
        "codes[0].references",
        "codes[0].description",
        "codes[1].name",
        "codes[1].references",
        "codes[1].description",
        "scalability.narrative",
        "optimisation.narrative",
    ]
    block = sections[-2].blocks[0]
    assert block.chars == len(block.text)


def test_pdf_has_title_tables_findings_and_page_numbers(
    user, user_client, frozen_today, run_tasks
):
    proposal = load_demo("bsc-large-scale", user)
    url = reverse("proposals:export_pdf", args=[proposal.pk])
    response = get_pdf(user_client, url, run_tasks)
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    pages = pdf_text(response.content)
    text = " ".join(pages)
    assert len(pages) >= 2
    for number, page in enumerate(pages, start=1):
        assert f"Page {number} of {len(pages)}" in page
    assert "1.4B-parameter language model for Iberian languages" in pages[0]
    # The draft is named by the date, never by the autosave counter.
    assert "Working draft, exported on 2025-03-14" in pages[0]
    assert "Revision" not in pages[0].replace("Review revision", "")
    assert "Large Scale" in text
    assert "SCAL-10" in text and "TIER-1" in text
    assert "135,000" in text and "11.25x" in text and "70%" in text
    assert "73,728" in text and "110,848" in text
    assert "Months 3-4" in text
    assert "Measured 70% efficiency at 128 GPUs" in text


def test_pdf_lists_error_findings_first(user, user_client, run_tasks):
    proposal = ProposalFactory(owner=user, total_gpu_hours=None)
    url = reverse("proposals:export_pdf", args=[proposal.pk])
    response = get_pdf(user_client, url, run_tasks)
    first = pdf_text(response.content)[0]
    assert "Fix before you submit" in first
    assert "SEL-1" in first


def test_pdf_embeds_the_chart(user, user_client, run_tasks):
    proposal = load_demo("lumi-fast-lane", user)
    url = reverse("proposals:export_pdf", args=[proposal.pk])
    response = get_pdf(user_client, url, run_tasks)
    reader = PdfReader(io.BytesIO(response.content))
    # WeasyPrint shares one resource dictionary between pages: count distinct images.
    names = {image.name for page in reader.pages for image in page.images}
    assert len(names) == 1


@pytest.mark.skipif(
    os.environ.get("AIFACTORY_PDF_PREVIEW") != "1",
    reason="writes PNG previews of the PDF pages for a person to look at",
)
def test_pdf_preview_pages(user, user_client, tmp_path, run_tasks):
    out = Path("/tmp/aifactory-pdf-preview")
    out.mkdir(exist_ok=True)
    for name in DEMOS:
        proposal = load_demo(name, user)
        url = reverse("proposals:export_pdf", args=[proposal.pk])
        pdf = get_pdf(user_client, url, run_tasks)
        path = out / f"{name}.pdf"
        path.write_bytes(pdf.content)
        subprocess.run(
            ["pdftoppm", "-r", "60", "-png", str(path), str(out / name)], check=True
        )


def test_json_download_is_the_format(user, user_client):
    proposal = load_demo("lumi-fast-lane", user)
    response = user_client.get(reverse("proposals:export_json", args=[proposal.pk]))
    assert response["Content-Type"] == "application/json; charset=utf-8"
    expected = (EXAMPLES / "lumi-fast-lane.json").read_text(encoding="utf-8")
    assert response.content.decode() == expected


def test_blank_proposal_exports_without_errors(user, user_client, run_tasks):
    proposal = ProposalFactory(owner=user, system=None, total_gpu_hours=None)
    CodeEntryFactory(proposal=proposal, name="", version="", references="")
    for name in ("export_portal", "export_markdown", "export_json"):
        response = user_client.get(reverse(f"proposals:{name}", args=[proposal.pk]))
        assert response.status_code == 200, name
    url = reverse("proposals:export_pdf", args=[proposal.pk])
    assert get_pdf(user_client, url, run_tasks).content.startswith(b"%PDF-")


EXPORT_URLS = [
    "export_portal",
    "export_markdown",
    "export_markdown_view",
    "export_pdf",
    "export_json",
    "import_json_revision",
]


@pytest.mark.parametrize("name", EXPORT_URLS)
def test_another_user_gets_404(name, client, proposal, other_user):
    client.force_login(other_user)
    url = reverse(f"proposals:{name}", args=[proposal.pk])
    assert client.get(url).status_code == 404
    if name == "import_json_revision":
        assert client.post(url, {"document": "{}"}).status_code == 404


@pytest.mark.parametrize("name", EXPORT_URLS)
def test_anonymous_is_sent_to_login(name, client, proposal):
    response = client.get(reverse(f"proposals:{name}", args=[proposal.pk]))
    assert response.status_code == 302
    assert "/login" in response["Location"]
