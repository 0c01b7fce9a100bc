"""Forms for accounts and proposals. Labels follow the portal's wording.

One module per kind: ``accounts`` (sign-up, preferences, deletion), ``proposals``
(creating and copying), and the wizard's: ``fields`` (its own form fields), ``base``
(what every wizard form shares), ``steps`` (a step's own fields) and ``rows`` (one
form per table row). Import them from here.
"""

from .accounts import (
    AccountDeleteForm,
    PreferencesForm,
    SecondFactorForm,
    SignUpForm,
)
from .base import ENGLISH, GpuUnitMixin, WizardStepForm, field_names
from .fields import YES_NO_UNKNOWN, ClusterChoiceField, NumberField, country_choices
from .proposals import ProposalCreateForm, ProposalDuplicateForm
from .steps import OptimisationForm, OrganisationForm, ScalabilityForm, SelectionForm
from .table_forms import CodeEntryForm, JobTypeForm, MeasurementForm, UsageMonthForm
from .team import TeamInviteForm, TeamRoleForm

__all__ = [
    "ENGLISH",
    "YES_NO_UNKNOWN",
    "AccountDeleteForm",
    "SecondFactorForm",
    "ClusterChoiceField",
    "CodeEntryForm",
    "GpuUnitMixin",
    "JobTypeForm",
    "MeasurementForm",
    "NumberField",
    "OptimisationForm",
    "OrganisationForm",
    "PreferencesForm",
    "ProposalCreateForm",
    "ProposalDuplicateForm",
    "TeamInviteForm",
    "TeamRoleForm",
    "ScalabilityForm",
    "SelectionForm",
    "SignUpForm",
    "UsageMonthForm",
    "WizardStepForm",
    "country_choices",
    "field_names",
]
