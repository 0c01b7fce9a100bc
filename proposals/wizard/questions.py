"""What the wizard tells the person after a save it could not do as asked: the
fields changed elsewhere (the conflict banner), a row changed or removed in another
tab (the question above the step), each value written as people read it."""

from decimal import Decimal, InvalidOperation

from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from proposals import selectors, services
from proposals.domain.fields import FIELD_BY_KEY
from proposals.domain.numbers import format_number, grouped
from proposals.domain.sections import TABLE_BY_KIND
from proposals.wizard.steps import row_id

NUMBER_FIELDS = (models.IntegerField, models.DecimalField, models.FloatField)


def ago(seconds: float) -> str:
    """``20 s ago``, ``3 min ago``, ``2 h ago``, ``4 days ago``: how long ago a
    value was changed elsewhere, rounded down to a whole unit, in the person's
    language and number format."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return _("{n} s ago").format(n=grouped(seconds, 0))
    if seconds < 3600:
        return _("{n} min ago").format(n=grouped(seconds // 60, 0))
    if seconds < 86400:
        return _("{n} h ago").format(n=grouped(seconds // 3600, 0))
    days = seconds // 86400
    if days == 1:
        return _("1 day ago")
    return _("{n} days ago").format(n=grouped(days, 0))


def describe_row_changed(changed, fmt) -> dict | None:
    """A delete not done because the row changed elsewhere, as the question above
    the step shows it (:func:`describe_changed_rows`)."""
    if changed is None:
        return None
    row = changed.row
    kind = _kind_of(row)
    item = TABLE_BY_KIND[kind].item
    url = reverse(
        "proposals:row",
        kwargs={
            "pk": row.proposal_id,
            "step": TABLE_BY_KIND[kind].section,
            "kind": kind,
            "row": row.pk,
            "operation": "delete",
        },
    )
    return describe_changed_rows(
        [changed],
        fmt,
        heading=_("This %(item)s was changed in another tab") % {"item": item.lower()},
        outcome=_("so it was not removed"),
        url=url,
        confirm=_("Delete anyway"),
        keep=_("Keep it"),
    )


def describe_changed_rows(changed, fmt, *, heading, outcome, url, confirm, keep):
    """Rows changed elsewhere that an operation would have removed, as the question
    above the step shows them: per row, what changed (the field's label, what this
    page showed, what is stored), and the two choices (``confirm`` posts to
    ``url``; ``keep`` saves the step and closes the question)."""
    rows = []
    for change in changed:
        row = change.row
        kind = _kind_of(row)
        rows.append(
            {
                "prefix": f"{kind}-{row.pk}",
                "name": getattr(row, TABLE_BY_KIND[kind].name_field, "")
                if TABLE_BY_KIND[kind].name_field
                else "",
                "fields": [
                    {
                        "label": _field_label(kind, name),
                        "shown": _stored_text(row, name, base, fmt),
                        "stored": _stored_text(row, name, stored, fmt),
                    }
                    for name, base, stored in change.fields
                ],
            }
        )
    return {
        "heading": heading,
        "outcome": outcome,
        "rows": rows,
        "url": url,
        "confirm": confirm,
        "keep": keep,
    }


def _kind_of(row) -> str:
    return next(k for k, model in services.ROW_MODELS.items() if isinstance(row, model))


def describe_row_gone(row_op, gone: bool) -> dict | None:
    """A row operation on a row removed elsewhere: nothing done, said so."""
    if not gone or not row_op:
        return None
    operation, kind, _ = row_op
    return {"item": TABLE_BY_KIND[kind].item, "operation": operation}


def _field_label(kind: str, name: str) -> str:
    spec = FIELD_BY_KEY.get(f"{kind}.{name}")
    return spec.label if spec else name


def _stored_text(row, name: str, value, fmt) -> str:
    """A row's value (stored, or as a page showed it) as people read it: a number
    in the person's format, a choice by its label, a related row by its name."""
    if value is None or value == "":
        return _("(empty)")
    field = type(row)._meta.get_field(name)
    if field.is_relation:
        pk = row_id(str(value))  # a base is the page's word: maybe no id at all
        related = field.related_model.objects.filter(pk=pk).first() if pk else None
        return str(getattr(related, "name", "") or related) if related else str(value)
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(field, NUMBER_FIELDS):
        try:
            return format_number(Decimal(str(value)), fmt)
        except InvalidOperation:
            pass
    return str(value)


def _shown(field, value) -> str:
    """A stored value as the field shows it (a choice's label, a number in the
    person's format)."""
    if value is None or value == "":
        return _("(empty)")
    choices = getattr(field, "choices", None)
    if choices is not None:
        flat = {}
        for key, label in choices:
            if isinstance(label, list | tuple):
                flat.update({str(k): v for k, v in label})
            else:
                flat[str(key)] = label
        return str(flat.get(services.canonical(value), value))
    return str(field.prepare_value(value))


def _conflict_value(field, value) -> str:
    """A value of a conflict as the person reads it: a number grouped in their
    format (in the unit they type GPU counts in), else as the field shows it."""
    fmt = getattr(field, "number_format", None)
    if fmt is None or not isinstance(value, Decimal | int) or isinstance(value, bool):
        return _shown(field, value)
    return format_number(value * getattr(field, "scale", 1), fmt)


# Who saved the other value of a conflict, as the banner and the field say it.
CONFLICT_BY_OTHER = "other"  # another member, named
CONFLICT_BY_ME = "me"  # the same person, in another tab or session
CONFLICT_BY_ME_ALONE = "me_alone"  # the owner of a proposal without a team (no stamp)
CONFLICT_BY_FORMER = "former"  # an account deleted since
CONFLICT_BY_UNKNOWN = "unknown"  # nothing says who (saved before stamps were kept)


def _conflict_note(who: str, values: dict) -> str:
    """The sentence under the field: who saved what, how long ago, what was typed."""
    if who == CONFLICT_BY_OTHER:
        text = _("%(name)s saved %(theirs)s here %(ago)s; you typed %(mine)s.")
    elif who == CONFLICT_BY_ME:
        text = _(
            "You saved %(theirs)s in another tab %(ago)s; here you typed %(mine)s."
        )
    elif who == CONFLICT_BY_ME_ALONE:
        text = _("You saved %(theirs)s in another tab; here you typed %(mine)s.")
    elif who == CONFLICT_BY_FORMER:
        text = _("A former member saved %(theirs)s here %(ago)s; you typed %(mine)s.")
    else:
        text = _("Saved elsewhere: %(theirs)s; you typed %(mine)s.")
    return text % values


def describe_conflicts(
    step_forms, outcome, user=None, *, alone=False, now=None
) -> list[dict]:
    """The conflicts of a save as the banner and the fields show them: the field,
    both values in the person's format, and who saved the other one (``user``:
    the person saving, "you" when it was them) and how long ago. ``alone``: the
    person owns the proposal and has no team (nobody else saved anything)."""
    described = []
    now = now or timezone.now()
    for conflict in outcome.conflicts:
        key = input_name(step_forms, conflict)
        form = next(
            f
            for f in step_forms.all_forms()
            if step_forms.originals.get(id(f)) is conflict.instance
        )
        field = form.fields[conflict.name]
        if not conflict.stamped:
            who = CONFLICT_BY_ME_ALONE if alone else CONFLICT_BY_UNKNOWN
        elif conflict.by is None:
            who = CONFLICT_BY_FORMER
        elif user is not None and conflict.by.pk == user.pk:
            who = CONFLICT_BY_ME
        else:
            who = CONFLICT_BY_OTHER
        # Both values as the person reads them, then who saved theirs and when.
        mine, theirs = (
            _conflict_value(field, v) for v in (conflict.mine, conflict.theirs)
        )
        values = {
            "name": selectors.person_name(conflict.by) if conflict.stamped else "",
            "ago": ago((now - conflict.at).total_seconds()) if conflict.at else "",
            "mine": mine,
            "theirs": theirs,
        }
        described.append(
            {
                "input": key,
                "anchor": form[conflict.name].auto_id,
                "label": field.label,
                "who": who,
                **values,
                "note": _conflict_note(who, values),
            }
        )
    return described


def input_name(step_forms, conflict) -> str:
    """The name of the input a save's ``conflict`` is about."""
    for form in step_forms.all_forms():
        if step_forms.originals.get(id(form)) is conflict.instance:
            return form.add_prefix(conflict.name)
    return conflict.name
