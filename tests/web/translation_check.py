"""What the translation tests read: the catalogues of every language but English
(German, French, Italian, Spanish: ``settings.LANGUAGES``), the msgids of
today's source (extracted into a scratch copy), and the text a person sees on a page,
with a detector for text left in English.

The detector flags, on a page rendered in one of them:

- ``catalogue``: visible text (a text node, or a ``title``, ``aria-label``, ``alt``,
  ``placeholder`` or button ``value``) equal to an English msgid of the catalogue, or to
  a two-word-or-longer piece of one between its tags and placeholders, whose
  translation differs: marked, but shown untranslated (not compiled, not activated,
  or rendered under another language);
- ``english``: text with the English function words of a sentence (``the``, ``your``,
  ``is`` ... at least two of them, and at least a quarter of its words): a sentence
  nobody marked.

What the person typed (every text value stored in the database: proposals, comments,
notes, usernames, the catalogue's names) is taken out first, and so is what a page
declares as English on purpose: an element with a ``lang`` other than the page's
(the portal text, pasted into the English portal) or ``translate="no"``, and code
(``code``, ``pre``, ``kbd``, ``samp``, ``textarea``).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.pofile import read_po
from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import User
from django.db import models

ROOT = Path(__file__).resolve().parents[2]
SOURCE_LANGUAGE = "en"  # the msgids' language: it has no catalogue
# Every interface language but English: a language added to settings.LANGUAGES is
# checked (complete, current, no English left on its pages) without a word here.
LANGUAGES = tuple(
    code for code, _name in settings.LANGUAGES if code.split("-")[0] != SOURCE_LANGUAGE
)

# The sources `make messages` reads: everything but these (the Makefile's ignores).
IGNORED = {
    ".git",
    ".venv",
    "node_modules",
    "static",
    "staticfiles",
    "tests",
    "test-artifacts",
    "var",
    "scripts",
    "deploy",
    "docs",
    "locale",
}


def catalogue_path(language: str) -> Path:
    return ROOT / "locale" / language / "LC_MESSAGES" / "django.po"


def rules_catalogue_path(language: str) -> Path:
    """The rules' descriptions (``manage.py rule_messages``), a second LOCALE_PATHS
    catalogue."""
    return ROOT / "locale" / "rules" / language / "LC_MESSAGES" / "django.po"


def catalogue_paths(language: str) -> list[Path]:
    """Every catalogue Django reads for ``language``."""
    return [catalogue_path(language), rules_catalogue_path(language)]


def stale_rule_descriptions(catalogue: Path) -> list[str]:
    """The registered rules' descriptions (their docstrings) that ``catalogue``
    lacks: a rule added or reworded since `make messages` last ran."""
    from proposals.domain.findings import rules

    known = {message_key(m)[1] for m in read_catalogue(catalogue) if m.id}
    return [
        f"{r.code}: {r.english_description}"
        for r in rules()
        if r.english_description and r.english_description not in known
    ]


def read_catalogue(path: Path):
    with path.open("rb") as handle:
        return read_po(handle, abort_invalid=False)


def message_key(message) -> tuple[str | None, str]:
    """A message's identity: its context and (first) msgid."""
    msgid = message.id[0] if isinstance(message.id, tuple | list) else message.id
    return message.context, msgid


def catalogue_problems(path: Path) -> list[str]:
    """Every entry of ``path`` that is untranslated (an empty msgstr, or an empty
    plural form) or fuzzy."""
    problems = []
    for message in read_catalogue(path):
        if not message.id:
            continue  # the header
        key = message_key(message)[1]
        strings = (
            message.string
            if isinstance(message.string, tuple | list)
            else [message.string]
        )
        if not all(strings):
            problems.append(f"untranslated: {key!r}")
        if message.fuzzy:
            problems.append(f"fuzzy: {key!r}")
    return problems


def extract_today(workdir: Path) -> Path:
    """Run ``makemessages`` over a scratch copy of the project's sources (so that the
    committed catalogues are not touched) and return the German catalogue it wrote:
    every msgid today's source marks."""
    for entry in ROOT.iterdir():
        if entry.name in IGNORED or entry.name.startswith("."):
            continue
        target = workdir / entry.name
        if entry.is_dir():
            shutil.copytree(
                entry, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
        else:
            shutil.copy2(entry, target)
    (workdir / "locale").mkdir(exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "makemessages",
            "-l",
            "de",
            "--no-wrap",
            "--no-location",
            "-v",
            "0",
        ],
        cwd=workdir,
        check=True,
        # The copy's settings put LOCALE_PATHS in the copy (BASE_DIR / "locale").
        env={**os.environ, "DJANGO_DEBUG": "1"},
    )
    return catalogue_path_in(workdir, "de")


def catalogue_path_in(root: Path, language: str) -> Path:
    return root / "locale" / language / "LC_MESSAGES" / "django.po"


@functools.cache  # 2 s of makemessages; the source does not change during a run
def todays_msgids() -> frozenset[tuple[str | None, str]]:
    """Every (context, msgid) today's source marks, extracted once per process."""
    with tempfile.TemporaryDirectory(prefix="messages-") as scratch:
        extracted = read_catalogue(extract_today(Path(scratch)))
    return frozenset(message_key(m) for m in extracted if m.id)


def stale_msgids(catalogue: Path) -> list[str]:
    """The msgids today's source marks that ``catalogue`` lacks."""
    known = {message_key(m) for m in read_catalogue(catalogue) if m.id}
    return sorted(
        f"{context + ': ' if context else ''}{msgid}"
        for context, msgid in todays_msgids()
        if (context, msgid) not in known
    )


# --- The page reader --------------------------------------------------------------

PLACEHOLDER = re.compile(r"%\([a-z_0-9]+\)[sd]|%[sd]|\{[a-z_0-9]*\}")
TAG = re.compile(r"<[^>]+>")
WORD = re.compile(r"[A-Za-z][A-Za-z'’]*")
# Words of an English sentence that German, French, Italian and Spanish do not use as
# words of their own (no "in", "an", "was", "will", "so", "a", "on", "as", "die",
# "no", "come").
ENGLISH_WORDS = frozenset(
    (  # noqa: SIM905 (a list of 51 one-word strings, one per line, is 50 lines)
        "the and you your yours is are of with this that not have has be been it to for "
        "from by which there their they should would could than only into each every "
        "these those our we its were can what when where how who or at any does do did"
    ).split()
)
SKIPPED_TAGS = {
    "script",
    "style",
    "template",
    "code",
    "pre",
    "kbd",
    "samp",
    "textarea",
    "svg",
}
VOID_TAGS = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
    "param", "source", "track", "wbr",
}  # fmt: skip
TEXT_ATTRIBUTES = ("title", "aria-label", "alt", "placeholder", "aria-description")


def normalise(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Offence:
    page: str
    kind: str  # "catalogue", "english" or "lang"
    text: str

    def __str__(self) -> str:
        return f"{self.page} [{self.kind}] {self.text!r}"


class VisibleText(HTMLParser):
    """The text a person sees (and hears: labels, alternatives) on a page, without
    what the page declares English or code; and the page's ``<html lang>`` (for a
    fragment without one, the ``lang`` of its outermost element)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.page_language = ""
        self.texts: list[str] = []
        self._stack: list[tuple[str, bool]] = []  # (tag, skipped)
        self._started = False  # a start tag was read (the first: <html> or a root)

    @property
    def _skipping(self) -> bool:
        return bool(self._stack) and self._stack[-1][1]

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        first, self._started = not self._started, True
        if tag == "html":
            self.page_language = attributes.get("lang") or ""
            return
        language = attributes.get("lang")
        if first and language:
            # A fragment (an htmx answer) has no <html>: its outermost element
            # declares its language, and the rest of it is read against that.
            self.page_language = language
        skipped = (
            self._skipping
            or tag in SKIPPED_TAGS
            or attributes.get("translate") == "no"
            or (
                language is not None
                and self.page_language
                and language.split("-")[0].lower()
                != self.page_language.split("-")[0].lower()
            )
        )
        if not skipped:
            for name in TEXT_ATTRIBUTES:
                if attributes.get(name):
                    self.texts.append(normalise(attributes[name]))
            if (
                tag == "input"
                and attributes.get("type")
                in (
                    "submit",
                    "button",
                    "reset",
                )
                and attributes.get("value")
            ):
                self.texts.append(normalise(attributes["value"]))
        if tag not in VOID_TAGS:
            self._stack.append((tag, skipped))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS and self._stack and self._stack[-1][0] == tag:
            self._stack.pop()

    def handle_endtag(self, tag):
        # Pop to the matching tag (HTML allows some end tags to be left out).
        for index in range(len(self._stack) - 1, -1, -1):
            if self._stack[index][0] == tag:
                del self._stack[index:]
                return

    def handle_data(self, data):
        if self._skipping:
            return
        text = normalise(data)
        if text:
            self.texts.append(text)


def visible_text(html: str) -> VisibleText:
    reader = VisibleText()
    reader.feed(html)
    reader.close()
    return reader


def entries(catalogue):
    """Each translated entry's ``(ids, strings)`` (plural forms as tuples)."""
    for message in catalogue:
        if not message.id or message.fuzzy:
            continue
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        strings = (
            message.string
            if isinstance(message.string, tuple | list)
            else (message.string,)
        )
        if all(strings):
            yield ids, strings


def proper_names(catalogue) -> set[str]:
    """The names the catalogue keeps in every language: each msgid translated to
    itself ("Fast Lane", "AI for Industrial Innovation", as the calls spell them)."""
    return {
        normalise(msgid)
        for ids, strings in entries(catalogue)
        if all(normalise(a) == normalise(b) for a, b in zip(ids, strings, strict=False))
        for msgid in ids
    }


def english_pieces(catalogue) -> set[str]:
    """The English texts a page in the catalogue's language must not show: each msgid
    whose translation differs from it, whole (without markup), and each piece of two
    words or more between its tags and placeholders. Neither the
    :func:`proper_names` nor a text that is itself the translation of another msgid
    (French "To", téraoctets, for "TB", is not the English "To") is a piece."""
    catalogue = list(catalogue)
    names = proper_names(catalogue) | {
        normalise(text)
        for _ids, strings in entries(catalogue)
        for text in strings
        if not TAG.search(text) and not PLACEHOLDER.search(text)
    }
    pieces: set[str] = set()
    for message in catalogue:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        strings = (
            message.string
            if isinstance(message.string, tuple | list)
            else (message.string,)
        )
        if not all(strings) or message.fuzzy:
            continue  # an untranslated entry is the catalogue test's to report
        for msgid, translation in zip(ids, strings, strict=False):
            if normalise(msgid) == normalise(translation):
                continue
            whole = normalise(msgid)
            if (
                not TAG.search(msgid)
                and not PLACEHOLDER.search(msgid)
                and (whole not in names)
            ):
                pieces.add(whole)
            for piece in re.split(f"{TAG.pattern}|{PLACEHOLDER.pattern}", msgid):
                piece = normalise(piece).strip(" .,:;()\"'")
                if len(WORD.findall(piece)) >= 2 and piece not in names:
                    pieces.add(piece)
    return pieces


def looks_english(text: str) -> bool:
    words = [w.lower().strip("'’") for w in WORD.findall(text)]
    english = sum(1 for w in words if w in ENGLISH_WORDS)
    return len(words) >= 3 and english >= 2 and english * 4 >= len(words)


def without_data(text: str, data: list[str]) -> str:
    """``text`` with every stored value (longest first) cut out."""
    for value in data:
        if value in text:
            text = text.replace(value, " ")
    return normalise(text)


def offences(
    page: str,
    html: str,
    *,
    language: str,
    pieces: set[str],
    data: list[str],
    names: Iterable[str] = (),
) -> list[Offence]:
    """What on ``page`` (its HTML) is left in English, for a page meant to be in
    ``language``. The ``names`` (:func:`proper_names`) are cut out of a text before
    its words are weighed: a call's English name in a French sentence is no
    English left over."""
    names = sorted(names, key=len, reverse=True)
    reader = visible_text(html)
    found = []
    if reader.page_language.split("-")[0].lower() != language:
        found.append(Offence(page, "lang", f"<html lang={reader.page_language!r}>"))
    for text in reader.texts:
        text = without_data(text, data)
        if not text:
            continue
        stripped = text.strip(" .,:;()\"'·…")
        if (
            text in pieces
            or stripped in pieces
            or any(piece in text for piece in pieces if len(piece) > 24)
        ):
            found.append(Offence(page, "catalogue", text))
        elif looks_english(without_data(text, names)):
            found.append(Offence(page, "english", text))
    return found


def stored_text() -> list[str]:
    """Every text of two words or more stored in the database (what people typed,
    and the catalogue's names), longest first: the walk leaves it out."""
    values: set[str] = set()

    def collect(value):
        if isinstance(value, str):
            # Sentences and names of two words or more: a single stored word
            # ("training") must not cut the same word out of interface text.
            if len(value.split()) >= 2:
                values.add(" ".join(value.split()))
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)
        elif isinstance(value, list | tuple):
            for item in value:
                collect(item)

    for model in [*apps.get_app_config("proposals").get_models(), User]:
        fields = [
            f.name
            for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField | models.JSONField)
        ]
        if not fields:
            continue
        for row in model.objects.values_list(*fields):
            collect(list(row))
    return sorted(values, key=len, reverse=True)
