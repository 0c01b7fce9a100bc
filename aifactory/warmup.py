"""Warming a gunicorn process before it serves (issue 33), called by
``gunicorn.conf.py``'s hooks.

A worker forked from the loaded application still built, on its first requests,
everything Django builds lazily: the URL configuration (which imports every view
module, and with them the forms, the regions and the exports), the compiled
templates of both engines and of the form widgets, the translation catalogues of
each language, the reference data (clusters, call terms, countries: read from the
database) and its own database connection. Measured (``make warmup-bench``): its
first step page and first autosave took about 1.1-1.3 s against 60-100 ms once
warm, and a typist whose autosave met that worker waited for it.

- :func:`warm_code` runs once in the arbiter, after the application is loaded and
  before any worker is forked (``preload_app``), so that every worker, also each
  replacement of a recycled one, is a fork of a warm process: it costs a worker
  nothing, and the forks share those pages of memory until they write to them.
- :func:`warm_worker` runs in each new worker before it accepts a connection
  (``post_worker_init``): what cannot be inherited through a fork, its database
  connection, and the reference data as they are now.

Neither may stop a start: a failure (the database not answering yet) is logged as
a warning and the process serves cold, as before.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

logger = logging.getLogger(__name__)

# Any message: asking for it loads its language's catalogue.
_PROBE = "Saved"
TEMPLATE_SUFFIXES = (".html", ".txt", ".svg", ".md")


def warm_code() -> float:
    """Build, in this process, what every request would build on first use; the
    seconds it took."""
    start = time.perf_counter()
    if not _django_is_loaded():
        return 0.0
    for step in (
        _urls,
        _compiled_queries,
        _templates,
        _widget_templates,
        _catalogues,
        _chart_drawing,
    ):
        try:
            step()
        except Exception:
            logger.warning("Warm-up step %s failed", step.__name__, exc_info=True)
    return time.perf_counter() - start


def warm_worker() -> float:
    """Open this process's database connection and bring its copy of the
    reference data up to date; the seconds it took."""
    start = time.perf_counter()
    if not _django_is_loaded():
        return 0.0
    try:
        from django.db import connection

        from proposals import reference_data

        connection.ensure_connection()
        reference_data.current()
    except Exception:
        logger.warning("Warm-up of the worker failed", exc_info=True)
    return time.perf_counter() - start


def _django_is_loaded() -> bool:
    """This process serves the wizard (gunicorn may serve another application)."""
    from django.apps import apps

    return apps.ready


def _urls() -> None:
    """The URL configuration, and through it every view module and what it
    imports (forms, regions, exports, the admin)."""
    from django.urls import get_resolver

    resolver = get_resolver()
    resolver.url_patterns  # noqa: B018 - imports aifactory/urls.py and the views
    resolver._populate()


def _compiled_queries() -> None:
    """The wizard's queries that are compiled to SQL once per process."""
    from django.db import transaction

    from proposals.selectors.compiled import CompiledQuery

    with transaction.atomic():  # a query that locks its row compiles only in one
        CompiledQuery.compile_all()


def _project_templates(directory: Path) -> list[str]:
    return sorted(
        path.relative_to(directory).as_posix()
        for path in directory.rglob("*")
        if path.is_file() and path.suffix in TEMPLATE_SUFFIXES
    )


def _templates() -> None:
    """Every template of the project's directories, compiled by the engine whose
    directory holds it (the cached loader keeps it, debug off): the Django
    templates (templates/) and the Jinja2 macros (proposals/jinja2/)."""
    from django.conf import settings
    from django.template import engines

    for config, engine in zip(settings.TEMPLATES, engines.all(), strict=True):
        for directory in config["DIRS"]:
            for name in _project_templates(Path(directory)):
                engine.get_template(name)


def _widget_templates() -> None:
    """The form widgets' templates, rendered through the form renderer's engine."""
    import django.forms
    from django.forms.renderers import get_default_renderer

    renderer = get_default_renderer()
    directory = Path(django.forms.__file__).parent / "templates"
    for name in _project_templates(directory):
        if name.endswith(".html"):
            renderer.get_template(name)


def _catalogues() -> None:
    """Each interface language's translation catalogue and number formats."""
    from django.conf import settings
    from django.utils import formats, translation

    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext(_PROBE)  # loads the catalogue
            formats.get_format("DECIMAL_SEPARATOR")
            formats.get_format("DATETIME_INPUT_FORMATS")


def _chart_drawing() -> None:
    """The chart's drawing and matplotlib, which ``proposals.charts`` imports on a
    process's first chart: in the arbiter, so every fork has them."""
    import proposals.chart_drawing  # noqa: F401
