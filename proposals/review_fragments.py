"""The staff review page's sections (the document as the exports show it and the
"About" select of each comment form) as rendered fragments, kept in Django's
configured cache.

They are a pure function of what the page reads: the document shown (the draft's
or a revision's JSON), its revision number and status, the reference data it was
assessed against, the day (the summary's dates), and the reader's language, number
format and time zone. The cache key is a hash of all of these, so an edit, a new
revision, a catalogue change or another reader's conventions give another key, and
nothing needs invalidating: an entry nobody asks for any more expires with the
cache's timeout. The key also hashes the code and templates that render them
(:data:`CODE_VERSION`), so a deploy never shows fragments of the previous release.

Who may read them is decided before: the page is refused to a conflicted staff
member (``proposals.views.staff_proposal``) and the fragments hold no comment, only
the proposal itself, which every staff member who reaches the page reads alike.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import get_language

from proposals import exports, localization, reference_data
from proposals.domain.numbers import active_format
from proposals.review_page import review_sections

PREFIX = "review-fragments:v1:"
PACKAGE = Path(__file__).resolve().parent
# What the fragments are rendered by: the exports and the domain that words them,
# this page's layout, the templates and the compiled catalogues.
CODE = (
    ("exports", "*.py"),
    ("domain", "*.py"),
    (".", "review_page.py"),
    (".", "review_fragments.py"),
)
TEMPLATES = ("proposals/staff_document.html", "proposals/review_about.html")


def _code_version() -> str:
    digest = hashlib.sha256()
    files = [p for folder, glob in CODE for p in sorted((PACKAGE / folder).glob(glob))]
    for directory in settings.TEMPLATES[0]["DIRS"]:
        files.extend(Path(directory) / name for name in TEMPLATES)
    for directory in settings.LOCALE_PATHS:
        files.extend(sorted(Path(directory).glob("*/LC_MESSAGES/django.mo")))
    for path in files:
        if path.is_file():
            digest.update(str(path.relative_to(path.parents[1])).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


CODE_VERSION = _code_version()


def fragments_key(source: exports.Source) -> str:
    """The cache key of ``source``'s fragments for the active reader."""
    document = json.dumps(
        source.evaluation.document, sort_keys=True, default=str, separators=(",", ":")
    )
    parts = (
        CODE_VERSION,
        reference_data.current()["stamp"],
        document,
        str(source.revision),
        source.status,
        timezone.localdate().isoformat(),
        get_language() or "",
        repr(active_format()),
        str(localization.active_time_zone()),
    )
    return PREFIX + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def section_fragments(source: exports.Source) -> list[dict]:
    """Each section of ``source`` as the staff review page shows it: ``key``,
    ``title``, ``document`` (its rendered exports), ``about`` (the comment form's
    "About" select) and ``rows`` (its fields: that select again with one chosen),
    from the cache when the same reading was rendered before."""
    key = fragments_key(source)
    fragments = cache.get(key)
    if fragments is None:
        fragments = [
            {
                "key": section.key,
                "title": section.title,
                "rows": section.rows,  # the select again, with a field chosen
                "document": render_to_string(
                    "proposals/staff_document.html", {"doc": section}
                ),
                "about": render_to_string(
                    "proposals/review_about.html",
                    {"section": section, "field_rows": section.rows},
                ),
            }
            for section in review_sections(source)
        ]
        cache.set(key, fragments)
    return fragments
