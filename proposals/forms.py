"""Forms for accounts and proposals. Labels follow the portal's wording."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

from proposals.models import Proposal


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


class ProposalEditForm(forms.ModelForm):
    """Every single-valued field of a proposal on one page (the wizard splits them)."""

    class Meta:
        model = Proposal
        exclude = ["owner", "status", "revision"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", "Save"))
