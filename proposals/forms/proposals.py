"""Creating a proposal and copying one (the wizard's own forms are in ``base``,
``steps`` and ``rows``)."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms

from proposals.models import Proposal


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


class ProposalDuplicateForm(forms.ModelForm):
    """The title of a copy (the applicant sets it; it starts as "Copy of …")."""

    class Meta:
        model = Proposal
        fields = ["title"]
        help_texts = {
            "title": "The copy is a new draft with every value and row of the original."
        }
