"""What every wizard form shares.

One form per step; repeatable entries are one small ModelForm per row, prefixed with
the row's primary key (``jobs-17-gpus``), so a row's inputs keep their names however
rows are added, removed or reordered in other requests.
"""

import copy

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from proposals.domain import layouts
from proposals.domain.bounds import BOUNDS
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.numbers import NUMBER_FORMAT_BY_NAME, NumberFormat, active_format
from proposals.domain.types import MODEL_USE_LABELS, ORGANISATION_KIND_LABELS

from .fields import NumberField, our_messages

ENGLISH = NUMBER_FORMAT_BY_NAME["en"]
# Choices whose words the domain keeps (``i18n.Labels``): the models freeze them in
# English when they are imported, the form reads them in the active language.
DOMAIN_CHOICES = {
    "organisation_kind": ORGANISATION_KIND_LABELS,
    "codes.model_use": MODEL_USE_LABELS,
}


#: The fitted fields of each form class, by layout, language and number formats
#: (:meth:`WizardStepForm.fitted_fields`).
_FITTED: dict[tuple, dict[str, forms.Field]] = {}


def field_names(section_or_table: str, *, table: bool = False) -> list[str]:
    """The model fields a wizard form edits: those its layout shows, in page order
    (``domain.layouts``)."""
    layout = (
        layouts.row_layout(section_or_table)
        if table
        else layouts.step_layout(section_or_table)
    )
    return list(layout.fields) if layout is not None else []


def gpu_unit_label(unit: str) -> str:
    """The word after a GPU count in the unit the applicant types in (``"gcds"``
    or physical GPUs), in the person's language."""
    return _("GCDs") if unit == "gcds" else _("GPUs")


class WizardStepForm(forms.ModelForm):
    """Common behaviour: portal labels, widgets that the live view can hook into,
    numbers read in the person's format, and only our own messages.

    The model fields' validators and ``Model.clean()`` run as usual (they hold the
    same bounds, so their messages never show); the check constraints are left to
    the database (a violating save is refused and reported), since validating them
    here costs one query per constraint on every keystroke: the models say so
    themselves (``models.constraints.RestatedConstraints``).
    """

    table: str | None = None  # the table kind of a row form
    step: str | None = None  # the step of a step's own form
    gpu_count_fields: tuple[str, ...] = ()  # typed in the applicant's GPU unit

    @classmethod
    def laid_out(cls) -> list[str]:
        """The fields this form edits: its layout's, read when its fields are
        fitted (:meth:`fitted_fields`)."""
        if cls.table:
            return field_names(cls.table, table=True)
        return field_names(cls.step)

    @classmethod
    def field_key(cls, name: str) -> str:
        return f"{cls.table}.{name}" if cls.table else name

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
        # Any other form deep-copies (as Django does) the class's fields already
        # fitted to the language and the number format (:meth:`fitted_fields`).
        self.shares_fields = shared_fields is not None
        self.base_fields = (
            {} if self.shares_fields else self.fitted_fields(number_format)
        )
        super().__init__(*args, **kwargs)
        self.held_notes: dict[str, str] = {}
        self.refused_errors: dict[str, str] = {}
        if self.shares_fields:
            self.fields = dict(shared_fields)

    @classmethod
    def fitted_fields(cls, number_format: NumberFormat) -> dict[str, forms.Field]:
        """The fields this form edits as the active language and ``number_format``
        show them (their messages' numbers in the active format), made once per
        class, layout, language and formats: the form's own fields are deep copies of
        these, which never change themselves. Fitting them afresh for every bound
        form cost as much as its copies (translations, number fields, messages)."""
        # Only the laid-out fields: one that the page does not show is not posted by
        # a Save without JavaScript, and must not read as "cleared".
        names = tuple(cls.laid_out())
        key = (cls, names, get_language(), number_format, active_format())
        found = _FITTED.get(key)
        if found is None:
            found = _FITTED[key] = cls.fit_fields(names, number_format)
        return found

    @classmethod
    def fit_fields(cls, names, number_format: NumberFormat) -> dict[str, forms.Field]:
        """The fields ``names`` fitted (:meth:`fitted_fields` keeps them); a step's
        form adds its own fitting to this."""
        fields = copy.deepcopy({name: cls.base_fields[name] for name in names})
        for name, field in list(fields.items()):
            # The domain's label in the active language (the model's verbose name
            # was frozen in English at import).
            spec = FIELD_BY_KEY.get(cls.field_key(name))
            if spec is not None:
                field.label = spec.label
            labels = DOMAIN_CHOICES.get(cls.field_key(name))
            if labels is not None:
                field.choices = [(v, labels.get(v, text)) for v, text in field.choices]
            bound = BOUNDS.get(cls.field_key(name))
            if bound is not None:
                spec = FIELD_BY_KEY[cls.field_key(name)]
                fields[name] = NumberField(
                    bound=bound,
                    number_format=number_format,
                    unit=spec.unit,
                    label=field.label,
                    help_text=field.help_text,
                    required=False,
                )
                continue
            our_messages(field)
            widget = field.widget
            if isinstance(widget, forms.RadioSelect):
                widget.attrs["class"] = "form-check-input"
                continue
            if isinstance(widget, forms.Select):
                continue
            if isinstance(widget, forms.Textarea):
                widget.attrs.setdefault("rows", 4)
        return fields

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
                self.refused_errors[name] = entry["message"]
        if self.refused_errors:
            self.full_clean()  # the errors, even if they were read before

    def full_clean(self):
        """As Django's, and an unbound form (which has nothing to clean) reports what
        was refused earlier (:meth:`show_refused`) as its fields' errors."""
        super().full_clean()
        if self.is_bound or not self.refused_errors:
            return
        self.cleaned_data = {}
        for name, message in self.refused_errors.items():
            self.add_error(name, message)


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
            # Fields shared with a table's first row (``shared_fields``) have been
            # set up by it, with the same unit: not once more per row.
            if not getattr(self, "shares_fields", False):
                field.widget.attrs["data-gpu-count"] = "1"
                field.unit = gpu_unit_label(self.gpu_unit)
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
                _(
                    "%(value)s GCDs is not a whole number of GPUs: each GPU has "
                    "%(gcds)s GCDs, so enter a multiple of %(gcds)s."
                )
                % {"value": value, "gcds": self.gcds_per_gpu}
            )
        return gpus
