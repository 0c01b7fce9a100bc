"""Issue 25: figures and dates still printed in English style on the pages (the
chart's tick labels, the logs preview, the catalogue's dates, the retarget message)
follow the reader's format (German ``1.234,5``, Swiss German ``1'234.5``)."""

from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from proposals import services
from proposals.domain import numbers
from proposals.models import Proposal
from tests.web.test_compute_planning import fast_lane_on_mn5  # noqa: F401
from tests.web.test_live import chart_src, full, step_url  # noqa: F401

pytestmark = pytest.mark.django_db
GERMAN = numbers.NUMBER_FORMAT_BY_NAME["de_DE"]


def _svg_texts(svg: str) -> str:
    return " ".join(part.split(">", 1)[1] for part in svg.split("<text")[1:])


def test_chart_ticks_follow_the_readers_format(user, user_client, full):  # noqa: F811
    english = user_client.get(
        chart_src(user_client.get(step_url(full, "scalability")).content.decode())
    )
    services.preferences_set(user=user, number_format="de_DE")
    page = user_client.get(step_url(full, "scalability")).content.decode()
    german = user_client.get(chart_src(page)).content.decode()
    assert "1,000" in english.content.decode()
    assert "1.000" in german and "1,000" not in german
    # A chart per format: the German one has its own key, so no cache mixes them.
    assert chart_src(page) != english.request["PATH_INFO"]


def test_logs_preview_prints_mfu_and_counts_in_the_readers_format():
    context = {
        "reading": SimpleNamespace(files=["a.log"], refused=[], unread=[], notes=[]),
        "measurements": [
            {
                "file": "a.log",
                "gpus": 1024,
                "throughput": "1.234",
                "unit": "t/s",
                "mfu": 41.25,
                "tflops": None,
                "source": "x",
                "problem": "",
            },
            {
                "file": "b.log",
                "gpus": None,
                "throughput": "",
                "unit": "t/s",
                "mfu": None,
                "tflops": 1234.4,
                "source": "x",
                "problem": "",
            },
        ],
        "jobs": [
            {
                "title": "t",
                "gpus": 2048,
                "hours": "12,5",
                "count": 1500,
                "source": "s",
                "problem": "",
            }
        ],
    }
    with numbers.using(GERMAN):
        html = render_to_string("proposals/_logs_preview.html", context)
    assert "41,2\u00a0%" in html or "41,3\u00a0%" in html
    assert "1.234 TFLOP/s" in html and "1.024" in html
    assert "2.048" in html and "1.500" in html and ">?<" in html


def test_dates_of_the_catalogue_in_the_readers_form(user, user_client, proposal):
    services.preferences_set(user=user, number_format="de_DE")
    content = user_client.get(step_url(proposal, "selection")).content.decode()
    assert "checked 03.12.2026" in content
    assert "47,9 TFLOP/s FP32" in content


def test_retarget_message_factor_in_the_readers_format(
    user,
    user_client,
    fast_lane_on_mn5,  # noqa: F811
):
    services.preferences_set(user=user, number_format="de_DE")
    url = reverse("proposals:retarget_copy", args=[fast_lane_on_mn5.pk])
    response = user_client.post(url, {"system": "lumi-g", "rescale": "1"}, follow=True)
    page = response.content.decode()
    assert Proposal.objects.count() == 2
    assert "77.472 GPU-hours" in page and "×2,58 (" in page
    assert "×2.58" not in page


def test_staff_scaling_table_speedups_in_the_readers_format(
    user,
    client,
    staff_user,
    full,  # noqa: F811
):
    services.review_submit(proposal=full, user=user)
    services.preferences_set(user=staff_user, number_format="de_DE")
    client.force_login(staff_user)
    page = client.get(reverse("proposals:staff_review", args=[full.pk]))
    table = page.content.decode().split('data-testid="scaling-table-review"')[1]
    table = table.split("</table>")[0]
    assert "1,90x" in table and "2.280" in table and "1.90x" not in table


def test_the_length_limit_is_told_in_the_readers_format(user, user_client, proposal):
    from tests.web.test_wizard import HX, selection_data

    services.preferences_set(user=user, number_format="de_DE")
    content = user_client.post(
        step_url(proposal, "selection"),
        selection_data(proposal, libraries="x" * 1001),
        headers=HX,
    ).content.decode()
    assert "Shorten this to at most 1.000 characters" in content


def test_admin_pdf_sizes_in_the_readers_format():
    from django.contrib.admin.sites import site

    from proposals.admin.records import PdfExportAdmin
    from proposals.models import PdfExport

    export = SimpleNamespace(pdf_size=1_536_000)
    admin = PdfExportAdmin(PdfExport, site)
    with numbers.using(GERMAN):
        assert admin.size(export) == "1.500 KB"
    assert admin.size(export) == "1,500 KB"
