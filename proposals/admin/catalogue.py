"""The catalogue the administrators keep: systems, GPU models, call families and
their modes, country eligibility."""

from django.contrib import admin
from django.utils.translation import gettext_lazy, pgettext_lazy

from proposals.domain.countries import STATUS_LABELS
from proposals.domain.terms import unverified
from proposals.models import (
    AccessRoute,
    AiFactory,
    CallFamily,
    CallMode,
    CannedReply,
    Cluster,
    CountryEligibility,
    Cutoff,
    DeskClosure,
    GpuModel,
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
        "in_production",
        "expected_in_production",
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
    list_filter = ["in_production"]
    search_fields = ["name", "slug", "gpu_model"]
    readonly_fields = ["unverified"]

    @admin.display(description=gettext_lazy("unverified (no public document found)"))
    def unverified(self, obj):
        return unverified_facts(
            {
                "system size": {"source": obj.gpu_nodes_source},
                "billing unit": {"source": obj.billing_unit_source},
                "peak throughput": {"source": obj.peak_source},
                "job script facts": {"source": obj.job_facts_source},
                "production status": {"source": obj.production_source},
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
            pgettext_lazy("the terms of a call", "Terms"),
            {
                "fields": [
                    ("request_unit", "max_gpus_per_job"),
                    "durations_months",
                    ("access_working_days", "review"),
                    "target_working_days",
                ]
            },
        ),
        (
            gettext_lazy("Evidence"),
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

    @admin.display(description=gettext_lazy("unverified (no public document found)"))
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

    @admin.display(description=gettext_lazy("unverified (no public document found)"))
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

    @admin.display(description=gettext_lazy("country"))
    def country(self, obj):
        return str(obj).rsplit(" (", 1)[0]

    @admin.display(description=gettext_lazy("also"))
    def other_lists(self, obj):
        return ", ".join(
            STATUS_LABELS.get(a.get("status"), str(a.get("status")))
            for a in obj.associations or ()
            if isinstance(a, dict)
        )


class CutoffInline(admin.TabularInline):
    model = Cutoff
    extra = 0
    fields = ["date", "time", "zone", "systems", "source", "checked"]


@admin.register(AccessRoute)
class AccessRouteAdmin(admin.ModelAdmin):
    """Routes to AI compute and their cut-offs (the router and the calendar read
    them from the next page load). A fact whose source starts with "Unverified" is
    listed as such."""

    list_display = [
        "label",
        "slug",
        "family",
        "mode",
        "continuous",
        "recurring",
        "unverified",
    ]
    readonly_fields = ["unverified"]
    filter_horizontal = ["systems"]
    inlines = [CutoffInline]

    @admin.display(description=gettext_lazy("unverified (no public document found)"))
    def unverified(self, obj):
        return unverified_facts(obj.sources)


@admin.register(AiFactory)
class AiFactoryAdmin(admin.ModelAdmin):
    """The AI Factories and their systems, and the Antennas with the factory each
    is linked to: a system in production links to its catalogue entry; one not yet
    in production says when it is expected."""

    list_display = [
        "name",
        "kind",
        "country",
        "site",
        "system",
        "linked_factory",
        "selection_round",
        "in_production",
        "expected",
        "checked",
    ]
    list_filter = ["kind", "selection_round", "in_production"]
    search_fields = ["name", "site", "system", "source"]


@admin.register(DeskClosure)
class DeskClosureAdmin(admin.ModelAdmin):
    """The desk's closure days: every working-day count skips them (read with the
    reference data, so a change shows within seconds in every process)."""

    list_display = ["label", "start", "end"]
    date_hierarchy = "start"


@admin.register(CannedReply)
class CannedReplyAdmin(admin.ModelAdmin):
    """The desk's reply templates, one language each: staff writing in that
    language insert them into comments on the review page, placeholders filled."""

    list_display = ["title", "language", "updated_at"]
    list_filter = ["language"]
    search_fields = ["title", "body"]
