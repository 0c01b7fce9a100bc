"""``manage.py assess FILE`` — assess a proposal in the JSON format.

Exit status: 0 without error findings, 1 with error findings, 2 when the file cannot
be read or is not valid ``aifactory-proposal/1`` (each problem named with its path).
A file is checked exactly as ``import_proposal`` and the upload page check it, so
the three accept and refuse the same files.
"""

import json
import sys
from collections.abc import Mapping

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError

from proposals import domain
from proposals.assess import (
    catalogue_from_db,
    countries_from_db,
    gpu_models_from_db,
    terms_from_db,
)
from proposals.domain import calendar
from proposals.exports import jsonio

SHIPPED_CATALOGUE = settings.BASE_DIR / "fixtures" / "catalogue.json"


def read_proposal(
    command: BaseCommand, path: str, *, systems: Mapping[str, int | None]
) -> domain.Proposal:
    """Read FILE (``-`` for stdin) and check it as the upload page does
    (``jsonio.check_file``, against the known ``systems``); on failure print why
    and exit 2."""
    try:
        if path == "-":
            data = getattr(sys.stdin, "buffer", sys.stdin).read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
        return jsonio.check_file(data, systems=systems)
    except OSError as exc:
        command.stderr.write(f"Cannot read {path}: {exc}")
    except domain.FormatError as exc:
        command.stderr.write(f"{path} is not a valid {domain.FORMAT_TAG} document:")
        for where, message in exc.problems:
            command.stderr.write(f"  {where}: {message}")
    raise SystemExit(2)


class Command(BaseCommand):
    requires_system_checks = []  # a file tool: needs the catalogue, not the URLs
    help = (
        "Assess a proposal file in the aifactory-proposal/1 JSON format against the "
        "cluster catalogue: tier, job plan, scaling, projection, energy and findings. "
        "Exits 0 without errors, 1 with error findings, 2 for an unusable file."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="proposal JSON file, or - for stdin")
        parser.add_argument(
            "--format",
            choices=["json", "text"],
            default="json",
            dest="output_format",
            help="json (default) for tools, text for people",
        )

    def handle(self, *args, file, output_format, **options):
        catalogue, terms, countries, gpu_models = self.data()
        systems = {slug: None for slug in catalogue}
        proposal = read_proposal(self, file, systems=systems)
        assessment = domain.assess(proposal, catalogue, terms, countries, gpu_models)
        # The calendar of the request (issue 14): a key of its own in the report.
        cal = calendar.for_proposal(proposal, assessment.plan, catalogue)
        if output_format == "json":
            report = assessment.to_dict()
            report["calendar"] = cal.to_dict() if cal else None
            self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))
        else:
            text = assessment.to_text()
            if cal is not None:
                line = f"Calendar: {cal.summary()}\n"
                at = text.find("Findings:")
                text = text[:at] + line + text[at:] if at >= 0 else text + line
            self.stdout.write(text, ending="")
        if assessment.has_errors:
            raise SystemExit(1)

    def data(self):
        """The administrators' catalogue, call terms, country eligibility and GPU
        variants;
        without a usable database (not migrated yet, say) the shipped ones, with a
        note."""
        try:
            return (
                catalogue_from_db(),
                terms_from_db(),
                countries_from_db(),
                gpu_models_from_db(),
            )
        except DatabaseError as exc:
            self.stderr.write(
                f"No database catalogue ({exc.__class__.__name__}); using "
                f"{SHIPPED_CATALOGUE.relative_to(settings.BASE_DIR)}, the "
                "shipped call terms, country eligibility and GPU variants."
            )
            return domain.load_catalogue(SHIPPED_CATALOGUE), None, None, None
