from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm
from django.db.models.functions import Length

from proposals import selectors, services
from proposals.domain.countries import STATUS_LABELS
from proposals.domain.terms import unverified
from proposals.models import (
    AccountProfile,
    CallFamily,
    CallMode,
    Cluster,
    CodeEntry,
    CountryEligibility,
    GpuModel,
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


def unverified_facts(sources) -> str:
    """The facts of a ``sources`` map whose source says "Unverified" (no public
    document found), for the help desk to check; "—" when none."""
    found = [
        fact
        for fact, value in (sources or {}).items()
        if isinstance(value, dict) and unverified(str(value.get("source", "")))
    ]
    return ", ".join(found) or "—"


@admin.register(Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "site",
        "country",
        "gpus_per_node",
        "gpu_nodes",
        "gpu_model",
        "gpu_power_w",
        "carbon_intensity_g_per_kwh",
        "billing_unit",
        "billing_unit_gpu_hours",
        "peak_bf16_tflops",
        "peak_fp32_tflops",
        "unverified",
    ]
    search_fields = ["name", "slug", "gpu_model"]
    readonly_fields = ["unverified"]

    @admin.display(description="unverified (no public document found)")
    def unverified(self, obj):
        return unverified_facts(
            {
                "system size": {"source": obj.gpu_nodes_source},
                "billing unit": {"source": obj.billing_unit_source},
                "peak throughput": {"source": obj.peak_source},
            }
        )

    prepopulated_fields = {"slug": ["name"]}


@admin.register(GpuModel)
class GpuModelAdmin(admin.ModelAdmin):
    """GPU variants and their datasheet peaks: the MFU check (PLAN-2) judges a
    measurement against the variant its hardware names."""

    list_display = [
        "name",
        "family",
        "form",
        "memory_gb",
        "peak_bf16_tflops",
        "peak_fp32_tflops",
        "default",
        "checked",
    ]
    list_filter = ["family"]
    search_fields = ["name", "family", "slug"]
    prepopulated_fields = {"slug": ["name"]}


class CallModeInline(admin.StackedInline):
    """A family's modes (tiers) with their bounds, durations, evidence and sources."""

    model = CallMode
    extra = 0
    fieldsets = [
        (None, {"fields": [("slug", "position"), ("min_hours", "max_hours")]}),
        (
            "Terms",
            {
                "fields": [
                    ("request_unit", "max_gpus_per_job"),
                    "durations_months",
                    ("access_working_days", "review"),
                ]
            },
        ),
        (
            "Evidence",
            {
                "fields": [
                    (
                        "tests_description_required",
                        "job_plan_required",
                        "scaling_data_required",
                        "schedule_required",
                    ),
                    (
                        "extrapolation_allowed",
                        "max_extrapolation_factor",
                        "max_projection_band",
                    ),
                ]
            },
        ),
        ("Sources", {"fields": ["sources", "unverified"]}),
    ]
    readonly_fields = ["unverified"]

    @admin.display(description="unverified (no public document found)")
    def unverified(self, obj):
        return unverified_facts(obj.sources)


@admin.register(CallFamily)
class CallFamilyAdmin(admin.ModelAdmin):
    """Call terms: changes apply to every assessment from the next page load. A
    fact whose source starts with "Unverified" is listed as such: no public document
    was found that states it."""

    list_display = ["label", "slug", "tiered", "vat_required", "unverified"]
    readonly_fields = ["unverified"]
    inlines = [CallModeInline]

    @admin.display(description="unverified (no public document found)")
    def unverified(self, obj):
        return unverified_facts(obj.sources)

    # The families are defined in code (domain/types.py: the proposal's choices and
    # the JSON format); here their terms are edited, never added, renamed or removed.
    def get_readonly_fields(self, request, obj=None):
        fixed = ("slug", "label") if obj is not None else ()
        return (*fixed, *self.readonly_fields)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(CountryEligibility)
class CountryEligibilityAdmin(admin.ModelAdmin):
    """Which countries may apply, and why: status, programme, source, check date."""

    list_display = ["code", "country", "status", "other_lists", "programme", "checked"]
    list_filter = ["status"]
    search_fields = ["code", "programme"]

    @admin.display(description="country")
    def country(self, obj):
        return str(obj).rsplit(" (", 1)[0]

    @admin.display(description="also")
    def other_lists(self, obj):
        return ", ".join(
            STATUS_LABELS.get(a.get("status"), str(a.get("status")))
            for a in obj.associations or ()
            if isinstance(a, dict)
        )


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

    def has_change_permission(self, request, obj=None):
        # Shown read-only, but "change" is the right that allows the retry action.
        return obj is None and request.user.has_perm("proposals.change_outgoingmail")

    @admin.action(
        description="Retry sending the selected mails", permissions=["change"]
    )
    def retry(self, request, queryset):
        count = services.mail_retry(mails=queryset)
        self.message_user(
            request,
            f"{count} mail(s) queued again; sent mails were left alone.",
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

    @admin.display(description="Version")
    def version(self, export):
        return f"r{export.review_revision}" if export.review_revision else "draft"

    @admin.display(description="Size", ordering="pdf_size")
    def size(self, export):
        if not export.pdf_size:
            return "—"
        return f"{export.pdf_size / 1024:,.0f} KB"

    def has_change_permission(self, request, obj=None):
        # Shown read-only, but "change" is the right that allows the retry action.
        return obj is None and request.user.has_perm("proposals.change_pdfexport")

    @admin.action(
        description="Render the selected failed or stalled PDFs again",
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
            f"{queued} PDF(s) queued again; ready ones were left alone.",
            messages.SUCCESS,
        )


class AccountCreationForm(AdminUserCreationForm):
    """An account made by an administrator (a staff colleague, typically) can have
    its e-mail address from the start: the administrator vouches for it, so the
    review mails reach it without a confirmation link."""

    email = forms.EmailField(
        label="E-mail address",
        required=False,
        help_text="Counts as confirmed: you vouch for it by creating the account.",
    )
    # Everybody signs in with a password: Django's "password-based authentication:
    # disabled" would make an account that can never sign in (no reset link is
    # ever sent to it), so the password is required.
    usable_password = None

    class Meta(AdminUserCreationForm.Meta):
        fields = ("username", "email")

    def clean_email(self):
        address = self.cleaned_data["email"].strip()
        if address and selectors.account_address_in_use(address=address):
            raise forms.ValidationError("Another account already has this address.")
        return address


User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    """Django's user admin, where the administrator vouches for addresses: one
    given when the account is made here counts as confirmed, and so does a staff
    account's address set here (or an account's when it joins the staff), so
    that mails to a colleague are never held for a confirmation nobody asked
    for. An applicant's address changed here still needs its owner's
    confirmation. The "confirm" action vouches for any selected account."""

    add_form = AccountCreationForm
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": (
                    "username",
                    "email",
                    "password1",
                    "password2",
                ),
            },
        ),
    )
    actions = ["confirm_addresses"]

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        user = form.instance
        vouched = not change or (
            {"email", "groups", "is_staff"} & set(form.changed_data)
            and (
                user.is_staff or user.groups.filter(name=selectors.STAFF_GROUP).exists()
            )
        )
        if user.email and vouched and not selectors.account_is_verified(user=user):
            try:
                services.account_verify(user=user)
            except services.AccountError as exc:
                self.message_user(request, str(exc), messages.ERROR)

    @admin.action(
        description="Confirm the selected accounts' e-mail addresses (you vouch)",
        permissions=["change"],
    )
    def confirm_addresses(self, request, queryset):
        confirmed, refused = 0, []
        for user in queryset:
            try:
                services.account_verify(user=user)
            except services.AccountError as exc:
                refused.append(f"{user.get_username()}: {exc}")
            else:
                confirmed += 1
        self.message_user(request, f"{confirmed} address(es) confirmed.")
        for problem in refused:
            self.message_user(request, problem, messages.ERROR)
