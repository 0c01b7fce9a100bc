"""The project's settings with the benchmark baselines' URLs (``tests/bench/urls.py``):
what ``make loadtest`` serves with gunicorn, on loopback and a scratch database, to
time an autosave against the least a save can cost over HTTP."""

from aifactory.settings import *  # noqa: F403

ROOT_URLCONF = "tests.bench.urls"
