"""Exports and JSON upload. Thin: the owner's proposal via selectors (404 for anybody
else), the work in ``proposals.exports``."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET, require_http_methods

from proposals import exports, selectors
from proposals.exports import jsonio
from proposals.http import parse_int


def _download(request, pk, *, extension: str, content_type: str, render):
    """The owner's proposal as an attachment; ``render(proposal)`` makes the body."""
    proposal = selectors.proposal_get_for_owner(user=request.user, pk=pk)
    response = HttpResponse(render(proposal), content_type=content_type)
    filename = exports.filename(proposal, extension)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_GET
def export_portal(request, pk):
    proposal = selectors.proposal_get_for_owner(user=request.user, pk=pk)
    source = exports.source_for(proposal)
    errors = [f for f in source.assessment.findings if f.severity == "error"]
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


def _uploaded(request) -> bytes | str | None:
    """The uploaded file, or the document carried over from the check step."""
    upload = request.FILES.get("file")
    if upload is not None:
        if upload.size > jsonio.MAX_UPLOAD_BYTES:
            return b"x" * (jsonio.MAX_UPLOAD_BYTES + 1)  # reported as too large
        return upload.read()
    return request.POST.get("document")


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
                document = jsonio.parse_upload(data)
                proposal = jsonio.import_new(owner=request.user, document=document)
            except jsonio.FormatError as exc:
                context["problems"] = jsonio.problems_of(exc)
            else:
                messages.success(request, "The proposal was imported as a new draft.")
                return redirect(proposal)
    return TemplateResponse(request, "proposals/import_json.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def import_json_revision(request, pk):
    """Upload a file as the next revision of a proposal: check, confirm, replace."""
    proposal = selectors.proposal_get_for_owner(user=request.user, pk=pk)
    context = {"problems": [], "target": proposal}
    if request.method == "POST":
        data = _uploaded(request)
        if not data:
            context["missing"] = True
            return TemplateResponse(request, "proposals/import_json.html", context)
        try:
            document = jsonio.parse_upload(data)
        except jsonio.FormatError as exc:
            context["problems"] = jsonio.problems_of(exc)
            return TemplateResponse(request, "proposals/import_json.html", context)
        text = data if isinstance(data, str) else data.decode("utf-8-sig")
        context.update({"document": text, "incoming": document, "confirming": True})
        revision = parse_int(request.POST.get("revision"), name="revision")
        if request.POST.get("confirm") != "yes" or revision is None:
            return TemplateResponse(request, "proposals/import_json.html", context)
        try:
            jsonio.import_revision(
                proposal=proposal, document=document, expected_revision=revision
            )
        except jsonio.StaleRevision:
            # Edited meanwhile: ask again against the current revision.
            proposal.refresh_from_db(fields=["revision"])
            context["stale"] = True
        except jsonio.FormatError as exc:
            context.update(problems=jsonio.problems_of(exc), confirming=False)
        else:
            messages.success(
                request, "The file replaced the proposal's content as a new revision."
            )
            return redirect(proposal)
    return TemplateResponse(request, "proposals/import_json.html", context)
