"""The accelerators applicants measure on today (issue 32), each with its datasheet
peak (dense BF16 tensor/matrix, per physical GPU), and a note where no MFU check is
possible because the GPU's peak is not known (PLAN-5).

Figures, checked 2026-12-05 (docs/rules.md, "GPU variants"): H200 SXM 989 and NVL
835 (NVIDIA H200 datasheet, half its 1,979 and 1,671 with sparsity); HGX B200 2,250
(NVIDIA HGX specifications, 4.5 PFLOP/s with sparsity); GB200 2,500 per Blackwell
GPU (NVIDIA GB200 NVL72 specifications, 5 PFLOP/s with sparsity); L40S 362.05
(NVIDIA L40S datasheet); MI250 362.1 per module (AMD); MI325X 1,307.4 (AMD); Gaudi 2
432 and Gaudi 3 1,835 (Intel's Gaudi 3 white paper as reported: unverified).
"""

import pytest

from proposals.domain import CodeEntry, Measurement, mfu
from proposals.domain import compare as cmp
from proposals.domain.gpus import default_gpu_models, gpu_token

from .builders import catalogue, edit, example, findings

LARGE = "bsc-large-scale"


@pytest.mark.parametrize(
    "hardware, token",
    [
        ("8x NVIDIA H200 SXM 141GB", "H200"),
        ("HGX B200", "B200"),
        ("GB200 NVL72 rack", "GB200"),
        ("4x NVIDIA L40S", "L40S"),
        ("AMD Instinct MI250", "MI250"),
        ("AMD Instinct MI250X", "MI250X"),
        ("MI325X", "MI325X"),
        ("Intel Gaudi 2 (HL-225)", "GAUDI2"),
        ("8x Gaudi3", "GAUDI3"),
        ("gaudi-3 OAM", "GAUDI3"),
        ("NVIDIA GH200", "GH200"),  # not read as H200
        ("TPU v5p", ""),
    ],
)
def test_gpu_token_names_the_family(hardware, token):
    assert gpu_token(hardware) == token


@pytest.mark.parametrize(
    "hardware, peak, assumed",
    [
        ("8x NVIDIA H200 SXM 141GB", 989, False),
        ("4x H200 NVL", 835, False),
        ("8x H200", 989, True),  # no catalogue H200 system: SXM assumed
        ("DGX B200", 2250, False),
        ("GB200 NVL72", 2500, False),
        ("4x NVIDIA L40S 48GB", 362.05, False),
        ("AMD Instinct MI250", 362.1, False),
        ("AMD Instinct MI250X", 383, False),
        ("MI325X", 1307.4, False),
        ("Intel Gaudi 2", 432, False),
        ("Intel Gaudi 3", 1835, False),
    ],
)
def test_new_accelerators_have_their_datasheet_peak(hardware, peak, assumed):
    found = mfu.peak_for_hardware(hardware, catalogue(), catalogue()["lumi-g"])
    assert found is not None and found.tflops == peak
    assert found.assumed is assumed


def test_every_new_family_has_a_source_a_date_and_one_default():
    models = default_gpu_models()
    families = {m.family for m in models}
    new = {"H200", "B200", "GB200", "L40S", "MI250", "MI325X", "GAUDI2", "GAUDI3"}
    assert new <= families
    for m in models:
        if m.family in new:
            assert m.checked == "2026-12-05" and "https://" in m.source
            assert sum(o.default for o in models if o.family == m.family) == 1
    # Intel publishes no Gaudi 2 BF16 figure: said so, not passed off as a datasheet.
    gaudi = {m.family: m for m in models}
    assert gaudi["GAUDI2"].source.startswith("Unverified")


def _measured_on(hardware, stated=40.0, system="marenostrum5-acc", **code):
    """The BSC example with one measurement: a 7 B model at 64,800 tokens/s on 8
    GPUs (6 x 7e9 x 64,800 = 2,721.6 TFLOP/s in all)."""
    return edit(
        example(LARGE),
        selection__system=system,
        codes=(CodeEntry(name="7B", model_parameters=7e9, **code),),
        scalability__measurements=(
            Measurement(
                code=0,
                gpus=8,
                throughput=64800,
                unit="tokens/s",
                mfu_pct=stated,
                hardware=hardware,
            ),
        ),
    )


def test_plan_2_checks_a_gaudi_3_measurement():
    # 2,721.6 / (8 x 1,835) = 18.5 %: a stated 40 % is flagged, 18 % is not.
    assert findings(_measured_on("8x Intel Gaudi 3", 40), "PLAN-2")
    assert not findings(_measured_on("8x Intel Gaudi 3", 18), "PLAN-2")
    # Before issue 32 nothing was said at all about this measurement.
    assert not findings(_measured_on("8x Intel Gaudi 3", 40), "PLAN-5")


@pytest.mark.parametrize(
    "hardware, system, words",
    [
        (
            "8x NVIDIA V100",
            "marenostrum5-acc",
            "no peak throughput is recorded for the V100",
        ),
        ("Google TPU v5p", "marenostrum5-acc", "“Google TPU v5p” names no GPU model"),
        ("", "", "names no hardware and no target system"),
    ],
)
def test_plan_5_says_why_no_mfu_check_was_possible(hardware, system, words):
    p = _measured_on(hardware, 40, system)
    assert not findings(p, "PLAN-2")
    (note,) = findings(p, "PLAN-5")
    assert note.severity == "info"
    assert note.field == "scalability.measurements[0].hardware"
    assert words in note.message
    assert "stated MFU of 40% was not checked" in note.message
    if hardware:
        assert "Gaudi 3" in note.message and "MI325X" in note.message


def test_plan_5_is_silent_when_there_is_nothing_to_check():
    # No stated MFU, or no parameters: PLAN-2 would not check either.
    assert not findings(_measured_on("TPU v5p", None), "PLAN-5")
    no_params = edit(_measured_on("TPU v5p"), codes=(CodeEntry(name="7B"),))
    assert not findings(no_params, "PLAN-5")
    # A known GPU: checked, no note.
    assert not findings(_measured_on("8x H200 SXM"), "PLAN-5")


def test_the_peak_ratio_caveat_claims_no_direction_between_vendors():
    # MareNostrum 5 (NVIDIA H100) as the reference: LUMI-G's MI250X is another
    # vendor's GPU, the A100 systems an older one of the same vendor.
    by_slug = {o.slug: o for o in cmp.compare(example(LARGE), catalogue()).options}
    lumi = by_slug["lumi-g"]
    assert lumi.basis == cmp.PEAK_RATIO and not lumi.same_vendor
    assert lumi.caveat == cmp.PEAK_RATIO_VENDOR_CAVEAT
    assert "optimistic" not in lumi.caveat and "too high or too low" in lumi.caveat
    assert by_slug["leonardo-booster"].caveat == cmp.PEAK_RATIO_SLOWER_CAVEAT
    # From LUMI-G (AMD) towards any NVIDIA system: no direction either.
    p = edit(example(LARGE), selection__system="lumi-g")
    options = cmp.compare(p, catalogue()).options
    nvidia = [o for o in options if o.gpu_model.startswith("NVIDIA")]
    assert nvidia and all(o.caveat == cmp.PEAK_RATIO_VENDOR_CAVEAT for o in nvidia)
