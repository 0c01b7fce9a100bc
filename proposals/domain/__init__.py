"""The proposal engine: pure Python (plus numpy and python-stdnum), no Django.

``assess(proposal, catalogue)`` is the one entry point; the input types mirror the
JSON format ``aifactory-proposal/1`` (see ``jsonformat``).
"""

from . import rulebook  # noqa: F401  (registers every rule with findings.rule)
from .assessment import Assessment, assess
from .codeentry import CodeEntry
from .countries import Country, load_countries
from .findings import Finding, Rule, rules
from .gpus import GpuModel, load_gpu_models
from .jsonformat import FORMAT_TAG, FormatError, dump, dumps, loads, parse, read
from .terms import (
    CallTerms,
    FactSource,
    FamilyTerms,
    ModeTerms,
    default_terms,
    load_terms,
)
from .tiers import TIER_LABELS, tier_for_hours, tier_label
from .types import (
    Catalogue,
    Cluster,
    Experience,
    Job,
    Measurement,
    Organisation,
    Partition,
    Proposal,
    Scalability,
    Selection,
    UsagePeriod,
    load_catalogue,
)

__all__ = [
    "FORMAT_TAG",
    "TIER_LABELS",
    "Assessment",
    "CallTerms",
    "Catalogue",
    "Cluster",
    "CodeEntry",
    "Country",
    "GpuModel",
    "Experience",
    "FamilyTerms",
    "Finding",
    "FormatError",
    "Job",
    "Measurement",
    "ModeTerms",
    "Organisation",
    "Partition",
    "Proposal",
    "Rule",
    "Scalability",
    "Selection",
    "FactSource",
    "UsagePeriod",
    "assess",
    "default_terms",
    "dump",
    "dumps",
    "load_catalogue",
    "load_countries",
    "load_gpu_models",
    "load_terms",
    "loads",
    "parse",
    "read",
    "rules",
    "tier_for_hours",
    "tier_label",
]
