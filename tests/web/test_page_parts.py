"""The page's parts (proposals/wizard/parts.py: the status badge, the "ready"
notice, the inputs the page keeps, the save's status, the conflict banner) are
Jinja2 macros that write what the Django partials of wizard.html wrote: the same
elements, attributes and text (as parsed HTML), in English and German, in the
page and out of band, for every state of the save and every kind of conflict.
The old partials are read from the commit before the change (skipped where the
checkout has no history). An autosave's answer sends every part again."""

import subprocess
from types import SimpleNamespace

import pytest
from django.template import Context, Engine
from django.template.backends.django import get_installed_libraries
from django.urls import reverse
from django.utils import translation

from proposals.templatetags import fragments
from proposals.wizard.parts import ELEMENT, page_parts, save_state
from tests.web.test_live import page_data
from tests.web.test_wizard_tags import _same

pytestmark = pytest.mark.django_db

#: The last commit with the parts as partials of wizard.html.
BEFORE = "8ff3acb334d454b08fa2c764fe43b1344ac23694"
HX = {"HX-Request": "true"}


def old_partial(name: str) -> str:
    shown = subprocess.run(
        ["git", "show", f"{BEFORE}:templates/proposals/wizard.html"],
        capture_output=True,
        text=True,
    )
    if shown.returncode:
        pytest.skip(f"no wizard.html at {BEFORE} in this checkout")
    source = shown.stdout
    start = source.index(f"{{% partialdef {name} inline %}}")
    end = source.index("{% endpartialdef", start)
    end = source.index("%}", end) + 2
    body = source[start:end].replace(" inline %}", " %}", 1)
    return f"{{% load i18n wizard_tags partials %}}{body}{{% partial {name} %}}"


def fake_page(**parts) -> SimpleNamespace:
    """A page with what the parts read, and ``parts`` instead of the defaults."""
    values = {
        "proposal": SimpleNamespace(pk=7, status="draft", revision=12),
        "status_label": "Draft <x>",
        "can_edit": True,
        "conflicts": [],
        "gone_now": [],
        "restore_refused": False,
        "row_changed": None,
        "row_gone": None,
        "refused": SimpleNamespace(refused_here=0, gone_rows=[]),
        "saved": False,
        "posted_bases_json": "",
        "bases_json": '{"id_title": "A & B"}',
        "bases_update_json": '{"title": "<b>"}',
        "regions_shown": "live-tier:abc jobs-3:def",
        "refresh_json": "",
        "post_url": "/proposals/7/scalability/",
    }
    values.update(parts)
    return SimpleNamespace(**values)


def conflict(who, **more):
    return {
        "input": "title",
        "who": who,
        "label": "Title <i>",
        "mine": "Mine & co",
        "theirs": "Theirs",
        "name": "Ann",
        "ago": "2 minutes ago",
        **more,
    }


GONE = {
    "prefix": "jobs-4",
    "item": "Job type",
    "values": [{"label": "GPUs", "text": "8"}, {"label": "Hours", "text": "2,5"}],
    "restore": "/restore/",
    "discard": "/discard/",
}
ROW_CHANGED = SimpleNamespace(
    rows=[
        SimpleNamespace(
            prefix="jobs-5",
            name="Train",
            fields=[SimpleNamespace(label="GPUs", stored="16", shown="8")],
        ),
        SimpleNamespace(
            prefix="jobs-6",
            name="",
            fields=[SimpleNamespace(label="Hours", stored="3", shown="2")],
        ),
    ],
    heading="Changed in another tab",
    outcome="so it was not removed",
    url="/delete/",
    confirm="Remove anyway",
    keep="Keep it",
)
PAGES = [
    fake_page(),
    fake_page(saved=True, proposal=SimpleNamespace(pk=7, status="ready", revision=3)),
    fake_page(
        proposal=SimpleNamespace(pk=7, status="changed_since_ready", revision=3),
        refresh_json='{"inputs": {}}',
        posted_bases_json='{"id_title": "posted"}',
    ),
    fake_page(conflicts=[conflict(who) for who in ("other", "me", "me_alone")]),
    fake_page(conflicts=[conflict("former")], saved=True),
    fake_page(conflicts=[conflict("")]),
    fake_page(
        gone_now=[GONE], refused=SimpleNamespace(refused_here=0, gone_rows=[GONE])
    ),
    fake_page(
        gone_now=[GONE, {**GONE, "prefix": "jobs-9", "values": []}],
        refused=SimpleNamespace(refused_here=2, gone_rows=[GONE]),
    ),
    fake_page(restore_refused=True),
    fake_page(row_changed=ROW_CHANGED),
    fake_page(
        row_changed=SimpleNamespace(
            **{**vars(ROW_CHANGED), "rows": ROW_CHANGED.rows[:1]}
        )
    ),
    fake_page(refused=SimpleNamespace(refused_here=1, gone_rows=[]), saved=True),
    fake_page(refused=SimpleNamespace(refused_here=3, gone_rows=[]), saved=True),
    fake_page(row_gone=SimpleNamespace(operation="up", item="Job type")),
    fake_page(row_gone=SimpleNamespace(operation="delete", item="Measurement")),
    fake_page(
        can_edit=False, proposal=SimpleNamespace(pk=7, status="ready", revision=1)
    ),
]


def render_old(name: str, page, oob: bool) -> str:
    engine = Engine(
        libraries=get_installed_libraries(), debug=False, string_if_invalid=""
    )
    template = engine.from_string(old_partial(name))
    return template.render(Context({"page": page, "oob": oob}))


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_macros_write_what_the_partials_wrote(language):
    states = set()
    with translation.override(language):
        for page in PAGES:
            states.add(save_state(page))
            for name, region in page_parts(page).items():
                assert region.name == ELEMENT[name]
                for oob in (False, True):
                    new = fragments.render_region(region, oob)
                    _same(new, render_old(name, page, oob))
    assert states == {"idle", "saved", "conflict", "refused", "question"}


def test_an_autosave_answers_with_every_part(user_client, proposal):
    url = reverse("proposals:step", args=[proposal.pk, "selection"])
    answer = user_client.post(url, page_data(proposal, "selection"), headers=HX)
    assert answer.status_code == 200
    text = answer.content.decode()
    for element in ("save-status", "conflict-banner", "wizard-status", "ready-notice"):
        assert f'id="{element}" ' in text or f'id="{element}"' in text, element
    for element in (
        "bases-update",
        "regions-field",
        "revision-field",
        "refresh-values",
    ):
        assert f'id="{element}"' in text
    assert text.count('hx-swap-oob="true"') >= 8
    assert 'data-state="saved"' in text
