"""The catalogue and call terms kept in process, and forgotten when an
administrator edits them (split from test_live.py)."""

import pytest
from django.test import Client
from django.urls import reverse

from proposals import reference_data
from proposals.models import CallMode, Cluster
from tests.factories import JobTypeFactory
from tests.web.test_live import HX, full, page_data, step_url  # noqa: F401

pytestmark = pytest.mark.django_db

# --- Reference data kept in process ------------------------------------------------------


def largest_job(content: str) -> str:
    return content.split('data-testid="largest-job">')[1].split("</dd>")[0]


def test_an_admin_edit_of_the_catalogue_reaches_the_next_autosave(
    user_client,
    full,  # noqa: F811
    admin_user,
):
    JobTypeFactory(proposal=full, gpus=16, position=1)
    data = page_data(full, "scalability", scalability_narrative="Before.")
    before = user_client.post(step_url(full, "scalability"), data, headers=HX)
    assert largest_job(before.content.decode()) == "16 GPUs / 4 nodes"  # 4 a node
    # The administrator changes LUMI-G through the admin's own form.
    lumi = Cluster.objects.get(slug="lumi-g")
    url = reverse("admin:proposals_cluster_change", args=[lumi.pk])
    admin = Client()  # ``client`` is ``user_client``'s
    admin.force_login(admin_user)
    form = admin.get(url).context["adminform"].form
    posted = {}
    for name in form.fields:
        value = form[name].value()
        if value not in (None, False):
            posted[name] = "on" if value is True else value
    posted["gpus_per_node"] = "8"
    saved = admin.post(url, posted)
    assert saved.status_code == 302, saved.content.decode()[:2000]
    data = page_data(full, "scalability", scalability_narrative="After.")
    after = user_client.post(step_url(full, "scalability"), data, headers=HX)
    assert largest_job(after.content.decode()) == "16 GPUs / 2 nodes"


def test_an_edit_of_the_call_terms_is_seen_at_once(full):  # noqa: F811
    mode = CallMode.objects.exclude(max_hours=None).order_by("pk").first()
    family = mode.family.slug
    reference_data.cached_terms()
    mode.max_hours = mode.max_hours + 1
    mode.save()
    modes = {m.slug: m for m in reference_data.cached_terms()[family].modes}
    assert modes[mode.slug].max_hours == float(mode.max_hours)


class Clock:
    """``time.monotonic`` for ``reference_data``, moved by hand."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now


def test_the_copy_is_reloaded_when_the_shared_stamp_is_gone(full, monkeypatch):  # noqa: F811
    from django.core.cache import cache

    clock = Clock()
    monkeypatch.setattr(reference_data, "time", clock)
    reference_data.forget()
    reference_data.cached_catalogue()
    Cluster.objects.filter(slug="lumi-g").update(gpus_per_node=8)  # no signal
    assert reference_data.cached_catalogue()["lumi-g"].gpus_per_node == 4
    cache.delete(reference_data.STAMP_KEY)  # as another process's edit does
    # Seen at the next look at the shared stamp, at most STAMP_CHECK later.
    clock.now += reference_data.STAMP_CHECK / 2
    assert reference_data.cached_catalogue()["lumi-g"].gpus_per_node == 4
    clock.now += reference_data.STAMP_CHECK
    assert reference_data.cached_catalogue()["lumi-g"].gpus_per_node == 8


def test_the_shared_stamp_is_read_at_most_once_a_second(full, monkeypatch):  # noqa: F811
    """With the database cache each look at the stamp is a query: an autosave
    (which reads the catalogue and the terms several times) makes none within
    STAMP_CHECK of the last look."""
    from django.core.cache import cache

    clock = Clock()
    monkeypatch.setattr(reference_data, "time", clock)
    reference_data.forget()
    reference_data.cached_catalogue()
    looks = []
    real_get = cache.get
    monkeypatch.setattr(
        cache, "get", lambda *a, **k: looks.append(a) or real_get(*a, **k)
    )
    for _ in range(5):
        reference_data.cached_terms()
        reference_data.cached_clusters()
    assert looks == []
    clock.now += reference_data.STAMP_CHECK
    reference_data.cached_terms()
    reference_data.cached_terms()
    assert looks == [(reference_data.STAMP_KEY,)]
    clock.now += reference_data.MAX_AGE  # and a copy never outlives MAX_AGE
    Cluster.objects.filter(slug="lumi-g").update(gpus_per_node=8)  # no signal
    assert reference_data.cached_catalogue()["lumi-g"].gpus_per_node == 8
