"""The wizard's own form fields and choices: numbers read in the person's format,
the system from the catalogue kept in process, countries grouped by eligibility."""

from decimal import Decimal

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from proposals.domain.bounds import Bound
from proposals.domain.numbers import (
    NumberError,
    NumberFormat,
    format_number,
    grouped,
    parse_number,
)

YES_NO_UNKNOWN = [
    ("", gettext_lazy("Not answered")),
    ("true", gettext_lazy("Yes")),
    ("false", gettext_lazy("No")),
]


def country_choices():
    """Every ISO 3166 country, the eligible ones first, grouped by their status in
    the eligibility data (database, else the shipped data)."""
    from proposals.domain.countries import (
        STATUS_LABELS,
        eligible_countries,
        local_names,
        sort_key,
    )
    from proposals.reference_data import cached_countries

    eligible = cached_countries() or eligible_countries()
    shown = local_names(get_language())  # the person's names; the codes stay

    def by_name(item):
        return sort_key(item[1])

    groups: dict[str, list] = {}
    for status, status_label in STATUS_LABELS.items():
        members = sorted(
            (
                (c.code, shown.get(c.code, c.name))
                for c in eligible.values()
                if c.status == status
            ),
            key=by_name,
        )
        if members:
            groups[status_label[0].upper() + status_label[1:]] = members
    others = sorted(
        ((code, name) for code, name in shown.items() if code not in eligible),
        key=by_name,
    )
    return [
        ("", _("Choose a country")),
        *groups.items(),
        (_("Other countries"), others),
    ]


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
                _("Enter %(low)s or more: %(why)s.")
                % {"low": self.show(low), "why": self.bound.why_low},
                code="low",
            )
        if value > high:
            raise ValidationError(
                _("Enter at most %(high)s: %(why)s.")
                % {"high": self.show(high), "why": self.bound.why_high},
                code="high",
            )

    def show(self, value) -> str:
        return format_number(value, self.number_format)

    @property
    def reading_note(self) -> str:
        """ "Read as 5,001 GPU-hours" when the typed text could mean another value."""
        if self.reading is None or not self.reading.ambiguous:
            return ""
        if not self.unit:
            return _("Read as %(value)s") % {"value": self.show(self.reading.value)}
        return _("Read as %(value)s %(unit)s") % {
            "value": self.show(self.reading.value),
            "unit": self.unit,
        }


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
        reason = found.not_a_target()
        if reason:
            raise ValidationError(reason, code="not_in_production")
        return found

    def label_from_instance(self, obj):
        if obj.in_production:
            return obj.name
        return _("%(system)s (%(expected)s)") % {
            "system": obj.name,
            "expected": obj.expected_text(),
        }


class TargetSelect(forms.Select):
    """A select whose systems not yet in production are shown, disabled."""

    def create_option(self, name, value, *args, **kwargs):
        option = super().create_option(name, value, *args, **kwargs)
        instance = getattr(value, "instance", None)
        if instance is not None and not instance.in_production:
            option["attrs"]["disabled"] = True
        return option


def our_messages(field: forms.Field) -> None:
    """Replace Django's generic messages with ours (what to do, in our words)."""
    field.error_messages["invalid_choice"] = _("Choose one of the listed options.")
    if getattr(field, "max_length", None):
        limit = field.max_length
        field.validators = [
            v for v in field.validators if not isinstance(v, MaxLengthValidator)
        ] + [
            MaxLengthValidator(
                limit,
                # Django fills in %(show_value)d when it refuses the text.
                message=_(
                    "Shorten this to at most %(limit)s characters (it has "
                    "%%(show_value)d)."
                )
                % {"limit": grouped(limit, 0)},
            )
        ]
