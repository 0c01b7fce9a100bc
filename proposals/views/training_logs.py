"""Add measurements (and job-plan rows) read from training logs and sacct output.

The control sits in the scalability step's form beside "Paste a table"; its buttons
post the whole step with ``formaction``/``formenctype`` (without JavaScript) or
``hx-post``/``hx-encoding`` (with it):

- ``logs`` (Preview): hand the files or the pasted text to the task worker (no web
  worker parses a file: a large or hostile one cannot reach the server's timeout)
  and show its progress, polled by htmx (without JavaScript, the page refreshes
  itself), then the rows, where each came from and what was refused; no row is
  stored. The reading (the rows and their short provenance, never the file, which
  is deleted once read) is kept in the database and named in the session, so that
  the GPU count or the code entry can be changed, and the rows added, without
  sending the files again (a page without JavaScript cannot keep a chosen file);
- ``logs_add``: add the rows, through the paste's service, in one step;
- the undo endpoint removes exactly those rows.
"""

import re
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import translation
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from proposals.assess import gpu_models_from_db
from proposals.domain import training_logs
from proposals.domain.numbers import format_number
from proposals.domain.scaling_kit import kit_gpus
from proposals.domain.team import Capability
from proposals.domain.training_logs.provenance import (
    in_reader_language,
    shown_lines,
)
from proposals.models import LogReading
from proposals.services.paste import PastedRowsChanged, PasteError
from proposals.services.training_logs import (
    log_reading_request,
    log_reading_retry,
    proposal_add_log_rows,
    proposal_undo_log_rows,
)
from proposals.table_rows import rows_of
from proposals.views import member_proposal, wizard
from proposals.views.accounts import number_format
from proposals.views.paste import STEP, back_to_step, save_step_first
from proposals.wizard.changes import shown_rows
from proposals.wizard.questions import describe_changed_rows

READ_KEY = "log_reading"  # proposal pk -> the id of the last preview's LogReading
ADDED_KEY = "log_added"  # proposal pk -> {kind: [row keys]} of the last "Add"
_GPUS = re.compile(r"[0-9]{1,7}", re.ASCII)


def last_added(request, proposal_pk) -> dict:
    """The keys of the rows the last "Add" from logs stored, per table kind."""
    return request.session.get(ADDED_KEY, {}).get(str(proposal_pk), {})


def _store(request, key: str, proposal_pk, value) -> None:
    stored = dict(request.session.get(key, {}))
    if value:
        stored[str(proposal_pk)] = value
    else:
        stored.pop(str(proposal_pk), None)
    request.session[key] = stored


def _send(request, proposal) -> LogReading | None:
    """Hand the posted files and text to the task worker (``None`` when none were
    posted)."""
    uploads = request.FILES.getlist("logs-files")
    text = request.POST.get("logs-text", "")
    if not uploads and not text.strip():
        return None
    reading = log_reading_request(
        proposal=proposal,
        user=request.user,
        files=uploads,
        text=text,
        language=translation.get_language(),
    )
    _store(request, READ_KEY, proposal.pk, reading.pk)
    return reading


def _last_reading(request, proposal) -> LogReading | None:
    """The reading the session names for ``proposal`` (its owner's, of this
    proposal: an id from elsewhere finds nothing)."""
    pk = request.session.get(READ_KEY, {}).get(str(proposal.pk))
    if not isinstance(pk, int):
        return None
    return LogReading.objects.filter(
        pk=pk, proposal=proposal, user=request.user
    ).first()


def _data(request):
    """The form's values: posted, or (polling) in the query."""
    return request.POST if request.method == "POST" else request.GET


def _gpus(request) -> tuple[int | None, str]:
    text = _data(request).get("logs-gpus", "").strip()
    if not text:
        return None, ""
    if not _GPUS.fullmatch(text) or int(text) < 1:
        return None, _(
            "“%(text)s” is not a GPU count: type a whole number such as 16."
        ) % {"text": text}
    return int(text), ""


def _count_choice(request) -> str:
    """How the person says the logs count GPUs ("gcds" or "gpus"), or "" when they
    have not said (asked only for a log that does not say itself)."""
    value = _data(request).get("logs-count", "")
    return value if value in ("gcds", "gpus") else ""


def _in_gpus(item, proposal, chosen: str, context: dict):
    """``item`` with its GPU count in physical GPUs, and why it cannot be when
    neither the person nor the log (:func:`training_logs.gpu_unit`: the device it
    names, its ranks per node) says whether it counts GPUs or GCDs. The person's
    choice wins: a log made on a node of 8 GPUs elsewhere also has 8 ranks per node."""
    cluster = proposal.system
    if cluster is None or cluster.gcds_per_gpu <= 1 or item.gpus is None:
        return item, ""
    unit = chosen
    if not unit:
        unit, why = training_logs.gpu_unit(
            item, cluster.gpus_per_node, cluster.gcds_per_gpu
        )
        if why:
            context["unit_notes"].append(f"{item.source.file}: {why}")
    if not unit:
        context["count_asked"] = True
        return item, _("say above whether the logs count GPUs or GCDs")
    if unit == "gpus":
        return item, ""
    context["counts_gcds"] = True
    return training_logs.counted_in_gcds(item, cluster.gcds_per_gpu, cluster.name), ""


def _code(request, proposal) -> int | None:
    """The code entry the rows belong to: the one chosen, else the proposal's only
    (or first) one."""
    codes = [code.pk for code in rows_of(proposal, "codes")]
    chosen = _data(request).get("logs-code", "")
    if (
        chosen.isascii()
        and chosen.isdigit()
        and len(chosen) < 19
        and int(chosen) in codes
    ):
        return int(chosen)
    return codes[0] if codes else None


def _preview(request, proposal, last: LogReading | None) -> dict:
    """What the preview shows: the worker's progress while it reads, then the rows
    as they would be stored with the GPU count, code entry and count chosen now."""
    reading = last.result if last is not None and last.is_done else None
    fmt = number_format(request)
    gpus, gpus_error = _gpus(request)
    code = _code(request, proposal)
    chosen = _count_choice(request)
    system = proposal.system.name if proposal.system else ""
    peak = training_logs.peak_of(
        proposal.system.gpu_model if proposal.system else "",
        proposal.system.peak_bf16_tflops if proposal.system else None,
        gpu_models_from_db(),
    )
    context = {
        "gcds_per_gpu": proposal.system.gcds_per_gpu if proposal.system else 1,
        "counts_gcds": False,
        "count_choice": chosen,
        "count_asked": False,
        "unit_notes": [],
        "system_name": system,
        "proposal": proposal,
        "reading": reading,
        "gpus_text": _data(request).get("logs-gpus", ""),
        "logs_text": request.POST.get("logs-text", ""),
        "pending": last if last is not None and not last.is_done else None,
        "poll_url": _poll_url(request, proposal, last),
        "gpus_error": gpus_error,
        "codes": rows_of(proposal, "codes"),
        "code": code,
        "logs_url": reverse("proposals:logs", args=[proposal.pk]),
        "step_url": reverse("proposals:step", args=[proposal.pk, STEP]),
        "measurement_rows": [],
        "job_rows": [],
        "measurements": [],
        "jobs": [],
    }
    if reading is None:
        return context
    for data in reading["measurements"]:
        measurement = training_logs.unpack(data)
        measurement, unasked = _in_gpus(measurement, proposal, chosen, context)
        # The count typed, else the scaling kit's count in the file's name
        # (scaling_8gpus_123.log), for a log that states none.
        measurement = measurement.with_gpus(gpus or kit_gpus(measurement.source.file))
        row, problem = training_logs.measurement_row(measurement, peak)
        if unasked:
            row, problem = None, unasked
        if row is not None and code is not None:
            row["code"] = code
        context["measurements"].append(
            _shown_measurement(measurement, row, problem, fmt)
        )
        if row is not None:
            context["measurement_rows"].append(row)
    for data in reading["jobs"]:
        job, unasked = _in_gpus(training_logs.unpack(data), proposal, chosen, context)
        row, problem = training_logs.job_row(job)
        if unasked:
            row, problem = None, unasked
        context["jobs"].append(_shown_job(job, problem, fmt))
        if row is not None:
            context["job_rows"].append(row)
    context["ready"] = bool(context["measurement_rows"] or context["job_rows"])
    return context


def _shown_measurement(measurement, row: dict | None, problem, fmt) -> dict:
    """A measurement as the preview's table shows it (``row``: as it would be
    stored, ``None`` when refused for ``problem``)."""
    return {
        "file": measurement.source.file,
        "format": measurement.format,
        "gpus": measurement.gpus,
        "throughput": (format_number(row["throughput"], fmt) if row else ""),
        "per_gpu": (
            format_number(round(measurement.per_gpu, 1), fmt)
            if measurement.per_gpu is not None
            else ""
        ),
        "unit": measurement.unit,
        "mfu": measurement.mfu_pct,
        "tflops": measurement.tflops_per_gpu,
        "source": (source := in_reader_language(measurement.source.summary())),
        "source_lines": shown_lines(source),
        "problem": problem,
    }


def _shown_job(job, problem, fmt) -> dict:
    """A job as the preview's table shows it."""
    return {
        "file": job.source.file,
        "title": job.title,
        "gpus": job.gpus,
        "hours": format_number(job.hours, fmt),
        "count": job.count,
        "source": (source := in_reader_language(job.source.summary())),
        "source_lines": shown_lines(source),
        "problem": problem,
    }


def _poll_url(request, proposal, last: LogReading | None) -> str:
    """Where the page asks for the reading's progress, with the form's choices."""
    if last is None or last.is_done:
        return ""
    data = _data(request)
    query = {
        name: data.get(name)
        for name in ("logs-gpus", "logs-count", "logs-code")
        if data.get(name)
    }
    url = reverse("proposals:logs_status", args=[proposal.pk, last.pk])
    return url + ("?" + urlencode(query) if query else "")


@login_required
@require_http_methods(["GET", "POST"])
def read_logs(request, pk):
    """GET: the form on a page of its own. POST: hand the files to the worker and
    show its progress, a preview of the last reading, or (``logs_add``) add the rows
    read."""
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    last = None
    adding = request.method == "POST" and request.POST.get("logs_add")
    if request.method == "POST":
        save_step_first(request, proposal)
        proposal = member_proposal(request, pk, may=Capability.EDIT)
        # "Add" adds what the preview shows (the files a page keeps chosen are not
        # read again); a preview sends the files to the worker.
        last = (None if adding else _send(request, proposal)) or _last_reading(
            request, proposal
        )
    context = _preview(request, proposal, last)
    if adding and context["pending"] is not None:
        context["error"] = _(
            "The logs are still being read: add the rows once the preview shows them."
        )
    elif adding and context["reading"] and context["ready"]:
        try:
            added = proposal_add_log_rows(
                proposal=proposal,
                measurements=context["measurement_rows"],
                jobs=context["job_rows"],
                by=request.user,
            )
        except PasteError as error:
            context["error"] = str(error)
        else:
            _store(request, ADDED_KEY, proposal.pk, added)
            _store(request, READ_KEY, proposal.pk, None)
            messages.success(request, _added_message(added, context))
            return back_to_step(request, proposal, "measurements")
    template = "proposals/_logs_preview.html" if request.htmx else "proposals/logs.html"
    return TemplateResponse(request, template, context)


def _reading_of(request, proposal, reading_id) -> LogReading:
    reading = LogReading.objects.filter(
        pk=reading_id, proposal=proposal, user=request.user
    ).first()
    if reading is None:
        raise Http404("No such reading.")
    return reading


@login_required
@require_GET
def logs_status(request, pk, reading_id):
    """The reading's progress, then its preview: polled by htmx every second (the
    preview's region), refreshed by the page itself without JavaScript."""
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    context = _preview(request, proposal, _reading_of(request, proposal, reading_id))
    template = "proposals/_logs_preview.html" if request.htmx else "proposals/logs.html"
    return TemplateResponse(request, template, context)


@login_required
@require_POST
def logs_retry(request, pk, reading_id):
    """Hand a failed or stalled reading to the worker again."""
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    reading = log_reading_retry(reading=_reading_of(request, proposal, reading_id))
    url = reverse("proposals:logs_status", args=[proposal.pk, reading.pk])
    if request.htmx:
        return TemplateResponse(
            request,
            "proposals/_logs_preview.html",
            _preview(request, proposal, reading),
        )
    return redirect(url)


def _added_message(added: dict, context: dict) -> str:
    parts = []
    if added.get("measurements"):
        n = len(added["measurements"])
        parts.append(ngettext("%(n)s measurement", "%(n)s measurements", n) % {"n": n})
    if added.get("jobs"):
        n = len(added["jobs"])
        parts.append(
            ngettext("%(n)s job-plan row", "%(n)s job-plan rows", n) % {"n": n}
        )
    left = sum(1 for m in context["measurements"] if m["problem"]) + sum(
        1 for j in context["jobs"] if j["problem"]
    )
    rows = get_text_list(parts, _("and"))
    if left:
        return _(
            "Added %(rows)s read from the logs; %(left)s not added (see why in the "
            "preview)."
        ) % {"rows": rows, "left": left}
    return _("Added %(rows)s read from the logs.") % {"rows": rows}


def _undo_question(request, proposal, error: PastedRowsChanged):
    """The step again, asking whether to undo the rows read from logs that were
    changed in another tab ("Undo anyway" / "Keep them")."""
    count = len(error.changed)
    heading = ngettext(
        "A row read from the logs was changed in another tab",
        "%(count)s rows read from the logs were changed in another tab",
        count,
    ) % {"count": count}
    question = describe_changed_rows(
        error.changed,
        number_format(request),
        heading=heading,
        outcome=_("so the rows read from the logs were not removed"),
        url=reverse("proposals:logs_undo", args=[proposal.pk]),
        confirm=_("Undo anyway"),
        keep=_("Keep them"),
    )
    return wizard.step_with_question(request, proposal, STEP, row_changed=question)


@login_required
@require_POST
def undo_logs(request, pk):
    """Remove exactly the rows of the last "Add" from logs."""
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    bases = save_step_first(request, proposal)
    proposal = member_proposal(request, pk, may=Capability.EDIT)
    added = last_added(request, proposal.pk)
    # Rows read from the logs and changed since this page showed them (in another
    # tab) are not removed without the person choosing, as for a paste's undo.
    shown = None if bases is None else {kind: shown_rows(bases, kind) for kind in added}
    try:
        removed = (
            proposal_undo_log_rows(proposal=proposal, added=added, shown=shown)
            if added
            else 0
        )
    except PastedRowsChanged as error:
        return _undo_question(
            request, member_proposal(request, pk, may=Capability.EDIT), error
        )
    _store(request, ADDED_KEY, proposal.pk, None)
    if removed:
        messages.success(
            request,
            ngettext(
                "Undone: removed the %(count)s row read from the logs.",
                "Undone: removed the %(count)s rows read from the logs.",
                removed,
            )
            % {"count": removed},
        )
    else:
        messages.info(request, _("Nothing to undo from the logs."))
    return back_to_step(request, proposal, "measurements")
