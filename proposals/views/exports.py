"""Exports and JSON upload. Thin: the owner's proposal via selectors (404 for anybody
else), the work in ``proposals.exports``."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_http_methods

from proposals import exports, selectors, services
from proposals.exports import jsonio
from proposals.exports.summary import finding_lines
from proposals.http import parse_int
from proposals.views import owned_proposal


def _download(request, pk, *, extension: str, content_type: str, render):
    """The owner's proposal as an attachment; ``render(proposal)`` makes the body."""
    proposal = owned_proposal(request, pk)
    response = HttpResponse(render(proposal), content_type=content_type)
    filename = exports.filename(proposal, extension)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_GET
def export_portal(request, pk):
    proposal = owned_proposal(request, pk)
    source = exports.source_for(proposal)
    errors = [
        line
        for line in finding_lines(source.proposal, source.assessment.findings)
        if line.severity == "error"
    ]
    return TemplateResponse(
        request,
        "proposals/export_portal.html",
        {
            "proposal": proposal,
            "sections": exports.portal_for(source),
            "errors": errors,
            "counts": source.assessment.counts,
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
        render=lambda p: exports.markdown_for(exports.source_for(p)),
    )


@login_required
@require_GET
def export_pdf(request, pk):
    return _download(
        request,
        pk,
        extension="pdf",
        content_type="application/pdf",
        render=lambda p: exports.pdf_for(exports.source_for(p)),
    )


@login_required
@require_GET
def export_json(request, pk):
    return _download(
        request,
        pk,
        extension="json",
        content_type="application/json; charset=utf-8",
        render=jsonio.export_text,
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
                messages.success(request, "The proposal was imported as a new draft.")
                return redirect(proposal)
    return TemplateResponse(request, "proposals/import_json.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def import_json_revision(request, pk):
    """Upload a file as the next revision of a proposal: check it and keep it on the
    server, then confirm (by its token) to replace the content."""
    proposal = owned_proposal(request, pk)
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
            request, "The file replaced the proposal's content as a new revision."
        )
        return redirect(proposal)
    return TemplateResponse(request, template, context)
