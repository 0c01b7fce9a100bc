"""One vocabulary: every page, export and e-mail names a field the way the wizard does,
and nobody reads a JSON path.

The labels come from ``proposals/domain/fields.py``; these tests compare what each
surface actually shows against it, so a label typed anywhere else shows up here.
"""

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.core import mail
from django.urls import reverse
from pypdf import PdfReader

from proposals import exports, services
from proposals.domain import jsonformat
from proposals.domain.documents import diff_documents, layout
from proposals.domain.fields import FIELD_BY_PATH, FIELDS, SEPARATOR, describe_path
from proposals.domain.sections import SECTIONS, STEPS, TABLE_BY_KIND, TABLES
from proposals.models import (
    CodeEntry,
    JobType,
    Proposal,
    ScalingMeasurement,
    UsageMonth,
)
from proposals.wizard.steps import SECTION_FORMS, TABLE_FORMS
from tests.web.test_exports import load_demo

pytestmark = pytest.mark.django_db

MODELS = {
    None: Proposal,
    "codes": CodeEntry,
    "measurements": ScalingMeasurement,
    "jobs": JobType,
    "schedule": UsageMonth,
}
# JSON paths look like these; none may reach a person.
JSON_PATH = re.compile(
    r"\b(?:codes|measurements|jobs|schedule)\[\d+\]"
    r"|\b(?:selection|scalability|organisation|experience|optimisation)\.[a-z_]+"
)


def _form_for(spec, proposal):
    """The wizard form that edits ``spec`` (row forms on the proposal's first row)."""
    if spec.table is None:
        return SECTION_FORMS[spec.section](instance=proposal)
    row = getattr(proposal, spec.table).first()
    form_class = TABLE_FORMS[spec.table]
    kwargs = (
        {"codes": list(proposal.codes.all())} if spec.table == "measurements" else {}
    )
    return form_class(instance=row, prefix=f"{spec.table}-{row.pk}", **kwargs)


@pytest.fixture
def demo(user):
    proposal = load_demo("lumi-fast-lane", user)
    UsageMonth.objects.create(proposal=proposal, from_month=1, to_month=2, gpu_hours=10)
    return proposal


def _set(document: dict, path: str, value):
    """A copy of ``document`` with the leaf at ``path`` replaced by ``value``."""
    copy = json.loads(json.dumps(document))
    keys = [int(k) if k.isdigit() else k for k in re.findall(r"[a-z_]+|\d+", path)]
    target = copy
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value
    return copy


def test_every_field_has_one_label_on_every_surface(demo):
    document = jsonformat.dump(exports.source_for(demo).proposal)
    staff_rows = {row.path: row.label for s in layout(document) for row in s.rows}
    for spec in FIELDS:
        # The wizard's form, the model (and so the admin) and the vocabulary agree.
        wizard_label = _form_for(spec, demo).fields[spec.name].label
        assert wizard_label == spec.label, spec.key
        model_field = MODELS[spec.table]._meta.get_field(spec.name)
        assert model_field.verbose_name == spec.label, spec.key
        # The staff page shows the same words (after the row's name for a row field).
        if spec.table is None:
            path = spec.path
            assert staff_rows[path] == spec.label, path
        else:
            path = f"{TABLE_BY_KIND[spec.table].path}[0].{spec.path}"
            assert staff_rows[path].endswith(SEPARATOR + spec.label), path
        # The diff labels a change of this field exactly as the staff page does.
        changed = _set(document, path, "changed value")
        changes = [c for s in diff_documents(document, changed) for c in s.rows]
        assert len(changes) == 1, path
        if spec.table is None:
            assert changes[0].label == staff_rows[path], path
        else:  # the row is named by its new name, the field by the same label
            assert changes[0].label.endswith(SEPARATOR + spec.label), path


def test_table_headers_are_the_documented_short_forms(demo, user_client):
    page = user_client.get(reverse("proposals:step", args=[demo.pk, "scalability"]))
    text = _visible_text(page.content.decode())
    for table in TABLES:
        if table.section != "scalability":
            continue
        assert table.title in text
        for spec in FIELDS:
            if spec.table == table.kind:
                assert spec.header in text, spec.key


def test_exports_use_the_wizard_labels(demo):
    source = exports.source_for(demo)
    blocks = {b.key: b.label for s in exports.portal_for(source) for b in s.blocks}
    for path in (
        "selection.system",
        "selection.total_gpu_hours",
        "selection.max_gpus_per_job",
        "selection.duration_months",
        "selection.extra_cpu_hours",
    ):
        assert blocks[path] == FIELD_BY_PATH[path].label
    titles = [s.title for s in exports.portal_for(source)]
    for section in SECTIONS:
        if section.portal and section.slug != "codes":
            assert section.title in titles
    summary = exports.markdown_for(source)
    for path in ("organisation.name", "organisation.kind", "organisation.country"):
        assert FIELD_BY_PATH[path].label in summary


def test_people_never_read_a_json_path(
    demo,
    user,
    user_client,
    client,
    staff_user,
    django_capture_on_commit_callbacks,
    run_tasks,
):
    demo.vat_number = ""  # an ELIG finding on the organisation
    demo.save()
    code = demo.codes.order_by("position", "id")[1]
    code.version = ""  # a finding on the second code entry: codes[1].version
    code.save()
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=demo, user=user)
        services.comment_add(
            proposal=demo,
            author=staff_user,
            section="codes",
            field="codes[1].version",
            body="Which release will you run?",
        )
        services.review_set_status(
            proposal=demo,
            user=staff_user,
            to_status="changes_requested",
            note="Please revise.",
        )
    Proposal.objects.filter(pk=demo.pk).update(title="Second take")
    demo.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        services.review_submit(proposal=demo, user=user)

    review = user_client.get(reverse("proposals:step", args=[demo.pk, "review"]))
    review_text = _visible_text(review.content.decode())
    assert "Code details 2 (" in review_text and "› Version or release" in review_text
    status = user_client.get(reverse("proposals:review_status", args=[demo.pk]))
    markdown = user_client.get(reverse("proposals:export_markdown", args=[demo.pk]))
    portal = user_client.get(reverse("proposals:export_portal", args=[demo.pk]))
    from tests.web.test_exports import get_pdf

    pdf_url = reverse("proposals:export_pdf", args=[demo.pk])
    pdf = get_pdf(user_client, pdf_url, run_tasks)
    pdf_text = " ".join(
        page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages
    )
    client.force_login(staff_user)
    staff = client.get(reverse("proposals:staff_review", args=[demo.pk]))
    diff = client.get(
        reverse("proposals:staff_diff", args=[demo.pk]), {"a": 1, "b": "current"}
    )
    surfaces = {
        "review step": review_text,
        "applicant review status": _visible_text(status.content.decode()),
        "portal text page": _visible_text(portal.content.decode()),
        "markdown": markdown.content.decode(),
        "pdf": " ".join(pdf_text.split()),
        "staff review": _visible_text(staff.content.decode()),
        "staff diff": _visible_text(diff.content.decode()),
    }
    run_tasks()  # the queued notifications go out
    assert mail.outbox, "the review workflow sent no e-mail"
    for index, message in enumerate(mail.outbox):
        surfaces[f"e-mail {index}"] = message.subject + "\n" + message.body
    for name, text in surfaces.items():
        assert not JSON_PATH.search(text), (name, JSON_PATH.search(text).group(0))
    assert "Version or release" in surfaces["staff review"]
    assert any("Version or release" in m.body for m in mail.outbox)


def test_describe_path_reads_like_the_wizard():
    names = {"codes": ["nordlicht-train", "vllm-serve"], "jobs": ["Sweep"]}
    assert describe_path("codes[1].version", names) == (
        "Code details 2 (vllm-serve) › Version or release"
    )
    assert describe_path("scalability.jobs[0].gpus", names) == (
        "Job type 1 (Sweep) › GPUs per job"
    )
    assert describe_path("scalability.measurements[3].mfu_pct") == (
        "Measurement 4 › MFU (%)"
    )
    assert describe_path("scalability.jobs") == "Job plan"
    assert describe_path("selection.total_gpu_hours") == "Total GPU-hours"
    assert describe_path("optimisation") == "Optimisation of the work proposed"
    assert describe_path("organisation") == "Organisation and eligibility"
    assert describe_path("") == "Whole proposal"


class _Text(HTMLParser):
    """The text a person reads on a page: no tags, attributes, scripts or styles."""

    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "svg", "textarea"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style", "svg", "textarea") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def test_the_visible_text_helper_sees_paths_when_they_are_shown():
    # Guards the guard: a path in page text is found, one in an attribute is not.
    shown = _visible_text(
        '<p>Field <span title="codes[1].name">codes[1].name</span></p>'
    )
    assert JSON_PATH.search(shown)
    hidden = _visible_text('<input value="selection.storage_tb"><b>Storage</b>')
    assert not JSON_PATH.search(hidden)


def test_every_table_kind_has_a_row_form_and_no_copy_in_the_javascript():
    assert set(TABLE_FORMS) == {table.kind for table in TABLES}
    assert set(SECTION_FORMS) == {step.slug for step in STEPS}
    script = (Path(__file__).resolve().parents[2] / "static/js/app.js").read_text()
    for table in TABLES:
        assert f'"{table.kind}"' not in script and f"{table.kind}|" not in script


def test_the_page_hands_the_table_kinds_to_the_javascript(demo, user_client):
    page = user_client.get(reverse("proposals:step", args=[demo.pk, "scalability"]))
    kinds = " ".join(table.kind for table in TABLES)
    assert f'data-row-kinds="{kinds}"' in page.content.decode()
