"""Exports and JSON upload. Thin: the owner's proposal via selectors (404 for anybody
else), the work in ``proposals.exports``. Support staff may read every export of a
proposal sent for review (the draft and each revision), but never upload: the upload
pages stay owner-only."""

from dataclasses import dataclass, replace

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from proposals import domain, exports, selectors, services
from proposals.domain import technical_review
from proposals.domain.team import Capability
from proposals.exports import jsonio
from proposals.exports.summary import finding_lines
from proposals.http import parse_int
from proposals.models import PdfExport
from proposals.views import member_proposal, proposal_revision


@dataclass(frozen=True)
class Export:
    """What one export request shows: the proposal, the draft or one review
    revision of it as an export source, and whether a staff member reads it."""

    proposal: object
    revision: object  # ProposalRevision, or None for the working draft
    read_as_staff: bool
    # The summaries' language (``?lang=de``): the portal's English unless asked.
    language: str = exports.PORTAL_LANGUAGE

    @property
    def review_number(self) -> int | None:
        return self.revision.number if self.revision is not None else None

    @exports.in_summary_form  # the finding texts in the exports' language too
    def source(self) -> exports.Source:
        if self.revision is None:
            source = exports.source_for(self.proposal)
        else:
            source = exports.source_from_snapshot(
                self.revision.snapshot,
                revision=self.revision.number,
                status="as sent for review",
            )
        return replace(
            source,
            review=self.assessment_rows(),
            kit=selectors.scaling_kit_lines(proposal=self.proposal),
        )

    def assessment_rows(self) -> tuple[tuple[str, str], ...]:
        """The staff's assessment of the shown revision (of the latest one for the
        draft), for staff readers only."""
        if not self.read_as_staff:
            return ()
        assessments = selectors.review_assessments(proposal=self.proposal)
        number = self.review_number or max(assessments, default=None)
        record = assessments.get(number)
        if record is None:
            return ()
        return technical_review.record_rows(
            revision=number,
            outcome=record.outcome,
            text=record.text,
            items=record.items,
            by=record.by.get_username() if record.by else "",
            on=f"{timezone.localtime(record.at):%Y-%m-%d}",
        )

    def filename(self, extension: str) -> str:
        return exports.filename(
            self.proposal, extension, review_revision=self.review_number
        )

    @property
    def query(self) -> str:
        return f"?revision={self.review_number}" if self.revision else ""

    @property
    def summary_query(self) -> str:
        """``query`` with the summary's language when it is not the portal's."""
        if self.language == exports.PORTAL_LANGUAGE:
            return self.query
        return (self.query + "&" if self.query else "?") + f"lang={self.language}"


def _export(request, pk) -> Export:
    """The owner's proposal, or for support staff one sent for review (404 for
    anybody else); ``?revision=N`` picks a review revision instead of the draft."""
    proposal, as_staff = selectors.proposal_get_for_reader(user=request.user, pk=pk)
    if proposal is None:
        raise Http404("No such proposal.")
    revision = None
    number = request.GET.get("revision", "")
    if number:
        if not (number.isascii() and number.isdigit() and len(number) <= 9):
            raise Http404("No such revision.")
        revision = proposal_revision(proposal, int(number))
    language = exports.summary_language(request.GET.get("lang"))
    return Export(proposal, revision, as_staff, language)


def _file_response(body, *, filename: str, content_type: str, inline: bool = False):
    """``body`` as a download, or shown in the browser with ``inline``."""
    response = HttpResponse(body, content_type=content_type)
    disposition = "inline" if inline else "attachment"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _download(request, pk, *, extension: str, content_type: str, render):
    """The proposal as an attachment; ``render(export)`` makes the body."""
    export = _export(request, pk)
    return _file_response(
        render(export),
        filename=export.filename(extension),
        content_type=content_type,
    )


@login_required
@require_GET
def export_portal(request, pk):
    export = _export(request, pk)
    source = export.source()
    errors = [
        line
        for line in finding_lines(source.proposal, source.assessment.findings)
        if line.severity == "error"
    ]
    query = f"?revision={export.review_number}" if export.revision else ""
    return TemplateResponse(
        request,
        "proposals/export_portal.html",
        {
            "proposal": export.proposal,
            "revision": export.revision,
            "staff_view": export.read_as_staff,
            "query": query,
            "portal_here": (
                _("Portal text of r%(number)s") % {"number": export.review_number}
                if export.revision
                else _("Portal text")
            ),
            "sections": exports.portal_for(source),
            "errors": errors,
            "counts": source.assessment.counts,
            "review": source.review,
        },
    )


@login_required
@require_GET
def export_markdown(request, pk):
    return _download(
        request,
        pk,
        extension="md",
        content_type="text/markdown; charset=utf-8",
        render=lambda e: exports.markdown_for(
            e.source(language=e.language), language=e.language
        ),
    )


@login_required
@require_GET
def export_markdown_view(request, pk):
    """The Markdown in the browser (as text, beside its download button)."""
    export = _export(request, pk)
    return TemplateResponse(
        request,
        "proposals/export_markdown.html",
        {
            "proposal": export.proposal,
            "revision": export.revision,
            "staff_view": export.read_as_staff,
            "query": export.query,
            "download_query": export.summary_query,
            "language": export.language,
            "text": exports.markdown_for(
                export.source(language=export.language),
                chart=False,
                language=export.language,
            ),
            "filename": export.filename("md"),
        },
    )


def _wants_inline(request) -> bool:
    return request.GET.get("inline", "") == "1"


@login_required
@require_GET
def export_pdf(request, pk):
    """The PDF of the draft or of ``?revision=N``: the stored file when this content
    was rendered before, otherwise handed to the task worker, with a page that shows
    its progress (``?inline=1`` shows the file in the browser)."""
    export = _export(request, pk)
    stored = services.pdf_export_request(
        proposal=export.proposal,
        job=exports.pdf_job(
            export.source(language=export.language), language=export.language
        ),
        review_revision=export.review_number,
        for_staff=export.read_as_staff,
    )
    if stored.is_ready:
        return _pdf_file(export.proposal, stored, inline=_wants_inline(request))
    url = reverse("proposals:export_pdf_status", args=[export.proposal.pk, stored.pk])
    return redirect(url + ("?inline=1" if _wants_inline(request) else ""))


def _pdf_file(proposal, stored: PdfExport, *, inline: bool):
    if not stored.is_ready:
        raise Http404("This PDF is not ready.")
    body = PdfExport.objects.filter(pk=stored.pk).values_list("pdf", flat=True).get()
    name = exports.filename(
        proposal,
        "pdf",
        review_revision=stored.review_revision,
        on=timezone.localdate(stored.created_at),
    )
    return _file_response(
        bytes(body), filename=name, content_type="application/pdf", inline=inline
    )


def _stored_pdf(request, pk, export_id) -> tuple[object, PdfExport]:
    """A stored PDF of a proposal the reader may see, made for readers like them
    (an owner never gets the staff's copy, which shows their assessment)."""
    proposal, as_staff = selectors.proposal_get_for_reader(user=request.user, pk=pk)
    if proposal is None:
        raise Http404("No such proposal.")
    stored = (
        PdfExport.objects.filter(proposal=proposal, pk=export_id, for_staff=as_staff)
        .defer("html", "pdf", "chart")
        .first()
    )
    if stored is None:
        raise Http404("No such PDF.")
    return proposal, stored


@login_required
@require_GET
def export_pdf_status(request, pk, export_id):
    """The PDF's progress: waiting, rendering, ready (view or download) or failed
    (with the reason and a retry). Polled by htmx; without JavaScript the page
    refreshes itself while the PDF is on its way."""
    proposal, stored = _stored_pdf(request, pk, export_id)
    template = "proposals/export_pdf_status.html"
    if request.htmx:
        template += "#pdf_status"
    query = f"?revision={stored.review_revision}" if stored.review_revision else ""
    inline = _wants_inline(request)
    status_url = reverse("proposals:export_pdf_status", args=[proposal.pk, stored.pk])
    file_url = reverse("proposals:export_pdf_file", args=[proposal.pk, stored.pk])
    # A page that waited for the file opens it once it is ready (htmx: exports.js;
    # without JavaScript: a meta refresh).
    waited = request.GET.get("waiting") == "1"
    return TemplateResponse(
        request,
        template,
        {
            "proposal": proposal,
            "stored": stored,
            "staff_view": stored.for_staff,
            "query": query,
            "inline": inline,
            "working": not (stored.is_ready or stored.is_failed or stored.is_stalled),
            "poll_url": status_url
            + ("?waiting=1&inline=1" if inline else "?waiting=1"),
            "open_url": (file_url + ("?inline=1" if inline else ""))
            if waited and stored.is_ready
            else "",
        },
    )


@login_required
@require_GET
def export_pdf_file(request, pk, export_id):
    """A stored PDF, as a download or (``?inline=1``) shown in the browser."""
    proposal, stored = _stored_pdf(request, pk, export_id)
    return _pdf_file(proposal, stored, inline=_wants_inline(request))


@login_required
@require_http_methods(["POST"])
def export_pdf_retry(request, pk, export_id):
    """Render a failed (or stalled) PDF again."""
    proposal, stored = _stored_pdf(request, pk, export_id)
    services.pdf_export_retry(export=stored)
    url = reverse("proposals:export_pdf_status", args=[proposal.pk, stored.pk])
    return redirect(url + ("?inline=1" if _wants_inline(request) else ""))


@exports.in_portal_form  # the JSON is the portal's English and plain numbers too
def _json_text(export: Export) -> str:
    if export.revision is None:
        return jsonio.export_text(export.proposal)
    return domain.dumps(domain.parse(export.revision.snapshot))


@login_required
@require_GET
def export_json(request, pk):
    return _download(
        request,
        pk,
        extension="json",
        content_type="application/json; charset=utf-8",
        render=_json_text,
    )


def _uploaded(request) -> bytes | None:
    """The uploaded file's bytes (an oversized file is not read: its size is
    enough to refuse it)."""
    upload = request.FILES.get("file")
    if upload is None:
        return None
    if upload.size > jsonio.MAX_UPLOAD_BYTES:
        return b"x" * (jsonio.MAX_UPLOAD_BYTES + 1)  # reported as too large
    return upload.read()


@login_required
@require_http_methods(["GET", "POST"])
def import_json(request):
    """Upload a file to create a new proposal."""
    context = {"problems": [], "target": None}
    if request.method == "POST":
        data = _uploaded(request)
        if not data:
            context["missing"] = True
        else:
            try:
                document = jsonio.check_file(data)
                proposal = services.proposal_import(
                    owner=request.user, document=document
                )
            except jsonio.FormatError as exc:
                context["problems"] = jsonio.problems_of(exc)
            else:
                messages.success(
                    request, _("The proposal was imported as a new draft.")
                )
                return redirect(proposal)
    return TemplateResponse(request, "proposals/import_json.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def import_json_revision(request, pk):
    """Upload a file as the next revision of a proposal: check it and keep it on the
    server, then confirm (by its token) to replace the content."""
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    context = {"problems": [], "target": proposal}
    template = "proposals/import_json.html"
    if request.method != "POST":
        return TemplateResponse(request, template, context)
    token = request.POST.get("token", "")
    if not token:
        data = _uploaded(request)
        if not data:
            context["missing"] = True
            return TemplateResponse(request, template, context)
        try:
            document = jsonio.check_file(data)
        except jsonio.FormatError as exc:
            context["problems"] = jsonio.problems_of(exc)
            return TemplateResponse(request, template, context)
        token = services.pending_import_create(
            owner=request.user, proposal=proposal, document=document
        )
        context.update(token=token, incoming=document, confirming=True)
        return TemplateResponse(request, template, context)
    revision = parse_int(request.POST.get("revision"), name="revision")
    try:
        services.pending_import_confirm(
            owner=request.user,
            proposal=proposal,
            token=token,
            expected_revision=proposal.revision if revision is None else revision,
        )
    except services.PendingImportError as exc:
        context["unavailable"] = str(exc)
    except services.RevisionConflict:
        # Edited meanwhile: ask again against the current revision.
        proposal.refresh_from_db(fields=["revision"])
        incoming = selectors.pending_import_document(
            user=request.user, proposal=proposal, token=token
        )
        context.update(stale=True, token=token, incoming=incoming, confirming=True)
    except jsonio.FormatError as exc:  # the catalogue changed since the check
        context["problems"] = jsonio.problems_of(exc)
    else:
        messages.success(
            request, _("The file replaced the proposal's content as a new revision.")
        )
        return redirect(proposal)
    return TemplateResponse(request, template, context)
