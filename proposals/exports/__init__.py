"""Exports of a saved proposal: portal text, Markdown, PDF and the JSON format.

The format modules (``portal``, ``markdown``, ``summary``, ``tables``) are pure Python
over the engine's domain objects; this module is the thin Django-side entry point that
loads a proposal's assessment once and hands it to them.
"""

from __future__ import annotations

import datetime
import functools
from dataclasses import dataclass, field

from django.conf import settings
from django.utils import timezone, translation
from django.utils.text import slugify

from proposals import domain
from proposals.charts import chart_data, scaling_chart_png
from proposals.domain import numbers
from proposals.evaluation import Evaluation, Reference

from . import markdown, pdf
from .portal import PortalSection, portal_sections
from .summary import Summary, build_summary
from .tables import code_label

CHART_DPI = pdf.CHART_DPI


@dataclass(frozen=True)
class Source:
    """A saved proposal as the exports see it: domain input plus its assessment."""

    proposal: domain.Proposal
    assessment: domain.Assessment
    catalogue: domain.Catalogue
    # The review revision shown (1 for r1, ...), ``None`` for the working draft: the
    # exports name r1, r2 or the date, never the autosave counter.
    revision: int | None
    status: str
    review: tuple[tuple[str, str], ...] = ()  # the staff's assessment (staff only)
    kit: tuple[str, ...] = ()  # the last scaling kit's sentences (KitHistory.lines)
    # The one evaluation these come from (its document, its chart's data).
    evaluation: Evaluation | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, evaluation: Evaluation, *, revision=None, status="") -> Source:
        return cls(
            proposal=evaluation.proposal,
            assessment=evaluation.assessment,
            catalogue=evaluation.catalogue,
            revision=revision,
            status=status,
            evaluation=evaluation,
        )


# The portal's language: what is pasted into it, and the JSON, stay in English.
PORTAL_LANGUAGE = "en-gb"


def in_portal_form(function):
    """Run ``function`` with numbers printed in the portal's plain form (``18,176``,
    ``0.2``) and text in the portal's English, whoever asks: the portal text, Markdown
    and PDF are pasted into the portal or shared, never printed in the reader's own
    convention or language. The summary itself (``summary_for``) follows the reader,
    as on the staff review page."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with translation.override(PORTAL_LANGUAGE), numbers.using(numbers.PORTAL):
            return function(*args, **kwargs)

    return wrapper


def summary_language(code: str | None) -> str:
    """The language a summary is asked for in (``?lang=de``): one of the interface's,
    else the portal's English. The portal text inside it stays English."""
    offered = {language for language, _name in settings.LANGUAGES}
    return code if code in offered else PORTAL_LANGUAGE


def in_summary_form(function):
    """As :func:`in_portal_form`, in the language named by the ``language`` keyword
    (the portal's English by default): a summary for the applicant's own team may
    be in their language; its numbers stay in the portal's plain form."""

    @functools.wraps(function)
    def wrapper(*args, language: str = PORTAL_LANGUAGE, **kwargs):
        with translation.override(language), numbers.using(numbers.PORTAL):
            return function(*args, **kwargs)

    return wrapper


def source_for(model, reference: Reference | None = None) -> Source:
    """Assess ``model`` (a Proposal with its children prefetched) against
    ``reference`` (by default read from the database now)."""
    evaluation = Evaluation.of(model, reference or Reference.fresh())
    return Source.of(evaluation, status=model.get_status_display())


def source_from_snapshot(
    snapshot: dict,
    *,
    revision: int,
    status: str = "",
    reference: Reference | None = None,
) -> Source:
    """Assess a stored review revision (its ``aifactory-proposal/1`` snapshot) the
    same way as a live draft, so every export can show any revision."""
    evaluation = Evaluation.of_snapshot(snapshot, reference or Reference.fresh())
    return Source.of(evaluation, revision=revision, status=status)


@in_portal_form
def portal_for(source: Source) -> list[PortalSection]:
    return portal_sections(source.proposal, source.assessment, source.catalogue)


def summary_for(source: Source, *, today: datetime.date | None = None) -> Summary:
    return build_summary(
        source.proposal,
        source.assessment,
        source.catalogue,
        revision=source.revision,
        today=today or timezone.localdate(),
        status=source.status,
        review=source.review,
        kit=source.kit,
    )


def chart_png(source: Source) -> bytes | None:
    """The scaling chart (cached by content), ``None`` without measurements."""
    names = {
        i: code_label(source.proposal, i) for i in range(len(source.proposal.codes))
    }
    return scaling_chart_png(source.assessment, names, dpi=CHART_DPI)


@in_summary_form
def markdown_for(
    source: Source, *, today: datetime.date | None = None, chart: bool = True
) -> str:
    summary = summary_for(source, today=today)
    return markdown.render(summary, chart_png=chart_png(source) if chart else None)


@in_summary_form
def pdf_for(source: Source, *, today: datetime.date | None = None) -> bytes:
    return pdf.render(summary_for(source, today=today), chart_png=chart_png(source))


def chart_input(source: Source) -> dict | None:
    """The data the scaling chart shows (``None`` without measurements): what the
    task worker draws for a PDF, and part of the PDF's content key."""
    names = {
        i: code_label(source.proposal, i) for i in range(len(source.proposal.codes))
    }
    return chart_data(source.assessment, names)


@in_summary_form
def pdf_job(source: Source, *, today: datetime.date | None = None) -> pdf.PdfJob:
    """What the task worker needs to render the PDF of ``source`` (the HTML with a
    placeholder for the chart, and the chart's data), with its content key. Cheap:
    no WeasyPrint and no matplotlib on the request path."""
    return pdf.job(summary_for(source, today=today), chart=chart_input(source))


def filename(
    model,
    extension: str,
    *,
    review_revision: int | None = None,
    on: datetime.date | None = None,
) -> str:
    """``proposal-12-r3-defect-detection.md`` for review revision 3, or
    ``proposal-12-draft-2025-03-14-defect-detection.md`` for the working draft on
    that day: the name carries the revision that was sent for review or the date,
    never the autosave counter. ASCII only, safe in a header."""
    slug = slugify(model.title)[:50].strip("-") or "proposal"
    if review_revision:
        version = f"r{review_revision}"
    else:
        version = f"draft-{on or timezone.localdate():%Y-%m-%d}"
    return f"proposal-{model.pk}-{version}-{slug}.{extension}"
