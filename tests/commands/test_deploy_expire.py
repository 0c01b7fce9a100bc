"""The expiry's systemd timer starts a service that runs ``expire_stale``, daily."""

import configparser
import shlex
from pathlib import Path

from django.core.management import get_commands

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "systemd"


def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # systemd's keys are case-sensitive
    parser.read_string((DEPLOY / name).read_text(encoding="utf-8"))
    return parser


def test_the_timer_runs_the_expiry_command_daily():
    timer = _unit("aifactory-expire.timer")
    assert timer["Timer"]["OnCalendar"] == "*-*-* 03:30:00"
    assert timer["Timer"]["Persistent"] == "true"
    assert timer["Install"]["WantedBy"] == "timers.target"
    service = _unit("aifactory-expire.service")
    assert service["Service"]["Type"] == "oneshot"
    *_, manage, command = shlex.split(service["Service"]["ExecStart"])
    assert manage == "manage.py" and command in get_commands()
    assert command == "expire_stale"


def test_the_reminders_timer_runs_the_cutoff_reminders_daily():
    timer = _unit("aifactory-reminders.timer")
    assert timer["Timer"]["OnCalendar"] == "*-*-* 07:00:00"
    assert timer["Timer"]["Persistent"] == "true"
    assert timer["Install"]["WantedBy"] == "timers.target"
    service = _unit("aifactory-reminders.service")
    assert service["Service"]["Type"] == "oneshot"
    *_, manage, command = shlex.split(service["Service"]["ExecStart"])
    assert manage == "manage.py" and command in get_commands()
    assert command == "remind_cutoffs"


def test_the_digests_timer_runs_the_staff_digests_hourly():
    timer = _unit("aifactory-digests.timer")
    assert timer["Timer"]["OnCalendar"] == "*-*-* *:05:00"
    assert timer["Timer"]["Persistent"] == "true"
    assert timer["Install"]["WantedBy"] == "timers.target"
    service = _unit("aifactory-digests.service")
    assert service["Service"]["Type"] == "oneshot"
    *_, manage, command = shlex.split(service["Service"]["ExecStart"])
    assert manage == "manage.py" and command in get_commands()
    assert command == "send_digests"
