"""Every step saves at the format's own limits, without JavaScript too: the whole
form a step page shows (every row's inputs included) is posted as a browser would
post it, and nothing is refused for the number of fields (issue 20: about 135
measurements used to answer 400, past Django's default of 1,000 posted fields)."""

from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.urls import reverse

from proposals.domain import limits
from proposals.domain.fields import most_step_inputs
from proposals.models import JobType, ScalingMeasurement, UsageMonth
from tests.factories import CodeEntryFactory
from tests.web.test_wizard import step_url

pytestmark = pytest.mark.django_db


class _FormReader(HTMLParser):
    """The successful controls of one form, as a browser would post them without a
    submit button: ``[(name, value), ...]`` in document order."""

    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.fields: list[list[str]] = []
        self._textarea: list[str] | None = None
        self._select: list | None = None  # [name, first option, chosen]

    def _ours(self, attrs: dict) -> bool:
        owner = attrs.get("form")
        return owner == self.form_id if owner else self.inside

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == self.form_id:
            self.inside = True
        name = attrs.get("name")
        if tag == "option" and self._select is not None:
            value = attrs.get("value", "")
            if self._select[1] is None:
                self._select[1] = value
            if "selected" in attrs:
                self._select[2] = value
        if not name or "disabled" in attrs or not self._ours(attrs):
            return
        if tag == "input":
            kind = attrs.get("type", "text")
            if kind in ("submit", "button", "reset", "image", "file"):
                return
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            self.fields.append(
                [
                    name,
                    attrs.get("value", "on" if kind in ("checkbox", "radio") else ""),
                ]
            )
        elif tag == "textarea":
            self._textarea = [name, ""]
            self.fields.append(self._textarea)
        elif tag == "select":
            self._select = [name, None, None]

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self._textarea is not None:
            # A browser drops the one newline that may follow <textarea>.
            self._textarea[1] = self._textarea[1].removeprefix("\n")
            self._textarea = None
        elif tag == "select" and self._select is not None:
            name, first, chosen = self._select
            self.fields.append([name, chosen if chosen is not None else first or ""])
            self._select = None


def form_of(page: str, form_id: str = "wizard-form") -> list[list[str]]:
    reader = _FormReader(form_id)
    reader.feed(page)
    return reader.fields


def encoded(fields) -> str:
    from urllib.parse import urlencode

    return urlencode([tuple(pair) for pair in fields])


def post_form(client, url, fields, **button):
    """Post ``fields`` plus the pressed button, URL-encoded as a browser does."""
    return client.post(
        url,
        encoded([*fields, *button.items()]),
        content_type="application/x-www-form-urlencoded",
    )


def _set(fields, name, value):
    matches = [pair for pair in fields if pair[0] == name]
    assert len(matches) == 1, name
    matches[0][1] = value


def fill_scalability(proposal):
    """Give ``proposal`` as many scalability rows as the format allows."""
    proposal.duration_months = 60
    proposal.save(update_fields=["duration_months"])
    ScalingMeasurement.objects.bulk_create(
        ScalingMeasurement(
            proposal=proposal,
            gpus=4 + i,
            throughput=1000 + i,
            unit="samples/s",
            position=i,
        )
        for i in range(limits.MAX_ROWS["measurements"])
    )
    JobType.objects.bulk_create(
        JobType(
            proposal=proposal, title=f"Job {i}", gpus=8, hours=4, count=1, position=i
        )
        for i in range(limits.MAX_ROWS["jobs"])
    )
    UsageMonth.objects.bulk_create(
        UsageMonth(
            proposal=proposal,
            from_month=1 + i // 2,
            to_month=1 + i // 2,
            gpu_hours=10,
            position=i,
        )
        for i in range(limits.MAX_ROWS["schedule"])
    )
    return proposal


@pytest.fixture
def full_scalability(proposal):
    """A proposal whose scalability step holds as many rows as the format allows."""
    return fill_scalability(proposal)


def _last(model, proposal):
    return model.objects.filter(proposal=proposal).order_by("position").last()


def test_the_posted_field_limit_follows_from_the_format_limits():
    assert settings.DATA_UPLOAD_MAX_NUMBER_FIELDS >= most_step_inputs() > 2_600


@pytest.mark.parametrize(
    ("button", "destination"),
    [({"save": "1"}, "scalability"), ({"goto": "optimisation"}, "optimisation")],
)
def test_scalability_step_at_the_limits_saves_without_javascript(
    user_client, full_scalability, button, destination
):
    proposal = full_scalability
    url = step_url(proposal, "scalability")
    fields = form_of(user_client.get(url).content.decode())
    assert len(fields) > 2_600  # every row's inputs are in the form
    job, measurement = _last(JobType, proposal), _last(ScalingMeasurement, proposal)
    _set(fields, f"jobs-{job.pk}-title", "The last job, renamed")
    _set(fields, f"measurements-{measurement.pk}-hardware", "MI250X")
    _set(fields, "scalability_narrative", "Scales to 203 GPUs.")
    response = post_form(user_client, url, fields, **button)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response.headers["Location"] == step_url(proposal, destination)
    job.refresh_from_db()
    measurement.refresh_from_db()
    proposal.refresh_from_db()
    assert job.title == "The last job, renamed"
    assert measurement.hardware == "MI250X"
    assert proposal.scalability_narrative == "Scales to 203 GPUs."


def test_a_row_button_at_the_limits_saves_the_form_and_moves_the_row(
    user_client, full_scalability
):
    proposal = full_scalability
    url = step_url(proposal, "scalability")
    fields = form_of(user_client.get(url).content.decode())
    job = _last(JobType, proposal)
    _set(fields, f"jobs-{job.pk}-title", "Moved up")
    up = reverse(
        "proposals:row",
        kwargs={
            "pk": proposal.pk,
            "step": "scalability",
            "kind": "jobs",
            "row": job.pk,
            "operation": "up",
        },
    )
    response = post_form(user_client, up, fields)
    assert response.status_code in (200, 302), response.content.decode()[:2000]
    job.refresh_from_db()
    assert job.title == "Moved up"
    assert job.position == limits.MAX_ROWS["jobs"] - 2


def test_codes_step_at_the_limits_saves_without_javascript(user_client, proposal):
    for i in range(limits.MAX_ROWS["codes"]):
        CodeEntryFactory(
            proposal=proposal, role="main" if i == 0 else "other", name=f"code {i}"
        )
    url = step_url(proposal, "codes")
    fields = form_of(user_client.get(url).content.decode())
    last = proposal.codes.order_by("position").last()
    _set(fields, f"codes-{last.pk}-version", "9.9")
    response = post_form(user_client, url, fields, save="1")
    assert response.status_code == 302, response.content.decode()[:2000]
    last.refresh_from_db()
    assert last.version == "9.9"


def test_codes_step_full_of_the_widest_characters_saves_without_javascript(
    user_client, proposal
):
    """Every text field of 50 code entries full, in 4-byte characters: the largest
    post a step can make (about 34 MB), within the limit derived from the format."""
    wide = "\U0001f600"
    line = wide * 99
    references = "\n".join([line] * (limits.REFERENCES_CHARS // 100)) + "\n" + wide * 99
    for i in range(limits.MAX_ROWS["codes"]):
        CodeEntryFactory(
            proposal=proposal,
            role="main" if i == 0 else "other",
            name=wide * limits.LINE_CHARS,
            version=wide * limits.VERSION_CHARS,
            references=references[: limits.REFERENCES_CHARS],
            description=wide * limits.NARRATIVE_CHARS,
        )
    url = step_url(proposal, "codes")
    fields = form_of(user_client.get(url).content.decode())
    last = proposal.codes.order_by("position").last()
    _set(fields, f"codes-{last.pk}-version", "9.9")
    body = encoded([*fields, ("save", "1")])
    assert len(body) > 30_000_000
    response = user_client.post(
        url, body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    last.refresh_from_db()
    assert last.version == "9.9"
    assert last.description == wide * limits.NARRATIVE_CHARS
