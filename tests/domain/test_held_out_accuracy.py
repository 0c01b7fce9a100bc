"""Held-out cases for issue 22, each computed by hand (in the comments), none taken
from the product's output: system sizes, GPU variants, tolerance, eligibility lists,
tier bounds, pasted headers, small figures and the tiers of other systems."""

import pytest

from proposals.domain import CodeEntry, Measurement, assess
from proposals.domain import compare as cmp
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, hours
from proposals.domain.paste import Context, read_paste

from .builders import catalogue, edit, example, findings

LUMI = example("lumi-fast-lane")


@pytest.mark.parametrize(
    ("gpu_hours", "months", "warns"),
    [
        # 2,000,000 / (6 x 730.5 h) / 4 = 114.08 nodes: 10.19 % of 1,120.
        (2_000_000, 6, True),
        # 1,900,000: 108.38 nodes, 9.68 %.
        (1_900_000, 6, False),
    ],
)
def test_plan_3_on_marenostrum_5(gpu_hours, months, warns):
    p = edit(
        example("bsc-large-scale"),
        selection__total_gpu_hours=gpu_hours,
        selection__duration_months=months,
        scalability__jobs=(),
    )
    hits = [f for f in findings(p, "PLAN-3") if f.field == "selection.total_gpu_hours"]
    assert bool(hits) is warns
    if warns:
        assert "1,120 GPU nodes in all" in hits[0].message


# Inference, 2 x 70e9 x 5,000 tokens/s = 700 TFLOP/s over 8 x 1,307.4 (MI300X):
# 6.693 %. Tolerance: 10 points, and half the stated MFU (at least 1 point).
@pytest.mark.parametrize(
    ("stated", "flagged"),
    [
        (7, False),  # 0.31 points
        (10.5, False),  # 3.81 points, within half of 10.5 (5.25)
        (20, True),  # 13.3 points
        (3, True),  # 3.69 points, more than half of 3 (1.5): a factor 2.2
    ],
)
def test_plan_2_on_mi300x_inference(stated, flagged):
    p = edit(
        LUMI,
        codes=(
            CodeEntry(name="70B server", model_use="inference", model_parameters=70e9),
        ),
        scalability__measurements=(
            Measurement(
                code=0,
                gpus=8,
                throughput=5000,
                unit="tokens/s",
                mfu_pct=stated,
                hardware="8x AMD Instinct MI300X",
            ),
        ),
    )
    found = findings(p, "PLAN-2")
    assert bool(found) is flagged
    if flagged:
        assert "8 × 1,307.4 TFLOP/s (AMD Instinct MI300X)" in found[0].message
        assert "6.7%" in found[0].message


@pytest.mark.parametrize(
    ("country", "family", "kind", "eligible"),
    [
        ("GP", "industrial_innovation", "sme", True),  # Guadeloupe: EU (art. 349)
        ("IL", "ai_for_science", "academic", True),  # Horizon Europe
        ("TN", "industrial_innovation", "startup", True),  # H2020 and HE
        ("JP", "ai_for_science", "academic", False),
        ("CN", "industrial_innovation", "sme", False),
    ],
)
def test_eligibility_held_out(country, family, kind, eligible):
    p = edit(
        LUMI,
        call_family=family,
        organisation__country=country,
        organisation__kind=kind,
        organisation__vat_number="FR40303265045" if country == "GP" else "",
    )
    assert (findings(p, "ELIG-3") == []) is eligible


def test_italian_paste_keeps_its_unit():
    fmt = NUMBER_FORMAT_BY_NAME["de"]  # 1.200,5
    text = "Numero di GPU;Velocità (immagini/s);Piattaforma\n4;1.200,5;LUMI-G\n"
    paste = read_paste(text, "measurements", Context(fmt))
    assert paste.ready
    (row,) = paste.accepted
    # Issue 32: kept as the canonical unit (was verbatim "immagini/s").
    assert row.values["unit"] == "images/s" and row.values["hardware"] == "LUMI-G"
    assert str(row.values["throughput"]) == "1200.5"


def test_small_figures():
    # 0.0523 -> two significant figures; 9.96 rounds to 10 and is shown whole.
    assert [hours(v) for v in (0.0523, 0.5, 9.96, 1_000_000.4)] == [
        "0.052",
        "0.5",
        "10",
        "1,000,000",
    ]


def test_the_tier_on_each_system_from_leonardo():
    # 10,000 GPU-hours of A100 (312): 10,000 x 312 / 383 = 8,146.2 on LUMI-G (Fast
    # Lane); 10,000 x 312 / 989 = 3,154.7 on MareNostrum 5 (Playground).
    p = edit(
        LUMI,
        selection__system="leonardo-booster",
        selection__total_gpu_hours=10_000,
    )
    a = assess(p, catalogue())
    by_slug = {o.slug: o for o in a.systems_comparison.options}
    assert by_slug["lumi-g"].gpu_hours == pytest.approx(10_000 * 312 / 383)
    assert by_slug["lumi-g"].tier == "fast_lane"
    assert by_slug["marenostrum5-acc"].gpu_hours == pytest.approx(10_000 * 312 / 989)
    assert by_slug["marenostrum5-acc"].tier == "playground"
    assert by_slug["leonardo-booster"].tier == "fast_lane"
    assert by_slug["marenostrum5-acc"].caveat == cmp.PEAK_RATIO_CAVEAT
