"""An unknown holiday calendar stops the start (``proposals.E004``): it once passed
``manage.py check`` and turned the staff queue into a 500 for every staff member."""

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError


@pytest.mark.django_db
def test_an_unknown_calendar_stops_the_start(settings):
    settings.HOLIDAY_COUNTRY = "XX"
    with pytest.raises(SystemCheckError, match="proposals.E004"):
        call_command("check")
    settings.HOLIDAY_COUNTRY = "ES-CT"
    call_command("check")
