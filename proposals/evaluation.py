"""One evaluation of a proposal per request, shared by the wizard, the staff review
page and the exports: the proposal as the engine reads it, its assessment against
the reference data, and what is derived from them on first use (the stored rows in
the engine's order, the JSON document, the chart's data, the calendar).

Every reader of a proposal's figures starts here, so a request reads, converts and
assesses a proposal once, whatever parts of the page or export it then shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from django.utils import timezone, translation

from proposals import assess, domain
from proposals.charts import chart_data
from proposals.domain import jsonformat, numbers
from proposals.domain.sections import TABLE_KINDS
from proposals.table_rows import rows_of


@dataclass(frozen=True)
class Reference:
    """The reference data a proposal is assessed against."""

    catalogue: dict
    terms: dict
    countries: dict | None
    gpu_models: tuple | None
    #: The process copy's stamp (``reference_data``); ``""`` for data read fresh.
    stamp: str = ""

    @classmethod
    def cached(cls) -> Reference:
        """This process's copy (``proposals.reference_data``): the wizard's, read
        at every autosave, and the staff review page's."""
        from proposals import reference_data

        data = reference_data.current()
        return cls(
            data["catalogue"],
            data["terms"],
            data["countries"],
            data["gpu_models"],
            data["stamp"],
        )

    @classmethod
    def fresh(cls) -> Reference:
        """Read from the database now: the exports."""
        return cls(
            assess.catalogue_from_db(),
            assess.terms_from_db(),
            assess.countries_from_db(),
            assess.gpu_models_from_db(),
        )


class Evaluation:
    """A proposal read once: ``proposal`` (the engine's input), ``assessment``, and
    ``model`` (the stored proposal with its children prefetched, ``None`` for a
    revision read from its snapshot)."""

    def __init__(self, proposal: domain.Proposal, reference: Reference, model=None):
        self.proposal = proposal
        self.reference = reference
        self.model = model
        self.assessment = assessed(proposal, reference)

    @classmethod
    def of(cls, model, reference: Reference | None = None) -> Evaluation:
        """The stored proposal ``model`` (children prefetched)."""
        reference = reference or Reference.cached()
        return cls(assess.proposal_to_domain(model), reference, model)

    @classmethod
    def of_snapshot(cls, snapshot: dict, reference: Reference) -> Evaluation:
        """A revision sent for review (its ``aifactory-proposal/1`` snapshot)."""
        return cls(domain.parse(snapshot), reference)

    @property
    def catalogue(self) -> dict:
        return self.reference.catalogue

    @cached_property
    def document(self) -> dict:
        """The proposal in the JSON format (what a review revision stores)."""
        return jsonformat.dump(self.proposal)

    @cached_property
    def rows(self) -> dict[str, list]:
        """The stored rows in the engine's order (the adapter keeps every row, blank
        or not), so a finding's ``jobs[2]`` is the third job row here too."""
        return {kind: rows_of(self.model, kind) for kind in TABLE_KINDS}

    @cached_property
    def code_names(self) -> dict[int, str]:
        """Each code entry's name as the live pages write it (``Code 2`` unnamed)."""
        return {
            index: code.name.strip() or f"Code {index + 1}"
            for index, code in enumerate(self.proposal.codes)
        }

    @cached_property
    def chart_data(self) -> dict | None:
        """What the live scaling chart shows (``None`` without measurements)."""
        return chart_data(self.assessment, self.code_names)

    @cached_property
    def calendar(self):
        """The request's calendar (issue 14), from the stored proposal."""
        return assess.calendar_for(self.model, self.assessment)


def assessed(proposal: domain.Proposal, reference: Reference) -> domain.Assessment:
    """``proposal`` assessed against ``reference``: the same assessment as the last
    time this process assessed an equal proposal against the same copy of the
    reference data, for a reader of the same language, number format and time zone
    (the texts it writes); assessed now otherwise, and with reference data read
    fresh always.

    The key is the proposal itself, as the engine reads it (its fields, rows and
    their order; frozen, so compared and hashed by value), not a counter somebody
    must remember to move: a page read twice, a step opened after the autosave
    that assessed the same content, the staff's review page opened by two people
    are assessed once."""
    if not reference.stamp:
        return _assess(proposal, reference)
    slot = _slot(
        (
            proposal,
            reference.stamp,
            translation.get_language(),
            numbers.active_format(),
            timezone.get_current_timezone_name(),
        )
    )
    if not slot:
        slot.append(_assess(proposal, reference))
    return slot[0]


def _assess(proposal: domain.Proposal, reference: Reference) -> domain.Assessment:
    return domain.assess(
        proposal,
        reference.catalogue,
        reference.terms,
        reference.countries,
        reference.gpu_models,
    )


@lru_cache(maxsize=16)
def _slot(key: tuple) -> list[domain.Assessment]:
    """Where the assessment of ``key`` (see :func:`assessed`) is kept: empty until it
    is made. Assessments are frozen, read and never changed by what shows them."""
    return []
