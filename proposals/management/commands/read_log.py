"""``manage.py read_log FILE [FILE...]`` — scaling measurements and job-plan rows read
from training logs and ``sacct -P`` output (``proposals.domain.training_logs``).

Exit status: 0 when something was read (a measurement with its throughput, or a
job-plan row), 2 when nothing could be (each file's reason on standard error).
``--format text`` prints figures in the portal's form unless ``--locale`` names a
CLDR locale (as ``assess`` does); the lines quoted from the logs stay as read.
"""

import json
import sys

from django.core.management.base import BaseCommand

from proposals.domain import numbers, training_logs
from proposals.management.commands.assess import number_format


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


class Command(BaseCommand):
    requires_system_checks = []  # a file tool: no database, no URLs
    help = (
        "Read training logs (Megatron-LM, Hugging Face Trainer and Accelerate, "
        "DeepSpeed, torchtitan, NeMo, PyTorch Lightning progress bars, Composer, "
        "MaxText, llm.c-style loops) and sacct -P output into scaling "
        "measurements (GPUs, throughput, unit, source lines) and job-plan rows "
        "(GPUs, hours, count). Exits 0 when something was read, 2 when nothing was."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE", help="a log, or -")
        parser.add_argument(
            "--gpus",
            type=positive,
            help="the GPU count of runs whose log does not state it",
        )
        parser.add_argument(
            "--format",
            choices=["json", "text"],
            default="json",
            dest="output_format",
            help="json (default) for tools, text for people",
        )
        parser.add_argument(
            "--locale",
            default=numbers.DEFAULT_NUMBER_FORMAT,
            help="with --format text: print figures as this CLDR locale writes them "
            "(de_DE: 1.234,5); default: the portal's form (en: 1,234.5)",
        )

    def handle(self, *args, files, gpus, output_format, locale, **options):
        fmt = number_format(locale)
        readings = [self.read(path, gpus) for path in files]
        usable = [
            reading
            for reading in readings
            if reading.jobs
            or any(m.throughput is not None for m in reading.measurements)
        ]
        for reading in readings:
            self.complain(reading)
        if output_format == "json":
            self.stdout.write(json.dumps(self.as_json(readings), indent=2))
        else:
            with numbers.using(fmt):
                self.stdout.write(self.as_text(readings))
        if not usable:
            self.stderr.write("Nothing could be read.")
            raise SystemExit(2)

    def read(self, path: str, gpus: int | None) -> training_logs.Reading:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a text stream (tests): lines are already decoded
                return training_logs.read_text(sys.stdin.read(), file="-", gpus=gpus)
            return training_logs.read_file(stream, file="-", gpus=gpus)
        try:
            with open(path, "rb") as stream:
                return training_logs.read_file(stream, file=path, gpus=gpus)
        except OSError as exc:
            return training_logs.Reading(
                file=path, refused=f"Cannot read {path}: {exc}"
            )

    def complain(self, reading: training_logs.Reading) -> None:
        """What the person must know on standard error: a refusal, lines not read,
        a GPU count to give."""
        if reading.refused:
            self.stderr.write(reading.refused)
        if reading.unread_count:
            self.stderr.write(f"{reading.file}: {reading.unread_text()}.")
        if reading.needs_gpus:
            self.stderr.write(
                f"{reading.file}: the log states no GPU count; give it with --gpus N."
            )

    @staticmethod
    def as_json(readings) -> dict:
        report = {"measurements": [], "jobs": [], "files": []}
        for reading in readings:
            part = training_logs.as_dict(reading)
            report["measurements"] += part["measurements"]
            report["jobs"] += part["jobs"]
            report["files"].append(
                {
                    "file": reading.file,
                    "format": reading.format or None,
                    "refused": reading.refused or None,
                    "unread_lines": list(reading.unread),
                    "unread_count": reading.unread_count,
                    "notes": list(reading.notes),
                }
            )
        return report

    @staticmethod
    def as_text(readings) -> str:
        out = []
        for reading in readings:
            if not reading.ok:
                continue
            out.append(f"{reading.file} ({reading.format}):")
            for m in reading.measurements:
                if m.throughput is None:
                    per_gpu = numbers.grouped(m.per_gpu, 1, trim=False)
                    figure = f"{per_gpu} {m.unit} per GPU; GPUs: not stated"
                else:
                    throughput = numbers.grouped(m.throughput, 1, trim=False)
                    figure = f"{numbers.grouped(m.gpus, 0)} GPUs: {throughput} {m.unit}"
                out.append(f"  {figure}")
                out += _source_lines(m.source)
            for job in reading.jobs:
                out.append(
                    f"  {numbers.grouped(job.count, 0)} × {numbers.grouped(job.gpus, 0)} "
                    f"GPUs × {numbers.grouped(job.hours, 2, trim=False)} h {job.title}"
                )
                out += _source_lines(job.source)
            out += [f"  Note: {note}" for note in reading.notes]
        return "\n".join(out)


def _source_lines(source) -> list[str]:
    lines = [f"    from {source.summary().splitlines()[0]}"]
    lines += [f"    left out: {item}" for item in source.left_out]
    return lines
