"""Eligibility lists (issue 22): EU territory that ISO 3166 lists on its own, the
association lists with their programme, source and date, and each call family's
terms naming the lists it accepts."""

import dataclasses
import datetime

import pytest

from proposals.domain import assess
from proposals.domain.countries import eligible_countries
from proposals.domain.terms import default_terms

from .builders import catalogue, edit, example

LUMI = example("lumi-fast-lane")  # an SME; industrial family


def elig(proposal, code="ELIG-3", terms=None):
    found = assess(proposal, catalogue(), terms).findings
    return [f for f in found if f.code == code]


def organisation(country, vat="", family="industrial_innovation", kind="sme"):
    return edit(
        LUMI,
        call_family=family,
        organisation__country=country,
        organisation__vat_number=vat,
        organisation__kind=kind,
    )


# A start-up in Saint-Denis (Réunion) registered with a French VAT number, one in
# Mariehamn (Åland) with a Finnish one: EU members (TFEU art. 349, 355).
@pytest.mark.parametrize(
    ("country", "vat"),
    [
        ("RE", "FR 40 303 265 045"),
        ("GF", "FR40303265045"),
        ("GP", "40303265045"),  # without prefix: the French one is added
        ("MQ", "FR 40 303 265 045"),
        ("YT", "FR 40 303 265 045"),
        ("MF", "FR 40 303 265 045"),
        ("AX", "FI 2077474-0"),
    ],
)
def test_outermost_regions_and_aland_are_eu(country, vat):
    p = organisation(country, vat)
    assert elig(p) == []
    assert elig(p, "ELIG-2") == []


def test_a_german_number_for_a_reunion_company_is_still_foreign():
    (hit,) = elig(organisation("RE", "DE136695976"), "ELIG-2")
    assert "starts with DE" in hit.message


@pytest.mark.parametrize(
    ("country", "family", "kind", "eligible"),
    [
        # The United Kingdom: associated to Horizon Europe since 1 January 2024.
        ("GB", "industrial_innovation", "sme", True),
        ("GB", "ai_for_science", "academic", True),
        # Norway: Horizon 2020, Horizon Europe and Digital Europe.
        ("NO", "industrial_innovation", "startup", True),
        ("NO", "ai_for_science", "academic", True),
        # Switzerland: Horizon 2020 only in this data; the LUMI guide's family
        # accepts it, AI for Science (Horizon Europe) does not.
        ("CH", "industrial_innovation", "sme", True),
        # Associated to Horizon Europe from 1 January 2025 (signed 10 Nov 2025).
        ("CH", "ai_for_science", "academic", True),
        # A US university: no country check ran for AI for Science before.
        ("US", "ai_for_science", "academic", False),
        ("US", "industrial_innovation", "sme", False),
        ("FR", "ai_for_science", "public", True),
        ("RE", "ai_for_science", "academic", True),
    ],
)
def test_each_family_accepts_its_lists(country, family, kind, eligible):
    found = elig(organisation(country, family=family, kind=kind))
    assert (found == []) is eligible
    assert all(f.severity == "error" for f in found)


def test_the_message_says_which_list_the_country_is_on():
    # Terms accepting EU members only: the message names Switzerland's own lists.
    terms = dict(default_terms())
    terms["ai_for_science"] = dataclasses.replace(
        terms["ai_for_science"], eligible_country_statuses=("eu_member",)
    )
    (hit,) = elig(
        organisation("CH", family="ai_for_science", kind="academic"), terms=terms
    )
    assert "which accepts countries that are: EU member state." in hit.message
    assert (
        "Switzerland is associated to Digital Europe, Horizon 2020 and Horizon "
        "Europe only." in hit.message
    )


def test_the_call_terms_decide_the_list():
    """Terms that keep the Horizon 2020 list only (the LUMI guide's wording) reject
    the United Kingdom; the shipped terms, which also name Horizon Europe, do not."""
    terms = dict(default_terms())
    industrial = terms["industrial_innovation"]
    terms["industrial_innovation"] = dataclasses.replace(
        industrial, eligible_country_statuses=("eu_member", "h2020_associated")
    )
    uk = organisation("GB", "GB 980 7806 84")
    assert [f.field for f in elig(uk, terms=terms)] == ["organisation.country"]
    assert elig(uk) == []


def test_association_lists_have_programme_source_and_date():
    countries = eligible_countries()
    assert countries["GB"].statuses == {"horizon_europe_associated"}
    assert countries["GB"].associations[0].since == "2024-01-01"
    assert {"h2020_associated", "horizon_europe_associated"} <= countries["NO"].statuses
    assert countries["CH"].statuses == {
        "h2020_associated",
        "horizon_europe_associated",
        "digital_europe_associated",
    }
    assert countries["CH"].associations[0].since == "2025-01-01"
    for entry in countries.values():
        assert entry.source and entry.programme
        datetime.date.fromisoformat(entry.checked)
        for association in entry.associations:
            assert association.source
            datetime.date.fromisoformat(association.checked)


def test_every_family_names_its_lists_with_a_source():
    for family in default_terms().values():
        assert family.eligible_country_statuses
        assert family.sources["eligible_country_statuses"].source


# ------------------------------------------------------------------- issue 32
# Sources, checked 2026-12-05 (docs/rules.md cites them under ELIG-3):
# Regulation (EU) 2021/694, art. 10(a): EEA EFTA states (Iceland, Liechtenstein,
# Norway) take part in the Digital Europe Programme; Commission press releases:
# Digital Europe association agreements signed with Ukraine (5 September 2022),
# Albania, Montenegro, North Macedonia and Serbia (30 June 2023), Türkiye
# (1 September 2023) and Moldova (19 February 2024, from 1 January 2024); Commission,
# "Updates on the association of third countries to Horizon Europe": Canada
# associated to Pillar II from 1 January 2024, New Zealand to Pillar II.


def test_a_digital_europe_associate_is_accepted_where_the_family_accepts_it():
    # Liechtenstein takes part in Digital Europe as an EEA EFTA state; the
    # industrial family accepts the Digital Europe list.
    assert elig(organisation("LI")) == []


def test_a_digital_europe_associate_is_not_one_of_horizon_europe():
    (hit,) = elig(organisation("LI", family="ai_for_science", kind="academic"))
    assert hit.severity == "error" and "not eligible" in hit.message


@pytest.mark.parametrize(
    ("code", "since"),
    [
        ("UA", ""),
        ("AL", ""),
        ("ME", ""),
        ("MK", ""),
        ("RS", ""),
        ("TR", ""),
        ("MD", "2024-01-01"),
        ("CH", "2025-01-01"),
        ("LI", None),
    ],
)
def test_digital_europe_associations_carry_a_public_source(code, since):
    entry = eligible_countries()[code]
    assert "digital_europe_associated" in entry.verified_statuses
    rows = [a for a in entry.associations if a.status == "digital_europe_associated"]
    if since is not None:
        (row,) = rows
        assert row.since == since
        assert row.source.startswith(("European Commission", "Agreement"))


@pytest.mark.parametrize("code", ["CA", "NZ", "KR"])
@pytest.mark.parametrize(
    ("family", "kind"),
    [("ai_for_science", "academic"), ("industrial_innovation", "sme")],
)
def test_a_pillar_two_associate_gets_a_warning_that_says_what_to_check(
    code, family, kind
):
    (hit,) = elig(organisation(code, family=family, kind=kind))
    assert hit.severity == "warning"
    assert "not eligible" not in hit.message
    assert "Pillar II" in hit.message and "call text" in hit.message


def test_a_country_on_no_list_is_still_refused_with_the_rule():
    (hit,) = elig(organisation("US", family="ai_for_science", kind="academic"))
    assert hit.severity == "error" and "not eligible" in hit.message


def test_an_unverified_association_warns_instead_of_refusing():
    entry = eligible_countries()["AM"]
    second_hand = dataclasses.replace(
        entry,
        status="digital_europe_associated",
        source="Unverified: reported second-hand; check the Commission's list",
        associations=(),
    )
    countries = {**eligible_countries(), "AM": second_hand}
    found = [
        f
        for f in assess(organisation("AM"), catalogue(), countries=countries).findings
        if f.code == "ELIG-3"
    ]
    (hit,) = found
    assert hit.severity == "warning" and "check the Commission's list" in hit.message
