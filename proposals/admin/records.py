"""The applicants' and the staff's records, shown read-only: proposals, their rows,
revisions, status changes, comments, mail, account profiles, PDF exports.

Conflict of interest holds here too: a proposal's internal notes, and the staff
mail about it, are hidden from whoever is conflicted on it
(``selectors.conflicted_proposals``: on its team, or declared a conflict with its
organisation), however wide their admin rights."""

from django.contrib import admin, messages
from django.db.models import Q
from django.db.models.functions import Length
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from proposals import selectors, services
from proposals.domain.numbers import grouped
from proposals.models import (
    AccountProfile,
    CodeEntry,
    JobType,
    OutgoingMail,
    PdfExport,
    Proposal,
    ProposalRevision,
    ReviewComment,
    ReviewState,
    ScalingMeasurement,
    StatusChange,
    UsageMonth,
)


def conflicted(request):
    """The proposals the request's user is conflicted on, as a subquery (read
    once a request)."""
    if not hasattr(request, "_conflicted_proposals"):
        request._conflicted_proposals = Proposal.objects.filter(
            selectors.conflicted_proposals(user=request.user)
        ).values("pk")
    return request._conflicted_proposals


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never written here: the workflow (or the applicant) writes these."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyInline(admin.TabularInline):
    """A proposal's rows, shown on its page. The foreign keys are raw ids, so no
    page ever lists another proposal's rows in a dropdown."""

    extra = 0

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class CodeEntryInline(ReadOnlyInline):
    model = CodeEntry


class ScalingMeasurementInline(ReadOnlyInline):
    model = ScalingMeasurement
    raw_id_fields = ["code"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("code")


class JobTypeInline(ReadOnlyInline):
    model = JobType


class UsageMonthInline(ReadOnlyInline):
    model = UsageMonth


@admin.register(Proposal)
class ProposalAdmin(ReadOnlyAdmin):
    """The applicant's text is theirs: staff read it here and answer with review
    comments, never by editing it (an edit here would also bypass the revision check
    that keeps autosaves from overwriting each other)."""

    list_display = [
        "title",
        "owner",
        "status",
        "system",
        "total_gpu_hours",
        "revision",
        "updated_at",
    ]
    list_filter = ["status", "call_family", "system"]
    search_fields = ["title", "organisation_name", "owner__username"]
    list_select_related = ["owner", "system"]
    raw_id_fields = ["owner", "system"]
    inlines = [
        CodeEntryInline,
        ScalingMeasurementInline,
        JobTypeInline,
        UsageMonthInline,
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("owner", "system")


class ProposalRowAdmin(ReadOnlyAdmin):
    """The rows on their own, for searching across proposals; read-only."""

    list_display = ["__str__", "proposal", "position"]
    list_select_related = ["proposal"]
    raw_id_fields = ["proposal"]
    search_fields = ["proposal__title"]


@admin.register(CodeEntry)
class CodeEntryAdmin(ProposalRowAdmin):
    list_display = ["__str__", "proposal", "role", "position"]


@admin.register(ScalingMeasurement)
class ScalingMeasurementAdmin(ProposalRowAdmin):
    raw_id_fields = ["proposal", "code"]


admin.site.register(JobType, ProposalRowAdmin)
admin.site.register(UsageMonth, ProposalRowAdmin)


@admin.register(ProposalRevision)
class ProposalRevisionAdmin(ReadOnlyAdmin):
    list_display = ["proposal", "number", "tier", "error_count", "created_at"]
    list_select_related = ["proposal"]
    search_fields = ["proposal__title"]


@admin.register(StatusChange)
class StatusChangeAdmin(ReadOnlyAdmin):
    list_display = ["proposal", "from_status", "to_status", "by", "at"]
    list_select_related = ["proposal", "by"]
    list_filter = ["to_status"]


@admin.register(ReviewState)
class ReviewStateAdmin(ReadOnlyAdmin):
    list_display = ["proposal", "latest_revision", "submitted_at", "status_changed_at"]
    list_select_related = ["proposal", "latest_revision"]


@admin.register(ReviewComment)
class ReviewCommentAdmin(ReadOnlyAdmin):
    """Comments are append-only here too: nobody rewrites what someone wrote (the
    applicant's own words included) or turns an internal note into a published one.
    A correction is a new comment, on the review page."""

    list_display = ["proposal", "section", "author", "staff_only", "created_at"]
    list_select_related = ["proposal", "author"]
    raw_id_fields = ["proposal", "author", "parent", "revision"]
    list_filter = ["section", "staff_only"]
    search_fields = ["body", "proposal__title"]

    def get_queryset(self, request):
        # Every list, search, filter and change page: no internal note of a
        # proposal the reader is conflicted on.
        return (
            super()
            .get_queryset(request)
            .exclude(staff_only=True, proposal__in=conflicted(request))
        )


@admin.register(OutgoingMail)
class OutgoingMailAdmin(ReadOnlyAdmin):
    """Mail delivery: every e-mail of the review workflow, its status and last
    error. Failed mails can be sent again with the "Retry" action."""

    list_display = ["created_at", "to", "subject", "status", "attempts", "last_error"]
    list_filter = ["status"]
    search_fields = ["to", "subject"]
    raw_id_fields = ["proposal"]
    actions = ["retry"]
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        # The staff's mail about a proposal the reader is conflicted on is not
        # theirs to read (what was sent to their own address still is).
        own = Q(to__iexact=request.user.email) if request.user.email else Q(pk__in=[])
        return (
            super()
            .get_queryset(request)
            .exclude(Q(proposal__in=conflicted(request)) & ~own)
        )

    def has_change_permission(self, request, obj=None):
        # Shown read-only, but "change" is the right that allows the retry action.
        return obj is None and request.user.has_perm("proposals.change_outgoingmail")

    @admin.action(
        description=gettext_lazy("Retry sending the selected mails"),
        permissions=["change"],
    )
    def retry(self, request, queryset):
        count = services.mail_retry(mails=queryset)
        self.message_user(
            request,
            _("%(count)s mail(s) queued again; sent mails were left alone.")
            % {"count": count},
            messages.SUCCESS,
        )


@admin.register(AccountProfile)
class AccountProfileAdmin(ReadOnlyAdmin):
    """Accounts' e-mail addresses and whether they were confirmed: for support, who
    answer "I never got the mail". Written only by the account services."""

    list_display = ["user", "email", "verified_at"]
    list_filter = [("verified_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "email"]
    list_select_related = ["user"]


@admin.register(PdfExport)
class PdfExportAdmin(ReadOnlyAdmin):
    """The PDFs the task worker rendered or is rendering: for the administrators who
    answer "my PDF never came" (not the staff group: drafts never sent for review
    are listed too). A failed or stalled one shows the renderer's error and can
    be queued again with the "Retry" action; the stored file and its input (HTML,
    chart data) are not shown here."""

    list_display = [
        "created_at",
        "proposal",
        "version",
        "for_staff",
        "status",
        "attempts",
        "size",
        "finished_at",
        "error",
    ]
    list_filter = ["status", "for_staff"]
    search_fields = ["proposal__title", "proposal__owner__username"]
    raw_id_fields = ["proposal"]
    exclude = ["html", "pdf", "chart", "chart_placeholder"]
    actions = ["retry"]
    date_hierarchy = "created_at"

    def get_queryset(self, request):
        # The list never loads the stored files or the renderer's input.
        return (
            super()
            .get_queryset(request)
            .defer("html", "pdf", "chart")
            .select_related("proposal")
            .annotate(pdf_size=Length("pdf"))
        )

    @admin.display(description=gettext_lazy("Version"))
    def version(self, export):
        return f"r{export.review_revision}" if export.review_revision else _("draft")

    @admin.display(description=gettext_lazy("Size"), ordering="pdf_size")
    def size(self, export):
        if not export.pdf_size:
            return "—"
        return f"{grouped(export.pdf_size / 1024, 0)} KB"

    def has_change_permission(self, request, obj=None):
        # Shown read-only, but "change" is the right that allows the retry action.
        return obj is None and request.user.has_perm("proposals.change_pdfexport")

    @admin.action(
        description=gettext_lazy("Render the selected failed or stalled PDFs again"),
        permissions=["change"],
    )
    def retry(self, request, queryset):
        queued = 0
        for export in queryset.defer("html", "pdf", "chart"):
            if export.is_failed or export.is_stalled:
                services.pdf_export_retry(export=export)
                queued += 1
        self.message_user(
            request,
            _("%(count)s PDF(s) queued again; ready ones were left alone.")
            % {"count": queued},
            messages.SUCCESS,
        )
