"""The accelerators applicants measure on today (issue 32): H200, B200, GB200, L40S,
MI250, MI325X, Gaudi 2 and 3, copied in from ``fixtures/gpu_models.json`` the way
0029 did; variants already there (by slug) stay as an administrator left them."""

import importlib

from django.db import migrations

load_gpu_models = importlib.import_module(
    "proposals.migrations.0029_gpu_models"
).load_gpu_models


class Migration(migrations.Migration):
    dependencies = [
        ("proposals", "0038_identity_provider"),
    ]

    operations = [
        migrations.RunPython(load_gpu_models, migrations.RunPython.noop),
    ]
