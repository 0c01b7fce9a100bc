"""The forms of the tables' rows, one small form per row."""

from django import forms

from proposals.domain.fields import label
from proposals.models import CodeEntry, JobType, ScalingMeasurement, UsageMonth

from .base import GpuUnitMixin, WizardStepForm, field_names


class CodeEntryForm(WizardStepForm):
    table = "codes"

    class Meta:
        model = CodeEntry
        fields = field_names("codes", table=True)
        widgets = {
            "references": forms.Textarea(attrs={"rows": 3}),
            "description": forms.Textarea(attrs={"rows": 6}),
        }


class MeasurementForm(GpuUnitMixin, WizardStepForm):
    table = "measurements"
    gpu_count_fields = ("gpus",)

    class Meta:
        model = ScalingMeasurement
        fields = field_names("measurements", table=True)

    def __init__(self, *args, codes=(), gcds_per_gpu=1, gpu_unit="gpus", **kwargs):
        super().__init__(*args, **kwargs)
        if not self.shares_fields and "code" in self.fields:
            self.fields["code"] = forms.TypedChoiceField(
                label=label("code", "measurements"),
                choices=[("", "—")] + [(str(code.pk), str(code)) for code in codes],
                required=False,
                coerce=int,
                empty_value=None,
            )
        self.codes = codes  # looked up when a posted row is cleaned, not per row made
        self.initial["code"] = self.instance.code_id
        self.setup_gpu_unit(gcds_per_gpu=gcds_per_gpu, unit=gpu_unit)

    def clean_code(self):
        pk = self.cleaned_data.get("code")
        if pk is None:
            return None
        return next((code for code in self.codes if code.pk == pk), None)

    def clean_gpus(self):
        return self.convert_gpu_count("gpus")


class JobTypeForm(GpuUnitMixin, WizardStepForm):
    table = "jobs"
    gpu_count_fields = ("gpus",)

    class Meta:
        model = JobType
        fields = field_names("jobs", table=True)

    def __init__(self, *args, gcds_per_gpu=1, gpu_unit="gpus", **kwargs):
        super().__init__(*args, **kwargs)
        self.setup_gpu_unit(gcds_per_gpu=gcds_per_gpu, unit=gpu_unit)

    def clean_gpus(self):
        return self.convert_gpu_count("gpus")


class UsageMonthForm(WizardStepForm):
    table = "schedule"

    class Meta:
        model = UsageMonth
        fields = field_names("schedule", table=True)
