"""PDF exports off the request path (issue 16): the page hands the PDF to the task
worker and shows its progress, the worker renders it, the same content is served
from the stored file afterwards, and a failure is shown with a retry."""

import io

import pytest
from django.urls import reverse
from django_tasks_db.models import DBTaskResult
from pypdf import PdfReader

from proposals import services
from proposals.exports import pdf as pdf_module
from proposals.models import PdfExport, Proposal
from tests.web.test_exports import load_demo, pdf_text

pytestmark = pytest.mark.django_db


def _url(proposal, **query):
    url = reverse("proposals:export_pdf", args=[proposal.pk])
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return url


def _renders(monkeypatch) -> list[int]:
    """Count WeasyPrint runs."""
    calls = []
    original = pdf_module.html_to_pdf

    def counting(html):
        calls.append(1)
        return original(html)

    monkeypatch.setattr(pdf_module, "html_to_pdf", counting)
    return calls


def test_the_request_shows_progress_and_the_worker_renders(
    user, user_client, run_tasks, monkeypatch
):
    renders = _renders(monkeypatch)
    proposal = load_demo("lumi-fast-lane", user)
    response = user_client.get(_url(proposal))
    # Nothing was rendered in the web request: it is queued for the worker.
    assert renders == []
    stored = PdfExport.objects.get()
    assert stored.status == PdfExport.Status.PENDING and stored.review_revision is None
    assert DBTaskResult.objects.filter(status="READY").count() >= 1
    status_url = reverse("proposals:export_pdf_status", args=[proposal.pk, stored.pk])
    assert response.status_code == 302 and response["Location"] == status_url
    page = user_client.get(status_url).text
    assert 'data-status="pending"' in page
    assert 'hx-trigger="every 1s"' in page  # htmx polls the status
    assert '<noscript><meta http-equiv="refresh"' in page  # and without JS
    assert "Refresh</a>" in page and 'role="progressbar"' in page

    run_tasks()
    assert len(renders) == 1
    stored.refresh_from_db()
    assert stored.status == PdfExport.Status.DONE and stored.html == ""
    # The page polls with ?waiting=1: once ready, the file opens (htmx: exports.js
    # follows data-open; without JavaScript a meta refresh does).
    assert f'hx-get="{status_url}?waiting=1"' in page
    fragment = user_client.get(
        status_url, {"waiting": "1"}, HTTP_HX_REQUEST="true"
    ).text
    assert fragment.lstrip().startswith('<div id="pdf-status"')
    assert 'data-status="done"' in fragment and "hx-trigger" not in fragment
    assert "<html" not in fragment
    file_url = reverse("proposals:export_pdf_file", args=[proposal.pk, stored.pk])
    assert f'data-open="{file_url}"' in fragment
    assert f'href="{file_url}?inline=1"' in fragment
    no_js = user_client.get(status_url, {"waiting": "1"}).text
    assert f'<meta http-equiv="refresh" content="0;url={file_url}">' in no_js
    # A later visit shows the buttons and opens nothing by itself.
    later = user_client.get(status_url).text
    assert "data-open" not in later and 'http-equiv="refresh"' not in later
    download = user_client.get(file_url)
    assert download["Content-Type"] == "application/pdf"
    assert download["Content-Disposition"].startswith(
        f'attachment; filename="proposal-{proposal.pk}-draft-'
    )
    # The chart was drawn by the worker and is in the file.
    reader = PdfReader(io.BytesIO(download.content))
    assert {image.name for page in reader.pages for image in page.images}


def test_identical_content_reuses_the_stored_file(
    user, user_client, run_tasks, monkeypatch
):
    renders = _renders(monkeypatch)
    proposal = load_demo("playground", user)
    user_client.get(_url(proposal))
    run_tasks()
    first = user_client.get(_url(proposal))
    second = user_client.get(_url(proposal, inline=1))
    assert len(renders) == 1
    assert first.content == second.content and first.content.startswith(b"%PDF-")
    assert second["Content-Disposition"].startswith("inline; filename=")
    # A save that changes nothing the PDF shows (the autosave counter moves) keeps it.
    Proposal.objects.filter(pk=proposal.pk).update(revision=proposal.revision + 7)
    assert user_client.get(_url(proposal)).status_code == 200
    assert PdfExport.objects.count() == 1
    # A change of content is a new PDF, rendered again.
    Proposal.objects.filter(pk=proposal.pk).update(title="A new title")
    response = user_client.get(_url(proposal))
    assert response.status_code == 302
    run_tasks()
    assert len(renders) == 2
    assert "A new title" in pdf_text(user_client.get(_url(proposal)).content)[0]


def test_a_failure_is_shown_with_a_retry(user, user_client, run_tasks, monkeypatch):
    proposal = load_demo("playground", user)
    user_client.get(_url(proposal))

    def broken(html):
        raise OSError("cannot load library 'libpangoft2-1.0.so.0'")

    monkeypatch.setattr(pdf_module, "html_to_pdf", broken)
    run_tasks()
    stored = PdfExport.objects.get()
    assert stored.status == PdfExport.Status.FAILED
    assert "libpangoft2" in stored.error
    # The same content does not queue a new render by itself: the page says why.
    response = user_client.get(_url(proposal), follow=True)
    page = response.text
    assert 'data-status="failed"' in page
    assert "The PDF could not be made." in page and "libpangoft2" in page
    assert 'data-testid="pdf-retry"' in page and "hx-trigger" not in page
    monkeypatch.undo()
    retry = reverse("proposals:export_pdf_retry", args=[proposal.pk, stored.pk])
    assert user_client.get(retry).status_code == 405
    response = user_client.post(retry)
    assert response.status_code == 302
    stored.refresh_from_db()
    assert stored.status == PdfExport.Status.PENDING and stored.error == ""
    run_tasks()
    stored.refresh_from_db()
    assert stored.status == PdfExport.Status.DONE and stored.attempts == 2
    assert user_client.get(_url(proposal)).content.startswith(b"%PDF-")


def test_a_render_that_lost_its_worker_is_offered_again(user, user_client):
    proposal = load_demo("playground", user)
    user_client.get(_url(proposal))
    stored = PdfExport.objects.get()
    PdfExport.objects.filter(pk=stored.pk).update(
        created_at=stored.created_at - PdfExport.STALLED_AFTER * 2
    )
    status_url = reverse("proposals:export_pdf_status", args=[proposal.pk, stored.pk])
    page = user_client.get(status_url).text
    assert "db_worker" in page and 'data-testid="pdf-retry"' in page
    # Asking for the PDF again queues it again.
    before = DBTaskResult.objects.count()
    user_client.get(_url(proposal))
    assert DBTaskResult.objects.count() == before + 1
    stored.refresh_from_db()
    assert not stored.is_stalled


def test_stored_pdfs_are_pruned_per_proposal(user, user_client, run_tasks):
    proposal = load_demo("playground", user)
    for i in range(services.exports.KEEP_PER_PROPOSAL + 2):
        Proposal.objects.filter(pk=proposal.pk).update(title=f"Title {i}")
        user_client.get(_url(proposal))
        run_tasks()
    assert PdfExport.objects.count() == services.exports.KEEP_PER_PROPOSAL
    assert PdfExport.objects.filter(status=PdfExport.Status.DONE).count() == (
        services.exports.KEEP_PER_PROPOSAL
    )


def test_stored_pdfs_belong_to_their_proposal_and_reader(
    user, user_client, other_user, client, run_tasks
):
    proposal = load_demo("playground", user)
    user_client.get(_url(proposal))
    run_tasks()
    stored = PdfExport.objects.get()
    other = load_demo("playground", other_user)
    for name in ("export_pdf_status", "export_pdf_file"):
        url = reverse(f"proposals:{name}", args=[proposal.pk, stored.pk])
        assert user_client.get(url).status_code == 200
        # Another proposal's URL with this export's number.
        wrong = reverse(f"proposals:{name}", args=[other.pk, stored.pk])
        assert user_client.get(wrong).status_code == 404
    client.force_login(other_user)
    url = reverse("proposals:export_pdf_file", args=[proposal.pk, stored.pk])
    assert client.get(url).status_code == 404
    retry = reverse("proposals:export_pdf_retry", args=[proposal.pk, stored.pk])
    assert client.post(retry).status_code == 404


def test_staff_export_a_review_revision_through_the_worker(
    client, staff_user, sent, run_tasks
):
    Proposal.objects.filter(pk=sent.pk).update(title="Renamed in the draft", revision=9)
    client.force_login(staff_user)
    url = _url(sent, revision=1)
    response = client.get(url)
    assert response.status_code == 302
    run_tasks()
    response = client.get(url)
    assert response["Content-Disposition"].startswith(
        f'attachment; filename="proposal-{sent.pk}-r1-'
    )
    first = pdf_text(response.content)[0]
    assert "Review revision r1, exported on" in first
    assert "Renamed in the draft" not in first
    assert "Revision 9" not in first and "r9" not in first
    stored = PdfExport.objects.get(review_revision=1)
    assert stored.for_staff
    page = client.get(
        reverse("proposals:export_pdf_status", args=[sent.pk, stored.pk])
    ).text
    assert "r1, as sent for review" in page


def test_markdown_and_pdf_can_be_viewed_in_the_browser(user, user_client):
    proposal = load_demo("lumi-fast-lane", user)
    view = reverse("proposals:export_markdown_view", args=[proposal.pk])
    response = user_client.get(view)
    assert response.status_code == 200
    page = response.text
    assert 'data-testid="markdown-text"' in page
    assert "Working draft, exported on" in page
    assert "data:image/png;base64" not in page  # the chart is in the download only
    download = reverse("proposals:export_markdown", args=[proposal.pk])
    assert f'href="{download}"' in page
    assert f"proposal-{proposal.pk}-draft-" in page
    # The export links on the review step offer both views and both downloads.
    links = user_client.get(reverse("proposals:step", args=[proposal.pk, "review"]))
    html = links.text
    assert f'href="{view}"' in html
    assert f'href="{_url(proposal, inline=1)}"' in html
    portal = user_client.get(reverse("proposals:export_portal", args=[proposal.pk]))
    assert 'data-testid="export-pdf-view"' in portal.text
    assert 'data-testid="export-markdown-view"' in portal.text
