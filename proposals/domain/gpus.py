"""GPU variants and their peak throughput, with sources.

A GPU family comes in variants whose peaks differ (an H100 is 989 dense BF16
TFLOP/s as SXM, 756 as PCIe, 835 as NVL); the MFU cross-check (PLAN-2) must judge a
measurement against the variant it was taken on. The variants are data
(``fixtures/gpu_models.json``: per physical GPU, one MI250X module and not one GCD,
dense tensor/matrix BF16 and vector FP32, each with its datasheet and the date it was
checked; a data migration copies them into the database, administrators maintain
them there, and ``proposals.assess`` hands them back as plain values); this module
reads them and finds the variant a measurement's "Hardware tested on" text names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "gpu_models.json"

# A GPU family as people write it: "MI250X", "GH200", "GB200", "H100", "L40S", and
# Intel's "Gaudi 3" / "Gaudi3" / "Gaudi-2" (token "GAUDI3"; a bare "Gaudi" is the
# first generation, token "GAUDI").
GPU_TOKEN = re.compile(
    r"\b(MI\d{3}[A-Z]?|GH\d{3}|GB\d{3}|[ABHLV]\d{2,3}S?)\b|\b(Gaudi)\s*-?\s*(\d?)\b",
    re.I,
)
# How people write a form factor: "SXM4", "HGX", "DGX" (SXM boards), "PCIe",
# "PCI-e", "NVL". The order matters only for texts that name two.
FORM_WORDS = (
    ("NVL", re.compile(r"nvl", re.I)),
    ("PCIe", re.compile(r"pci-?e|\bpci\b", re.I)),
    ("SXM", re.compile(r"sxm|\bhgx\b|\bdgx\b", re.I)),
)
MEMORY = re.compile(r"(\d{2,3})\s*-?\s*gi?b\b", re.I)


def gpu_token(text: str) -> str:
    """The GPU family named in ``text`` ("A100" in "NVIDIA A100 64 GB"), or ""."""
    match = GPU_TOKEN.search(text or "")
    if not match:
        return ""
    return (match[1] or match[2] + match[3]).upper()


def family_label(token: str) -> str:
    """A family token as people read it: "Gaudi 3" for "GAUDI3", else the token."""
    gaudi = re.fullmatch(r"GAUDI(\d?)", token)
    return f"Gaudi {gaudi[1]}".strip() if gaudi else token


@dataclass(frozen=True)
class GpuModel:
    """One GPU variant: its family token ("H100"), form factor and peaks per GPU."""

    slug: str
    family: str
    name: str
    form: str = ""
    memory_gb: int | None = None
    peak_bf16_tflops: float = 0.0
    peak_fp32_tflops: float | None = None
    default: bool = False  # the variant assumed when a text names only the family
    source: str = ""
    checked: str = ""


def load_gpu_models(source: str | Path | Iterable[Mapping]) -> tuple[GpuModel, ...]:
    """The variants from a JSON file or a list of rows."""
    if isinstance(source, str | Path):
        rows = json.loads(Path(source).read_text(encoding="utf-8"))
    else:
        rows = source
    known = set(GpuModel.__dataclass_fields__)
    return tuple(
        GpuModel(**{k: v for k, v in row.items() if k in known}) for row in rows
    )


@cache
def default_gpu_models() -> tuple[GpuModel, ...]:
    """The shipped variants (``fixtures/gpu_models.json``)."""
    return load_gpu_models(DEFAULT_FILE)


def form_named(text: str) -> str:
    """The form factor ``text`` names ("SXM", "PCIe", "NVL"), or ""."""
    return next((form for form, word in FORM_WORDS if word.search(text or "")), "")


@dataclass(frozen=True)
class Match:
    """The variant a text names. ``decided``: the text settles the peak (its form
    factor is named, or every variant of the family has the same peak); otherwise
    ``model`` is the family's default variant, an assumption."""

    model: GpuModel
    decided: bool
    label: str  # the variant's name, or the family's when several share the peak


def match(text: str, models: Iterable[GpuModel] | None = None) -> Match | None:
    """The variant that ``text`` ("4x H100 PCIe 80GB", "A100-SXM4-40GB") names,
    or ``None`` when it names no family in ``models`` (default: the shipped ones)."""
    family = gpu_token(text)
    if not family:
        return None
    found = [m for m in (models or default_gpu_models()) if m.family == family]
    if not found:
        return None
    form = form_named(text)
    if form and any(m.form == form for m in found):
        found = [m for m in found if m.form == form]
    memory = MEMORY.search(text or "")
    if memory and any(m.memory_gb == int(memory[1]) for m in found):
        found = [m for m in found if m.memory_gb == int(memory[1])]
    default = next((m for m in found if m.default), found[0])
    family_name = default.name.split(family)[0] + family  # "NVIDIA A100"
    if len(found) == 1:
        return Match(found[0], True, found[0].name)
    if len({m.peak_bf16_tflops for m in found}) == 1:
        return Match(default, True, family_name)
    return Match(default, False, default.name)
