"""The Team page's forms: an invitation, and a member's new role."""

from django import forms
from django.utils.translation import gettext_lazy, ngettext

from proposals.domain.team import INVITABLE_ROLES, INVITATION_DAYS
from proposals.models import ROLE_LABELS


def _role_choices():
    return [(role.value, ROLE_LABELS[role]) for role in INVITABLE_ROLES]


class TeamInviteForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("E-mail address"),
        max_length=254,
    )
    role = forms.ChoiceField(
        label=gettext_lazy("Role"),
        choices=_role_choices,
        initial="editor",
        help_text=gettext_lazy(
            "Editors change every step and send the proposal for review; viewers "
            "read, comment and export."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["email"].help_text = ngettext(
            "The invitation's link works once, for %(days)d day, for the account "
            "with this address.",
            "The invitation's link works once, for %(days)d days, for the account "
            "with this address.",
            INVITATION_DAYS,
        ) % {"days": INVITATION_DAYS}


class TeamRoleForm(forms.Form):
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=_role_choices)
