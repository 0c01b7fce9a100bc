"""``manage.py assess FILE`` — assess a proposal in the JSON format.

Exit status: 0 without error findings, 1 with error findings, 2 when the file cannot
be read or is not valid ``aifactory-proposal/1`` (each problem named with its path).
``--format text`` prints numbers in the portal's form (``18,176``, ``0.2``) unless
``--locale`` names a CLDR locale (``de_DE``, ``de-CH``): a command has no person, so
it takes no convention from the machine's environment; the JSON report is always in
the portal's plain form.
A file is checked exactly as ``import_proposal`` and the upload page check it, so
the three accept and refuse the same files.
"""

import json
import sys
from collections.abc import Mapping

import babel
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from proposals import domain
from proposals.assess import (
    catalogue_from_db,
    countries_from_db,
    gpu_models_from_db,
    terms_from_db,
)
from proposals.domain import calendar, numbers
from proposals.domain.types import targets
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


def number_format(locale: str) -> numbers.NumberFormat:
    """The number format of CLDR locale ``locale`` (``de_CH`` or ``de-CH``); a
    locale CLDR does not know, or whose digits are not the Latin ones, is refused
    rather than silently printed in another convention."""
    try:
        name = str(babel.Locale.parse(locale.replace("-", "_")))
    except (ValueError, TypeError, babel.UnknownLocaleError):
        name = None
    if name not in numbers.NUMBER_FORMAT_BY_NAME:
        raise CommandError(
            f"--locale {locale}: not a CLDR locale written with Latin digits "
            "(e.g. en, de_DE, de_CH, fr_FR, it_IT)"
        )
    return numbers.NUMBER_FORMAT_BY_NAME[name]


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
        parser.add_argument(
            "--locale",
            default=numbers.DEFAULT_NUMBER_FORMAT,
            help="with --format text: print numbers as this CLDR locale writes them "
            "(de_DE: 18.176,5; de_CH: 18’176.5); default: the portal's form "
            "(en: 18,176.5). The JSON report always uses the portal's form.",
        )

    def handle(self, *args, file, output_format, locale, **options):
        fmt = number_format(locale)  # checked whatever the format: never ignored
        if output_format == "json":
            fmt = numbers.PORTAL
        catalogue, terms, countries, gpu_models = self.data()
        # Only a system in production may be a proposal's target.
        systems = {slug: None for slug in targets(catalogue)}
        proposal = read_proposal(self, file, systems=systems)
        # The findings' texts are written as the assessment is made: in ``fmt``.
        with numbers.using(fmt):
            self.report(
                proposal, output_format, catalogue, terms, countries, gpu_models
            )

    def report(self, proposal, output_format, catalogue, terms, countries, gpu_models):
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
