"""ELIG rules: who may apply to the AI for Industrial Innovation calls.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..countries import country
from ..eligibility import INDUSTRIAL_KINDS, NOT_ELIGIBLE_KINDS, VatCheck, check_vat
from ..findings import ERROR, INFO, WARNING, Context, Hit, rule

INDUSTRIAL = "industrial_innovation"


def industrial(ctx: Context) -> bool:
    """Whether the industrial eligibility rules apply."""
    return ctx.proposal.call_family == INDUSTRIAL


@rule(
    "ELIG-1",
    severity=(ERROR, WARNING),
    title="Organisation type not eligible",
    step="organisation",
)
def elig_kind(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: academic and public-sector organisations are not
    eligible (error); a missing organisation type is a warning."""
    kind = ctx.proposal.organisation.kind
    if not industrial(ctx) or kind in INDUSTRIAL_KINDS:
        return
    if kind in NOT_ELIGIBLE_KINDS:
        yield Hit(
            "organisation.kind",
            "AI for Industrial Innovation calls are for startups, SMEs and other "
            "companies; academic and public organisations should apply to the AI for "
            "Science and Collaborative EU Projects calls instead.",
        )
    else:
        yield Hit(
            "organisation.kind",
            "Say whether the organisation is a startup, an SME or another company.",
            WARNING,
        )


@rule(
    "ELIG-2",
    severity=(ERROR, INFO),
    title="VAT number missing or invalid",
    step="organisation",
)
def elig_vat(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: the VAT number is missing or fails the offline format
    and check-digit test for the country (error); for countries without an offline
    validator an info note says it could not be checked."""
    org = ctx.proposal.organisation
    if not industrial(ctx):
        return
    result = check_vat(org.country, org.vat_number)
    if result is VatCheck.MISSING:
        yield Hit("organisation.vat_number", "Enter the organisation's VAT number.")
    elif result is VatCheck.INVALID:
        yield Hit(
            "organisation.vat_number",
            f"“{org.vat_number.strip()}” is not a valid VAT number for "
            f"{org.country.upper()}: check the digits and the country prefix.",
        )
    elif result is VatCheck.UNCHECKED and country(org.country):
        yield Hit(
            "organisation.vat_number",
            f"VAT numbers from {country(org.country).name} cannot be checked offline; "
            "make sure this is the official registration number.",
            INFO,
        )


@rule("ELIG-3", severity=ERROR, title="Country not eligible", step="organisation")
def elig_country(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: the country of incorporation is missing, or is neither
    an EU member state nor a country associated to Horizon 2020."""
    code = ctx.proposal.organisation.country.strip()
    if not industrial(ctx) or country(code):
        return
    if not code:
        message = "Enter the country where the organisation is incorporated."
    else:
        message = (
            f"Organisations incorporated in {code.upper()} are not eligible: only EU "
            "member states and countries associated to Horizon 2020 are."
        )
    yield Hit("organisation.country", message)


@rule(
    "ELIG-4",
    severity=ERROR,
    title="Another ongoing EuroHPC JU project",
    step="organisation",
)
def elig_ongoing(ctx: Context) -> Iterator[Hit]:
    """Industrial family only: the organisation already has an ongoing EuroHPC JU
    project, which makes the application ineligible."""
    if industrial(ctx) and ctx.proposal.organisation.ongoing_eurohpc_project:
        yield Hit(
            "organisation.ongoing_eurohpc_project",
            "Applications from organisations with another running EuroHPC JU project "
            "are rejected; apply once that project has ended.",
        )


@rule(
    "ELIG-5",
    severity=INFO,
    title="Industrial eligibility not applied",
    step="organisation",
)
def elig_other_family(ctx: Context) -> Iterator[Hit]:
    """For the AI for Science and Collaborative EU Projects family the industrial
    eligibility checks (ELIG-1 to ELIG-4) are skipped; this note says so."""
    if not industrial(ctx):
        yield Hit(
            "call_family",
            "The industrial eligibility checks are skipped for AI for Science and "
            "Collaborative EU Projects; that family has its own terms (about 6-month "
            "allocations with peer review).",
        )
