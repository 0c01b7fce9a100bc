"""Staff review: immutable snapshots, the status trail, review state and comments."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from proposals.domain.fields import describe_path, names_at, row_label_at
from proposals.domain.sections import SECTIONS
from proposals.domain.technical_review import (
    CHANGE_REQUEST,
    CONDITION,
    MAX_TEXT,
    OUTCOMES,
    WAIVED,
    of_decision,
)

from .catalogue import Cluster
from .choices import choice_display
from .constraints import check
from .proposal import Proposal


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
        PLAYGROUND = "playground", _("Playground")
        FAST_LANE = "fast_lane", _("Fast Lane")
        LARGE_SCALE = "large_scale", _("Large Scale")

    snapshot = models.JSONField()
    tier = models.CharField(max_length=32, choices=Tier.choices, blank=True)
    get_tier_display = choice_display("tier", Tier)
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
    # Who changed each field last before it was sent: document path -> {"id": the
    # user's id (None once deleted), "name", "at"}; "*" says who wrote the fields
    # nobody stamped (the owner, before the proposal had a team).
    stamps = models.JSONField(default=dict, blank=True)
    # Each table's row ids in the snapshot's order (kind -> [id, ...]): the diff
    # compares rows by identity, so a moved row is a move, not changed values.
    # Empty for revisions stored before it was kept (the diff pairs by content).
    row_ids = models.JSONField(default=dict, blank=True)
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
            check("revision_number_positive", Q(number__gte=1)),
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
    get_from_status_display = choice_display("from_status", Proposal.Status)
    get_to_status_display = choice_display("to_status", Proposal.Status)
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
    latest revision, since when it waits and who handles it. The review queue reads
    this table."""

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
    # The last status change, revision or comment: the queue marks a proposal whose
    # handler has not opened it since.
    last_activity_at = models.DateTimeField(null=True, blank=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The support staff member who handles this proposal, if any.",
    )

    class Meta:
        ordering = ["submitted_at"]

    def __str__(self):
        return f"review of {self.proposal_id}"


class ReviewVisit(models.Model):
    """When a staff member last opened a proposal's review page (the queue marks
    activity since the handler's last visit)."""

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="review_visits"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    opened_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "user"], name="review_visit_unique"
            )
        ]

    def __str__(self):
        return f"{self.user} opened {self.proposal_id} at {self.opened_at}"


class ReviewComment(AppendOnlyModel):
    """A comment on one section (wizard step) of a proposal, optionally on one field.
    Written once: a correction is a new comment.

    ``staff_only`` notes are internal to the support staff: selectors for applicants
    never return them and no e-mail carries them."""

    # "General", then one per section of the proposal (titles from the vocabulary).
    Section = models.TextChoices(
        "Section",
        [("GENERAL", ("general", _("General")))]
        + [(s.slug.upper(), (s.slug, _(s.title))) for s in SECTIONS],
    )

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
    # A comment on a table row is anchored to the row itself (its id), not to its
    # position, and keeps the row's name as it was ("fine-tuning"), so it still
    # names the row after a reorder or once the row is deleted. The label ("Job
    # type 2 (fine-tuning)") is made from the path and the name in each reader's
    # language, never stored in the author's.
    row_id = models.PositiveBigIntegerField(null=True, blank=True, editable=False)
    row_name = models.CharField(max_length=200, blank=True, editable=False)
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

    @property
    def field_label(self) -> str:
        """The field commented on, as people read it ("Total GPU-hours"; a row's
        field with the row's current place and name when the threads selector
        resolved it, else with the row's label as it was)."""
        resolved = getattr(self, "anchor_label", "")
        if resolved:
            return resolved
        if not self.field:
            return ""
        return describe_path(self.field, names_at(self.field, self.row_name))

    @property
    def row_label(self) -> str:
        """The row commented on as it was ("Job type 2 (fine-tuning)"), in the
        active language; ``""`` off a row."""
        return row_label_at(self.field, self.row_name)


class TechnicalAssessment(AppendOnlyModel):
    """The staff's technical assessment of one revision: the outcome, the checklist
    of its findings with what was decided for each (see
    :mod:`proposals.domain.technical_review`) and a short text. Written once; a new
    assessment of the same revision is a new row, and the newest one counts."""

    Outcome = models.TextChoices(
        "Outcome", [(k.upper(), (k, _(v))) for k, v in OUTCOMES.items()]
    )

    proposal = models.ForeignKey(
        Proposal, on_delete=models.CASCADE, related_name="technical_assessments"
    )
    revision = models.ForeignKey(
        ProposalRevision, on_delete=models.CASCADE, related_name="assessments"
    )
    outcome = models.CharField(max_length=32, choices=Outcome.choices)
    get_outcome_display = choice_display("outcome", Outcome)
    text = models.TextField("assessment", max_length=MAX_TEXT, blank=True)
    items = models.JSONField(default=list, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["proposal", "revision"])]

    def __str__(self):
        return f"{self.proposal_id} r{self.revision.number}: {self.outcome}"

    @property
    def conditions(self) -> list[dict]:
        return of_decision(self.items, CONDITION)

    @property
    def change_requests(self) -> list[dict]:
        return of_decision(self.items, CHANGE_REQUEST)

    @property
    def waived(self) -> list[dict]:
        return of_decision(self.items, WAIVED)
