"""The two portal sections ("AI Factory selection" and "Code details and feasibility")
as a model (its repeatable entries are in ``entries``).

Drafts may be incomplete, so everything the portal needs only at the end is blank-able;
values that can never be right (negative hours, zero GPUs in a job row, percentages
above 100) are refused by validators and by database constraints alike.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from proposals.domain import limits
from proposals.domain.fields import label
from proposals.domain.types import (
    CALL_FAMILY_LABELS,
    ORGANISATION_KIND_LABELS,
)

from .catalogue import Cluster
from .choices import choice_display
from .constraints import (
    MAX_GPU_HOURS,
    MAX_GPUS,
    MAX_MONTHS,
    MAX_TB,
    GivenRelations,
    RestatedConstraints,
    check,
    nonneg,
    positive,
    within,
)


def _choices(name: str, labels: dict[str, str]) -> type[models.TextChoices]:
    """Model choices from the domain's labels (member names are the upper-cased
    values: ``CallFamily.INDUSTRIAL_INNOVATION``)."""
    return models.TextChoices(
        name,
        # The domain's labels are English; each is read in the person's language.
        [(value.upper(), (value, _(text))) for value, text in labels.items()],
    )


class Proposal(GivenRelations, RestatedConstraints):
    """One application: the AI Factory selection and the code-details section."""

    CallFamily = _choices("CallFamily", CALL_FAMILY_LABELS)

    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        SUBMITTED = "submitted", _("Submitted for review")
        CHANGES_REQUESTED = "changes_requested", _("Changes requested")
        READY = "ready", _("Ready to submit")
        CHANGED_IN_REVIEW = "changed_in_review", _("Changed during review")
        CHANGED_SINCE_READY = "changed_since_ready", _("Changed since ready")
        SUBMITTED_TO_PORTAL = "submitted_to_portal", _("Submitted to the portal")
        WITHDRAWN = "withdrawn", _("Withdrawn by the applicant")
        CLOSED = "closed", _("Closed by staff")

    OrganisationKind = _choices("OrganisationKind", ORGANISATION_KIND_LABELS)

    class Experience(models.TextChoices):
        NONE = "none", _("None: this is our first HPC project")
        SOME = (
            "some",
            _("Some: small multi-GPU tests (2 to 4 GPUs) with throughput figures"),
        )
        PROVEN = "proven", _("Proven: detailed scaling data from earlier HPC runs")

    class Workload(models.TextChoices):
        SINGLE_LARGE_JOB = "single_large_job", _("A single large job (or a few)")
        MANY_SMALL_JOBS = "many_small_jobs", _("Many independent jobs")

    # Empty only for a proposal kept for the staff after its owner deleted their
    # account (``services.account_delete``); deleting a user otherwise deletes their
    # proposals.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="proposals",
    )
    title = models.CharField(label("title"), max_length=limits.LINE_CHARS)
    call_family = models.CharField(
        label("call_family"),
        max_length=32,
        choices=CallFamily.choices,
        default=CallFamily.INDUSTRIAL_INNOVATION,
    )
    status = models.CharField(
        max_length=32, choices=Status.choices, default=Status.DRAFT, db_index=True
    )
    get_status_display = choice_display("status", Status)

    # Organisation and eligibility
    organisation_name = models.CharField(
        label("organisation_name"), max_length=limits.LINE_CHARS, blank=True
    )
    organisation_kind = models.CharField(
        label("organisation_kind"),
        max_length=16,
        choices=OrganisationKind.choices,
        blank=True,
    )
    organisation_country = models.CharField(
        label("organisation_country"), max_length=2, blank=True
    )
    vat_number = models.CharField(
        label("vat_number"), max_length=limits.VAT_NUMBER_CHARS, blank=True
    )
    ongoing_eurohpc_project = models.BooleanField(
        label("ongoing_eurohpc_project"), default=False
    )

    # Quick-selection questions
    hpc_experience = models.CharField(
        label("hpc_experience"), max_length=8, choices=Experience.choices, blank=True
    )
    stack_demonstrated_on_target = models.BooleanField(
        label("stack_demonstrated_on_target"),
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
        verbose_name=label("system"),
    )
    libraries = models.CharField(
        label("libraries"), max_length=limits.LIBRARIES_CHARS, blank=True
    )
    total_gpu_hours = models.DecimalField(
        label("total_gpu_hours"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(MAX_GPU_HOURS),
    )
    max_gpus_per_job = models.PositiveIntegerField(
        label("max_gpus_per_job"),
        null=True,
        blank=True,
        validators=positive(MAX_GPUS),
    )
    storage_tb = models.DecimalField(
        label("storage_tb"),
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(MAX_TB),
    )
    storage_justification = models.TextField(
        label("storage_justification"),
        max_length=limits.JUSTIFICATION_CHARS,
        blank=True,
    )
    transfer_in_tb = models.DecimalField(
        label("transfer_in_tb"),
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(MAX_TB),
    )
    transfer_out_tb = models.DecimalField(
        label("transfer_out_tb"),
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(MAX_TB),
    )
    transfer_justification = models.TextField(
        label("transfer_justification"),
        max_length=limits.JUSTIFICATION_CHARS,
        blank=True,
    )
    extra_cpu_hours = models.DecimalField(
        label("extra_cpu_hours"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(MAX_GPU_HOURS),
    )
    auxiliary_services = models.TextField(
        label("auxiliary_services"), max_length=limits.JUSTIFICATION_CHARS, blank=True
    )
    duration_months = models.PositiveSmallIntegerField(
        label("duration_months"),
        null=True,
        blank=True,
        validators=positive(MAX_MONTHS),
    )

    # (d) Scalability and performance, (e) optimisation
    scalability_narrative = models.TextField(
        label("scalability_narrative"), max_length=limits.NARRATIVE_CHARS, blank=True
    )
    workload = models.CharField(
        label("workload"), max_length=20, choices=Workload.choices, blank=True
    )
    runtime_stability_pct = models.DecimalField(
        label("runtime_stability_pct"),
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=nonneg(100),
    )
    optimisation_narrative = models.TextField(
        label("optimisation_narrative"), max_length=limits.NARRATIVE_CHARS, blank=True
    )

    class GpuUnit(models.TextChoices):
        GPUS = "gpus", _("physical GPUs")
        GCDS = "gcds", _("GCDs, as Slurm counts them")

    # How the applicant types GPU counts (on systems whose GPUs have several dies);
    # the counts are always stored in physical GPUs. Changed only by the toggle.
    gpu_unit = models.CharField(
        "Enter GPU counts in",
        max_length=8,
        choices=GpuUnit.choices,
        default=GpuUnit.GPUS,
    )
    # What the applicant typed and the wizard refused, by input name
    # (``total_gpu_hours``, ``jobs-17-gpus``): ``{"text": ..., "message": ...}``. Shown
    # again with its message until a valid value is saved; never used in computations.
    refused_inputs = models.JSONField(default=dict, blank=True, editable=False)

    # The wizard steps the applicant has opened: before that, a step's open items are
    # shown as a neutral "to do", not as errors (staff and exports see every finding).
    visited_steps = models.JSONField(default=list, blank=True, editable=False)

    revision = models.PositiveIntegerField(default=1, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The applicant's own filing: archived proposals leave the default list; a
    # deleted one that was sent for review is kept (hidden from its owner) for staff.
    archived_at = models.DateTimeField(null=True, blank=True, editable=False)
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]
        constraints = [
            check(
                "proposal_total_gpu_hours_range",
                within("total_gpu_hours", 0, MAX_GPU_HOURS),
            ),
            check("proposal_max_gpus_range", within("max_gpus_per_job", 1, MAX_GPUS)),
            check("proposal_storage_range", within("storage_tb", 0, MAX_TB)),
            check("proposal_transfer_in_range", within("transfer_in_tb", 0, MAX_TB)),
            check("proposal_transfer_out_range", within("transfer_out_tb", 0, MAX_TB)),
            check(
                "proposal_extra_cpu_range",
                within("extra_cpu_hours", 0, MAX_GPU_HOURS),
            ),
            check("proposal_duration_range", within("duration_months", 1, MAX_MONTHS)),
            check("proposal_stability_range", within("runtime_stability_pct", 0, 100)),
            check("proposal_revision_positive", Q(revision__gte=1)),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("proposals:detail", args=[self.pk])

    @property
    def status_label(self) -> str:
        """The status in the active language, as ``get_status_display`` writes it,
        without translating every status's label to find this one (Django hashes
        each choice, and so translates each lazy label, at every call)."""
        try:
            return str(self.Status(self.status).label)
        except ValueError:
            return self.status

    # What the staff read as the applicant once the owner deleted their account.
    ACCOUNT_DELETED = "(account deleted)"

    @property
    def applicant_name(self) -> str:
        """Who applied, as the staff pages, the queue and its CSV show it: the
        owner's full name with their username ("Olga Virtanen (olga)"), or the
        username alone."""
        if not self.owner_id:
            return self.ACCOUNT_DELETED
        username = self.owner.get_username()
        full = self.owner.get_full_name()
        return f"{full} ({username})" if full else username

    @property
    def applicant_email(self) -> str:
        """The owner's e-mail address ("" once the account is deleted)."""
        return self.owner.email if self.owner_id else ""
