"""Compute planning: the 6·N·D estimate, the MFU cross-check and the system
comparison, table-driven, with the guides' and applicants' examples reproduced."""

import pytest

from proposals.domain import CodeEntry, Measurement, assess, mfu
from proposals.domain import compare as cmp
from proposals.domain import estimate as est
from proposals.domain.jobplan import job_plan

from .builders import catalogue, edit, example, findings

LARGE = "bsc-large-scale"


@pytest.mark.parametrize(
    "system, params, tokens, use, mfu_pct, gpu_hours",
    [
        # An applicant's note: "6·N·D FLOPs at ~125 TFLOP/s sustained per A100"
        # (125 of 312 TFLOP/s is 40 % MFU): 7 B x 1 T tokens = 4.2e22 FLOPs.
        ("leonardo-booster", 7e9, 1e12, "training", 40, 4.2e22 / 125e12 / 3600),
        # The same on H100 (989 TFLOP/s) and on LUMI-G (383 per MI250X, not per GCD).
        ("marenostrum5-acc", 7e9, 1e12, "training", 40, 4.2e22 / 395.6e12 / 3600),
        ("lumi-g", 7e9, 1e12, "training", 40, 4.2e22 / 153.2e12 / 3600),
        # Inference: 2·N per token.
        ("leonardo-booster", 7e9, 1e12, "inference", 40, 1.4e22 / 124.8e12 / 3600),
    ],
)
def test_estimate_gpu_hours_from_6nd(system, params, tokens, use, mfu_pct, gpu_hours):
    code = CodeEntry(
        name="LLM",
        model_use=use,
        model_parameters=params,
        training_tokens=tokens,
        assumed_mfu_pct=mfu_pct,
    )
    cluster = catalogue()[system]
    result = est.estimate_code(0, code, (), cluster.peak_bf16_tflops)
    assert result.gpu_hours == pytest.approx(gpu_hours, rel=2e-3)
    assert result.mfu_from == "stated" and not result.missing


@pytest.mark.parametrize(
    "code, tokens, tokens_from",
    [
        (CodeEntry(training_tokens=3e9), 3e9, "stated"),
        # 1 M samples x 3 epochs x 2,048 tokens per sample
        (
            CodeEntry(dataset_samples=1e6, epochs=3, tokens_per_sample=2048),
            6.144e9,
            "dataset",
        ),
        (CodeEntry(dataset_samples=1e6, epochs=3), None, ""),
    ],
)
def test_tokens_from_dataset_size(code, tokens, tokens_from):
    assert est.tokens_of(code) == (tokens, tokens_from)


@pytest.mark.parametrize(
    "assumed, measurements, mfu_pct, mfu_from",
    [
        (35, (Measurement(code=0, gpus=8, mfu_pct=38),), 35, "stated"),
        # The measurement at the largest GPU count that carries an MFU.
        (
            None,
            (
                Measurement(code=0, gpus=8, mfu_pct=38),
                Measurement(code=0, gpus=128, mfu_pct=30),
                Measurement(code=0, gpus=256),
                Measurement(code=1, gpus=512, mfu_pct=20),
            ),
            30,
            "measured",
        ),
        (None, (), est.DEFAULT_MFU_PCT, "assumed"),
    ],
)
def test_mfu_default(assumed, measurements, mfu_pct, mfu_from):
    code = CodeEntry(model_parameters=1e9, assumed_mfu_pct=assumed)
    result = est.estimate_code(0, code, measurements, 312)
    assert (result.mfu_pct, result.mfu_from) == (mfu_pct, mfu_from)
    assert result.missing and result.gpu_hours is None  # no tokens yet


def test_estimate_compared_with_the_training_rows_of_the_plan():
    p = edit(example(LARGE), **{"codes[0]__training_tokens": 30e9})
    cluster = catalogue()["marenostrum5-acc"]
    e = est.estimate(p, cluster, job_plan(p.scalability.jobs, cluster))
    # "Pre-training runs" and "Ablations", not "Evaluation"
    assert e.plan_rows == (0, 1) and e.plan_rows_from == "training rows"
    assert e.plan_training_gpu_hours == 128 * 48 * 12 + 64 * 24 * 20
    # 6 x 1.4e9 x 30e9 FLOPs at the 128-GPU measurement's 30 % of 989 TFLOP/s
    assert e.training_gpu_hours == pytest.approx(2.52e20 / (989e12 * 0.3) / 3600)
    assert e.factor > 400
    message = findings(p, "PLAN-1")[0].message
    assert "more than a factor 2 apart" in message
    assert "6·N·D at 30% MFU" in message


def test_no_estimate_without_parameters():
    p = example("lumi-fast-lane")
    assert assess(p, catalogue()).compute_estimate is None


def test_bsc_large_scale_mfu_inconsistency_is_reported():
    """The BSC guide: 1.4 B parameters, 12,000 tokens/s on 8 A100, stated 38 %."""
    a = assess(example(LARGE), catalogue())
    first = a.mfu_check[0]
    assert first.gpus == 8 and first.gpu == "NVIDIA A100"
    # 6 x 1.4e9 x 12,000 = 100.8 TFLOP/s of 8 x 312: 4.0 % in all, 32 % per GPU
    assert first.aggregate_pct == pytest.approx(100.8 / (8 * 312) * 100)
    assert first.per_gpu_pct == pytest.approx(100.8 / 312 * 100)
    assert first.disagrees and first.reconciling == mfu.PER_GPU
    found = {f.field: f.message for f in a.findings if f.code == "PLAN-2"}
    message = found["scalability.measurements[0].mfu_pct"]
    assert "4.0%" in message and "not the stated 38%" in message
    assert "Read as the throughput of one GPU it is 32%, which matches" in message
    # At 128 GPUs no reading fits: 2.8 % in all, 363 % per GPU.
    assert "neither reading matches" in found["scalability.measurements[4].mfu_pct"]


@pytest.mark.parametrize(
    "measurement, code, implied, other, disagrees",
    [
        # samples/s x tokens per sample, on LUMI-G (383 TFLOP/s per MI250X)
        (
            Measurement(code=0, gpus=4, throughput=100, unit="samples/s", mfu_pct=30),
            CodeEntry(model_parameters=1e9, tokens_per_sample=2048),
            6e9 * 204800 / (4 * 383e12) * 100,
            6e9 * 204800 / 383e12 * 100,
            True,
        ),
        # A unit per GPU is read per GPU first.
        (
            Measurement(
                code=0, gpus=8, throughput=3000, unit="tokens/s/GPU", mfu_pct=5
            ),
            CodeEntry(model_parameters=1e9),
            6e9 * 3000 / 383e12 * 100,
            6e9 * 3000 / (8 * 383e12) * 100,
            False,
        ),
        # Inference: 2·N per token.
        (
            Measurement(code=0, gpus=1, throughput=1000, unit="tokens/s"),
            CodeEntry(model_parameters=7e9, model_use="inference"),
            2 * 7e9 * 1000 / 383e12 * 100,
            2 * 7e9 * 1000 / 383e12 * 100,
            False,
        ),
    ],
)
def test_implied_mfu_readings(measurement, code, implied, other, disagrees):
    p = edit(
        example("lumi-fast-lane"),
        codes=(code,),
        scalability__measurements=(measurement,),
    )
    (r,) = mfu.check(p, catalogue(), catalogue()["lumi-g"])
    assert r.implied_pct == pytest.approx(implied)
    assert r.pct(r.other_reading) == pytest.approx(other)
    assert r.disagrees == disagrees


@pytest.mark.parametrize(
    "hardware, gpu",
    [
        ("NVIDIA A100", "A100"),
        ("LUMI-G, 4 nodes", "MI250X"),
        ("", "H100"),  # blank: the target system's
        ("8x h100 sxm", "H100"),
        ("MareNostrum 5, 2 nodes", "H100"),
        ("MN5", "H100"),
        ("RTX 4080", None),  # not in the catalogue: no peak, no check
        ("our workstation", None),
    ],
)
def test_measurement_hardware_picks_the_peak(hardware, gpu):
    cluster = mfu.cluster_for_hardware(
        hardware, catalogue(), catalogue()["marenostrum5-acc"]
    )
    assert (mfu.gpu_token(cluster.gpu_model) if cluster else None) == gpu


def test_compare_systems_for_the_bsc_example():
    p = example(LARGE)
    c = cmp.compare(p, catalogue())
    by_slug = {o.slug: o for o in c.options}
    assert c.options[0].slug == "marenostrum5-acc" and c.options[0].is_target
    assert c.reference == "marenostrum5-acc" and c.base_gpu_hours == 110848
    lumi = by_slug["lumi-g"]
    assert lumi.basis == cmp.PEAK_RATIO and lumi.estimated
    assert lumi.gpu_hours == pytest.approx(110848 * 989 / 383)
    # 48-hour pre-training runs take 2.6x as long: over standard-g's 48 hours.
    assert "Pre-training runs" in lumi.walltime_hits
    karolina = by_slug["karolina-gpu"]
    assert karolina.largest_job_nodes == 16  # 128 GPUs, 8 per node
    assert karolina.billing_value == pytest.approx(karolina.gpu_hours / 8)
    assert by_slug["marenostrum5-acc"].basis == cmp.SAME_GPU
    # The guide's measurements ran on A100s: said beside those systems.
    assert by_slug["vega-gpu"].measured_here and not lumi.measured_here
    assert by_slug["marenostrum5-acc"].gpu_hours == 110848


def test_compare_uses_measured_throughput_on_both_gpus():
    p = edit(
        example(LARGE),
        scalability__measurements=(
            Measurement(
                code=0, gpus=8, throughput=24000, unit="tokens/s", hardware="H100"
            ),
            Measurement(
                code=0, gpus=8, throughput=12000, unit="tokens/s", hardware="A100"
            ),
        ),
    )
    by_slug = {o.slug: o for o in cmp.compare(p, catalogue()).options}
    vega = by_slug["vega-gpu"]
    assert vega.basis == cmp.MEASURED and not vega.estimated
    assert vega.factor == pytest.approx(2.0)
    assert by_slug["lumi-g"].basis == cmp.PEAK_RATIO


def test_compare_without_a_target_uses_the_measurement_hardware():
    p = edit(example(LARGE), selection__system="")
    c = cmp.compare(p, catalogue())
    assert (c.reference, c.reference_from) == ("leonardo-booster", "measurements")
    assert not any(o.is_target for o in c.options)


# PLAN-2 against the variant the measurement names. A 7 B model at 64,800 tokens/s
# on 8 GPUs is 6 x 7e9 x 64,800 = 2,721.6 TFLOP/s: 45.0 % of 8 x 756 (H100 PCIe),
# 40.7 % of 8 x 835 (NVL), 34.4 % of 8 x 989 (SXM).
@pytest.mark.parametrize(
    "hardware, stated, peak, flagged",
    [
        ("8x NVIDIA H100 PCIe 80GB", 45, 756, False),
        ("8x NVIDIA H100 SXM5 80GB (HGX)", 45, 989, True),
        ("2 nodes with 4x H100 NVL 94GB", 40.7, 835, False),
        ("2 nodes with 4x H100 NVL 94GB", 45, 835, False),  # 4.3 points, 9.6 %
        ("H100 NVL", 34.4, 835, False),  # 6.3 points: within 10 and half of 34.4
        ("H100 NVL", 25, 835, True),  # 15.7 points
    ],
)
def test_plan_2_judges_the_variant_the_measurement_names(
    hardware, stated, peak, flagged
):
    p = edit(
        example(LARGE),
        codes=(CodeEntry(name="Llama-style 7B", model_parameters=7e9),),
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
    (r,) = mfu.check(p, catalogue(), catalogue()["marenostrum5-acc"])
    assert r.peak_tflops == peak
    assert r.aggregate_pct == pytest.approx(6 * 7e9 * 64800 / (8 * peak * 1e12) * 100)
    assert r.disagrees is flagged
    assert bool(findings(p, "PLAN-2")) is flagged


@pytest.mark.parametrize(
    "hardware, peak, assumed",
    [
        ("A100-SXM4-80GB", 312, False),
        ("NVIDIA A100 40GB PCIe", 312, False),
        ("4x H100 PCIe", 756, False),
        ("H100 NVL", 835, False),
        ("JUPITER, 4x GH200 per node", 989, False),
        ("LUMI-G (8 GCDs = 4 MI250X)", 383, False),
        ("MI300X", 1307.4, False),
        ("8x AMD Instinct MI300A", 980.6, False),
        ("RTX 4080", None, False),
    ],
)
def test_peak_for_hardware(hardware, peak, assumed):
    found = mfu.peak_for_hardware(hardware, catalogue(), catalogue()["lumi-g"])
    assert (found.tflops if found else None) == peak
    assert (found.assumed if found else False) is assumed


def test_a_bare_family_takes_the_catalogue_system_else_the_assumed_sxm():
    # "H100" alone: the catalogue's H100 system (MareNostrum 5, SXM) decides.
    found = mfu.peak_for_hardware("H100", catalogue(), catalogue()["lumi-g"])
    assert found.tflops == 989 and not found.assumed
    # Without an H100 system in the catalogue the SXM variant is assumed, and the
    # finding says so.
    without = {k: v for k, v in catalogue().items() if "H100" not in v.gpu_model}
    found = mfu.peak_for_hardware("8x H100", without, without["lumi-g"])
    assert found.tflops == 989 and found.assumed and "SXM" in found.name


def test_gpu_variants_have_sources_and_dates():
    import datetime

    from proposals.domain.gpus import default_gpu_models

    models = default_gpu_models()
    families = {m.family for m in models}
    assert {"A100", "H100", "GH200", "MI250X", "MI300A", "MI300X"} <= families
    assert {m.form for m in models if m.family == "H100"} == {"SXM", "PCIe", "NVL"}
    for m in models:
        assert m.peak_bf16_tflops > 0 and "https://" in m.source
        assert m.source.startswith(("NVIDIA", "AMD", "Unverified"))
        datetime.date.fromisoformat(m.checked)
    for family in families:  # one default variant per family
        assert sum(m.default for m in models if m.family == family) == 1


# The relative tolerance: the BSC example's 1.4 B model at 12,000 tokens/s on 8
# A100 is 100.8 TFLOP/s, 4.04 % of 8 x 312. A stated 12 % is 8 points away (inside
# the 10 points) but three times too high; a stated 5 % is within half of itself.
@pytest.mark.parametrize(
    "stated, flagged",
    [(12, True), (5, False), (4, False), (2.5, True), (1.5, True)],
)
def test_plan_2_relative_tolerance_at_low_mfu(stated, flagged):
    p = edit(
        example(LARGE),
        scalability__measurements=(
            Measurement(
                code=0,
                gpus=8,
                throughput=12000,
                unit="tokens/s",
                mfu_pct=stated,
                hardware="NVIDIA A100",
            ),
        ),
    )
    (r,) = mfu.check(p, catalogue(), catalogue()["marenostrum5-acc"])
    assert r.aggregate_pct == pytest.approx(100.8 / (8 * 312) * 100)
    assert r.disagrees is flagged
    assert bool(findings(p, "PLAN-2")) is flagged


# A small fine-tune: ViT-B/16 (86 M parameters) on 197 M tokens (ImageNet-1k's
# 1.28 M images x 197 patch tokens, less than one epoch) on Leonardo's A100:
# 6 x 86e6 x 197e6 = 1.01652e17 FLOPs at 40 % of 312 TFLOP/s = 814.5 s = 0.226 h.
def test_a_small_estimate_keeps_two_significant_figures():
    from proposals.domain.numbers import hours
    from proposals.exports.compute import estimate_sentence

    p = edit(
        example(LARGE),
        selection__system="leonardo-booster",
        codes=(
            CodeEntry(
                name="ViT-B/16 fine-tune", model_parameters=86e6, training_tokens=197e6
            ),
        ),
        scalability__measurements=(),
    )
    a = assess(p, catalogue())
    (entry,) = a.compute_estimate.entries
    assert entry.gpu_hours == pytest.approx(6 * 86e6 * 197e6 / (0.4 * 312e12) / 3600)
    assert "0.23 GPU-hours on Leonardo Booster" in estimate_sentence(a)
    assert "0.23 GPU-hours" in "\n".join(a.to_text().splitlines())
    assert [hours(v) for v in (0.226, 0.0714, 4.56, 12.7, 77467.3, 0)] == [
        "0.23",
        "0.071",
        "4.6",
        "13",
        "77,467",
        "0",
    ]
