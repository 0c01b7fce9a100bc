"""``manage.py rule_messages [-l de -l fr]`` — the rules' descriptions into their own
catalogue, ``locale/rules/<language>/LC_MESSAGES/django.po`` (``make messages`` runs it
after ``makemessages``).

A rule's description is its function's docstring (``Rule.english_description``: the one
source, which ``docs/rules.md`` prints too). xgettext does not extract docstrings, so
this command writes every registered rule's description, whitespace normalised exactly
as the rules page shows it, as a msgid, merged into the language's catalogue: existing
translations are kept, a description that changed keeps its old translation marked
fuzzy, one no rule has any more is dropped. ``LOCALE_PATHS`` lists ``locale/rules``
after ``locale``, so Django reads both catalogues, and ``make translations``
(compilemessages) compiles it with the others.
"""

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from django.conf import settings
from django.core.management.base import BaseCommand

from proposals.domain.findings import rules

HEADER = (
    "# The rules' descriptions (their docstrings in proposals/domain/rulebook/),\n"
    "# written by `manage.py rule_messages` (`make messages`): translate the msgstr,\n"
    "# never edit a msgid here (change the docstring and run it again).\n#"
)


def rules_locale_dir() -> Path:
    """The ``LOCALE_PATHS`` entry that holds the rules' catalogues."""
    return Path(settings.BASE_DIR) / "locale" / "rules"


def template() -> Catalog:
    """Every registered rule's description, in code order, each with its code."""
    catalog = Catalog(header_comment=HEADER, fuzzy=False, charset="utf-8")
    for rule in rules():
        if rule.english_description:
            catalog.add(
                rule.english_description,
                auto_comments=[f"{rule.code} ({rule.step}): {rule.func.__module__}"],
            )
    return catalog


def not_formats(catalog: Catalog) -> Catalog:
    """Flag the descriptions with a ``%`` as no format: a description is never a
    %-format, and Babel takes "10 % of" for one ("% o"), which msgfmt would check."""
    for message in catalog:
        if message.id and "%" in message.id:
            message.flags.discard("python-format")
            message.flags.add("no-python-format")
    return catalog


def catalogue_path(language: str, root: Path | None = None) -> Path:
    return (root or rules_locale_dir()) / language / "LC_MESSAGES" / "django.po"


def merge(language: str, root: Path | None = None) -> Path:
    """Write (or update) ``language``'s rules catalogue under ``root``."""
    path = catalogue_path(language, root)
    if path.exists():
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=language, abort_invalid=True)
        catalog.update(template(), update_creation_date=False)
    else:
        catalog = template()
        catalog.locale = language
        catalog.fuzzy = False
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(
            handle,
            not_formats(catalog),
            width=0,
            no_location=True,
            ignore_obsolete=True,
            include_previous=False,
        )
    return path


class Command(BaseCommand):
    requires_system_checks = []  # writes files only
    help = "Extract the rules' descriptions (their docstrings) into locale/rules/."

    def add_arguments(self, parser):
        parser.add_argument(
            "-l",
            "--locale",
            action="append",
            dest="languages",
            help="a language to update (repeatable; default: every one offered but "
            "the default language)",
        )

    def handle(self, *args, languages=None, **options):
        languages = languages or [
            code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE
        ]
        for language in languages:
            path = merge(language)
            if options["verbosity"] > 0:
                self.stdout.write(f"wrote {path.relative_to(settings.BASE_DIR)}")
