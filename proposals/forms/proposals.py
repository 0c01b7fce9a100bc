"""Creating a proposal and copying one (the wizard's own forms are in ``base``,
``steps`` and ``rows``)."""

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from proposals.domain.fields import label
from proposals.models import Proposal

from .fields import ClusterChoiceField, TargetSelect


class ProposalCreateForm(forms.ModelForm):
    class Meta:
        model = Proposal
        fields = ["title", "call_family", "system"]
        field_classes = {"system": ClusterChoiceField}
        widgets = {"system": TargetSelect}
        help_texts = {
            "title": gettext_lazy(
                "A working title; only you and the support staff see it."
            ),
            "system": gettext_lazy(
                "The supercomputer you apply for. You can change it later."
            ),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The model's verbose names are the domain's labels, made at import in
        # English: read them in the person's language.
        for name, field in self.fields.items():
            field.label = _(label(name))
        self.fields["system"].empty_label = _("Not decided yet")
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", _("Create proposal")))


class ProposalDuplicateForm(forms.ModelForm):
    """The title of a copy (the applicant sets it; it starts as "Copy of …")."""

    class Meta:
        model = Proposal
        fields = ["title"]
        help_texts = {
            "title": gettext_lazy(
                "The copy is a new draft with every value and row of the original."
            )
        }
