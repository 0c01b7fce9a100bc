from django.contrib import admin

from proposals.models import (
    Cluster,
    CodeEntry,
    JobType,
    Proposal,
    ProposalRevision,
    ReviewComment,
    ReviewState,
    ScalingMeasurement,
    StatusChange,
    UsageMonth,
)


@admin.register(Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "site",
        "country",
        "gpus_per_node",
        "gpu_model",
        "gpu_power_w",
        "carbon_intensity_g_per_kwh",
    ]
    search_fields = ["name", "slug", "gpu_model"]
    prepopulated_fields = {"slug": ["name"]}


class CodeEntryInline(admin.StackedInline):
    model = CodeEntry
    extra = 0


class ScalingMeasurementInline(admin.TabularInline):
    model = ScalingMeasurement
    extra = 0


class JobTypeInline(admin.TabularInline):
    model = JobType
    extra = 0


class UsageMonthInline(admin.TabularInline):
    model = UsageMonth
    extra = 0


@admin.register(Proposal)
class ProposalAdmin(admin.ModelAdmin):
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
    readonly_fields = ["revision", "created_at", "updated_at"]
    inlines = [
        CodeEntryInline,
        ScalingMeasurementInline,
        JobTypeInline,
        UsageMonthInline,
    ]


for model in (CodeEntry, ScalingMeasurement, JobType, UsageMonth):
    admin.site.register(model)


class ReadOnlyAdmin(admin.ModelAdmin):
    """Review records are written by the workflow only; the admin shows them."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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
class ReviewCommentAdmin(admin.ModelAdmin):
    list_display = ["proposal", "section", "author", "staff_only", "created_at"]
    list_select_related = ["proposal", "author"]
    list_filter = ["section", "staff_only"]
    search_fields = ["body", "proposal__title"]
