"""ELIG rules: who may apply, by the eligibility terms of the proposal's call family.

Each check runs only when the family's terms (``terms.FamilyTerms``) ask for it: the
industrial family lists startups, SMEs and companies, a VAT number, an eligible
country and no other ongoing project; AI for Science lists academic and public
organisations (companies only inside a collaborative EU project) and none of the rest.

Each rule's docstring is its documentation (``docs/rules.md`` is generated from it),
so it states when the rule fires. Field paths use the JSON format's names.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..countries import STATUS_LABELS, country, name
from ..eligibility import VatCheck, check_vat, foreign_prefix
from ..findings import ERROR, INFO, WARNING, Context, Hit, rule
from ..terms import months
from ..types import ORGANISATION_KINDS

KIND_WORDS = {
    "startup": "startups",
    "sme": "SMEs",
    "industry": "other companies",
    "academic": "academic organisations",
    "public": "public-sector organisations",
}


def _listing(kinds) -> str:
    items = [KIND_WORDS.get(k, k) for k in kinds]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def other_family(ctx: Context) -> str:
    """Advice naming the other family for a kind this family does not take."""
    kind = ctx.proposal.organisation.kind
    if kind in ("academic", "public"):
        return (
            " Academic and public organisations should apply to the AI for Science "
            "and Collaborative EU Projects calls instead."
        )
    return " Companies should apply to the AI for Industrial Innovation calls."


@rule(
    "ELIG-1",
    severity=(ERROR, WARNING),
    title="Organisation type not eligible",
    step="organisation",
)
def elig_kind(ctx: Context) -> Iterator[Hit]:
    """The organisation type is not one the family's terms list as eligible
    (error; industrial family: startups, SMEs and other companies; AI for Science:
    academic and public organisations), or is eligible only under a condition
    (warning, e.g. a company inside a collaborative EU project); a missing type is a
    warning."""
    family = ctx.family
    kind = ctx.proposal.organisation.kind
    if not family.eligible_kinds or kind in family.eligible_kinds:
        return
    if kind in family.conditional_kinds:
        yield Hit(
            "organisation.kind",
            f"{family.label}: {family.conditional_note}; say which project in the "
            "description.",
            WARNING,
        )
    elif kind in ORGANISATION_KINDS:
        yield Hit(
            "organisation.kind",
            f"{family.label} calls are for {_listing(family.eligible_kinds)}."
            + other_family(ctx),
        )
    else:
        yield Hit(
            "organisation.kind",
            f"Say whether the organisation is one of: "
            f"{_listing(family.eligible_kinds + family.conditional_kinds)}.",
            WARNING,
        )


@rule(
    "ELIG-2",
    severity=(ERROR, INFO),
    title="VAT number missing or invalid",
    step="organisation",
)
def elig_vat(ctx: Context) -> Iterator[Hit]:
    """Families whose terms require a VAT number (industrial): the VAT number is
    missing or fails the offline format and check-digit test for the country
    (error: the message speaks of check digits only when the form is right and the
    digits are not); for countries without an offline validator an info note says it
    could not be checked."""
    org = ctx.proposal.organisation
    if not ctx.family.vat_required:
        return
    result = check_vat(org.country, org.vat_number, ctx.countries)
    if result is VatCheck.MISSING:
        yield Hit("organisation.vat_number", "Enter the organisation's VAT number.")
    elif result is VatCheck.CHECKSUM:
        yield Hit(
            "organisation.vat_number",
            f"“{org.vat_number.strip()}” has the form of a VAT number from "
            f"{name(org.country)}, but its check digit does not match: a "
            "digit is probably mistyped.",
        )
    elif result is VatCheck.INVALID:
        other = foreign_prefix(org.country, org.vat_number, ctx.countries)
        where = name(org.country)
        if other:
            message = (
                f"“{org.vat_number.strip()}” starts with {other}, but the organisation "
                f"is incorporated in {where}: check the country, or give the number "
                f"registered in {where}."
            )
        else:
            message = (
                f"“{org.vat_number.strip()}” is not in the form of a VAT number from "
                f"{where} (with or without the country prefix); check its length and "
                "characters."
            )
        yield Hit("organisation.vat_number", message)
    elif result is VatCheck.UNCHECKED and country(org.country, ctx.countries):
        yield Hit(
            "organisation.vat_number",
            f"VAT numbers from {name(org.country)} cannot be checked offline; "
            "make sure this is the official registration number.",
            INFO,
        )


@rule("ELIG-3", severity=ERROR, title="Country not eligible", step="organisation")
def elig_country(ctx: Context) -> Iterator[Hit]:
    """Families whose terms restrict the country: the country of incorporation is
    missing, or none of the lists it is on in the eligibility data (EU member
    state, associated to Horizon 2020, to Horizon Europe, to the Digital Europe
    Programme) is one the family's terms accept (industrial: EU members and the
    three association lists; AI for Science: EU members and Horizon Europe). The
    outermost regions and Åland are EU territory."""
    code = ctx.proposal.organisation.country.strip()
    statuses = ctx.family.eligible_country_statuses
    entry = country(code, ctx.countries)
    if not statuses or (entry and entry.statuses & set(statuses)):
        return
    if not code:
        message = "Enter the country where the organisation is incorporated."
    else:
        accepted = [STATUS_LABELS.get(s, s) for s in statuses]
        listed = (
            accepted[0]
            if len(accepted) == 1
            else ", ".join(accepted[:-1]) + " or " + accepted[-1]
        )
        message = (
            f"Organisations incorporated in {name(code)} are not eligible for "
            f"{ctx.family.label}, which accepts countries that are: {listed}."
        )
        if entry:
            held = [STATUS_LABELS.get(s, s) for s in sorted(entry.statuses)]
            prefix = "associated to "
            if len(held) > 1 and all(h.startswith(prefix) for h in held):
                # "associated to Digital Europe, Horizon 2020 and Horizon Europe"
                held = [held[0]] + [h.removeprefix(prefix) for h in held[1:]]
            both = (
                held[0] if len(held) == 1 else ", ".join(held[:-1]) + " and " + held[-1]
            )
            message += f" {name(code)} is {both} only."
    yield Hit("organisation.country", message)


@rule(
    "ELIG-4",
    severity=ERROR,
    title="Another ongoing EuroHPC JU project",
    step="organisation",
)
def elig_ongoing(ctx: Context) -> Iterator[Hit]:
    """Families whose terms exclude it (industrial): the organisation already has an
    ongoing EuroHPC JU project, which makes the application ineligible."""
    if (
        ctx.family.no_ongoing_project
        and ctx.proposal.organisation.ongoing_eurohpc_project
    ):
        yield Hit(
            "organisation.ongoing_eurohpc_project",
            "Applications from organisations with another running EuroHPC JU project "
            "are rejected; apply once that project has ended.",
        )


@rule(
    "ELIG-5",
    severity=INFO,
    title="The family's own terms and documents",
    step="organisation",
)
def elig_other_family(ctx: Context) -> Iterator[Hit]:
    """For a family whose terms ask for a separately uploaded document (AI for
    Science and Collaborative EU Projects: the project scope and plan), a reminder
    to prepare it, with the family's terms (duration, review)."""
    family = ctx.family
    if not family.document_reminder:
        return
    mode = ctx.mode
    terms = ""
    if mode and mode.durations_months:
        terms = f" Allocations last {months(mode.durations_months)}"
        terms += f", with {mode.review}." if mode.review else "."
    yield Hit("call_family", family.document_reminder + terms)
