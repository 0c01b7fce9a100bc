"""Forms of the review pages: queue filters, comments, status changes."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from proposals.domain import workflow
from proposals.domain.response_times import calendar_problem
from proposals.domain.tiers import TIER_LABELS
from proposals.models import Cluster, Proposal, ReviewComment
from proposals.models.preferences import StaffMail
from proposals.selectors.desk import bulk_status_targets

# Every status a proposal sent for review can have, in the workflow's order.
QUEUE_STATUSES = [
    (status, Proposal.Status(status).label)
    for status in workflow.STATUSES
    if status != workflow.DRAFT
]
QUEUE_SHOW_LABELS = {
    "us": _("Waiting for us"),
    "applicant": _("Waiting for the applicant"),
    "open": _("All under review"),
    "ended": _("Ended"),
    "all": _("Everything"),
}


class QueueFilterForm(forms.Form):
    """The queue's filters; every field is optional. A value that is not one of a
    field's choices is ignored, the other filters still apply, and
    :meth:`problems` says what was ignored."""

    q = forms.CharField(
        label=_("Title, organisation or person"),
        required=False,
        max_length=100,
        help_text=_(
            "A person: the applicant or a team member, by name, username or e-mail."
        ),
    )
    show = forms.ChoiceField(
        label=_("Show"),
        choices=list(QUEUE_SHOW_LABELS.items()),
        required=False,
        help_text=_("Who owes the next step (with statuses chosen: everything)."),
    )
    status = forms.MultipleChoiceField(
        label=_("Statuses"), choices=QUEUE_STATUSES, required=False
    )
    late = forms.BooleanField(label=_("Late only"), required=False)
    tier = forms.ChoiceField(
        label=_("Requested tier"),
        # The domain marks the tier names; they are translated where shown.
        choices=[("", _("Any tier"))]
        + [(tier, _(label)) for tier, label in TIER_LABELS.items()],
        required=False,
    )
    system = forms.ChoiceField(
        label=_("System"), choices=[("", _("Any system"))], required=False
    )
    errors = forms.ChoiceField(
        label=_("Error findings"),
        choices=[
            ("", _("With or without")),
            ("yes", _("Has errors")),
            ("no", _("No errors")),
        ],
        required=False,
    )
    handler = forms.ChoiceField(
        label=_("Handled by"),
        choices=[
            ("", _("Anybody or nobody")),
            ("mine", _("Me")),
            ("nobody", _("Nobody yet")),
        ],
        required=False,
    )
    order = forms.ChoiceField(
        label=_("Sort"),
        choices=[
            ("waiting", _("Longest waiting first")),
            ("time_left", _("Least time left first")),
            ("recent", _("Newest first")),
        ],
        required=False,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = [
            ("", gettext("Any system")),
            *Cluster.objects.values_list("slug", "name"),
        ]
        # Several statuses: an unknown one is ignored (and reported), the known
        # ones chosen with it still apply.
        self.ignored_statuses = []
        if self.is_bound and hasattr(self.data, "getlist"):
            known = {value for value, _ in QUEUE_STATUSES}
            chosen = self.data.getlist("status")
            self.ignored_statuses = [value for value in chosen if value not in known]
            if self.ignored_statuses:
                self.data = self.data.copy()
                self.data.setlist("status", [v for v in chosen if v in known])

    def filters(self) -> dict:
        """Keyword arguments for ``selectors.review_queue``: the valid filters."""
        # ``errors`` cleans the form; the valid fields stay in ``cleaned_data``.
        data = self.cleaned_data if self.is_bound and self.errors is not None else {}
        errors = data.get("errors", "")
        return {
            "search": data.get("q", ""),
            # The default view: what the staff owe, endings left out.
            "show": data.get("show") or ("" if data.get("status") else "us"),
            "statuses": data.get("status", []),
            "late": data.get("late", False),
            "tier": data.get("tier", ""),
            "system": data.get("system", ""),
            "has_errors": {"yes": True, "no": False}.get(errors),
            "order": data.get("order") or "waiting",
            "handler": data.get("handler", ""),
        }

    def problems(self) -> list[str]:
        """One sentence per ignored filter value."""
        problems = [
            gettext("The filter “%(filter)s” was ignored: %(reason)s")
            % {"filter": self.fields[name].label, "reason": " ".join(errors)}
            for name, errors in self.errors.items()
            if name in self.fields
        ]
        if self.ignored_statuses:
            unknown = ", ".join(
                gettext("“%(status)s”") % {"status": v[:40]}
                for v in self.ignored_statuses
            )
            problems.append(
                gettext(
                    "The filter “%(filter)s” ignored %(values)s: "
                    "not one of the available choices."
                )
                % {"filter": self.fields["status"].label, "values": unknown}
            )
        return problems


class CommentForm(forms.Form):
    """A new comment on a section (optionally one field) or a reply to a thread."""

    section = forms.ChoiceField(choices=ReviewComment.Section.choices)
    field = forms.CharField(required=False, max_length=200)
    parent = forms.IntegerField(required=False, widget=forms.HiddenInput)
    # The revision whose rows the page showed (blank: the draft's).
    revision = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    body = forms.CharField(
        label=_("Comment"), max_length=5000, widget=forms.Textarea(attrs={"rows": 3})
    )
    staff_only = forms.BooleanField(
        label=_("Internal note (the applicant never sees it)"), required=False
    )


class StatusForm(forms.Form):
    """A status change by staff, with a note for the applicant."""

    to_status = forms.ChoiceField(
        label=_("New status"), choices=Proposal.Status.choices
    )
    # The status the page showed: a change made since is refused, saying by whom.
    from_status = forms.CharField(required=False, widget=forms.HiddenInput)
    note = forms.CharField(
        label=_("Note to the applicant"),
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
        label=_("Message to the support staff (optional)"),
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    unchanged = forms.BooleanField(
        label=_("Send it unchanged anyway"),
        required=False,
    )


class AssignForm(forms.Form):
    """Take, hand over or release a proposal (``to`` names the new handler)."""

    action = forms.ChoiceField(
        choices=[
            ("take", _("Take")),
            ("hand_over", _("Hand over")),
            ("release", _("Release")),
        ]
    )
    to = forms.IntegerField(label=_("Hand over to"), required=False)
    # Taking over: the colleague the staff member saw handling it, and confirmed.
    expected_handler = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        if data.get("action") == "hand_over" and not data.get("to"):
            self.add_error("to", gettext("Choose the colleague to hand it over to."))
        return data


class ConflictForm(forms.Form):
    """An organisation a staff member declares a conflict of interest with."""

    organisation = forms.CharField(
        label=_("Organisation or VAT number"),
        max_length=200,
        help_text=_(
            "Its proposals then reach you like your own: listed in the queue, "
            "marked, and closed to you; no staff mail about them."
        ),
    )


class DeskSettingsForm(forms.Form):
    """A staff member's own desk settings: the calendar their working days follow
    and which staff mail they get."""

    # The daily digest is sent by ``manage.py send_digests`` (hourly timer).
    staff_mail = forms.ChoiceField(
        label=_("Staff mail"), choices=StaffMail.choices, required=False
    )
    digest_hour = forms.IntegerField(
        label=_("Digest hour"),
        min_value=0,
        max_value=23,
        required=False,
        help_text=_(
            "The daily digest comes once per working day at this hour, in your "
            "time zone (0-23)."
        ),
    )

    holiday_calendar = forms.CharField(
        label=_("Your public holidays"),
        required=False,
        max_length=16,
        help_text=_(
            "A country with an optional region (FI, ES-CT, DE-BY): your waiting "
            "times and late marks skip its public holidays. Empty: the desk's."
        ),
    )

    def clean_holiday_calendar(self) -> str:
        code = self.cleaned_data["holiday_calendar"].strip().upper()
        if calendar_problem(code):
            raise forms.ValidationError(
                _(
                    "%(code)s is not a calendar the wizard knows: a country code "
                    "(FI), or a country and its region (ES-CT)."
                )
                % {"code": code}
            )
        return code


class BulkForm(forms.Form):
    """A bulk action on the rows picked in the queue (``pick``: proposal ids,
    read by the view); ``confirm`` once the staff member saw what will change."""

    action = forms.ChoiceField(
        label=_("With the chosen proposals"),
        choices=[
            ("take", _("Take them")),
            ("hand_over", _("Hand them to a colleague")),
            ("release", _("Release them")),
            ("status", _("Mark them as")),
            ("close", _("Close them, with the reason in the note")),
            ("export", _("Download them as CSV")),
        ],
    )
    to = forms.IntegerField(label=_("Colleague"), required=False)
    to_status = forms.ChoiceField(
        label=_("New status"),
        choices=[("", "—")]
        + [(s, Proposal.Status(s).label) for s in bulk_status_targets()],
        required=False,
    )
    note = forms.CharField(
        label=_("Note to the applicants"),
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    confirm = forms.BooleanField(required=False)
    # The queue's filters, to go back to the same rows.
    query = forms.CharField(required=False, max_length=2000)

    def clean(self):
        data = super().clean()
        action = data.get("action")
        if action == "close":  # a status move whose note is the reason
            data["action"], data["to_status"] = "status", workflow.CLOSED
        action = data.get("action")
        if action == "hand_over" and not data.get("to"):
            self.add_error("to", gettext("Choose the colleague to hand it over to."))
        if action == "status":
            if not data.get("to_status"):
                self.add_error("to_status", gettext("Choose the new status."))
            elif problem := workflow.note_problem(data["to_status"], data["note"]):
                self.add_error("note", problem)
        return data
