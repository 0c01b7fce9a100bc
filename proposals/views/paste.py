"""Paste a table into the measurements, job plan or schedule of the scalability step.

The control sits in the step's form, so its buttons post the whole step with
``formaction`` (without JavaScript) or ``hx-post`` (with it), like the row buttons:

- ``paste`` (the textarea's button, or "Update preview"): show what was understood,
  with a select per column; nothing is stored;
- ``paste_add``: add the readable rows in one step; the rows' keys are kept in the
  session so that "Undo paste" removes exactly those rows;
- the undo endpoint removes them.

Without JavaScript the preview is a page of its own (with a real form); with htmx it
replaces the control's preview region, and adding or undoing reloads the step.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from proposals.domain import limits
from proposals.domain.fields import columns
from proposals.domain.numbers import format_number
from proposals.domain.paste import (
    PASTE_KINDS,
    Context,
    read_paste,
    split_cells,
    targets,
)
from proposals.domain.sections import TABLE_BY_KIND
from proposals.domain.team import Capability
from proposals.models import Proposal
from proposals.services.paste import (
    PastedRowsChanged,
    PasteError,
    proposal_paste_rows,
    proposal_undo_paste,
)
from proposals.table_rows import rows_of
from proposals.views import member_proposal, wizard
from proposals.views.accounts import number_format
from proposals.wizard.changes import shown_rows
from proposals.wizard.questions import describe_changed_rows

STEP = "scalability"
SESSION_KEY = "pastes"


def _kind_or_404(kind: str) -> str:
    if kind not in PASTE_KINDS:
        raise Http404("No table to paste into.")
    return kind


def session_key(proposal_pk, kind: str) -> str:
    return f"{proposal_pk}:{kind}"


def last_paste(request, proposal_pk, kind: str) -> list:
    """The keys of the rows the last paste into ``kind`` added (for "Undo paste")."""
    return request.session.get(SESSION_KEY, {}).get(session_key(proposal_pk, kind), [])


def _remember(request, proposal_pk, kind: str, pks: list) -> None:
    pastes = dict(request.session.get(SESSION_KEY, {}))
    if pks:
        pastes[session_key(proposal_pk, kind)] = pks
    else:
        pastes.pop(session_key(proposal_pk, kind), None)
    request.session[SESSION_KEY] = pastes


def _context(request, proposal, kind: str) -> Context:
    """What reading a paste needs to know of ``proposal``."""
    system = proposal.system
    stored = rows_of(proposal, kind)
    units = [row.unit for row in stored if getattr(row, "unit", "")]
    codes = rows_of(proposal, "codes")
    only = codes[0] if len(codes) == 1 else None
    return Context(
        fmt=number_format(request),
        gcds_per_gpu=system.gcds_per_gpu if system else None,
        gpus_per_node=system.gpus_per_node if system else None,
        codes={
            code.name.strip().lower(): code.pk for code in codes if code.name.strip()
        },
        room=limits.MAX_ROWS[kind] - len(stored),
        default_unit=units[-1] if units else "samples/s",
        only_code=only.pk if only else None,
        only_code_name=only.name if only else "",
    )


def signature(text: str) -> str:
    """The first line's cells: a choice of columns applies to the table it was made
    for, not to a different text pasted since."""
    grid = split_cells(text)
    return "\t".join(grid.lines[0][1]) if grid.lines else ""


def _mapping(request, kind: str, text: str) -> dict[int, str]:
    """The person's choice per column (``paste-<kind>-map-<i>``), kept only while
    the pasted text still starts with the line it was made for."""
    if request.POST.get(f"paste-{kind}-signature") != signature(text):
        return {}
    allowed = {target.key for target in targets(kind)}
    chosen = {}
    for name, value in request.POST.items():
        prefix = f"paste-{kind}-map-"
        index = name[len(prefix) :]
        digits = index.isdigit() and len(index) < 4
        if name.startswith(prefix) and digits and value in allowed:
            chosen[int(index)] = value
    return chosen


def _shown(value, fmt) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int | float) or hasattr(value, "as_tuple"):
        return format_number(value, fmt)
    return str(value)


def _preview(request, proposal, kind: str, text: str) -> dict:
    """The template context of a preview: the columns with their selects, the rows
    as they will be stored (numbers in the person's format), refusals, skipped
    lines."""
    ctx = _context(request, proposal, kind)
    paste = read_paste(text, kind, ctx, mapping=_mapping(request, kind, text))
    code_names = {code.pk: code.name for code in rows_of(proposal, "codes")}
    stored = [t for t in targets(kind) if t.key in _stored_fields(kind)]
    rows = []
    for row in paste.rows:
        values = dict(row.values)
        if "code" in values:
            values["code"] = code_names.get(values["code"], "")
        rows.append(
            {
                "line": row.line,
                "cells": [_shown(values.get(t.key), ctx.fmt) for t in stored],
                "problems": row.problems,
                "notes": row.notes,
                "raw": row.cells,
            }
        )
    return {
        "proposal": proposal,
        "kind": kind,
        "table": TABLE_BY_KIND[kind],
        "text": text,
        "paste": paste,
        "inherited": _inherited(proposal, kind, paste, code_names),
        # On systems whose GPUs have several dies, "GPUs" in a Slurm log are dies.
        "gcd_hint": (ctx.gcds_per_gpu or 1) > 1
        and any(column.target == "gpus" for column in paste.columns),
        "gcds_per_gpu": ctx.gcds_per_gpu,
        "system_name": proposal.system.name if proposal.system else "",
        "targets": targets(kind),
        "stored_columns": stored,
        "rows": rows,
        "number_example": ctx.fmt.example,
        "signature": signature(text),
        "paste_url": reverse("proposals:paste", args=[proposal.pk, kind]),
        "step_url": reverse("proposals:step", args=[proposal.pk, STEP]),
    }


def _inherited(proposal, kind: str, paste, code_names) -> str:
    """What pasted measurements take from the last stored one (as "+ Measurement"
    does) because the table has no column for it, said in the preview."""
    stored = rows_of(proposal, "measurements") if kind == "measurements" else []
    if not stored:
        return ""
    last = stored[-1]
    mapped = {column.target for column in paste.columns}
    parts = []
    if "code" not in mapped and last.code_id in code_names:
        parts.append(_("code “%(name)s”") % {"name": code_names[last.code_id]})
    if "hardware" not in mapped and last.hardware:
        parts.append(_("hardware “%(name)s”") % {"name": last.hardware})
    if not parts:
        return ""
    return _("Not in the table, taken from the last measurement: %(values)s.") % {
        "values": get_text_list(parts, _("and"))
    }


def _stored_fields(kind: str) -> list[str]:
    return [spec.name for spec in columns(kind)]


def back_to_step(request, proposal, kind: str):
    url = reverse("proposals:step", args=[proposal.pk, STEP]) + f"#section-{kind}"
    if request.htmx:
        # The page is already at the step's URL: only a new query (the revision the
        # paste made) makes the browser load it again rather than scroll.
        revision = Proposal.objects.values_list("revision", flat=True).get(
            pk=proposal.pk
        )
        url = url.replace("#", f"?revision={revision}#")
        response = HttpResponse()
        response.headers["HX-Redirect"] = url
        return response
    return redirect(url)


def save_step_first(request, proposal) -> dict | None:
    """Without JavaScript the whole step's form arrives here: store what was typed
    in it first (as the row buttons do), so that nothing typed is lost. Returns
    what each input of the page is now based on (``None``: the page sent none)."""
    return wizard.save_posted_step(request, proposal, STEP)


@login_required
@require_http_methods(["GET", "POST"])
def paste_table(request, pk, kind):
    """GET: the paste form on a page of its own. POST: a preview, or (``paste_add``)
    add the rows."""
    kind = _kind_or_404(kind)
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    text = (
        request.POST.get(f"paste-{kind}-text", "") if request.method == "POST" else ""
    )
    if request.method == "POST":
        save_step_first(request, proposal)
        proposal = member_proposal(request, pk, may=Capability.EDIT)
    context = (
        _preview(request, proposal, kind, text)
        if text.strip()
        else {
            "proposal": proposal,
            "kind": kind,
            "table": TABLE_BY_KIND[kind],
            "text": text,
            "paste": None,
            "paste_url": reverse("proposals:paste", args=[proposal.pk, kind]),
            "step_url": reverse("proposals:step", args=[proposal.pk, STEP]),
        }
    )
    if request.method == "POST" and request.POST.get("paste_add") and context["paste"]:
        paste = context["paste"]
        if paste.ready:
            try:
                pks = proposal_paste_rows(
                    proposal=proposal,
                    kind=kind,
                    rows=[dict(row.values) for row in paste.accepted],
                    by=request.user,
                )
            except PasteError as error:
                context["error"] = str(error)
            else:
                _remember(request, proposal.pk, kind, pks)
                refused = len(paste.refused)
                values = {
                    "count": len(pks),
                    "table": TABLE_BY_KIND[kind].title.lower(),
                    "refused": refused,
                }
                message = (
                    ngettext(
                        "Added %(count)s row to the %(table)s; %(refused)s refused "
                        "(not added).",
                        "Added %(count)s rows to the %(table)s; %(refused)s refused "
                        "(not added).",
                        len(pks),
                    )
                    if refused
                    else ngettext(
                        "Added %(count)s row to the %(table)s.",
                        "Added %(count)s rows to the %(table)s.",
                        len(pks),
                    )
                )
                messages.success(request, message % values)
                return back_to_step(request, proposal, kind)
    template = (
        "proposals/_paste_preview.html" if request.htmx else "proposals/paste.html"
    )
    return TemplateResponse(request, template, context)


def _undo_question(request, proposal, kind: str, error: PastedRowsChanged):
    """The step again, asking whether to undo a paste whose rows were changed in
    another tab ("Undo anyway" / "Keep them")."""
    table = TABLE_BY_KIND[kind]
    count = len(error.changed)
    heading = (
        _("A pasted %(item)s was changed in another tab") % {"item": table.item.lower()}
        if count == 1
        else _("%(count)s pasted rows of the %(table)s were changed in another tab")
        % {"count": count, "table": table.title.lower()}
    )
    question = describe_changed_rows(
        error.changed,
        number_format(request),
        heading=heading,
        outcome=_("so the paste was not undone"),
        url=reverse("proposals:paste_undo", args=[proposal.pk, kind]),
        confirm=_("Undo anyway"),
        keep=_("Keep them"),
    )
    return wizard.step_with_question(request, proposal, STEP, row_changed=question)


@login_required
@require_POST
def paste_undo(request, pk, kind):
    """Remove exactly the rows of the last paste into ``kind``."""
    kind = _kind_or_404(kind)
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    bases = save_step_first(request, proposal)
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    pks = last_paste(request, proposal.pk, kind)
    # Rows of the paste changed since this page showed them (in another tab) are
    # not removed without the person choosing, like a row's delete.
    shown = None if bases is None else shown_rows(bases, kind)
    try:
        removed = (
            proposal_undo_paste(proposal=proposal, kind=kind, pks=pks, shown=shown)
            if pks
            else 0
        )
    except PastedRowsChanged as error:
        return _undo_question(
            request, member_proposal(request, pk, may=Capability.EDIT), kind, error
        )
    _remember(request, proposal.pk, kind, [])
    title = TABLE_BY_KIND[kind].title.lower()
    if removed:
        gone = len(pks) - removed
        values = {"count": removed, "table": title, "gone": gone}
        message = (
            ngettext(
                "Undone: removed the %(count)s pasted row from the %(table)s "
                "(%(gone)s had been removed already).",
                "Undone: removed the %(count)s pasted rows from the %(table)s "
                "(%(gone)s had been removed already).",
                removed,
            )
            if gone
            else ngettext(
                "Undone: removed the %(count)s pasted row from the %(table)s.",
                "Undone: removed the %(count)s pasted rows from the %(table)s.",
                removed,
            )
        )
        messages.success(request, message % values)
    else:
        messages.info(
            request, _("Nothing to undo in the %(table)s.") % {"table": title}
        )
    return back_to_step(request, proposal, kind)
