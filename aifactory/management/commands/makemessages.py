"""``makemessages`` as this project runs it: catalogues without source locations
(``--no-location`` is the default, so adding two strings changes those two entries,
not the ``#:`` lines of hundreds) and no fuzzy matching (msgmerge's guesses, such as
"Licence" pre-filled with the translation of "Evidence", never enter a catalogue:
a new string arrives untranslated and the catalogue tests ask for it). Ahead of
Django's own command because ``aifactory`` is an installed app.

The Jinja2 templates (the directories of the ``Jinja2`` engine in ``TEMPLATES``)
are read as Jinja2, not as Django templates: Jinja2's own extractor finds their
``_()``, ``gettext``, ``ngettext``, ``pgettext`` and ``{% trans %}`` blocks
(trimmed, as the engine renders them), and each becomes the same call in the
Python that xgettext reads, on the template's line. A ``{% trans count=n %}``
block gives the msgid and plural a Django ``{% blocktranslate count %}`` gives, so
both engines share one catalogue entry."""

import io
from pathlib import Path

from django.conf import settings
from django.core.management.commands import makemessages
from jinja2.ext import GETTEXT_FUNCTIONS, babel_extract

# How the Jinja2 engine reads its templates (proposals/templatetags/fragments.py).
JINJA_OPTIONS = {
    "extensions": "jinja2.ext.i18n",
    "trimmed": "true",
    "trim_blocks": "true",
    "lstrip_blocks": "true",
}
# Each gettext function with the positions of its strings, as xgettext reads them
# (Django's keywords for Python: ``pgettext:1c,2``, ``npgettext:1c,2,3``).
ARGUMENTS = {"_": 1, "gettext": 1, "ngettext": 2, "pgettext": 2, "npgettext": 3}


def jinja_directories() -> list[Path]:
    return [
        Path(directory).resolve()
        for engine in settings.TEMPLATES
        if engine["BACKEND"].endswith(".Jinja2")
        for directory in engine["DIRS"]
    ]


def jinja_messages(source: str) -> str:
    """Python holding a gettext call for each message of the Jinja2 template
    ``source``, each on its template line (the rest of the lines empty)."""
    lines = [""] * (source.count("\n") + 1)
    found = babel_extract(
        io.BytesIO(source.encode()), GETTEXT_FUNCTIONS, [], JINJA_OPTIONS
    )
    for line, function, message, _comments in found:
        strings = message if isinstance(message, tuple) else (message,)
        strings = strings[: ARGUMENTS[function]]
        if any(not isinstance(text, str) for text in strings):
            continue  # a message that is not a literal string: nothing to extract
        name = "gettext" if function == "_" else function
        count = ", 1" if function in ("ngettext", "npgettext") else ""
        call = f"{name}({', '.join(map(repr, strings))}{count});"
        lines[line - 1] += call
    return "\n".join(lines)


class BuildFile(makemessages.BuildFile):
    @property
    def is_jinja(self) -> bool:
        path = Path(self.path).resolve()
        return any(path.is_relative_to(root) for root in jinja_directories())

    def preprocess(self):
        if not (self.is_templatized and self.is_jinja):
            return super().preprocess()
        source = Path(self.path).read_text(encoding="utf-8")
        Path(self.work_path).write_text(jinja_messages(source), encoding="utf-8")


class Command(makemessages.Command):
    build_file_class = BuildFile
    msgmerge_options = [*makemessages.Command.msgmerge_options, "--no-fuzzy-matching"]

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.set_defaults(no_location=True)

    def handle(self, *args, **options):
        if options.get("add_location"):  # asked for: locations it is
            options["no_location"] = False
        return super().handle(*args, **options)
