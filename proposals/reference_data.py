"""The catalogue (with the GPU variants), the call terms, the country eligibility,
the desk's closure days and the access routes with their cut-offs, kept in process.

Every autosave assesses the proposal against these three tables, which change only
when an administrator edits them. They are read from the database once and kept in
this process while they are current:

- a save or delete of a row of these tables (the admin, the shell) forgets the
  copy at once, and removes the stamp kept in Django's configured cache;
- a copy is current while the stamp it was loaded under is still in that cache (so,
  with a cache shared between processes, the database cache, an edit made in one
  process is seen by every other within ``STAMP_CHECK`` seconds: the stamp is looked
  up at most that often, not at every use, which with the database cache would be a
  query each time), and for at most ``MAX_AGE`` seconds (the bound for processes
  that share no cache).
"""

import time
import uuid

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_save

from proposals import assess, domain
from proposals.domain.routes import RouteData
from proposals.models import (
    AccessRoute,
    CallFamily,
    CallMode,
    Cluster,
    CountryEligibility,
    Cutoff,
    DeskClosure,
    GpuModel,
)
from proposals.selectors.routes import routes_data

STAMP_KEY = "reference-data:stamp"
MAX_AGE = 60.0  # seconds
STAMP_CHECK = 1.0  # seconds between two looks at the shared stamp

# This process's copy: {"stamp": str, "loaded": float, "catalogue": ..., ...}, replaced
# whole (never changed in place), so a thread reading it never sees half of one.
_copy: dict = {}
_checked = 0.0  # when the shared stamp last matched this process's copy


def forget() -> None:
    """Drop this process's copy and the shared stamp (every process reloads)."""
    global _copy
    _copy = {}
    cache.delete(STAMP_KEY)


def current() -> dict:
    """This process's copy of the reference data (loaded when not current)."""
    return _current()


def _current() -> dict:
    global _copy, _checked
    copy = _copy
    now = time.monotonic()
    fresh = copy and now - copy["loaded"] < MAX_AGE
    if fresh and now - _checked < STAMP_CHECK:
        return copy
    stamp = cache.get(STAMP_KEY)
    if fresh and stamp is not None and copy["stamp"] == stamp:
        _checked = now
        return copy
    if stamp is None:
        stamp = uuid.uuid4().hex
        cache.set(STAMP_KEY, stamp, timeout=None)
    loaded = {
        "stamp": stamp,
        "loaded": time.monotonic(),
        "catalogue": assess.catalogue_from_db(),
        "terms": assess.terms_from_db(),
        "countries": assess.countries_from_db(),
        "gpu_models": assess.gpu_models_from_db(),
        "closure_rows": (closure_rows := tuple(DeskClosure.objects.all())),
        "closures": tuple(sorted({day for row in closure_rows for day in row.days()})),
        "routes": routes_data(),
        # The model instances, for the wizard's choice of system.
        "clusters": {str(c.pk): c for c in Cluster.objects.all()},
    }
    _copy = loaded
    _checked = time.monotonic()
    return loaded


def cached_catalogue() -> dict[str, domain.Cluster]:
    return _current()["catalogue"]


def cached_terms() -> dict[str, domain.FamilyTerms]:
    return _current()["terms"]


def cached_countries() -> dict[str, domain.Country] | None:
    return _current()["countries"]


def cached_closures() -> tuple:
    """The desk's closure days (``DeskClosure``), every day of each, in order."""
    return _current()["closures"]


def cached_closure_rows() -> tuple:
    """The desk's closures (``DeskClosure`` rows: first and last day, label)."""
    return _current()["closure_rows"]


def cached_clusters() -> dict[str, Cluster]:
    """The catalogue's ``Cluster`` rows by primary key (as text)."""
    return _current()["clusters"]


def cached_routes() -> RouteData:
    """The access routes and their cut-offs (``selectors.routes_data``)."""
    return _current()["routes"]


def assess_cached(proposal, *, terms=None) -> domain.Assessment:
    """``assess.assess_proposal`` with the reference data of this process."""
    data = _current()
    return domain.assess(
        assess.proposal_to_domain(proposal),
        data["catalogue"],
        terms if terms is not None else data["terms"],
        data["countries"],
        data["gpu_models"],
    )


def _changed(sender, **kwargs):
    forget()
    # Forget again once the edit is committed: a copy read in between may hold the
    # state before it (or an edit that is then rolled back).
    transaction.on_commit(forget)


# Receivers for these models only: a delete receiver for every model would make
# every bulk delete in the project read its rows first.
for _model in (
    Cluster,
    CallFamily,
    CallMode,
    CountryEligibility,
    GpuModel,
    DeskClosure,
    AccessRoute,
    Cutoff,
):
    post_save.connect(_changed, sender=_model, dispatch_uid=f"refdata-save-{_model}")
    post_delete.connect(_changed, sender=_model, dispatch_uid=f"refdata-del-{_model}")
# The systems of a route or a cut-off (many-to-many: no save of either row).
for _through in (AccessRoute.systems.through, Cutoff.systems.through):
    m2m_changed.connect(
        _changed, sender=_through, dispatch_uid=f"refdata-m2m-{_through}"
    )
