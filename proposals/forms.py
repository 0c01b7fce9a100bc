"""Forms for accounts and proposals. Labels follow the portal's wording."""

from decimal import Decimal

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from proposals.domain.fields import columns, label, section_fields
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        required=True, help_text="Used for password resets and review notifications."
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ["username", "email"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", "Create account"))


class ProposalCreateForm(forms.ModelForm):
    class Meta:
        model = Proposal
        fields = ["title", "call_family", "system"]
        help_texts = {
            "title": "A working title; only you and the support staff see it.",
            "system": "The supercomputer you apply for. You can change it later.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].empty_label = "Not decided yet"
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", "Create proposal"))


# --- The wizard -----------------------------------------------------------------------
#
# One form per step; repeatable entries are one small ModelForm per row, prefixed with
# the row's primary key (``jobs-17-gpus``), so a row's inputs keep their names however
# rows are added, removed or reordered in other requests.


YES_NO_UNKNOWN = [("", "Not answered"), ("true", "Yes"), ("false", "No")]


def country_choices():
    """Every ISO 3166 country, the eligible ones first, grouped by their status in
    the eligibility data (database, else the shipped data)."""
    from proposals.assess import countries_from_db
    from proposals.domain.countries import STATUS_LABELS, eligible_countries, names

    eligible = countries_from_db() or eligible_countries()
    groups: dict[str, list] = {}
    for status, status_label in STATUS_LABELS.items():
        members = sorted(
            ((c.code, c.name) for c in eligible.values() if c.status == status),
            key=lambda item: item[1],
        )
        if members:
            groups[status_label[0].upper() + status_label[1:]] = members
    others = sorted(
        ((code, name) for code, name in names().items() if code not in eligible),
        key=lambda item: item[1],
    )
    return [("", "Choose a country"), *groups.items(), ("Other countries", others)]


def plain_decimal(value: Decimal) -> str:
    """``Decimal("1200.0000")`` as ``"1200"``, never in exponent notation."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def field_names(section_or_table: str, *, table: bool = False) -> list[str]:
    """The model fields a wizard form edits, in the vocabulary's order."""
    specs = columns(section_or_table) if table else section_fields(section_or_table)
    return [spec.name for spec in specs]


class WizardStepForm(forms.ModelForm):
    """Common behaviour: portal labels, widgets that the live view can hook into.

    The model fields' validators and ``Model.clean()`` run as usual; the check
    constraints are left to the database (a violating save is refused and reported),
    since validating them here costs one query per constraint on every keystroke.
    """

    def _post_clean(self):
        exclude = self._get_validation_exclusions()
        try:
            self.instance = forms.models.construct_instance(
                self, self.instance, self._meta.fields, self._meta.exclude
            )
        except ValidationError as error:
            self._update_errors(error)
        try:
            self.instance.full_clean(
                exclude=exclude, validate_unique=False, validate_constraints=False
            )
        except ValidationError as error:
            self._update_errors(error)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            widget = field.widget
            if isinstance(widget, forms.RadioSelect):
                widget.attrs["class"] = "form-check-input"
                continue
            if isinstance(widget, forms.Select):
                continue
            if isinstance(widget, forms.Textarea):
                widget.attrs.setdefault("rows", 4)
            if isinstance(field, forms.DecimalField | forms.IntegerField):
                widget.attrs.setdefault("inputmode", "decimal")
        if not self.is_bound:
            # Show 1200, not the column's 1200.0000.
            for name, field in self.fields.items():
                value = self.initial.get(name)
                if isinstance(field, forms.DecimalField) and isinstance(value, Decimal):
                    self.initial[name] = plain_decimal(value)


class OrganisationForm(WizardStepForm):
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
        self.fields["organisation_country"] = forms.ChoiceField(
            label=label("organisation_country"),
            choices=country_choices(),
            required=False,
        )
        if self.instance.stack_demonstrated_on_target is not None:
            self.initial["stack_demonstrated_on_target"] = (
                "true" if self.instance.stack_demonstrated_on_target else "false"
            )
        self.fields["hpc_experience"].choices = [
            choice for choice in self.fields["hpc_experience"].choices if choice[0]
        ]

    def clean_vat_number(self):
        return "".join(self.cleaned_data["vat_number"].split()).upper()


class GpuUnitMixin:
    """Lets the applicant type GPU counts in GCDs on systems whose GPUs have several
    dies (LUMI-G); the form converts them and the database always holds physical GPUs.
    """

    gpu_count_fields: tuple[str, ...] = ()

    def setup_gpu_unit(self, *, gcds_per_gpu: int, unit: str):
        self.gcds_per_gpu = max(1, gcds_per_gpu or 1)
        self.gpu_unit = unit if unit == "gcds" and self.gcds_per_gpu > 1 else "gpus"
        for name in self.gpu_count_fields:
            field = self.fields[name]
            field.widget.attrs["data-gpu-count"] = "1"
            if self.gpu_unit == "gcds" and not self.is_bound:
                value = getattr(self.instance, name)
                if value is not None:
                    self.initial[name] = value * self.gcds_per_gpu

    def convert_gpu_count(self, name):
        value = self.cleaned_data.get(name)
        if value is None or self.gpu_unit != "gcds":
            return value
        gpus, rest = divmod(value, self.gcds_per_gpu)
        if rest:
            raise forms.ValidationError(
                f"{value} GCDs is not a whole number of GPUs: each GPU has "
                f"{self.gcds_per_gpu} GCDs, so enter a multiple of {self.gcds_per_gpu}."
            )
        return gpus


class SelectionForm(GpuUnitMixin, WizardStepForm):
    gpu_count_fields = ("max_gpus_per_job",)

    class Meta:
        model = Proposal
        fields = field_names("selection")
        widgets = {
            "libraries": forms.Textarea(attrs={"rows": 2}),
            "auxiliary_services": forms.Textarea(attrs={"rows": 2}),
            "storage_justification": forms.Textarea(attrs={"rows": 2}),
            "transfer_justification": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, gpu_unit="gpus", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].empty_label = "Choose a system"
        system = self.instance.system
        self.setup_gpu_unit(
            gcds_per_gpu=system.gcds_per_gpu if system else 1, unit=gpu_unit
        )

    def clean_max_gpus_per_job(self):
        return self.convert_gpu_count("max_gpus_per_job")


class CodeEntryForm(WizardStepForm):
    class Meta:
        model = CodeEntry
        fields = field_names("codes", table=True)
        widgets = {
            "references": forms.Textarea(attrs={"rows": 3}),
            "description": forms.Textarea(attrs={"rows": 6}),
        }


class ScalabilityForm(WizardStepForm):
    class Meta:
        model = Proposal
        fields = field_names("scalability")
        widgets = {
            "scalability_narrative": forms.Textarea(attrs={"rows": 8}),
            "workload": forms.RadioSelect,
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["workload"].choices = [
            choice for choice in self.fields["workload"].choices if choice[0]
        ]


class MeasurementForm(GpuUnitMixin, WizardStepForm):
    gpu_count_fields = ("gpus",)

    class Meta:
        model = ScalingMeasurement
        fields = field_names("measurements", table=True)

    def __init__(self, *args, codes=(), gcds_per_gpu=1, gpu_unit="gpus", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["code"] = forms.TypedChoiceField(
            label=label("code", "measurements"),
            choices=[("", "—")] + [(str(code.pk), str(code)) for code in codes],
            required=False,
            coerce=int,
            empty_value=None,
        )
        self.codes_by_pk = {code.pk: code for code in codes}
        self.initial["code"] = self.instance.code_id
        self.setup_gpu_unit(gcds_per_gpu=gcds_per_gpu, unit=gpu_unit)

    def clean_code(self):
        pk = self.cleaned_data.get("code")
        return self.codes_by_pk.get(pk) if pk is not None else None

    def clean_gpus(self):
        return self.convert_gpu_count("gpus")


class JobTypeForm(GpuUnitMixin, WizardStepForm):
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
    class Meta:
        model = UsageMonth
        fields = field_names("schedule", table=True)


class OptimisationForm(WizardStepForm):
    class Meta:
        model = Proposal
        fields = field_names("optimisation")
        widgets = {"optimisation_narrative": forms.Textarea(attrs={"rows": 10})}
