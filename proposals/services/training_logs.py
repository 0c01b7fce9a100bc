"""Writes of rows read from training logs and sacct output: through the paste's
service (:mod:`.paste`), so they get its row limits, its one-step revision and its
undo, and whatever checks it gains."""

import io
import logging
import time

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext
from django_tasks import task

from proposals import localization
from proposals.domain import training_logs
from proposals.domain.training_logs import archives
from proposals.models import LogReading, LogUpload, Proposal

from .paste import PastedRowsChanged, proposal_paste_rows, proposal_undo_paste

logger = logging.getLogger(__name__)


@transaction.atomic
def proposal_add_log_rows(
    *, proposal: Proposal, measurements: list[dict], jobs: list[dict], by=None
) -> dict[str, list]:
    """Append the measurements and job-plan rows read from logs (values as
    ``domain.training_logs.measurement_row`` / ``job_row`` give them, provenance
    included), all or nothing, ``by`` noted as the one who set them. Returns the
    new rows' keys per table kind."""
    added = {}
    for kind, rows in (("measurements", measurements), ("jobs", jobs)):
        if rows:
            added[kind] = proposal_paste_rows(
                proposal=proposal, kind=kind, rows=rows, by=by
            )
    return added


@transaction.atomic
def proposal_undo_log_rows(
    *, proposal: Proposal, added: dict[str, list], shown: dict | None = None
) -> int:
    """Remove the rows of one reading (those still there); returns how many. With
    ``shown`` (table kind -> row id -> what the page showed of it), rows changed
    since then elsewhere are named (:class:`PastedRowsChanged`, of every table) and
    nothing is removed, as for a paste's undo."""
    removed, changed = 0, []
    for kind, pks in added.items():
        if not pks:
            continue
        try:
            removed += proposal_undo_paste(
                proposal=proposal,
                kind=kind,
                pks=pks,
                shown=None if shown is None else shown.get(kind, {}),
            )
        except PastedRowsChanged as error:
            changed.extend(error.changed)
    if changed:
        # Leaving the transaction by this exception puts back any table's rows
        # already removed: all or nothing.
        raise PastedRowsChanged(changed)
    return removed


# --------------------------------------------------------------- reading in the worker


def log_reading_request(
    *, proposal: Proposal, user, files: list, text: str, language: str
) -> LogReading:
    """Store the files (Django uploads) and the pasted text of one preview and hand
    them to the task worker (:func:`read_log_files`). A file above the reader's
    limit is kept by name and size only: the worker says it was not read."""
    with transaction.atomic():
        reading = LogReading.objects.create(
            proposal=proposal, user=user, language=language or ""
        )
        position = 0
        for position, upload in enumerate(files):
            small = upload.size <= training_logs.MAX_FILE_BYTES
            if small:
                upload.seek(0)
            LogUpload.objects.create(
                reading=reading,
                position=position,
                name=upload.name[:255],
                size=upload.size,
                data=upload.read() if small else None,
            )
        if text.strip():
            data = text.encode("utf-8", errors="replace")
            LogUpload.objects.create(
                reading=reading,
                position=position + 1,
                name=PASTED,
                size=len(data),
                data=data,
            )
        reading.bytes_total = sum(
            len(upload.data or b"") for upload in reading.uploads.all()
        )
        reading.save(update_fields=["bytes_total"])
        # The task record is written in this transaction: the worker sees it
        # together with the files, or neither.
        read_log_files.enqueue(reading.pk)
    _prune(proposal, user)
    return reading


#: The name the pasted text is read under (as ``training_logs.read_text`` names it).
PASTED = "pasted text"


@transaction.atomic
def log_reading_retry(*, reading: LogReading) -> LogReading:
    """Hand a stalled or failed reading to the worker again (its files are kept
    until it is read)."""
    reading = LogReading.objects.select_for_update().get(pk=reading.pk)
    if reading.is_done or not (reading.is_failed or reading.is_stalled):
        return reading
    reading.status = LogReading.Status.PENDING
    reading.error = ""
    reading.bytes_read = 0
    reading.created_at = timezone.now()
    reading.started_at = reading.heartbeat_at = reading.finished_at = None
    reading.save()
    read_log_files.enqueue(reading.pk)
    return reading


@task()
def read_log_files(reading_id: int) -> str:
    """The worker's task: read one reading's files."""
    return log_reading_run(reading_id=reading_id)


def log_reading_run(*, reading_id: int) -> str:
    """Read the files of reading ``reading_id`` (the worker's step), stamping its
    progress as it goes; the result replaces the files. A failure is stored for the
    page to show, and raised again for the task's own record."""
    with transaction.atomic():
        reading = (
            LogReading.objects.select_for_update()
            .select_related("user")
            .filter(pk=reading_id)
            .first()
        )
        if reading is None or reading.is_done:
            return "nothing to read"
        reading.status = LogReading.Status.READING
        reading.started_at = reading.heartbeat_at = timezone.now()
        reading.bytes_read = 0
        reading.save(
            update_fields=["status", "started_at", "heartbeat_at", "bytes_read"]
        )
    try:
        with (
            localization.for_recipient(reading.user),
            translation.override(reading.language or None),
        ):
            result = _read_uploads(reading)
    except Exception as exc:  # a reader's bug must not leave the page waiting
        message = f"{type(exc).__name__}: {exc}"[:2000]
        LogReading.objects.filter(pk=reading.pk).update(
            status=LogReading.Status.FAILED,
            error=message,
            finished_at=timezone.now(),
        )
        logger.warning("Log reading %s failed: %s", reading.pk, message)
        raise
    with transaction.atomic():
        LogReading.objects.filter(pk=reading.pk).update(
            status=LogReading.Status.DONE,
            result=result,
            bytes_read=reading.bytes_total,
            error="",
            finished_at=timezone.now(),
        )
        LogUpload.objects.filter(reading=reading).delete()
    return "read"


def _read_uploads(reading: LogReading) -> dict:
    """What the page shows of the reading's files: the rows (packed) and what was
    refused, left unread or noted, per file."""
    readings = []
    done = 0
    last = [time.monotonic()]

    def progress(read: int) -> None:
        now = time.monotonic()
        if now - last[0] >= LogReading.PROGRESS_EVERY.total_seconds():
            last[0] = now
            LogReading.objects.filter(pk=reading.pk).update(
                bytes_read=done + read, heartbeat_at=timezone.now()
            )

    for upload in LogUpload.objects.filter(reading=reading).order_by("position"):
        if upload.data is None:
            readings.append(
                training_logs.Reading(
                    file=upload.name,
                    refused=gettext("{file}: larger than {mb} MB; not read.").format(
                        file=upload.name, mb=training_logs.MAX_FILE_BYTES // 2**20
                    ),
                )
            )
            continue
        data = bytes(upload.data)
        # A zip or tar of logs (the scaling kit's, all at once): each member is
        # read as a file of its own.
        for name, body in archives.members(upload.name, data):
            if body is None:
                readings.append(
                    training_logs.Reading(
                        file=name,
                        refused=gettext(
                            "{file}: larger than {mb} MB; not read."
                        ).format(file=name, mb=training_logs.MAX_FILE_BYTES // 2**20),
                    )
                )
                continue
            readings.append(
                training_logs.read_file(io.BytesIO(body), file=name, progress=progress)
            )
        done += len(data)
    return {
        "measurements": [
            training_logs.pack(m) for r in readings for m in r.measurements
        ],
        "jobs": [training_logs.pack(j) for r in readings for j in r.jobs],
        "refused": [r.refused for r in readings if r.refused],
        "unread": [f"{r.file}: {r.unread_text()}." for r in readings if r.unread_count],
        "notes": [f"{r.file}: {note}" for r in readings for note in r.notes],
        "files": [r.file for r in readings],
    }


def _prune(proposal: Proposal, user) -> None:
    """Keep the newest ``LogReading.KEEP`` readings of a proposal by a person."""
    old = list(
        LogReading.objects.filter(proposal=proposal, user=user)
        .order_by("-created_at", "-id")
        .values_list("pk", flat=True)[LogReading.KEEP :]
    )
    if old:
        LogReading.objects.filter(pk__in=old).delete()
