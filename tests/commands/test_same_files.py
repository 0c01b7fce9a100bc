"""``assess`` and ``import_proposal`` accept and refuse the same files: exit 2, no
traceback, every problem named with its path."""

import io
import json
import sys

import pytest

from proposals.domain import limits
from proposals.models import Proposal
from tests.commands.test_commands import run
from tests.import_data import BASE, text, with_rows

pytestmark = pytest.mark.django_db


def changed(path: str, value) -> bytes:
    data = with_rows({"codes": 4})
    *parents, last = path.split("/")
    target = data
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    target[int(last) if last.isdigit() else last] = value
    return text(data)


BAD_FILES = [
    ("nul", changed("codes/3/name", "a\u0000b"), "codes[3].name"),
    (
        "surrogate",
        json.dumps(BASE).replace('"Nordlicht Vision Oy"', '"\\udc00"').encode(),
        "organisation.name",
    ),
    (
        "repeated key",
        json.dumps(BASE).replace('"title": "D', '"title": "x", "title": "D').encode(),
        "title",
    ),
    ("country", changed("organisation/country", "XX"), "organisation.country"),
    (
        "narrative",
        changed("optimisation/narrative", "x" * (limits.NARRATIVE_CHARS + 1)),
        "optimisation.narrative",
    ),
    ("title", changed("title", "t" * 201), "title"),
    ("jobs", text(with_rows({"jobs": 201})), "scalability.jobs"),
    ("system", changed("selection/system", "atlantis"), "selection.system"),
    ("gpus", changed("scalability/jobs/0/gpus", 10**9), "scalability.jobs[0].gpus"),
    ("hours", changed("scalability/jobs/0/hours", -1), "scalability.jobs[0].hours"),
    (
        "mfu",
        changed("scalability/measurements/0/mfu_pct", 101),
        "scalability.measurements[0].mfu_pct",
    ),
    ("months", changed("selection/duration_months", 61), "selection.duration_months"),
    (
        "schedule order",
        changed(
            "scalability/schedule",
            [{"from_month": 3, "to_month": 2, "gpu_hours": 1, "activity": ""}],
        ),
        "scalability.schedule[0].to_month",
    ),
    ("reference", changed("codes/0/references", ["a\nb"]), "codes[0].references[0]"),
    ("too deep", changed("codes/0/references", [["a"]]), "codes[0].references[0]"),
    ("not utf-8", b"\xff\xfe{}", "$"),
    ("too big", b" " * (limits.MAX_DOCUMENT_BYTES + 1), "$"),
]


@pytest.mark.parametrize(
    ("content", "path"),
    [(content, path) for _, content, path in BAD_FILES],
    ids=[name for name, _, _ in BAD_FILES],
)
def test_both_commands_refuse_with_exit_2_naming_the_path(
    user, tmp_path, content, path
):
    file = tmp_path / "bad.json"
    file.write_bytes(content)
    for args in (("assess",), ("import_proposal", "--owner", user.username)):
        code, out, err = run(*args[:1], str(file), *args[1:])
        assert code == 2, (args, err)
        assert out == ""
        assert f"  {path}" in err and "Traceback" not in err
    assert not Proposal.objects.exists()


def test_a_byte_order_mark_works_on_the_command_line(user, tmp_path, monkeypatch):
    file = tmp_path / "bom.json"
    file.write_bytes(b"\xef\xbb\xbf" + text(BASE))
    assert run("assess", str(file))[0] == 0
    code, out, _ = run("import_proposal", str(file), "--owner", user.username)
    assert code == 0 and Proposal.objects.get(pk=int(out)).title == BASE["title"]
    stdin = io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf" + text(BASE)))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert run("assess", "-")[0] == 0
