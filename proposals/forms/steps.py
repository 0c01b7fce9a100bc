"""The forms of the steps' own fields (a step's tables are in ``rows``)."""

from django import forms
from django.utils.translation import gettext as _

from proposals.domain.fields import label
from proposals.models import Proposal

from .base import GpuUnitMixin, WizardStepForm, field_names
from .fields import YES_NO_UNKNOWN, ClusterChoiceField, TargetSelect, country_choices


class OrganisationForm(WizardStepForm):
    step = "organisation"
    stack_demonstrated_on_target = forms.TypedChoiceField(
        label=label("stack_demonstrated_on_target"),
        choices=YES_NO_UNKNOWN,
        coerce=lambda value: value == "true",
        empty_value=None,
        required=False,
        widget=forms.RadioSelect,
    )

    class Meta:
        model = Proposal
        fields = field_names("organisation")
        widgets = {"hpc_experience": forms.RadioSelect}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "organisation_country" in self.fields:
            self.fields["organisation_country"] = forms.ChoiceField(
                label=label("organisation_country"),
                choices=country_choices(),
                required=False,
            )
        if self.instance.stack_demonstrated_on_target is not None:
            self.initial["stack_demonstrated_on_target"] = (
                "true" if self.instance.stack_demonstrated_on_target else "false"
            )
        if "hpc_experience" in self.fields:
            self.fields["hpc_experience"].choices = [
                choice for choice in self.fields["hpc_experience"].choices if choice[0]
            ]

    def clean_vat_number(self):
        return "".join(self.cleaned_data["vat_number"].split()).upper()


class SelectionForm(GpuUnitMixin, WizardStepForm):
    step = "selection"
    gpu_count_fields = ("max_gpus_per_job",)

    class Meta:
        model = Proposal
        fields = field_names("selection")
        field_classes = {"system": ClusterChoiceField}
        widgets = {
            "system": TargetSelect,
            "libraries": forms.Textarea(attrs={"rows": 2}),
            "auxiliary_services": forms.Textarea(attrs={"rows": 2}),
            "storage_justification": forms.Textarea(attrs={"rows": 2}),
            "transfer_justification": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, gpu_unit="gpus", **kwargs):
        super().__init__(*args, **kwargs)
        if "system" in self.fields:
            self.fields["system"].empty_label = _("Choose a system")
        system = self.instance.system
        self.setup_gpu_unit(
            gcds_per_gpu=system.gcds_per_gpu if system else 1, unit=gpu_unit
        )

    def clean_max_gpus_per_job(self):
        return self.convert_gpu_count("max_gpus_per_job")


class ScalabilityForm(WizardStepForm):
    step = "scalability"

    class Meta:
        model = Proposal
        fields = field_names("scalability")
        widgets = {
            "scalability_narrative": forms.Textarea(attrs={"rows": 8}),
            "workload": forms.RadioSelect,
        }

    @classmethod
    def fit_fields(cls, names, number_format):
        fields = super().fit_fields(names, number_format)
        if "workload" in fields:  # no empty choice among the radio buttons
            fields["workload"].choices = [
                choice for choice in fields["workload"].choices if choice[0]
            ]
        return fields


class OptimisationForm(WizardStepForm):
    step = "optimisation"

    class Meta:
        model = Proposal
        fields = field_names("optimisation")
        widgets = {"optimisation_narrative": forms.Textarea(attrs={"rows": 10})}
