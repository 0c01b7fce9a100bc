"""Rules that hold on real-world input: the ways people actually write VAT numbers,
hardware names, node counts and code descriptions. Each rule fires and stays quiet
on inputs written here."""

import pytest

from proposals.domain.countries import eligible_countries
from proposals.domain.eligibility import VatCheck, check_vat

from .builders import edit, example, findings

LUMI = "lumi-fast-lane"

# A valid number per country, written with its country prefix as applicants do.
WITH_PREFIX = {
    "AL": "AL J91402501L",
    "FO": "FO 623857",
    "IS": "IS 00621",
    "IL": "IL516179157",
    "MD": "MD1008600038413",
    "ME": "ME02655284",
    "MK": "MK4030000375897",
    "NO": "NO 995 525 828 MVA",
    "RS": "RS101134702",
    "CH": "CHE-107.787.577 MWST",
    "TN": "TN 1282182W",
    "TR": "TR4540536920",
    "UA": "UA32855961",
    "BE": "BE 0403.019.261",
    "DE": "DE136695976",
    "GR": "EL 094259216",
    "NL": "NL004495445B01",
    "FI": "FI 2077474-0",
    "SE": "SE123456789701",
    "GB": "GB 980 7806 84",
    # EU territory ISO lists on its own: French and Finnish numbers.
    "RE": "FR 40 303 265 045",
    "AX": "FI 2077474-0",
}


def test_every_listed_country_has_a_case_or_no_validator():
    for code, entry in eligible_countries().items():
        if entry.status != "eu_member" and entry.vat_validators:
            assert code in WITH_PREFIX, code


@pytest.mark.parametrize(("country", "number"), sorted(WITH_PREFIX.items()))
def test_valid_number_with_country_prefix_is_accepted(country, number):
    assert check_vat(country, number) is VatCheck.VALID
    assert not findings(
        edit(
            example(LUMI),
            organisation__country=country,
            organisation__vat_number=number,
        ),
        "ELIG-2",
    )


@pytest.mark.parametrize(
    ("country", "number"),
    [
        ("CH", "CHE-107.787.577"),  # the UID without the MWST suffix
        ("NO", "995525828"),  # a bare Norwegian organisation number
        ("NO", "NO995525828"),
        ("TR", "4540536920"),
        ("FI", "20774740"),
        ("GR", "094259216"),
    ],
)
def test_other_usual_spellings_are_accepted(country, number):
    assert check_vat(country, number) is VatCheck.VALID


@pytest.mark.parametrize(
    ("country", "number"),
    [("TR", "TR4540536921"), ("FI", "FI20774741"), ("UA", "UA32855968")],
)
def test_wrong_check_digit_says_so(country, number):
    assert check_vat(country, number) is VatCheck.CHECKSUM
    (hit,) = findings(
        edit(
            example(LUMI),
            organisation__country=country,
            organisation__vat_number=number,
        ),
        "ELIG-2",
    )
    assert "check digit" in hit.message


@pytest.mark.parametrize(
    ("country", "number", "words"),
    [
        ("TR", "TR45405369", "not in the form"),
        ("FI", "DE136695976", "starts with DE"),
        ("CH", "hello", "not in the form"),
    ],
)
def test_wrong_form_is_not_called_a_check_digit_error(country, number, words):
    (hit,) = findings(
        edit(
            example(LUMI),
            organisation__country=country,
            organisation__vat_number=number,
        ),
        "ELIG-2",
    )
    assert words in hit.message and "check digit" not in hit.message


def test_country_without_validator_gets_a_note_only():
    (hit,) = findings(
        edit(example(LUMI), organisation__country="GE", organisation__vat_number="123"),
        "ELIG-2",
    )
    assert hit.severity == "info"


# --- SCAL-10: the target named in the usual ways ------------------------------------
LARGE = "bsc-large-scale"  # target MareNostrum 5 ACC (H100); measured on A100


@pytest.mark.parametrize(
    ("name", "hardware"),
    [
        (LUMI, "LUMI-G"),
        (LUMI, "lumi g, 2 nodes"),
        (LUMI, "AMD Instinct MI 250X"),
        (LUMI, "4x mi250x"),
        (LUMI, "MI250X GCDs"),
        (LARGE, "MN5"),
        (LARGE, "MareNostrum 5"),
        (LARGE, "8xH100 SXM"),
        (LARGE, "h100-64GB"),
    ],
)
def test_scal10_quiet_when_the_target_is_named(name, hardware):
    proposal = example(name)
    measurements = tuple(
        edit(m, hardware=hardware) for m in proposal.scalability.measurements
    )
    assert not findings(
        edit(proposal, scalability__measurements=measurements), "SCAL-10"
    )


@pytest.mark.parametrize(
    ("name", "hardware"),
    [
        (LUMI, "NVIDIA A100"),
        (LUMI, "MI100"),
        (LARGE, "MareNostrum 4"),
        (LARGE, "NVIDIA H1000"),
        (LARGE, "our lab cluster"),
    ],
)
def test_scal10_fires_on_other_hardware(name, hardware):
    proposal = example(name)
    measurements = tuple(
        edit(m, hardware=hardware) for m in proposal.scalability.measurements
    )
    assert findings(edit(proposal, scalability__measurements=measurements), "SCAL-10")


# --- SEL-3: GCDs counted as GPUs, in the usual phrasings ----------------------------


@pytest.mark.parametrize(
    "text",
    [
        "We use 8 GPUs per node.",
        "Each run uses eight GPUs on each node.",
        "Training runs on 8-GPU nodes.",
        "LUMI-G nodes with 8 GPUs each.",
        "The full run needs 32 GPUs (4 nodes).",
        "We train on two full nodes (16 GPUs).",
    ],
)
def test_sel3_fires_on_dies_counted_as_gpus(text):
    assert findings(edit(example(LUMI), scalability__narrative=text), "SEL-3")


@pytest.mark.parametrize(
    "text",
    [
        "We use 4 GPUs per node.",
        "A node has 8 GCDs per node, 4 GPUs.",
        "The full run needs 32 GPUs (8 nodes).",
        "88% efficiency at 16 GPUs (4 nodes).",
        "We run 8 jobs per node.",
    ],
)
def test_sel3_quiet_on_physical_gpu_counts(text):
    assert not findings(edit(example(LUMI), scalability__narrative=text), "SEL-3")


def test_sel3_reads_code_descriptions_too():
    proposal = edit(
        example(LUMI),
        **{"codes[0]__description": "PyTorch 2.4 FSDP across 8 GPUs per node."},
    )
    (hit,) = findings(proposal, "SEL-3")
    assert hit.field == "codes[0].description"


@pytest.mark.parametrize(
    ("title", "gpus"),
    [("Training on two nodes", 16), ("Full run, nodes: 4", 32), ("2 full nodes", 16)],
)
def test_sel3_job_title_node_counts(title, gpus):
    proposal = edit(
        example(LUMI),
        **{"scalability__jobs[1]__title": title, "scalability__jobs[1]__gpus": gpus},
    )
    assert [f.field for f in findings(proposal, "SEL-3")] == [
        "scalability.jobs[1].gpus"
    ]


def test_sel3_not_on_single_die_systems():
    proposal = edit(
        example("bsc-fast-lane"), scalability__narrative="We use 8 GPUs per node."
    )
    assert not findings(proposal, "SEL-3")
