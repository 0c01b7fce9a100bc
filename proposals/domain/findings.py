"""The findings registry: every reviewer check is a small rule with a stable code.

A rule is a generator function decorated with :func:`rule`; it receives the
:class:`Context` of one assessment and yields :class:`Hit` objects (field path and
message, optionally a severity when the rule's severity depends on the tier). Codes are
part of the product and are never renumbered; ``reference.py`` documents them from
this registry, so the documentation cannot drift from the code. The rules themselves
live in the ``rulebook`` package, one module per family; this module never imports it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from .countries import Countries
from .gpus import GpuModel
from .i18n import Labels, Translated, gettext, gettext_noop
from .jobplan import JobPlan
from .scaling import Projection, ScalingAnalysis
from .schedule import ScheduleSummary
from .sections import SECTION_SLUGS
from .terms import FamilyTerms, ModeTerms
from .tiers import Recommendation
from .types import Catalogue, Cluster, Proposal

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)
# The severities' names as a page shows them (the codes stay English in the exports).
SEVERITY_NAMES = Labels(
    {
        ERROR: gettext_noop("error"),
        WARNING: gettext_noop("warning"),
        INFO: gettext_noop("info"),
    }
)


@dataclass(frozen=True)
class Finding:
    """What a reviewer would flag: rule code, severity, field path and advice."""

    code: str
    severity: str
    field: str
    message: str

    def to_dict(self) -> dict:
        """The JSON shape used by the ``assess`` command and the exports."""
        return {
            "code": self.code,
            "severity": self.severity,
            "field": self.field,
            "message": self.message,
        }


@dataclass(frozen=True)
class Hit:
    """A rule's raw result; ``severity`` overrides the rule's default when set."""

    field: str
    message: str
    severity: str | None = None


@dataclass(frozen=True)
class Context:
    """Everything a rule may look at: the input, the call terms of its family (and
    the mode its request falls into) and the computed figures."""

    proposal: Proposal
    catalogue: Catalogue
    cluster: Cluster | None
    family: FamilyTerms
    mode: ModeTerms | None
    tier: str | None
    recommendation: Recommendation
    plan: JobPlan
    analysis: ScalingAnalysis
    projection: Projection | None
    schedule: ScheduleSummary
    target_gpus: int | None
    multi_node: bool
    has_scaling_data: bool
    high_throughput_evidence: bool
    # Many small jobs whose representative job was measured below the jobs' size:
    # (GPUs measured, GPUs per job); None otherwise.
    representative_below: tuple[int, int] | None = None
    countries: Countries | None = None  # eligibility data; None: the shipped one
    gpu_models: tuple[GpuModel, ...] | None = None  # None: the shipped variants


RuleFunc = Callable[[Context], Iterator[Hit]]


@dataclass(frozen=True)
class Rule:
    """A registered rule; ``severities`` lists every severity it can report."""

    code: str
    severities: tuple[str, ...]
    title: str = Translated()  # read in the active language (the docs: English)
    step: str
    func: RuleFunc

    @property
    def severity(self) -> str:
        """The default severity (the first listed)."""
        return self.severities[0]

    @property
    def severity_names(self) -> list[str]:
        """Every severity it can report, named in the active language."""
        return [SEVERITY_NAMES[s] for s in self.severities]

    @property
    def english_description(self) -> str:
        """The rule function's docstring, as one paragraph: the one source of the
        description (``docs/rules.md`` prints it; ``manage.py rule_messages``
        extracts it into the rules' catalogue, ``locale/rules/``)."""
        return " ".join((self.func.__doc__ or "").split())

    @property
    def description(self) -> str:
        """The description in the active language (English with none active)."""
        english = self.english_description
        return gettext(english) if english else english

    def run(self, context: Context) -> list[Finding]:
        """Run the rule and turn its hits into findings."""
        return [
            Finding(self.code, hit.severity or self.severity, hit.field, hit.message)
            for hit in self.func(context)
        ]


REGISTRY: dict[str, Rule] = {}


def rule(
    code: str, *, severity: str | tuple[str, ...], title: str, step: str
) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule under ``code`` (refusing duplicates and unknown values)."""
    severities = (severity,) if isinstance(severity, str) else tuple(severity)
    if code in REGISTRY:
        raise ValueError(f"rule {code} registered twice")
    if step not in SECTION_SLUGS or not set(severities) <= set(SEVERITIES):
        raise ValueError(f"rule {code}: bad step or severity")

    def register(func: RuleFunc) -> RuleFunc:
        REGISTRY[code] = Rule(code, severities, title, step, func)
        return func

    return register


@lru_cache(maxsize=1024)
def code_key(code: str) -> tuple[str, int]:
    """Sort key putting SCAL-2 before SCAL-10 (read once per code: the rules and
    their findings are sorted at every assessment)."""
    match = re.fullmatch(r"([A-Z]+)-(\d+)", code)
    return (match[1], int(match[2])) if match else (code, 0)


def sort_key(finding: Finding) -> tuple:
    """Severity (errors first), then rule code in natural order, then field."""
    return (SEVERITIES.index(finding.severity), code_key(finding.code), finding.field)


def rules() -> list[Rule]:
    """All registered rules in code order (the domain package imports ``rulebook``,
    whose modules register them, so they are all here once ``proposals.domain`` is
    imported)."""
    return sorted(REGISTRY.values(), key=lambda r: code_key(r.code))


def run_rules(context: Context) -> list[Finding]:
    """Run every rule on ``context``; findings sorted deterministically."""
    found = [finding for r in rules() for finding in r.run(context)]
    return sorted(found, key=sort_key)
