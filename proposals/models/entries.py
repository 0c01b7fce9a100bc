"""The repeatable entries of a proposal: its codes, scaling measurements, job types
and usage schedule, one row each, in order.

Their numbers may be empty while a row is being filled in (an incomplete row); values
that can never be right are refused by validators and by database constraints alike.
"""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from proposals.domain import limits
from proposals.domain.bounds import BOUNDS
from proposals.domain.fields import label
from proposals.domain.training_logs import SOURCE_CHARS
from proposals.domain.types import CODE_ROLE_LABELS, MODEL_USE_LABELS

from .constraints import (
    MAX_GPU_HOURS,
    MAX_GPUS,
    MAX_HOURS_PER_JOB,
    MAX_JOBS,
    MAX_MONTHS,
    GivenRelations,
    RestatedConstraints,
    check,
    nonneg,
    positive,
    within,
)
from .proposal import Proposal

THROUGHPUT = BOUNDS["measurements.throughput"]


class ProposalChild(GivenRelations, RestatedConstraints):
    """Common shape of the repeatable entries: they belong to one proposal, in order.

    A row is created blank when the applicant presses "+ Add" and filled in as they type,
    so its numbers may be empty (an incomplete row); the engine only counts complete rows.
    """

    position = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["position", "id"]


def _estimate_number(name: str, digits: int, places: int) -> models.DecimalField:
    """An optional number of the compute estimate, bounded as ``domain.bounds``
    says."""
    bound = BOUNDS[f"codes.{name}"]
    return models.DecimalField(
        label(name, "codes"),
        max_digits=digits,
        decimal_places=places,
        null=True,
        blank=True,
        validators=[MinValueValidator(bound.low), MaxValueValidator(bound.high)],
    )


class CodeEntry(ProposalChild):
    """One "+ Code details" entry: a significant software component."""

    class Role(models.TextChoices):
        # The labels are the domain's (CODE_ROLE_LABELS), read in the active language.
        MAIN = "main", _(CODE_ROLE_LABELS.english("main"))
        PREPROCESSING = "preprocessing", _(CODE_ROLE_LABELS.english("preprocessing"))
        EVALUATION = "evaluation", _(CODE_ROLE_LABELS.english("evaluation"))
        SIMULATION = "simulation", _(CODE_ROLE_LABELS.english("simulation"))
        OTHER = "other", _(CODE_ROLE_LABELS.english("other"))

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="codes"
    )
    role = models.CharField(
        label("role", "codes"), max_length=16, choices=Role.choices, default=Role.MAIN
    )
    name = models.CharField(
        label("name", "codes"), max_length=limits.LINE_CHARS, blank=True
    )
    version = models.CharField(
        label("version", "codes"), max_length=limits.VERSION_CHARS, blank=True
    )
    references = models.TextField(
        label("references", "codes"),
        max_length=limits.REFERENCES_CHARS,
        blank=True,
        help_text="One link or reference per line.",
    )
    description = models.TextField(
        label("description", "codes"), max_length=limits.NARRATIVE_CHARS, blank=True
    )
    launch_command = models.CharField(
        label("launch_command", "codes"), max_length=limits.COMMAND_CHARS, blank=True
    )
    # The compute estimate's optional inputs (``domain.estimate``).
    model_use = models.CharField(
        label("model_use", "codes"),
        max_length=16,
        choices=list(MODEL_USE_LABELS.items()),
        default="training",
    )
    model_parameters = _estimate_number("model_parameters", 18, 0)
    training_tokens = _estimate_number("training_tokens", 20, 0)
    dataset_samples = _estimate_number("dataset_samples", 18, 0)
    epochs = _estimate_number("epochs", 9, 2)
    tokens_per_sample = _estimate_number("tokens_per_sample", 12, 0)
    assumed_mfu_pct = _estimate_number("assumed_mfu_pct", 5, 2)

    class Meta(ProposalChild.Meta):
        verbose_name = "code entry"
        verbose_name_plural = "code entries"

    def __str__(self):
        return " ".join(part for part in (self.name, self.version) if part) or "(code)"

    @property
    def reference_list(self) -> list[str]:
        return [line.strip() for line in self.references.splitlines() if line.strip()]


class ScalingMeasurement(ProposalChild):
    """One row of a scaling test: throughput measured at a GPU count."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="measurements"
    )
    code = models.ForeignKey(
        CodeEntry,
        verbose_name=label("code", "measurements"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="measurements",
    )
    gpus = models.PositiveIntegerField(
        label("gpus", "measurements"),
        null=True,
        blank=True,
        validators=positive(MAX_GPUS),
    )
    throughput = models.DecimalField(
        label("throughput", "measurements"),
        max_digits=16,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[
            MinValueValidator(THROUGHPUT.low),
            MaxValueValidator(THROUGHPUT.high),
        ],
    )
    unit = models.CharField(
        label("unit", "measurements"),
        max_length=limits.UNIT_CHARS,
        default="samples/s",
        blank=True,
    )
    mfu_pct = models.DecimalField(
        label("mfu_pct", "measurements"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(100),
    )
    comm_overhead_pct = models.DecimalField(
        label("comm_overhead_pct", "measurements"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(100),
    )
    hardware = models.CharField(
        label("hardware", "measurements"), max_length=limits.LINE_CHARS, blank=True
    )
    # Where a row read from a training log came from (file, lines, formula, a short
    # excerpt); empty for typed and pasted rows. The log itself is not kept.
    source = models.TextField(
        "read from", max_length=SOURCE_CHARS, blank=True, editable=False
    )

    class Meta(ProposalChild.Meta):
        constraints = [
            check("measurement_gpus_range", within("gpus", 1, MAX_GPUS)),
            check(
                "measurement_throughput_range",
                within("throughput", THROUGHPUT.low, THROUGHPUT.high),
            ),
            check("measurement_mfu_range", within("mfu_pct", 0, 100)),
            check("measurement_comm_range", within("comm_overhead_pct", 0, 100)),
        ]

    def __str__(self):
        return f"{self.gpus} GPUs: {self.throughput} {self.unit}"


class JobType(ProposalChild):
    """One row of the job plan: how many jobs of which size and length."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="jobs"
    )
    title = models.CharField(
        label("title", "jobs"), max_length=limits.LINE_CHARS, blank=True
    )
    gpus = models.PositiveIntegerField(
        label("gpus", "jobs"), null=True, blank=True, validators=positive(MAX_GPUS)
    )
    hours = models.DecimalField(
        label("hours", "jobs"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[
            MinValueValidator(Decimal("0.01")),
            MaxValueValidator(MAX_HOURS_PER_JOB),
        ],
    )
    count = models.PositiveIntegerField(
        label("count", "jobs"), null=True, blank=True, validators=positive(MAX_JOBS)
    )
    # Where a row read from sacct output came from; empty for typed rows.
    source = models.TextField(
        "read from", max_length=SOURCE_CHARS, blank=True, editable=False
    )

    class Meta(ProposalChild.Meta):
        verbose_name = "job type"
        constraints = [
            check("job_gpus_range", within("gpus", 1, MAX_GPUS)),
            check(
                "job_hours_range", within("hours", Decimal("0.01"), MAX_HOURS_PER_JOB)
            ),
            check("job_count_range", within("count", 1, MAX_JOBS)),
        ]

    def __str__(self):
        return self.title or f"{self.count} x {self.gpus} GPUs x {self.hours} h"


class UsageMonth(ProposalChild):
    """One line of the Large Scale usage schedule: GPU-hours over a month range."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="schedule"
    )
    from_month = models.PositiveSmallIntegerField(
        label("from_month", "schedule"),
        null=True,
        blank=True,
        validators=positive(MAX_MONTHS),
    )
    to_month = models.PositiveSmallIntegerField(
        label("to_month", "schedule"),
        null=True,
        blank=True,
        validators=positive(MAX_MONTHS),
    )
    gpu_hours = models.DecimalField(
        label("gpu_hours", "schedule"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(MAX_GPU_HOURS),
    )
    activity = models.CharField(
        label("activity", "schedule"), max_length=limits.ACTIVITY_CHARS, blank=True
    )

    class Meta(ProposalChild.Meta):
        verbose_name = "usage period"
        constraints = [
            check("usage_from_range", within("from_month", 1, MAX_MONTHS)),
            check("usage_to_range", within("to_month", 1, MAX_MONTHS)),
            check(
                "usage_months_ordered",
                Q(to_month__gte=models.F("from_month"))
                | Q(to_month__isnull=True)
                | Q(from_month__isnull=True),
            ),
            check("usage_hours_range", within("gpu_hours", 0, MAX_GPU_HOURS)),
        ]

    def __str__(self):
        months = (
            f"Month {self.from_month}"
            if self.from_month == self.to_month
            else f"Months {self.from_month}-{self.to_month}"
        )
        return f"{months}: {self.gpu_hours} GPU-hours"

    def clean(self):
        from django.core.exceptions import ValidationError

        if self.from_month and self.to_month and self.to_month < self.from_month:
            raise ValidationError(
                {"to_month": "The last month cannot come before the first month."}
            )
