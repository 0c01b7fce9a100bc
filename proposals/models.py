"""The two portal sections ("AI Factory selection" and "Code details and feasibility")
as models, their repeatable entries, and the cluster catalogue.

Drafts may be incomplete, so everything the portal needs only at the end is blank-able;
values that can never be right (negative hours, zero GPUs in a job row, percentages
above 100) are refused by validators and by database constraints alike.
"""

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse

MAX_GPU_HOURS = Decimal("100000000")  # far above any call; catches typos of 1000x
MAX_GPUS = 100_000
MAX_HOURS_PER_JOB = Decimal("10000")
MAX_JOBS = 10_000_000
MAX_TB = Decimal("1000000")
MAX_MONTHS = 60


def _nonneg(limit):
    return [MinValueValidator(0), MaxValueValidator(limit)]


def _positive(limit):
    return [MinValueValidator(1), MaxValueValidator(limit)]


def _check(name: str, condition: Q) -> models.CheckConstraint:
    return models.CheckConstraint(condition=condition, name=name)


def _range(field: str, low, high, *, nullable: bool = True) -> Q:
    """A database-side bound: ``low <= field <= high`` (or NULL when allowed)."""
    condition = Q(**{f"{field}__gte": low, f"{field}__lte": high})
    return condition | Q(**{f"{field}__isnull": True}) if nullable else condition


class Cluster(models.Model):
    """A GPU system that AI Factory calls give access to (editable in the admin)."""

    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=100)
    site = models.CharField(max_length=200, blank=True)
    country = models.CharField(max_length=2, help_text="ISO 3166-1 alpha-2 code")
    gpus_per_node = models.PositiveSmallIntegerField(validators=_positive(64))
    gpu_model = models.CharField(max_length=100)
    gpu_memory_gb = models.PositiveSmallIntegerField(validators=_positive(4096))
    gpu_power_w = models.PositiveIntegerField(
        "GPU board power (W)", validators=_positive(5000)
    )
    gcds_per_gpu = models.PositiveSmallIntegerField(
        "compute dies per GPU",
        default=1,
        validators=_positive(8),
        help_text="2 on LUMI-G: Slurm shows each MI250X as two GCDs.",
    )
    partitions = models.JSONField(
        default=list,
        blank=True,
        help_text='List of {"name", "max_nodes", "max_walltime_hours"} objects.',
    )
    default_partition = models.CharField(max_length=50, blank=True)
    carbon_intensity_g_per_kwh = models.PositiveIntegerField(
        "grid carbon intensity (gCO2e/kWh)", validators=_nonneg(2000)
    )
    carbon_source = models.CharField(max_length=300, blank=True)
    site_carbon_intensity_g_per_kwh = models.PositiveIntegerField(
        "site carbon intensity override (gCO2e/kWh)",
        null=True,
        blank=True,
        validators=_nonneg(2000),
    )
    site_carbon_note = models.CharField(max_length=300, blank=True)
    billing_note = models.CharField(max_length=500, blank=True)
    source_url = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            _check("cluster_gpus_per_node_positive", Q(gpus_per_node__gte=1)),
            _check("cluster_gcds_positive", Q(gcds_per_gpu__gte=1)),
        ]

    def __str__(self):
        return self.name


class Proposal(models.Model):
    """One application: the AI Factory selection and the code-details section."""

    class CallFamily(models.TextChoices):
        INDUSTRIAL_INNOVATION = "industrial_innovation", "AI for Industrial Innovation"
        AI_FOR_SCIENCE = (
            "ai_for_science",
            "AI for Science and Collaborative EU Projects",
        )

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        SUBMITTED = "submitted", "Submitted for review"
        CHANGES_REQUESTED = "changes_requested", "Changes requested"
        READY = "ready", "Ready to submit"

    class OrganisationKind(models.TextChoices):
        STARTUP = "startup", "Startup"
        SME = "sme", "SME"
        INDUSTRY = "industry", "Other industrial organisation"
        ACADEMIC = "academic", "Academic or research organisation"
        PUBLIC = "public", "Public sector organisation"

    class Experience(models.TextChoices):
        NONE = "none", "None: this is our first HPC project"
        SOME = (
            "some",
            "Some: small multi-GPU tests (2 to 4 GPUs) with throughput figures",
        )
        PROVEN = "proven", "Proven: detailed scaling data from earlier HPC runs"

    class Workload(models.TextChoices):
        SINGLE_LARGE_JOB = "single_large_job", "A single large job (or a few)"
        MANY_SMALL_JOBS = "many_small_jobs", "Many independent jobs"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="proposals"
    )
    title = models.CharField(max_length=200)
    call_family = models.CharField(
        max_length=32,
        choices=CallFamily.choices,
        default=CallFamily.INDUSTRIAL_INNOVATION,
    )
    status = models.CharField(
        max_length=32, choices=Status.choices, default=Status.DRAFT, db_index=True
    )

    # Organisation and eligibility
    organisation_name = models.CharField(max_length=200, blank=True)
    organisation_kind = models.CharField(
        max_length=16, choices=OrganisationKind.choices, blank=True
    )
    organisation_country = models.CharField(max_length=2, blank=True)
    vat_number = models.CharField("VAT number", max_length=32, blank=True)
    ongoing_eurohpc_project = models.BooleanField(
        "another ongoing EuroHPC JU project", default=False
    )

    # Quick-selection questions
    hpc_experience = models.CharField(
        "HPC experience", max_length=8, choices=Experience.choices, blank=True
    )
    stack_demonstrated_on_target = models.BooleanField(
        "software stack already demonstrated on the target system",
        null=True,
        blank=True,
    )

    # AI Factory selection
    system = models.ForeignKey(
        Cluster,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="proposals",
        verbose_name="target system",
    )
    libraries = models.CharField(
        "software libraries and codes", max_length=1000, blank=True
    )
    total_gpu_hours = models.DecimalField(
        "total GPU-hours",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(MAX_GPU_HOURS),
    )
    max_gpus_per_job = models.PositiveIntegerField(
        "maximum number of GPUs per job",
        null=True,
        blank=True,
        validators=_positive(MAX_GPUS),
    )
    storage_tb = models.DecimalField(
        "storage (TB)",
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(MAX_TB),
    )
    storage_justification = models.TextField(max_length=4000, blank=True)
    transfer_in_tb = models.DecimalField(
        "data transfer in (TB)",
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(MAX_TB),
    )
    transfer_out_tb = models.DecimalField(
        "data transfer out (TB)",
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(MAX_TB),
    )
    transfer_justification = models.TextField(max_length=4000, blank=True)
    extra_cpu_hours = models.DecimalField(
        "CPU-hours beyond the default",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(MAX_GPU_HOURS),
    )
    auxiliary_services = models.TextField(max_length=4000, blank=True)
    duration_months = models.PositiveSmallIntegerField(
        "allocation duration (months)",
        null=True,
        blank=True,
        validators=_positive(MAX_MONTHS),
    )

    # (d) Scalability and performance, (e) optimisation
    scalability_narrative = models.TextField(max_length=20000, blank=True)
    workload = models.CharField(
        "workload shape", max_length=20, choices=Workload.choices, blank=True
    )
    runtime_stability_pct = models.DecimalField(
        "runtime stability (± %)",
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(100),
    )
    optimisation_narrative = models.TextField(max_length=20000, blank=True)

    revision = models.PositiveIntegerField(default=1, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]
        constraints = [
            _check(
                "proposal_total_gpu_hours_range",
                _range("total_gpu_hours", 0, MAX_GPU_HOURS),
            ),
            _check("proposal_max_gpus_range", _range("max_gpus_per_job", 1, MAX_GPUS)),
            _check("proposal_storage_range", _range("storage_tb", 0, MAX_TB)),
            _check("proposal_transfer_in_range", _range("transfer_in_tb", 0, MAX_TB)),
            _check("proposal_transfer_out_range", _range("transfer_out_tb", 0, MAX_TB)),
            _check(
                "proposal_extra_cpu_range",
                _range("extra_cpu_hours", 0, MAX_GPU_HOURS),
            ),
            _check("proposal_duration_range", _range("duration_months", 1, MAX_MONTHS)),
            _check("proposal_stability_range", _range("runtime_stability_pct", 0, 100)),
            _check("proposal_revision_positive", Q(revision__gte=1)),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("proposals:detail", args=[self.pk])


class ProposalChild(models.Model):
    """Common shape of the repeatable entries: they belong to one proposal, in order.

    A row is created blank when the applicant presses "+ Add" and filled in as they type,
    so its numbers may be empty (an incomplete row); the engine only counts complete rows.
    """

    position = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["position", "id"]


class CodeEntry(ProposalChild):
    """One "+ Code details" entry: a significant software component."""

    class Role(models.TextChoices):
        MAIN = "main", "Main training or inference loop"
        PREPROCESSING = "preprocessing", "Compute-intensive pre-processing"
        EVALUATION = "evaluation", "Separate evaluation or inference phase"
        SIMULATION = "simulation", "Simulation that generates data"
        OTHER = "other", "Other component"

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="codes"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MAIN)
    name = models.CharField(max_length=200, blank=True)
    version = models.CharField(max_length=100, blank=True)
    references = models.TextField(
        max_length=4000, blank=True, help_text="One link or reference per line."
    )
    description = models.TextField(max_length=20000, blank=True)

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
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="measurements",
    )
    gpus = models.PositiveIntegerField(
        "GPUs", null=True, blank=True, validators=_positive(MAX_GPUS)
    )
    throughput = models.DecimalField(
        max_digits=16,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(Decimal("1e11"))],
    )
    unit = models.CharField(max_length=40, default="samples/s", blank=True)
    mfu_pct = models.DecimalField(
        "MFU (%)",
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(100),
    )
    comm_overhead_pct = models.DecimalField(
        "communication overhead (%)",
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(100),
    )
    hardware = models.CharField(max_length=200, blank=True)

    class Meta(ProposalChild.Meta):
        constraints = [
            _check("measurement_gpus_range", _range("gpus", 1, MAX_GPUS)),
            _check(
                "measurement_throughput_nonneg",
                Q(throughput__gte=0) | Q(throughput__isnull=True),
            ),
            _check("measurement_mfu_range", _range("mfu_pct", 0, 100)),
            _check("measurement_comm_range", _range("comm_overhead_pct", 0, 100)),
        ]

    def __str__(self):
        return f"{self.gpus} GPUs: {self.throughput} {self.unit}"


class JobType(ProposalChild):
    """One row of the job plan: how many jobs of which size and length."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="jobs"
    )
    title = models.CharField(max_length=200, blank=True)
    gpus = models.PositiveIntegerField(
        "GPUs per job", null=True, blank=True, validators=_positive(MAX_GPUS)
    )
    hours = models.DecimalField(
        "hours per job",
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
        "number of jobs", null=True, blank=True, validators=_positive(MAX_JOBS)
    )

    class Meta(ProposalChild.Meta):
        verbose_name = "job type"
        constraints = [
            _check("job_gpus_range", _range("gpus", 1, MAX_GPUS)),
            _check(
                "job_hours_range", _range("hours", Decimal("0.01"), MAX_HOURS_PER_JOB)
            ),
            _check("job_count_range", _range("count", 1, MAX_JOBS)),
        ]

    def __str__(self):
        return self.title or f"{self.count} x {self.gpus} GPUs x {self.hours} h"


class UsageMonth(ProposalChild):
    """One line of the Large Scale usage schedule: GPU-hours over a month range."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="schedule"
    )
    from_month = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=_positive(MAX_MONTHS)
    )
    to_month = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=_positive(MAX_MONTHS)
    )
    gpu_hours = models.DecimalField(
        "GPU-hours",
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=_nonneg(MAX_GPU_HOURS),
    )
    activity = models.CharField(max_length=300, blank=True)

    class Meta(ProposalChild.Meta):
        verbose_name = "usage period"
        constraints = [
            _check("usage_from_range", _range("from_month", 1, MAX_MONTHS)),
            _check("usage_to_range", _range("to_month", 1, MAX_MONTHS)),
            _check(
                "usage_months_ordered",
                Q(to_month__gte=models.F("from_month"))
                | Q(to_month__isnull=True)
                | Q(from_month__isnull=True),
            ),
            _check("usage_hours_range", _range("gpu_hours", 0, MAX_GPU_HOURS)),
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


# --------------------------------------------------------------------------------------
# Staff review: snapshots, status trail and comments.
# --------------------------------------------------------------------------------------


class ImmutableRecordError(Exception):
    """Raised when code tries to change or delete an append-only review record."""


class AppendOnlyModel(models.Model):
    """A record that is written once: ``save()`` on an existing row and ``delete()``
    are refused. A database trigger (migration 0003) also refuses UPDATE statements,
    so ``QuerySet.update()`` cannot rewrite history either. Rows still go away with
    their proposal (the cascade deletes them without calling ``delete()``)."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ImmutableRecordError(f"{type(self).__name__} rows cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableRecordError(f"{type(self).__name__} rows cannot be deleted.")


class ProposalRevision(AppendOnlyModel):
    """What the applicant sent for review: the whole proposal in the
    ``aifactory-proposal/1`` JSON format, plus the assessment summary at that moment
    (so the review queue needs no assessment per row)."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="revisions"
    )
    number = models.PositiveIntegerField()

    class Tier(models.TextChoices):
        PLAYGROUND = "playground", "Playground"
        FAST_LANE = "fast_lane", "Fast Lane"
        LARGE_SCALE = "large_scale", "Large Scale"

    snapshot = models.JSONField()
    tier = models.CharField(max_length=32, choices=Tier.choices, blank=True)
    recommended_tier = models.CharField(max_length=32, choices=Tier.choices, blank=True)
    system = models.ForeignKey(
        Cluster,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    total_gpu_hours = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True
    )
    error_count = models.PositiveIntegerField(default=0)
    warning_count = models.PositiveIntegerField(default=0)
    info_count = models.PositiveIntegerField(default=0)
    findings = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["proposal", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "number"], name="revision_number_unique"
            ),
            _check("revision_number_positive", Q(number__gte=1)),
        ]

    def __str__(self):
        return f"{self.proposal_id} r{self.number}"


class StatusChange(AppendOnlyModel):
    """One step of the audit trail: who moved the proposal from which status to
    which, when, and why."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="status_changes"
    )
    from_status = models.CharField(max_length=32, choices=Proposal.Status.choices)
    to_status = models.CharField(max_length=32, choices=Proposal.Status.choices)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    at = models.DateTimeField(auto_now_add=True)
    note = models.TextField(max_length=4000, blank=True)
    revision = models.ForeignKey(
        ProposalRevision,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["at", "id"]

    def __str__(self):
        return f"{self.proposal_id}: {self.from_status} -> {self.to_status}"


class ReviewState(models.Model):
    """The review bookkeeping of one proposal, created at its first submission: the
    latest revision and since when it waits. The review queue reads this table."""

    proposal = models.OneToOneField(
        Proposal,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="review_state",
    )
    latest_revision = models.ForeignKey(
        ProposalRevision, on_delete=models.CASCADE, related_name="+"
    )
    submitted_at = models.DateTimeField(db_index=True)
    status_changed_at = models.DateTimeField()

    class Meta:
        ordering = ["submitted_at"]

    def __str__(self):
        return f"review of {self.proposal_id}"


class ReviewComment(models.Model):
    """A comment on one section (wizard step) of a proposal, optionally on one field.

    ``staff_only`` notes are internal to the support staff: selectors for applicants
    never return them and no e-mail carries them."""

    class Section(models.TextChoices):
        GENERAL = "general", "General"
        ORGANISATION = "organisation", "Organisation and eligibility"
        SELECTION = "selection", "AI Factory selection"
        CODES = "codes", "Code details"
        SCALABILITY = "scalability", "Scalability and performance"
        OPTIMISATION = "optimisation", "Optimisation"

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="review_comments"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    section = models.CharField(max_length=16, choices=Section.choices)
    field = models.CharField(
        max_length=200,
        blank=True,
        help_text="Field path in the JSON format, e.g. selection.total_gpu_hours.",
    )
    body = models.TextField(max_length=5000)
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="replies",
    )
    staff_only = models.BooleanField("internal note (staff only)", default=False)
    by_staff = models.BooleanField(default=False, editable=False)
    revision = models.ForeignKey(
        ProposalRevision,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["proposal", "section"])]

    def __str__(self):
        return f"{self.get_section_display()}: {self.body[:40]}"


# --------------------------------------------------------------------------------------
# Accounts
# --------------------------------------------------------------------------------------


class AccountProfile(models.Model):
    """What Django's user lacks: one account per e-mail address, and whether the
    account's address is verified. Written only by the account services."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account"
    )
    # The address in lower case; unique, so that two sign-ups racing for one address
    # cannot both succeed. Blank (NULL) for accounts made before sign-ups recorded it.
    email = models.EmailField(null=True, unique=True)
    # When the owner followed the link sent to ``email``. An address changed since
    # (``user.email`` no longer matches ``email``) counts as unverified.
    verified_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.user} <{self.email or ''}>"
