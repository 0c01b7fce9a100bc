"""Forms of the review pages: queue filters, comments, status changes."""

from django import forms

from proposals.domain.tiers import TIER_LABELS
from proposals.models import Cluster, Proposal, ReviewComment

QUEUE_STATUSES = [
    (Proposal.Status.SUBMITTED, "Waiting for review"),
    (Proposal.Status.CHANGES_REQUESTED, "Changes requested"),
    (Proposal.Status.READY, "Ready to submit"),
    (Proposal.Status.CHANGED_IN_REVIEW, Proposal.Status.CHANGED_IN_REVIEW.label),
    (Proposal.Status.CHANGED_SINCE_READY, Proposal.Status.CHANGED_SINCE_READY.label),
]


class QueueFilterForm(forms.Form):
    """The queue's filters; every field is optional and bad values are ignored."""

    q = forms.CharField(label="Title or organisation", required=False, max_length=100)
    status = forms.ChoiceField(
        choices=[("", "Any status"), *QUEUE_STATUSES], required=False
    )
    tier = forms.ChoiceField(
        label="Requested tier",
        choices=[("", "Any tier"), *TIER_LABELS.items()],
        required=False,
    )
    system = forms.ChoiceField(choices=[("", "Any system")], required=False)
    errors = forms.ChoiceField(
        label="Error findings",
        choices=[("", "With or without"), ("yes", "Has errors"), ("no", "No errors")],
        required=False,
    )
    handler = forms.ChoiceField(
        label="Handled by",
        choices=[("", "Anybody or nobody"), ("mine", "Me"), ("nobody", "Nobody yet")],
        required=False,
    )
    order = forms.ChoiceField(
        label="Sort",
        choices=[("waiting", "Longest waiting first"), ("recent", "Newest first")],
        required=False,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = [
            ("", "Any system"),
            *Cluster.objects.values_list("slug", "name"),
        ]

    def filters(self) -> dict:
        """Keyword arguments for ``selectors.review_queue``."""
        data = self.cleaned_data if self.is_valid() else {}
        errors = data.get("errors", "")
        return {
            "search": data.get("q", ""),
            "status": data.get("status", ""),
            "tier": data.get("tier", ""),
            "system": data.get("system", ""),
            "has_errors": {"yes": True, "no": False}.get(errors),
            "order": data.get("order") or "waiting",
            "handler": data.get("handler", ""),
        }


class CommentForm(forms.Form):
    """A new comment on a section (optionally one field) or a reply to a thread."""

    section = forms.ChoiceField(choices=ReviewComment.Section.choices)
    field = forms.CharField(required=False, max_length=200)
    parent = forms.IntegerField(required=False, widget=forms.HiddenInput)
    body = forms.CharField(
        label="Comment", max_length=5000, widget=forms.Textarea(attrs={"rows": 3})
    )
    staff_only = forms.BooleanField(
        label="Internal note (the applicant never sees it)", required=False
    )


class StatusForm(forms.Form):
    """A status change by staff, with a note for the applicant."""

    to_status = forms.ChoiceField(label="New status", choices=Proposal.Status.choices)
    note = forms.CharField(
        label="Note to the applicant",
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, *args, targets=(), **kwargs):
        super().__init__(*args, **kwargs)
        labels = dict(Proposal.Status.choices)
        self.fields["to_status"].choices = [(t, labels[t]) for t in targets]


class SubmitForm(forms.Form):
    """The "Send for review" form, with an optional message to the staff."""

    note = forms.CharField(
        label="Message to the support staff (optional)",
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class AssignForm(forms.Form):
    """Take, hand over or release a proposal (``to`` names the new handler)."""

    action = forms.ChoiceField(
        choices=[("take", "Take"), ("hand_over", "Hand over"), ("release", "Release")]
    )
    to = forms.IntegerField(label="Hand over to", required=False)

    def clean(self):
        data = super().clean()
        if data.get("action") == "hand_over" and not data.get("to"):
            self.add_error("to", "Choose the colleague to hand it over to.")
        return data
