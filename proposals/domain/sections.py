"""The proposal's shape: its sections (the wizard's steps) and its repeatable tables.

This module and :mod:`.fields` are the one vocabulary of the product. Forms, the
wizard, the staff pages, the document diff, the exports, e-mails, the JSON adapter,
the rule reference and the JavaScript read titles, table kinds and paths from here;
nothing else spells them out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .i18n import Translated, gettext_noop

# The portal's two technical sections; the organisation step feeds the eligibility
# part of the application, the review step is ours.
PORTAL_SELECTION = "AI Factory selection"
PORTAL_CODE_DETAILS = "Code details and feasibility"


@dataclass(frozen=True)
class Section:
    """A part of the proposal, shown as one wizard step.

    ``keys`` are the top-level keys of the JSON document whose fields belong here.
    """

    slug: str
    title: str = Translated()
    short: str = Translated()
    portal: str = ""
    keys: tuple[str, ...] = ()


SECTIONS: tuple[Section, ...] = (
    Section(
        "organisation",
        gettext_noop("Organisation and eligibility"),
        gettext_noop("Organisation"),
        keys=("title", "call_family", "organisation", "experience"),
    ),
    Section(
        "selection",
        gettext_noop("AI Factory selection"),
        gettext_noop("Selection"),
        PORTAL_SELECTION,
        keys=("selection",),
    ),
    Section(
        "codes",
        gettext_noop("Code details"),
        gettext_noop("Code details"),
        PORTAL_CODE_DETAILS,
        keys=("codes",),
    ),
    Section(
        "scalability",
        gettext_noop("Scalability and performance"),
        gettext_noop("Scalability"),
        PORTAL_CODE_DETAILS,
        keys=("scalability",),
    ),
    Section(
        "optimisation",
        gettext_noop("Optimisation of the work proposed"),
        gettext_noop("Optimisation"),
        PORTAL_CODE_DETAILS,
        keys=("optimisation",),
    ),
)
REVIEW = Section("review", gettext_noop("Review"), gettext_noop("Review"))
# The wizard's steps: every section, then the review of the whole proposal.
STEPS: tuple[Section, ...] = (*SECTIONS, REVIEW)
SECTION_SLUGS: tuple[str, ...] = tuple(section.slug for section in SECTIONS)
STEP_SLUGS: tuple[str, ...] = tuple(step.slug for step in STEPS)
SECTION_BY_SLUG: dict[str, Section] = {step.slug: step for step in STEPS}
SECTION_OF_KEY: dict[str, str] = {
    key: section.slug for section in SECTIONS for key in section.keys
}


def section_title(slug: str) -> str:
    """The title of a section or step; unknown slugs read as themselves."""
    section = SECTION_BY_SLUG.get(slug)
    return section.title if section else slug


def section_of_path(path: str, default: str = "organisation") -> str:
    """The section a JSON path (``codes[1].version``) belongs to."""
    head = re.split(r"[.\[]", path or "", maxsplit=1)[0]
    return SECTION_OF_KEY.get(head, default)


@dataclass(frozen=True)
class Table:
    """A repeatable table of the proposal.

    ``kind`` names it everywhere: the related name on the proposal, the prefix of a
    row's inputs (``jobs-17-gpus``), the URL of its row operations. ``path`` is the
    list's JSON path; ``item`` names one row ("Job type 3"), ``title`` the table.
    ``name_field`` is the field that names a row for people, if any.
    """

    kind: str
    path: str
    section: str
    item: str = Translated()
    title: str = Translated()
    add_label: str = Translated()
    name_field: str = ""


TABLES: tuple[Table, ...] = (
    Table(
        "codes",
        "codes",
        "codes",
        gettext_noop("Code details"),
        gettext_noop("Code details"),
        gettext_noop("+ Code details"),
        name_field="name",
    ),
    Table(
        "measurements",
        "scalability.measurements",
        "scalability",
        gettext_noop("Measurement"),
        gettext_noop("Scaling measurements"),
        gettext_noop("+ Measurement"),
    ),
    Table(
        "jobs",
        "scalability.jobs",
        "scalability",
        gettext_noop("Job type"),
        gettext_noop("Job plan"),
        gettext_noop("+ Job type"),
        name_field="title",
    ),
    Table(
        "schedule",
        "scalability.schedule",
        "scalability",
        gettext_noop("Usage period"),
        gettext_noop("Usage schedule"),
        gettext_noop("+ Period"),
    ),
)
TABLE_KINDS: tuple[str, ...] = tuple(table.kind for table in TABLES)
TABLE_BY_KIND: dict[str, Table] = {table.kind: table for table in TABLES}
TABLE_BY_PATH: dict[str, Table] = {table.path: table for table in TABLES}


def tables_of(section: str) -> tuple[Table, ...]:
    """The tables shown on a section's step, in page order."""
    return tuple(table for table in TABLES if table.section == section)


# ``jobs-17-gpus`` -> ``jobs-17``: the row a posted input belongs to.
ROW_PREFIX = re.compile(r"^((?:{})-\d+)-".format("|".join(TABLE_KINDS)))
# ``scalability.jobs[2].gpus`` -> (``scalability.jobs``, ``2``, ``gpus``).
ROW_PATH = re.compile(
    r"^({})(?:\[(\d+)\])?(?:\.(\w+))?$".format(
        "|".join(re.escape(table.path) for table in TABLES)
    )
)
