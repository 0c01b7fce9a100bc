"""``make loadtest`` sizes each gunicorn instance as docs/operators.md tells an
operator to: instances on one machine share gunicorn's 2 x CPUs + 1 workers."""

import pytest

from scripts.loadtest import servers


@pytest.mark.parametrize(
    ("cpus", "instances", "workers"),
    [(2, 1, 5), (2, 2, 2), (4, 2, 4), (8, 2, 8), (8, 4, 4), (1, 3, 2)],
)
def test_instances_on_one_machine_share_its_workers(
    monkeypatch, cpus, instances, workers
):
    monkeypatch.setattr(servers.os, "cpu_count", lambda: cpus)
    assert servers.workers_per_instance(instances) == workers
