"""Bounds shared by the models' validators and their database check constraints."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

MAX_GPU_HOURS = Decimal("100000000")  # far above any call; catches typos of 1000x
MAX_GPUS = 100_000
MAX_HOURS_PER_JOB = Decimal("10000")
MAX_JOBS = 10_000_000
MAX_TB = Decimal("1000000")
MAX_MONTHS = 60


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
