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
(``proposals.fragment_cache``), so a deploy never shows fragments of the previous
release.

Who may read them is decided before: the page is refused to a conflicted staff
member (``proposals.views.staff_proposal``) and the fragments hold no comment, only
the proposal itself, which every staff member who reaches the page reads alike.
"""

from __future__ import annotations

import json

from django.template.loader import render_to_string
from django.utils import timezone

from proposals import exports, reference_data
from proposals.fragment_cache import key_of, rendered
from proposals.review_page import review_sections
from proposals.templatetags.fragments import macro

#: The comment form's "About" select (a Jinja2 macro).
ABOUT = "proposals/review/threads.html#about_select"


def fragments_key(source: exports.Source) -> str:
    """The cache key of ``source``'s fragments for the active reader."""
    document = json.dumps(
        source.evaluation.document, sort_keys=True, default=str, separators=(",", ":")
    )
    return key_of(
        "review-sections",
        reference_data.current()["stamp"],
        document,
        str(source.revision),
        source.status,
        timezone.localdate().isoformat(),
    )


def section_fragments(source: exports.Source) -> list[dict]:
    """Each section of ``source`` as the staff review page shows it: ``key``,
    ``title``, ``document`` (its rendered exports), ``about`` (the comment form's
    "About" select) and ``rows`` (its fields: that select again with one chosen),
    from the cache when the same reading was rendered before."""
    return rendered(fragments_key(source), lambda: _render(source))


def _render(source: exports.Source) -> list[dict]:
    return [
        {
            "key": section.key,
            "title": section.title,
            "rows": section.rows,  # the select again, with a field chosen
            "document": render_to_string(
                "proposals/staff_document.html", {"doc": section}
            ),
            "about": macro(ABOUT)(section, section.rows),
        }
        for section in review_sections(source)
    ]
