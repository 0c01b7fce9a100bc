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

from ..countries import STATUS_LABELS, country, name, status_label
from ..eligibility import VatCheck, check_vat, foreign_prefix
from ..findings import ERROR, INFO, WARNING, Context, Hit, rule
from ..i18n import Labels, gettext_noop, join_and, join_or
from ..i18n import gettext as _
from ..terms import months, terms_text
from ..types import ORGANISATION_KINDS

KIND_WORDS = Labels(
    {
        "startup": gettext_noop("startups"),
        "sme": gettext_noop("SMEs"),
        "industry": gettext_noop("other companies"),
        "academic": gettext_noop("academic organisations"),
        "public": gettext_noop("public-sector organisations"),
    }
)


def _listing(kinds) -> str:
    return join_and([KIND_WORDS.get(k, k) for k in kinds])


def other_family(ctx: Context) -> str:
    """Advice naming the other family for a kind this family does not take."""
    kind = ctx.proposal.organisation.kind
    if kind in ("academic", "public"):
        return " " + _(
            "Academic and public organisations should apply to the AI for Science "
            "and Collaborative EU Projects calls instead."
        )
    return " " + _("Companies should apply to the AI for Industrial Innovation calls.")


@rule(
    "ELIG-1",
    severity=(ERROR, WARNING),
    title=gettext_noop("Organisation type not eligible"),
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
            _("{family}: {note}; say which project in the description.").format(
                family=family.label, note=terms_text(family.conditional_note)
            ),
            WARNING,
        )
    elif kind in ORGANISATION_KINDS:
        yield Hit(
            "organisation.kind",
            _("{family} calls are for {kinds}.").format(
                family=family.label, kinds=_listing(family.eligible_kinds)
            )
            + other_family(ctx),
        )
    else:
        yield Hit(
            "organisation.kind",
            _("Say whether the organisation is one of: {kinds}.").format(
                kinds=_listing(family.eligible_kinds + family.conditional_kinds)
            ),
            WARNING,
        )


@rule(
    "ELIG-2",
    severity=(ERROR, INFO),
    title=gettext_noop("VAT number missing or invalid"),
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
        yield Hit("organisation.vat_number", _("Enter the organisation's VAT number."))
    elif result is VatCheck.CHECKSUM:
        yield Hit(
            "organisation.vat_number",
            _(
                "“{vat}” has the form of a VAT number from {country}, but its check "
                "digit does not match: a digit is probably mistyped."
            ).format(vat=org.vat_number.strip(), country=name(org.country)),
        )
    elif result is VatCheck.INVALID:
        other = foreign_prefix(org.country, org.vat_number, ctx.countries)
        where = name(org.country)
        if other:
            message = _(
                "“{vat}” starts with {other}, but the organisation is incorporated in "
                "{where}: check the country, or give the number registered in {where}."
            ).format(vat=org.vat_number.strip(), other=other, where=where)
        else:
            message = _(
                "“{vat}” is not in the form of a VAT number from {where} (with or "
                "without the country prefix); check its length and characters."
            ).format(vat=org.vat_number.strip(), where=where)
        yield Hit("organisation.vat_number", message)
    elif result is VatCheck.UNCHECKED and country(org.country, ctx.countries):
        yield Hit(
            "organisation.vat_number",
            _(
                "VAT numbers from {country} cannot be checked offline; make sure this "
                "is the official registration number."
            ).format(country=name(org.country)),
            INFO,
        )


@rule(
    "ELIG-3",
    severity=(ERROR, WARNING),
    title=gettext_noop("Country not eligible"),
    step="organisation",
)
def elig_country(ctx: Context) -> Iterator[Hit]:
    """Families whose terms restrict the country: the country of incorporation is
    missing, or none of the lists it is on in the eligibility data (EU member
    state, associated to Horizon 2020, to Horizon Europe, to the Digital Europe
    Programme) is one the family's terms accept (error; industrial: EU members and
    the three association lists; AI for Science: EU members and Horizon Europe).
    A country the family accepts only through data no public document was found
    for (an association reported second-hand, or one to part of a programme, such
    as Horizon Europe's Pillar II for Canada, New Zealand and the Republic of
    Korea) gets a warning that says what to check instead. The outermost regions
    and Åland are EU territory."""
    code = ctx.proposal.organisation.country.strip()
    statuses = ctx.family.eligible_country_statuses
    entry = country(code, ctx.countries)
    if not statuses or (entry and entry.verified_statuses & set(statuses)):
        return
    if entry and entry.statuses & set(statuses):
        notes = entry.unverified_notes(set(statuses))
        yield Hit(
            "organisation.country",
            _(
                "{family} accepts {country} only on data that is not verified: "
                "{note}. Check in the call text that organisations incorporated "
                "in {country} are eligible before you apply."
            ).format(
                family=ctx.family.label,
                country=name(code),
                note="; ".join(notes).rstrip("."),
            ),
            WARNING,
        )
        return
    if not code:
        message = _("Enter the country where the organisation is incorporated.")
    else:
        listed = join_or([status_label(s) for s in statuses])
        message = _(
            "Organisations incorporated in {country} are not eligible for {family}, "
            "which accepts countries that are: {listed}."
        ).format(country=name(code), family=ctx.family.label, listed=listed)
        if entry:
            held = [
                STATUS_LABELS.english(s) if s in STATUS_LABELS else s
                for s in sorted(entry.statuses)
            ]
            prefix = "associated to "
            if len(held) > 1 and all(h.startswith(prefix) for h in held):
                # "associated to Digital Europe, Horizon 2020 and Horizon Europe":
                # the first label translated, the programme names as they are.
                held = [held[0]] + [h.removeprefix(prefix) for h in held[1:]]
            both = join_and([_(held[0]), *held[1:]])
            message += " " + _("{country} is {statuses} only.").format(
                country=name(code), statuses=both
            )
    yield Hit("organisation.country", message)


@rule(
    "ELIG-4",
    severity=ERROR,
    title=gettext_noop("Another ongoing EuroHPC JU project"),
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
            _(
                "Applications from organisations with another running EuroHPC JU project "
                "are rejected; apply once that project has ended."
            ),
        )


@rule(
    "ELIG-5",
    severity=INFO,
    title=gettext_noop("The family's own terms and documents"),
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
    if mode and mode.durations_months and mode.review:
        terms = " " + _("Allocations last {durations}, with {review}.").format(
            durations=months(mode.durations_months), review=terms_text(mode.review)
        )
    elif mode and mode.durations_months:
        terms = " " + _("Allocations last {durations}.").format(
            durations=months(mode.durations_months)
        )
    yield Hit("call_family", terms_text(family.document_reminder) + terms)
