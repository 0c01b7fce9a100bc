"""Pages that only a POST reaches, walked in every language like the GET walk of
test_translations.py (its catalogue, stored text and demo)."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from proposals import selectors
from tests.web import translation_check as check
from tests.web.test_translations import (  # noqa: F401 (demo: a fixture)
    _catalogue,
    _rules_catalogue,
    demo,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", check.LANGUAGES)
def test_bulk_check_page_shows_no_english(client, demo, language):  # noqa: F811
    """The queue's bulk action answers a POST with a page that lists what will
    change: walked here, as the GET walk cannot reach it."""
    catalogue = [
        *check.read_catalogue(_catalogue(language)),
        *check.read_catalogue(_rules_catalogue(language)),
    ]
    client.force_login(User.objects.get(username="staff"))
    waiting = [state.proposal_id for state in selectors.review_queue()]
    assert waiting, "the demo has proposals waiting in the queue"
    response = client.post(
        reverse("proposals:review_queue_bulk"),
        {"action": "take", "pick": waiting},
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    assert 'data-testid="bulk-row' in response.text  # changed or refused, with why
    found = check.offences(
        "review_queue_bulk",
        response.content.decode(),
        language=language,
        pieces=check.english_pieces(catalogue),
        data=check.stored_text(),
        names=check.proper_names(catalogue),
    )
    assert not found, "\n".join(str(offence) for offence in found)
