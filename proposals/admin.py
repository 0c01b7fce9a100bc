from django.contrib import admin

from proposals.models import (
    Cluster,
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
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
