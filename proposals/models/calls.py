"""Call terms: each call family and its modes (tiers), and the eligibility of
countries, as dated, sourced data.

The defaults come from ``fixtures/call_terms.json`` (loaded by a data migration);
administrators keep them current in the admin, and every assessment reads them
(``proposals.assess.terms_from_db``). Each fact's source and check date is kept in
``sources``: ``{"max_hours": {"source": "...", "checked": "2026-12-02"}, ...}``.
"""

import datetime
import importlib

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q

from proposals.domain.countries import STATUS_LABELS
from proposals.domain.countries import name as country_name
from proposals.domain.countries import names as country_names
from proposals.domain.terms import REQUEST_UNITS, problems

from .constraints import check, nonneg, positive

SOURCES_HELP = (
    'Per fact: {"field name": {"source": "URL or document title", '
    '"checked": "YYYY-MM-DD"}}.'
)


# The tier of a request is chosen from its GPU-hours before a system is known
# (``FamilyTerms.mode_for_hours``): a tier in node-hours would be compared in the
# wrong unit. A family without tiers may count node-hours (AI for Science).
TIERS_COUNT_GPU_HOURS = (
    "The modes of a family with tiers count GPU-hours: the tier is chosen from the "
    "GPU-hours requested, before a system is known. Node-hours are for a family "
    "without tiers (converted with the target system's GPUs per node)."
)


def _check_sources(value, where: str) -> None:
    found = problems({"slug": where, "sources": value})
    if found:
        raise ValidationError({"sources": found})


class CallFamily(models.Model):
    """A call family (AI for Industrial Innovation, AI for Science ...): who may
    apply and whether its modes are tiers chosen by the requested hours."""

    slug = models.SlugField(max_length=32, unique=True)
    label = models.CharField(max_length=100)
    tiered = models.BooleanField(
        default=True, help_text="The modes are tiers chosen by the requested hours."
    )
    eligible_kinds = models.JSONField(
        default=list, blank=True, help_text="Organisation kinds that may apply."
    )
    conditional_kinds = models.JSONField(
        default=list,
        blank=True,
        help_text="Kinds that may apply only under the condition below.",
    )
    conditional_note = models.CharField(max_length=300, blank=True)
    vat_required = models.BooleanField(default=False)
    eligible_country_statuses = models.JSONField(
        default=list,
        blank=True,
        help_text="Country statuses that may apply (empty: any country).",
    )
    no_ongoing_project = models.BooleanField(
        default=False, help_text="Another ongoing EuroHPC JU project excludes."
    )
    small_job_max_gpus = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=positive(1000),
        help_text="Largest job of a many-small-jobs workload.",
    )
    document_reminder = models.TextField(blank=True)
    sources = models.JSONField(default=dict, blank=True, help_text=SOURCES_HELP)

    class Meta:
        ordering = ["slug"]
        verbose_name_plural = "call families"

    def __str__(self):
        return self.label

    def clean(self):
        _check_sources(self.sources, "family")


class CallMode(models.Model):
    """One mode (tier) of a call family with its bounds, durations and evidence."""

    class Unit(models.TextChoices):
        GPU_HOURS = "gpu_hours", REQUEST_UNITS["gpu_hours"]
        NODE_HOURS = "node_hours", REQUEST_UNITS["node_hours"]

    family = models.ForeignKey(
        CallFamily, on_delete=models.CASCADE, related_name="modes"
    )
    slug = models.SlugField(max_length=32)
    position = models.PositiveSmallIntegerField(default=0)
    min_hours = models.PositiveIntegerField(
        null=True, blank=True, help_text="Lowest request the call states."
    )
    max_hours = models.PositiveIntegerField(
        null=True, blank=True, help_text="Inclusive upper bound (empty: none)."
    )
    request_unit = models.CharField(
        max_length=20, choices=Unit.choices, default=Unit.GPU_HOURS
    )
    max_gpus_per_job = models.PositiveIntegerField(
        "GPUs per job (guidance)", null=True, blank=True
    )
    durations_months = models.JSONField(
        default=list, blank=True, help_text="Allowed durations, e.g. [1, 2, 3]."
    )
    tests_description_required = models.BooleanField(default=False)
    job_plan_required = models.BooleanField(default=False)
    scaling_data_required = models.BooleanField(default=False)
    schedule_required = models.BooleanField(default=False)
    extrapolation_allowed = models.BooleanField(default=True)
    max_extrapolation_factor = models.FloatField(
        null=True, blank=True, validators=nonneg(1000)
    )
    max_projection_band = models.FloatField(
        null=True,
        blank=True,
        validators=nonneg(1),
        help_text="Fraction: 0.15 is 15 points between the models.",
    )
    access_working_days = models.PositiveSmallIntegerField(null=True, blank=True)
    target_working_days = models.PositiveSmallIntegerField(
        "target (working days)",
        null=True,
        blank=True,
        help_text="The desk's own target for answering a proposal of this mode: the "
        "queue marks it late after this many working days and sorts by the time "
        "left. Empty: none (say why under its source).",
    )
    review = models.CharField(max_length=200, blank=True)
    sources = models.JSONField(default=dict, blank=True, help_text=SOURCES_HELP)

    class Meta:
        ordering = ["family", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["family", "slug"], name="callmode_unique_slug"
            ),
            check(
                "callmode_min_not_above_max",
                Q(min_hours__isnull=True)
                | Q(max_hours__isnull=True)
                | Q(min_hours__lte=F("max_hours")),
            ),
        ]

    def __str__(self):
        return f"{self.family_id and self.family.label}: {self.slug}"

    def clean(self):
        durations = self.durations_months
        if not isinstance(durations, list) or not all(
            isinstance(d, int) and 0 < d <= 60 for d in durations
        ):
            raise ValidationError(
                {"durations_months": "A list of whole months, e.g. [1, 2, 3]."}
            )
        _check_sources(self.sources, f"mode {self.slug}")
        tiered = bool(self.family_id) and self.family.tiered
        if tiered and self.request_unit != self.Unit.GPU_HOURS:
            raise ValidationError({"request_unit": TIERS_COUNT_GPU_HOURS})
        if not (self.sources or {}).get("target_working_days"):
            raise ValidationError(
                {
                    "sources": "Record the source of the target (or why there is "
                    'none) under "target_working_days".'
                }
            )


def _iso_code(value: str) -> None:
    if value not in country_names():
        raise ValidationError(f"“{value}” is not an ISO 3166-1 alpha-2 country code.")


class CountryEligibility(models.Model):
    """Whether organisations from a country may apply: EU member, or associated to
    which programme; the VAT validators; where this comes from and when it was
    checked. Countries not listed are not eligible where a family restricts them."""

    class Status(models.TextChoices):
        EU_MEMBER = "eu_member", STATUS_LABELS["eu_member"]
        H2020 = "h2020_associated", STATUS_LABELS["h2020_associated"]
        HORIZON_EUROPE = (
            "horizon_europe_associated",
            STATUS_LABELS["horizon_europe_associated"],
        )
        DIGITAL_EUROPE = (
            "digital_europe_associated",
            STATUS_LABELS["digital_europe_associated"],
        )

    code = models.CharField(
        "country code", max_length=2, unique=True, validators=[_iso_code]
    )
    status = models.CharField(max_length=40, choices=Status.choices)
    programme = models.CharField(max_length=100, blank=True)
    vat_validators = models.JSONField(
        default=list,
        blank=True,
        help_text='python-stdnum modules, tried in order, e.g. ["ch.vat", "ch.uid"].',
    )
    source = models.CharField(max_length=500, help_text="URL or document title.")
    checked = models.DateField("checked on")
    associations = models.JSONField(
        default=list,
        blank=True,
        help_text='The other lists the country is on: [{"status": '
        '"horizon_europe_associated", "since": "2024-01-01", "source": "...", '
        '"checked": "2026-12-03"}, ...]. A call family\'s terms name the lists it '
        "accepts.",
    )

    class Meta:
        ordering = ["code"]
        verbose_name_plural = "country eligibility"

    def __str__(self):
        return f"{country_name(self.code)} ({self.get_status_display()})"

    def clean(self):
        validators = self.vat_validators
        if not isinstance(validators, list) or not all(
            isinstance(v, str) and _stdnum_module(v) for v in validators
        ):
            raise ValidationError(
                {"vat_validators": "A list of python-stdnum module names."}
            )
        problems = association_problems(self.associations)
        if problems:
            raise ValidationError({"associations": problems})


def association_problems(value) -> list[str]:
    """What is wrong with a country's ``associations`` list (for the admin)."""
    if not isinstance(value, list):
        return ["A list of {status, since, source, checked} objects."]
    found = []
    for i, item in enumerate(value, 1):
        if not isinstance(item, dict):
            found.append(f"Item {i} is not an object.")
            continue
        if item.get("status") not in CountryEligibility.Status.values:
            found.append(f"Item {i}: unknown status “{item.get('status')}”.")
        if not str(item.get("source") or "").strip():
            found.append(f"Item {i} has no source.")
        for key in ("since", "checked"):
            raw = item.get(key)
            if key == "since" and not raw:
                continue
            try:
                datetime.date.fromisoformat(str(raw))
            except ValueError:
                found.append(f"Item {i}: “{key}” needs a date (YYYY-MM-DD).")
    return found


def _stdnum_module(name: str) -> bool:
    try:
        importlib.import_module(f"stdnum.{name}")
    except ImportError:
        return False
    return True
