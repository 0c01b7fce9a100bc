"""Bounds shared by the models' validators and their database check constraints, and
what the models' validation need not ask the database."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from proposals.domain.bounds import (  # noqa: F401  (the one place for the bounds)
    MAX_GPU_HOURS,
    MAX_GPUS,
    MAX_HOURS_PER_JOB,
    MAX_JOBS,
    MAX_MONTHS,
    MAX_TB,
)


def nonneg(limit):
    return [MinValueValidator(0), MaxValueValidator(limit)]


def positive(limit):
    return [MinValueValidator(1), MaxValueValidator(limit)]


def check(name: str, condition: Q) -> models.CheckConstraint:
    return models.CheckConstraint(condition=condition, name=name)


def within(field: str, low, high, *, nullable: bool = True) -> Q:
    """A database-side bound: ``low <= field <= high`` (or NULL when allowed)."""
    condition = Q(**{f"{field}__gte": low, f"{field}__lte": high})
    return condition | Q(**{f"{field}__isnull": True}) if nullable else condition


class RestatedConstraints(models.Model):
    """A model whose check constraints only restate what its fields' validators and
    its ``clean()`` check (the same bounds, from ``domain.bounds``), so that its
    validation need not ask the database: ``full_clean`` refuses a value out of
    bounds through the validators, and the database still refuses a violating save.
    Not asking saves one query per constraint on every autosave of the wizard.
    ``tests/web/test_models.py`` checks the restating for every constraint."""

    class Meta:
        abstract = True

    def validate_constraints(self, exclude=None):
        """Nothing the validators and ``clean()`` have not checked (see the class)."""


class GivenRelations(models.Model):
    """A model whose validation does not ask the database whether a related object
    exists when the object itself was given (``proposal.system = cluster``): it was
    read to be given. The wizard's forms give the system from the catalogue kept in
    process and a measurement's code from the proposal's own, so this saves a query
    per keystroke there; the foreign key constraint still refuses a row whose object
    is deleted meanwhile. An id given alone (``system_id = 3``) is still checked."""

    class Meta:
        abstract = True

    def clean_fields(self, exclude=None):
        exclude = set(exclude or ())
        for field in self._meta.concrete_fields:
            if (
                field.many_to_one
                and field.is_cached(self)
                and getattr(self, field.name) is not None
            ):
                exclude.add(field.name)
        super().clean_fields(exclude=exclude)
