"""The call router's questions (``/calls/``): a few answers, read as a domain
``Profile``. Sent by GET, so that the answers stay in the address (across the
log-in that starting a proposal needs, and in a bookmark)."""

from zoneinfo import available_timezones

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from proposals.domain.router import ACCELERATORS, WORK_KINDS, Profile
from proposals.domain.types import ORGANISATION_KIND_LABELS
from proposals.models import Proposal
from proposals.models.preferences import DEFAULT_TIME_ZONE

from .fields import country_choices

BILLION = 1e9


def zone_choices():
    """The European zones and UTC, by name."""
    zones = sorted(z for z in available_timezones() if z.startswith("Europe/"))
    return [(z, z.replace("_", " ")) for z in [*zones, "UTC"]]


class RouterForm(forms.Form):
    organisation_kind = forms.ChoiceField(
        label=gettext_lazy("Your organisation"), required=False
    )
    country = forms.ChoiceField(
        label=gettext_lazy("Country where it is incorporated"), required=False
    )
    work = forms.ChoiceField(label=gettext_lazy("What the work is"))
    params_billion = forms.FloatField(
        label=gettext_lazy("Model size, billions of parameters"),
        required=False,
        min_value=0.001,
        max_value=100000,
    )
    tokens_billion = forms.FloatField(
        label=gettext_lazy("Tokens to process, billions"),
        required=False,
        min_value=0.001,
        max_value=1e7,
    )
    gpu_hours = forms.FloatField(
        label=gettext_lazy("GPU-hours, if you know them"),
        required=False,
        min_value=1,
        max_value=1e9,
        help_text=gettext_lazy(
            "When given, they count instead of the model's estimate."
        ),
    )
    accelerator = forms.ChoiceField(label=gettext_lazy("Accelerator"))
    experience = forms.ChoiceField(
        label=gettext_lazy("Your team's experience on supercomputers"),
        choices=Proposal.Experience.choices,
    )
    needed_by = forms.DateField(
        label=gettext_lazy("Compute needed by"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    zone = forms.ChoiceField(label=gettext_lazy("Show times in"), required=False)

    def __init__(self, *args, zone: str = DEFAULT_TIME_ZONE, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["organisation_kind"].choices = [
            ("", _("Choose")),
            *ORGANISATION_KIND_LABELS.items(),
        ]
        self.fields["country"].choices = country_choices()
        self.fields["work"].choices = list(WORK_KINDS.items())
        self.fields["accelerator"].choices = list(ACCELERATORS.items())
        self.fields["zone"].choices = zone_choices()
        self.fields["zone"].initial = zone

    def profile(self) -> Profile:
        """The answers as the router reads them (a valid form only)."""
        data = self.cleaned_data
        params, tokens = data.get("params_billion"), data.get("tokens_billion")
        return Profile(
            organisation_kind=data.get("organisation_kind") or "",
            country=data.get("country") or "",
            work=data["work"],
            params=params * BILLION if params else None,
            tokens=tokens * BILLION if tokens else None,
            gpu_hours=data.get("gpu_hours"),
            accelerator=data["accelerator"],
            experience=data["experience"],
            needed_by=data.get("needed_by"),
        )
