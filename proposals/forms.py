"""Forms for accounts and proposals. Labels follow the portal's wording."""

from decimal import Decimal
from zoneinfo import available_timezones

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.contrib.auth.forms import BaseUserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.forms.utils import ErrorDict

from proposals.domain import layouts
from proposals.domain.bounds import BOUNDS, Bound
from proposals.domain.fields import FIELD_BY_KEY, label
from proposals.domain.numbers import (
    NUMBER_FORMAT_BY_NAME,
    NumberError,
    NumberFormat,
    format_number,
    number_formats,
    parse_number,
)
from proposals.models import (
    CodeEntry,
    JobType,
    Preferences,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)

ENGLISH = NUMBER_FORMAT_BY_NAME["en"]


class SignUpForm(BaseUserCreationForm):
    """Checks only what the person typed. Whether the username or address is taken
    is decided by ``services.account_signup`` and told only to the address, so that
    the form reveals nothing about other accounts."""

    email = forms.EmailField(
        required=True,
        help_text="We send a link to this address to finish creating the account; "
        "it is then used for password resets and review notifications.",
    )

    class Meta(BaseUserCreationForm.Meta):
        model = User
        fields = ["username", "email"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", "Create account"))

    def validate_unique(self):
        """No "a user with that username already exists" (see the class)."""


def _number_format_choices():
    return [(fmt.name, fmt.label) for fmt in number_formats()]


def _time_zone_choices():
    return [(name, name.replace("_", " ")) for name in sorted(available_timezones())]


class PreferencesForm(forms.ModelForm):
    """The person's number and date format (every CLDR locale with Latin digits)
    and time zone."""

    number_format = forms.ChoiceField(choices=_number_format_choices)
    time_zone = forms.ChoiceField(choices=_time_zone_choices)

    class Meta:
        model = Preferences
        fields = ["number_format", "time_zone"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.Meta.fields:
            model_field = Preferences._meta.get_field(name)
            self.fields[name].label = model_field.verbose_name.capitalize()
            self.fields[name].help_text = model_field.help_text


class AccountDeleteForm(forms.Form):
    """Deleting an account asks for its password (as changing the password does)."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, user, *args, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise ValidationError(
                "That is not your password: nothing was deleted.",
                code="password_incorrect",
            )
        return password


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
    from proposals.domain.countries import STATUS_LABELS, eligible_countries, names
    from proposals.reference_data import cached_countries

    eligible = cached_countries() or eligible_countries()
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


class NumberField(forms.Field):
    """A number typed as people write it, read in the person's number format
    (``domain.numbers``) and checked against the field's bounds (``domain.bounds``),
    with our messages. A text input: ``type=number`` lets browsers drop what they
    cannot read (``0,2`` became ``02``)."""

    def __init__(self, *, bound: Bound, number_format: NumberFormat, unit="", **kwargs):
        mode = "numeric" if bound.places == 0 else "decimal"
        kwargs.setdefault(
            "widget", forms.TextInput(attrs={"inputmode": mode, "autocomplete": "off"})
        )
        super().__init__(**kwargs)
        self.bound = bound
        self.number_format = number_format
        self.unit = unit
        self.scale = 1  # GCDs per GPU while GPU counts are typed in GCDs
        self.reading = None

    def prepare_value(self, value):
        if isinstance(value, Decimal | int) and not isinstance(value, bool):
            return format_number(value, self.number_format, grouping=False)
        return value

    def to_python(self, value):
        self.reading = None
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if isinstance(value, Decimal | int):
            return value
        try:
            self.reading = parse_number(
                str(value), self.number_format, places=self.bound.places
            )
        except NumberError as error:
            raise ValidationError(str(error), code="invalid") from None
        number = self.reading.value
        return int(number) if self.bound.places == 0 else number

    def validate(self, value):
        super().validate(value)
        if value is None:
            return
        low, high = self.bound.low * self.scale, self.bound.high * self.scale
        if value < low:
            raise ValidationError(
                f"Enter {self.show(low)} or more: {self.bound.why_low}.", code="low"
            )
        if value > high:
            raise ValidationError(
                f"Enter at most {self.show(high)}: {self.bound.why_high}.", code="high"
            )

    def show(self, value) -> str:
        return format_number(value, self.number_format)

    @property
    def reading_note(self) -> str:
        """ "Read as 5,001 GPU-hours" when the typed text could mean another value."""
        if self.reading is None or not self.reading.ambiguous:
            return ""
        return f"Read as {self.show(self.reading.value)} {self.unit}".strip()


def field_names(section_or_table: str, *, table: bool = False) -> list[str]:
    """The model fields a wizard form edits: those its layout shows, in page order
    (``domain.layouts``)."""
    layout = (
        layouts.row_layout(section_or_table)
        if table
        else layouts.step_layout(section_or_table)
    )
    return list(layout.fields) if layout is not None else []


def _our_messages(field: forms.Field) -> None:
    """Replace Django's generic messages with ours (what to do, in our words)."""
    field.error_messages["invalid_choice"] = "Choose one of the listed options."
    if getattr(field, "max_length", None):
        limit = field.max_length
        field.validators = [
            v for v in field.validators if not isinstance(v, MaxLengthValidator)
        ] + [
            MaxLengthValidator(
                limit,
                message=f"Shorten this to at most {limit:,} characters "
                "(it has %(show_value)d).",
            )
        ]


class WizardStepForm(forms.ModelForm):
    """Common behaviour: portal labels, widgets that the live view can hook into,
    numbers read in the person's format, and only our own messages.

    The model fields' validators and ``Model.clean()`` run as usual (they hold the
    same bounds, so their messages never show); the check constraints are left to
    the database (a violating save is refused and reported), since validating them
    here costs one query per constraint on every keystroke.
    """

    table: str | None = None  # the table kind of a row form
    step: str | None = None  # the step of a step's own form
    gpu_count_fields: tuple[str, ...] = ()  # typed in the applicant's GPU unit

    def laid_out(self) -> list[str]:
        """The fields this form edits: its layout's, read when the form is made."""
        if self.table:
            return field_names(self.table, table=True)
        return field_names(self.step)

    def field_key(self, name: str) -> str:
        return f"{self.table}.{name}" if self.table else name

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

    def __init__(
        self,
        *args,
        number_format: NumberFormat = ENGLISH,
        shared_fields: dict | None = None,
        **kwargs,
    ):
        # ``shared_fields``: the fields of an unbound form of the same class made with
        # the same arguments. Unbound forms never change their fields, so the rows of
        # a table share one set rather than deep-copying and re-fitting it per row.
        self.shares_fields = shared_fields is not None
        if self.shares_fields:
            self.base_fields = {}
        super().__init__(*args, **kwargs)
        self.held_notes: dict[str, str] = {}
        if self.shares_fields:
            self.fields = dict(shared_fields)
            return
        # Only the laid-out fields: one that the page does not show is not posted by
        # a Save without JavaScript, and must not read as "cleared".
        self.fields = {name: self.fields[name] for name in self.laid_out()}
        for name, field in list(self.fields.items()):
            bound = BOUNDS.get(self.field_key(name))
            if bound is not None:
                spec = FIELD_BY_KEY[self.field_key(name)]
                self.fields[name] = NumberField(
                    bound=bound,
                    number_format=number_format,
                    unit=spec.unit,
                    label=field.label,
                    help_text=field.help_text,
                    required=False,
                )
                continue
            _our_messages(field)
            widget = field.widget
            if isinstance(widget, forms.RadioSelect):
                widget.attrs["class"] = "form-check-input"
                continue
            if isinstance(widget, forms.Select):
                continue
            if isinstance(widget, forms.Textarea):
                widget.attrs.setdefault("rows", 4)

    @property
    def notes(self) -> dict[str, str]:
        """Per field: how an ambiguous number was read, or why a value is held."""
        notes = dict(self.held_notes)
        for name, field in self.fields.items():
            if isinstance(field, NumberField) and field.reading_note:
                notes[name] = field.reading_note
        return notes

    def show_refused(self, refused: dict) -> None:
        """Show what was typed and refused earlier (``Proposal.refused_inputs``) in
        place of the stored value, with its message (unbound forms only)."""
        if self.is_bound:
            return
        for name in self.fields:
            entry = refused.get(self.add_prefix(name))
            if entry is None:
                continue
            self.initial[name] = entry["text"]
            if entry.get("held"):
                self.held_notes[name] = entry["message"]
            else:
                if self._errors is None:
                    self._errors = ErrorDict()
                self._errors[name] = self.error_class([entry["message"]])


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


class GpuUnitMixin:
    """Lets the applicant type GPU counts in GCDs on systems whose GPUs have several
    dies (LUMI-G); the form converts them and the database always holds physical GPUs.
    """

    gpu_count_fields: tuple[str, ...] = ()

    def setup_gpu_unit(self, *, gcds_per_gpu: int, unit: str):
        self.gcds_per_gpu = max(1, gcds_per_gpu or 1)
        self.gpu_unit = unit if unit == "gcds" and self.gcds_per_gpu > 1 else "gpus"
        for name in self.gpu_count_fields:
            field = self.fields.get(name)
            if field is None:  # not laid out
                continue
            field.widget.attrs["data-gpu-count"] = "1"
            field.unit = "GCDs" if self.gpu_unit == "gcds" else "GPUs"
            if self.gpu_unit == "gcds":
                field.scale = self.gcds_per_gpu
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


class ClusterChoiceField(forms.ModelChoiceField):
    """The system, found among the clusters kept in process (``reference_data``):
    no query on every keystroke of the selection step."""

    def to_python(self, value):
        from proposals.reference_data import cached_clusters

        if value in self.empty_values:
            return None
        found = cached_clusters().get(str(getattr(value, "pk", value)))
        if found is None:
            raise ValidationError(
                self.error_messages["invalid_choice"],
                code="invalid_choice",
                params={"value": value},
            )
        return found


class SelectionForm(GpuUnitMixin, WizardStepForm):
    step = "selection"
    gpu_count_fields = ("max_gpus_per_job",)

    class Meta:
        model = Proposal
        fields = field_names("selection")
        field_classes = {"system": ClusterChoiceField}
        widgets = {
            "libraries": forms.Textarea(attrs={"rows": 2}),
            "auxiliary_services": forms.Textarea(attrs={"rows": 2}),
            "storage_justification": forms.Textarea(attrs={"rows": 2}),
            "transfer_justification": forms.Textarea(attrs={"rows": 2}),
        }

    def __init__(self, *args, gpu_unit="gpus", **kwargs):
        super().__init__(*args, **kwargs)
        if "system" in self.fields:
            self.fields["system"].empty_label = "Choose a system"
        system = self.instance.system
        self.setup_gpu_unit(
            gcds_per_gpu=system.gcds_per_gpu if system else 1, unit=gpu_unit
        )

    def clean_max_gpus_per_job(self):
        return self.convert_gpu_count("max_gpus_per_job")

    def _get_validation_exclusions(self):
        # The system is one of the catalogue's (``ClusterChoiceField``): the model's
        # check that it exists would cost a query on every keystroke.
        exclusions = super()._get_validation_exclusions()
        exclusions.add("system")
        return exclusions


class CodeEntryForm(WizardStepForm):
    table = "codes"

    class Meta:
        model = CodeEntry
        fields = field_names("codes", table=True)
        widgets = {
            "references": forms.Textarea(attrs={"rows": 3}),
            "description": forms.Textarea(attrs={"rows": 6}),
        }


class ScalabilityForm(WizardStepForm):
    step = "scalability"

    class Meta:
        model = Proposal
        fields = field_names("scalability")
        widgets = {
            "scalability_narrative": forms.Textarea(attrs={"rows": 8}),
            "workload": forms.RadioSelect,
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "workload" in self.fields:
            self.fields["workload"].choices = [
                choice for choice in self.fields["workload"].choices if choice[0]
            ]


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
        self.codes_by_pk = {code.pk: code for code in codes}
        self.initial["code"] = self.instance.code_id
        self.setup_gpu_unit(gcds_per_gpu=gcds_per_gpu, unit=gpu_unit)

    def clean_code(self):
        pk = self.cleaned_data.get("code")
        return self.codes_by_pk.get(pk) if pk is not None else None

    def _get_validation_exclusions(self):
        # The code is one of the proposal's own (``codes_by_pk``): the model's check
        # that it exists would cost a query per row on every keystroke.
        exclusions = super()._get_validation_exclusions()
        exclusions.add("code")
        return exclusions

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


class OptimisationForm(WizardStepForm):
    step = "optimisation"

    class Meta:
        model = Proposal
        fields = field_names("optimisation")
        widgets = {"optimisation_narrative": forms.Textarea(attrs={"rows": 10})}


class ProposalDuplicateForm(forms.ModelForm):
    """The title of a copy (the applicant sets it; it starts as "Copy of …")."""

    class Meta:
        model = Proposal
        fields = ["title"]
        help_texts = {
            "title": "The copy is a new draft with every value and row of the original."
        }
