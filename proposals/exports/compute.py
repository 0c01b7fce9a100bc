"""Compute planning in the exports: the 6·N·D estimate as a sentence for the portal
text, and summary rows (estimate, MFU check, other systems) for Markdown and PDF.
Pure Python: no Django. Every sentence is in the active language (the portal's
English for the portal text, the reader's for a summary in their language)."""

from __future__ import annotations

from proposals.domain import Assessment
from proposals.domain.estimate import FLOPS_PER_TOKEN
from proposals.domain.i18n import Labels, gettext, gettext_noop, join_and, ngettext
from proposals.domain.mfu import RELATIVE_TOLERANCE, TOLERANCE_POINTS
from proposals.domain.numbers import hours, num, percent, points, ratio

MFU_FROM = Labels(
    {
        "stated": gettext_noop("assumed by us"),
        "measured": gettext_noop("measured"),
        "assumed": gettext_noop("assumed"),
    }
)
PLAN_ROWS_FROM = Labels(
    {
        "training rows": gettext_noop("training rows"),
        "all rows": gettext_noop("all rows"),
    }
)
SIZES = (
    (1e12, gettext_noop("{n} trillion")),
    (1e9, gettext_noop("{n} billion")),
    (1e6, gettext_noop("{n} million")),
)


def _size(value: float) -> str:
    for size, words in SIZES:
        if value >= size:
            return gettext(words).format(n=f"{value / size:.3g}")
    return num(value)


def estimate_sentences(assessment: Assessment) -> list[str]:
    """One sentence for each code entry whose estimate is complete."""
    e = assessment.compute_estimate
    if e is None:
        return []
    parts = []
    for c in e.entries:
        if c.gpu_hours is None or c.tokens is None:
            continue
        formula = gettext("{k}·N·D at {mfu} MFU").format(
            k=FLOPS_PER_TOKEN[c.use], mfu=points(c.mfu_pct, 3)
        )
        parts.append(
            gettext(
                "{name}: {parameters} parameters, {tokens} tokens, {flops} FLOPs, "
                "{hours} GPU-hours on {system} at {peak} TFLOP/s peak BF16 per GPU. "
                "Estimated from {formula} ({mfu_from})."
            ).format(
                name=c.name or gettext("Code entry {number}").format(number=c.code + 1),
                parameters=_size(c.parameters),
                tokens=_size(c.tokens),
                flops=f"{c.flops:.3g}",
                hours=hours(c.gpu_hours),
                system=e.system,
                peak=num(e.peak_tflops),
                formula=formula,
                mfu_from=MFU_FROM.get(c.mfu_from, c.mfu_from),
            )
        )
    if parts and e.ratio is not None:
        parts.append(
            gettext(
                "The job plan's {rows} total {hours} GPU-hours ({ratio} the estimate)."
            ).format(
                rows=PLAN_ROWS_FROM.get(e.plan_rows_from, e.plan_rows_from),
                hours=hours(e.plan_training_gpu_hours),
                ratio=ratio(e.ratio),
            )
        )
    return parts


def estimate_sentence(assessment: Assessment) -> str:
    """ "Compute estimate: ... Estimated from 6·N·D at 40 % MFU." for each code
    entry whose estimate is complete (empty when none is)."""
    parts = estimate_sentences(assessment)
    if not parts:
        return ""
    return gettext("Compute estimate: {estimate}").format(estimate=" ".join(parts))


def _mfu_row(assessment: Assessment) -> str:
    checked = assessment.mfu_check
    off = [r for r in checked if r.disagrees]
    text = ngettext(
        "{n} measurement checked against the peak; {off} differ from the stated "
        "MFU by more than {points} points or {share} of it",
        "{n} measurements checked against the peak; {off} differ from the stated "
        "MFU by more than {points} points or {share} of it",
        len(checked),
    ).format(
        n=num(len(checked)),
        off=num(len(off)),
        points=f"{TOLERANCE_POINTS:g}",
        share=percent(RELATIVE_TOLERANCE),
    )
    text += "".join(
        gettext("; ")
        + gettext(
            "at {gpus} GPUs stated {stated}, implied {aggregate} in all or "
            "{per_gpu} per GPU"
        ).format(
            gpus=num(r.gpus),
            stated=points(r.stated_pct, 6),
            aggregate=points(r.aggregate_pct, 1, trim=False),
            per_gpu=points(r.per_gpu_pct, 1, trim=False),
        )
        for r in off
    )
    return text + "."


def _other_system(option) -> str:
    text = f"{option.name} {hours(option.gpu_hours)}"
    if option.estimated:
        text += " " + gettext("(estimate)")
    if option.tier_label:
        text += f", {option.tier_label}"
    if option.walltime_hits:
        text += ", " + gettext("walltime limit hit by {jobs}").format(
            jobs=join_and(list(option.walltime_hits))
        )
    return text


def _systems_row(assessment: Assessment) -> str:
    c = assessment.systems_comparison
    if not (c and c.base_gpu_hours):
        return ""
    others = [
        _other_system(o)
        for o in c.options
        if not o.is_target and o.gpu_hours is not None
    ]
    if not others:
        return ""
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
    return text


def summary_rows(assessment: Assessment) -> list[tuple[str, str]]:
    """(label, value) rows for the assessment summary of Markdown and PDF."""
    a = assessment
    rows = []
    parts = estimate_sentences(a)
    if parts:
        rows.append((gettext("Compute estimate"), " ".join(parts)))
    if a.mfu_check:
        rows.append((gettext("MFU check"), _mfu_row(a)))
    systems = _systems_row(a)
    if systems:
        rows.append((gettext("GPU-hours on other systems"), systems))
    return rows
