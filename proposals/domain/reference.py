"""Generate the rule reference (``docs/rules.md``) from the findings registry.

Run ``python -m proposals.domain.reference > docs/rules.md`` (``--schema >
docs/proposal-format.schema.json`` for the JSON Schema, ``--format-doc`` to rewrite
the table of bounds in ``docs/proposal-format.md``); tests keep the committed files
equal to this output.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from . import i18n
from .findings import rules
from .formatshape import PROPOSAL, Shape
from .gpus import GpuModel, default_gpu_models
from .jsonformat import schema_text
from .numbers import PORTAL, format_number
from .sections import SECTIONS
from .terms import REQUEST_UNITS, UNITS, CallTerms, default_terms, months
from .tiers import tier_label
from .types import Catalogue, load_catalogue, targets

CATALOGUE_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "catalogue.json"
FORMAT_DOC = Path(__file__).resolve().parents[2] / "docs" / "proposal-format.md"
BOUNDS_BEGIN = "<!-- bounds: generated from proposals/domain/bounds.py -->"
BOUNDS_END = "<!-- end of bounds -->"


def _figure(value) -> str:
    return "" if value is None else f"{value:,.0f}"


def _evidence(mode) -> str:
    names = [
        ("tests_description_required", "test description"),
        ("job_plan_required", "job plan"),
        ("scaling_data_required", "scaling data"),
        ("schedule_required", "usage schedule"),
    ]
    items = [label for name, label in names if getattr(mode, name)]
    if mode.scaling_data_required:
        if not mode.extrapolation_allowed:
            items.append("no extrapolation")
        elif mode.max_extrapolation_factor is not None:
            band = mode.max_projection_band
            limit = f"extrapolation up to {mode.max_extrapolation_factor:g}x"
            items.append(limit + (f", band {band:.0%}" if band is not None else ""))
    return ", ".join(items) or "none stated"


def terms_markdown(terms: CallTerms | None = None) -> list[str]:
    """The call terms as tables: one per family, one row per mode, then sources."""
    lines = [
        "## Call terms",
        "",
        "The figures the tier logic and the rules read (defaults from",
        "`fixtures/call_terms.json`, maintained in the admin). A fact marked",
        "**unverified** has no public document found that states it (typical",
        "durations, access times, review and the AI for Science terms are",
        "second-hand): a help desk should check it before relying on it.",
        "",
    ]
    for family in (terms or default_terms()).values():
        lines += [
            f"### {family.label}",
            "",
            "| Mode | From | Up to | Unit | GPUs per job (guidance) | Duration | "
            "Evidence | Access (working days) | Review |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for m in family.modes:
            name = tier_label(m.slug) if family.tiered else family.label
            lines.append(
                f"| {name} | {_figure(m.min_hours)} | {_figure(m.max_hours)} | "
                f"{REQUEST_UNITS.get(m.request_unit, m.request_unit)} | "
                f"{_figure(m.max_gpus_per_job)} | {months(m.durations_months)} | "
                f"{_evidence(m)} | {_figure(m.access_working_days)} | {m.review} |"
            )
        lines += ["", "Sources:", ""]
        facts = [("family", fact, src) for fact, src in family.sources.items()]
        for m in family.modes:
            facts += [(m.slug, fact, src) for fact, src in m.sources.items()]
        for where, fact, src in facts:
            mark = "" if src.verified else " **unverified**"
            text = src.source
            if not src.verified:
                text = text.split(":", 1)[1].strip() if ":" in text else text
            lines.append(f"- {where} `{fact}`{mark}: {text} (checked {src.checked})")
        lines.append("")
    return lines


def _marked(text: str) -> str:
    """``text`` with "Unverified" in bold, where a source says so."""
    return re.sub(r"\bUnverified\b", "**unverified**", text)


def systems_markdown(
    catalogue: Catalogue | None = None, models: tuple[GpuModel, ...] | None = None
) -> list[str]:
    """Each system's size and each GPU variant's peaks, with their sources."""
    catalogue = catalogue or load_catalogue(CATALOGUE_FILE)
    lines = [
        "## Systems",
        "",
        "The size of each system (PLAN-3 compares the average busy nodes with it;",
        "a partition's node limit is a per-job limit, not the size). Defaults from",
        "`fixtures/catalogue.json`, maintained in the admin.",
        "",
        "| System | GPU nodes | GPUs per node | GPU | Peak BF16 TFLOP/s per GPU | "
        "Size source (checked) | Billing unit and source |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in targets(catalogue).values():
        size = c.gpu_nodes_source
        billing = (
            f"{UNITS.get(c.billing_unit, c.billing_unit)}: {c.billing_unit_source}"
        )
        lines.append(
            f"| {c.name} | {_figure(c.gpu_nodes)} | {c.gpus_per_node} | "
            f"{c.gpu_model} | {c.peak_bf16_tflops or 0:g} | {_marked(size)} "
            f"({c.gpu_nodes_checked or 'not checked'}) | {_marked(billing)} |"
        )
    announced = [c for c in catalogue.values() if not c.in_production]
    if announced:
        lines += [
            "",
            "Announced, not yet in production (never a target; sources in "
            "`docs/systems.md`): "
            + "; ".join(
                f"{c.name} (expected {c.expected_in_production or 'unverified'})"
                for c in announced
            )
            + ".",
        ]
    lines += [
        "",
        "### GPU variants",
        "",
        "The peaks PLAN-2 judges a measurement against, chosen from its “Hardware",
        "tested on” text (defaults from `fixtures/gpu_models.json`, maintained in",
        "the admin). Per physical",
        "GPU: one MI250X module (two GCDs), dense tensor/matrix units without",
        "sparsity. *Default*: the variant assumed when the text names only the",
        "family and no catalogue system has that GPU. A measurement that states an",
        "MFU on a GPU none of these (nor a catalogue system) names gets PLAN-5, a",
        "note that no check was possible and why. A source marked **unverified**",
        "is not the vendor's datasheet (Intel publishes no Gaudi 2 BF16 figure).",
        "",
        "Compare systems rescales by the ratio of these peaks where no measurement",
        "covers both GPUs. Between GPUs of one vendor the datasheets' ratio is",
        "optimistic towards a newer GPU and overstates the gap towards an older one;",
        "between vendors the datasheets give each GPU's peak but nothing about how",
        "much of it training reaches, so the caveat says the figure may be off either",
        "way and names no direction.",
        "",
        "| GPU | Form | Memory (GB) | BF16 TFLOP/s | FP32 TFLOP/s | Default | "
        "Source (checked) |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in models or default_gpu_models():
        lines.append(
            f"| {m.name} | {m.form} | {m.memory_gb or ''} | {m.peak_bf16_tflops:g} | "
            f"{'' if m.peak_fp32_tflops is None else f'{m.peak_fp32_tflops:g}'} | "
            f"{'yes' if m.default else ''} | {_marked(m.source)} ({m.checked}) |"
        )
    return lines + [""]


def _bounded_fields(shape: Shape, path: str):
    """``(json_path, field)`` of every number of the format that has a bound."""
    for field in shape.fields:
        where = f"{path}.{field.name}" if path else field.name
        if field.kind == "object":
            yield from _bounded_fields(field.nested, where)
        elif field.kind == "array":
            yield from _bounded_fields(field.nested, f"{where}[]")
        elif field.bound is not None:
            yield where, field


def bounds_markdown() -> list[str]:
    """The table of bounds of ``docs/proposal-format.md``: every number of the
    format with its range from ``domain.bounds`` (the wizard's, the loader's and the
    schema's); English, whatever language is active."""
    lines = [
        "| key | from | to | decimals | why the lower end | why the upper end |",
        "|---|---|---|---|---|---|",
    ]
    with i18n.in_english():
        for path, field in _bounded_fields(PROPOSAL, ""):
            b = field.bound
            low = format_number(b.low, PORTAL)
            if field.zero_is_blank:
                low = f"{low} (0: blank)"
            lines.append(
                f"| `{path}` | {low} | {format_number(b.high, PORTAL)} | "
                f"{b.places} | {b.why_low} | {b.why_high} |"
            )
    return lines


def format_doc(text: str) -> str:
    """``text`` (``docs/proposal-format.md``) with its table of bounds generated
    between its two markers."""
    if BOUNDS_BEGIN not in text or BOUNDS_END not in text:
        raise ValueError(f"no {BOUNDS_BEGIN} ... {BOUNDS_END} block to fill")
    head, _, rest = text.partition(BOUNDS_BEGIN + "\n")
    _, _, tail = rest.partition(BOUNDS_END)
    return "\n".join([head + BOUNDS_BEGIN, *bounds_markdown(), BOUNDS_END]) + tail


def countries_markdown(countries=None) -> list[str]:
    """Every eligible country outside the EU with the lists it is on, from when,
    and where that is stated (ELIG-3 reads them)."""
    from .countries import EU_MEMBER, eligible_countries, names, status_label

    table = countries if countries is not None else eligible_countries()
    lines = [
        "## Countries",
        "",
        "The lists ELIG-3 reads for each country outside the EU (defaults from",
        "`proposals/domain/countries.json`, maintained in the admin). A list whose",
        "source is **unverified** makes ELIG-3 a warning that says what to check,",
        "never an error.",
        "",
        "| Country | List | Since | Source (checked) |",
        "|---|---|---|---|",
    ]
    english = names()
    for code in sorted(table, key=lambda c: english.get(c, c)):
        entry = table[code]
        if entry.status == EU_MEMBER:
            continue
        rows = [(entry.status, "", entry.source, entry.checked)] + [
            (a.status, a.since, a.source, a.checked) for a in entry.associations
        ]
        for status, since, source, checked in rows:
            lines.append(
                f"| {english.get(code, code)} | {status_label(status)} | {since} | "
                f"{_marked(source)} ({checked}) |"
            )
    return lines + [""]


def markdown(terms: CallTerms | None = None) -> str:
    """The rule reference as Markdown: one table per wizard step, in code order;
    English, whatever language is active (it is the project's documentation)."""
    with i18n.in_english():
        return _markdown(terms)


def _markdown(terms: CallTerms | None) -> str:
    lines = [
        "# Findings: rule reference",
        "",
        "Generated from the rule registry in `proposals/domain/rulebook/` by",
        "`python -m proposals.domain.reference`; do not edit by hand.",
        "",
        "Severities: **error**, the portal application will likely be rejected or",
        "sent back; **warning**, a reviewer will likely ask about it; **info**,",
        "advice. Codes are stable and never renumbered.",
        "",
    ]
    all_rules = rules()
    for section in SECTIONS:
        lines += [
            f"## {section.title}",
            "",
            "| Code | Severity | Rule | When it fires |",
            "|---|---|---|---|",
        ]
        for r in all_rules:
            if r.step == section.slug:
                severity = " / ".join(r.severities)
                lines.append(
                    f"| {r.code} | {severity} | {r.title} | {r.english_description} |"
                )
        lines.append("")
    lines += terms_markdown(terms)
    lines += systems_markdown()
    lines += countries_markdown()
    return "\n".join(lines)


if __name__ == "__main__":
    if "--format-doc" in sys.argv[1:]:
        FORMAT_DOC.write_text(format_doc(FORMAT_DOC.read_text("utf-8")), "utf-8")
    else:
        sys.stdout.write(schema_text() if "--schema" in sys.argv[1:] else markdown())
