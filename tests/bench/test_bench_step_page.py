"""A step page that grows with the proposal: the same step with ten times the demo's
rows, against the demo's own page, in the same run (issue 35: at most 1.5x).

Each page is requested from eight call depths in turn (:func:`at_depths`). On
Python 3.11 a call that crosses the end of the interpreter's data-stack chunk maps a
new chunk and unmaps it on return (python/cpython#142183), so a loop that runs at
exactly that depth pays page faults on every turn: the same big page measured 35 to
80 ms (1,150 to 10,600 page faults) when called zero to four frames deeper. Since
each request runs from a frame with a chunk of its own
(``aifactory.stack.RoomyStackMiddleware``) the depth no longer matters (26 to 29 ms,
18 to 205 page faults at every depth from 0 to 23); the rounds still turn through
eight depths, so a change that brought the dependence back would show in the
spread and in the page faults printed."""

import resource

import pytest
from django.core.management import call_command
from django.test.utils import override_settings
from django.urls import reverse

from proposals import services
from proposals.models import Proposal
from tests.bench.conftest import Spread, meets_spread, report, rounds_ms

pytestmark = pytest.mark.django_db

KINDS = ("codes", "measurements", "jobs", "schedule")


def page_faults(func, *, repeat: int) -> float:
    """Minor page faults per call of ``func()``: memory the process maps afresh,
    a stack chunk per call when calls cross a chunk's end (the module's docstring;
    the row loops alone on a chunk of their own showed no gain in two A/B runs, the
    whole request on one does)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(repeat):
        func()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / repeat


#: The call depths a page is requested from, in turn (the module's docstring).
DEPTHS = 8


def at_depths(func):
    """``func`` called from 0 to ``DEPTHS - 1`` frames deeper, one more each call."""
    turn = {"n": 0}

    def deeper(frames: int):
        return func() if frames == 0 else deeper(frames - 1)

    def run():
        turn["n"] += 1
        return deeper(turn["n"] % DEPTHS)

    return run


def _demo(title: str) -> Proposal:
    return Proposal.objects.get(owner__username="demo", title__contains=title)


def _copy_rows(source: Proposal, target: Proposal, times: int):
    """``times`` copies of each of ``source``'s rows on ``target`` (measurements keep
    the code they measured, mapped to its copy)."""
    codes = {}
    for kind in KINDS:
        position = 0
        for _ in range(times):
            for row in getattr(source, kind).all().order_by("position", "pk"):
                original = row.pk
                row.pk = None
                row.id = None
                row.proposal = target
                row.position = position
                position += 1
                if kind == "measurements" and row.code_id is not None:
                    row.code = codes[row.code_id]
                row.save()
                if kind == "codes":
                    codes.setdefault(original, row)


def _ten_times(source: Proposal) -> Proposal:
    # A second, identical proposal (the service "Duplicate" uses)...
    bigger = services.proposal_duplicate(
        proposal=source, owner=source.owner, title=f"{source.title} (x10)"
    )
    for kind in KINDS:  # ...whose rows become ten copies of the demo's
        getattr(bigger, kind).all().delete()
    _copy_rows(source, bigger, 10)
    return bigger


@pytest.mark.parametrize(
    ("title", "step"),
    [("paper mills", "scalability"), ("paper mills", "codes")],
)
@override_settings(DEBUG=False)
def test_step_page_with_ten_times_the_rows(client, catalogue, title, step):
    call_command("load_demo", "--with-public-passwords", verbosity=0)
    demo = _demo(title)
    counts = {kind: getattr(demo, kind).count() for kind in KINDS}
    bigger = _ten_times(demo)
    assert {k: getattr(bigger, k).count() for k in KINDS} == {
        k: n * 10 for k, n in counts.items()
    }
    client.force_login(demo.owner)

    def get(proposal):
        def request():
            response = client.get(reverse("proposals:step", args=[proposal.pk, step]))
            assert response.status_code == 200
            return response

        return at_depths(request)

    small_size = len(get(demo)().content)
    big_size = len(get(bigger)().content)
    # Seven alternated rounds: the ratio is their median, printed with its spread.
    timed = rounds_ms({"small": get(demo), "big": get(bigger)}, repeat=DEPTHS, warmup=1)
    ratio = Spread.ratio(timed, "big", "small")
    small, big = Spread.of(timed, "small"), Spread.of(timed, "big")
    faults = [
        page_faults(get(proposal), repeat=2 * DEPTHS) for proposal in (demo, bigger)
    ]
    report(
        f"Step page '{step}' with ten times the demo's rows ({counts})",
        [
            (
                "demo's rows, median",
                f"{small.shown('.1f', ' ms')}, {small_size / 1024:.0f} KB",
            ),
            (
                "ten times the rows, median",
                f"{big.shown('.1f', ' ms')}, {big_size / 1024:.0f} KB",
            ),
            (
                "ratio (target <= 1.5x)",
                f"{ratio.shown()} "
                + meets_spread(f"step page {step!r} at 10x rows", ratio, 1.5),
            ),
            ("page faults per request", "{:.0f} and {:.0f}".format(*faults)),
        ],
    )
