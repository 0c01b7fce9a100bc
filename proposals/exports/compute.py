"""Compute planning in the exports: the 6·N·D estimate as a sentence for the portal
text, and summary rows (estimate, MFU check, other systems) for Markdown and PDF.
Pure Python: no Django."""

from __future__ import annotations

from proposals.domain import Assessment
from proposals.domain.mfu import RELATIVE_TOLERANCE, TOLERANCE_POINTS
from proposals.domain.numbers import hours, num, percent, points, ratio

MFU_FROM = {"stated": "assumed by us", "measured": "measured", "assumed": "assumed"}


def _size(value: float) -> str:
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if value >= size:
            return f"{value / size:.3g} {word}"
    return num(value)


def estimate_sentence(assessment: Assessment) -> str:
    """ "Compute estimate: ... Estimated from 6·N·D at 40 % MFU." for each code
    entry whose estimate is complete (empty when none is)."""
    e = assessment.compute_estimate
    if e is None:
        return ""
    parts = []
    for c in e.entries:
        if c.gpu_hours is None or c.tokens is None:
            continue
        parts.append(
            f"{c.name or 'Code entry ' + str(c.code + 1)}: {_size(c.parameters)} "
            f"parameters, {_size(c.tokens)} tokens, {c.flops:.3g} FLOPs, "
            f"{hours(c.gpu_hours)} GPU-hours on {e.system} at "
            f"{num(e.peak_tflops)} TFLOP/s peak BF16 per GPU. Estimated from "
            f"{c.formula} ({MFU_FROM[c.mfu_from]})."
        )
    if not parts:
        return ""
    text = "Compute estimate: " + " ".join(parts)
    if e.ratio is not None:
        text += (
            f" The job plan's {e.plan_rows_from} total "
            f"{hours(e.plan_training_gpu_hours)} GPU-hours "
            f"({ratio(e.ratio)} the estimate)."
        )
    return text


def summary_rows(assessment: Assessment) -> list[tuple[str, str]]:
    """(label, value) rows for the assessment summary of Markdown and PDF."""
    a = assessment
    rows = []
    sentence = estimate_sentence(a)
    if sentence:
        rows.append(("Compute estimate", sentence.removeprefix("Compute estimate: ")))
    if a.mfu_check:
        off = [r for r in a.mfu_check if r.disagrees]
        text = (
            f"{len(a.mfu_check)} measurement(s) checked against the peak; "
            f"{len(off)} differ from the stated MFU by more than "
            f"{TOLERANCE_POINTS:g} points or {percent(RELATIVE_TOLERANCE)} of it"
        )
        text += "".join(
            f"; at {r.gpus} GPUs stated {points(r.stated_pct, 6)}, implied "
            f"{points(r.aggregate_pct, 1, trim=False)} in all or "
            f"{points(r.per_gpu_pct, 1, trim=False)} per GPU"
            for r in off
        )
        rows.append(("MFU check", text + "."))
    c = a.systems_comparison
    if c and c.base_gpu_hours:
        others = [
            f"{o.name} {hours(o.gpu_hours)}{' (estimate)' if o.estimated else ''}"
            + (f", {o.tier_label}" if o.tier_label else "")
            + (
                f", walltime limit hit by {', '.join(o.walltime_hits)}"
                if o.walltime_hits
                else ""
            )
            for o in c.options
            if not o.is_target and o.gpu_hours is not None
        ]
        if others:
            text = "; ".join(others) + "."
            # Each caveat's first clause, naming the systems when they differ.
            caveats: dict[str, list[str]] = {}
            for o in c.options:
                if o.estimated and not o.is_target and o.caveat:
                    short = o.caveat.split(": ")[0].split(", so ")[0]
                    caveats.setdefault(short, []).append(o.name)
            if len(caveats) == 1:
                text += f" {next(iter(caveats))}."
            for short, names in caveats.items() if len(caveats) > 1 else ():
                text += f" {short} ({', '.join(names)})."
            rows.append(("GPU-hours on other systems", text))
    return rows
