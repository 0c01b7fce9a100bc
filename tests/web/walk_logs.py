"""The rows of real sample logs for the language walk (issue 36): the staff review
page shows their provenance, stored in English and shown in the reader's language."""

from pathlib import Path

from proposals.domain.training_logs import (
    iter_lines,
    job_row,
    measurement_row,
    read_log,
)
from proposals.models import JobType, ScalingMeasurement
from proposals.services.training_logs import proposal_add_log_rows

LOGS = Path(__file__).resolve().parents[1] / "domain"
# A formula with its warm-up, a bar's "Epoch 0", notes on ranks and on the
# configuration's world_size, and sacct's jobs with what they left out.
SHOWN_LOGS = (
    "logs/megatron-2024-8gpus.log",
    "logs/lightning-2.2-8gpus.log",
    "logs_heldout/torchtitan-2025-32gpus-4nodes.log",
    "logs_heldout/deepspeed-0.15-32gpus-pipeline.log",
    "logs/sacct-lumi.txt",
)


def import_logs(proposal, owner) -> None:
    """The rows the sample logs give, added as the log import adds them (the
    provenance stored in English, as read)."""
    measurements, jobs = [], []
    for name in SHOWN_LOGS:
        with open(LOGS / name, "rb") as stream:
            reading = read_log(iter_lines(stream), file=Path(name).name)
        measurements += [measurement_row(m)[0] for m in reading.measurements]
        jobs += [job_row(j)[0] for j in reading.jobs]
    proposal_add_log_rows(
        proposal=proposal,
        measurements=[row for row in measurements if row],
        jobs=[row for row in jobs if row],
        by=owner,
    )


def log_lines() -> list[str]:
    """The log's own lines a stored provenance quotes (indented), longest first:
    data, as read, which the diff shows inside a row's text (the staff document
    marks them ``lang="en"``); the walk leaves them out like other stored text."""
    return sorted(
        {
            " ".join(line.split())
            for model in (ScalingMeasurement, JobType)
            for source in model.objects.values_list("source", flat=True)
            for line in source.split("\n")
            if line.startswith("  ")
        },
        key=len,
        reverse=True,
    )
