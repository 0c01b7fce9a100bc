"""``python -m scripts.recipe_check``: follow docs/developers.md, "Adding a field",
literally in a scratch copy of HEAD, and run the tests the recipe names.

Two fields are added, as a newcomer would: ``container_runtime``, a text field of
the selection step (a proposal's own field under ``selection``), and
``codes_overview``, a field of the code-details step itself (a top-level key), whose
form the wizard derives from the layout the recipe gives that step. Each step of
the recipe is one function below, numbered as in the recipe; an anchor that is no
longer in a file stops the check with the file and the text it looked for: then the
code moved, and the recipe (and this check) need updating together.

The scratch copy is a ``git worktree`` of HEAD in a temporary directory, with this
checkout's ``.venv`` and ``node_modules`` linked and ``static/vendor`` copied; it is
removed at the end (``--keep`` keeps it). Nothing is installed and the checkout
itself is not touched. Exits 0 when the recipe's tests pass, 1 when they fail, 2
when the recipe could not be applied. ``--tests`` runs other test files instead.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = (
    "tests/web/test_vocabulary.py",
    "tests/web/test_layouts.py",
    "tests/web/test_import_json.py",
    "tests/web/test_code_fields.py",
    "tests/domain/test_jsonformat.py",
    "tests/domain/test_code_values.py",
    "tests/domain/test_structure.py",
    "tests/domain/test_format_bounds.py",
    "tests/web/test_translations.py",
)
# The new strings in German and French (step 7), as a translator would write them.
TRANSLATIONS = {
    "de": {
        "Container runtime": "Container-Laufzeitumgebung",
        "The container runtime your jobs use, if any.": (
            "Die Container-Laufzeitumgebung Ihrer Jobs, falls vorhanden."
        ),
        "How the codes fit together": "Wie die Codes zusammenspielen",
        "One or two sentences on how the code entries below work together.": (
            "Ein oder zwei Sätze dazu, wie die Code-Einträge unten zusammenwirken."
        ),
    },
    "fr": {
        "Container runtime": "Environnement d’exécution de conteneurs",
        "The container runtime your jobs use, if any.": (
            "L’environnement d’exécution de conteneurs de vos tâches, le cas échéant."
        ),
        "How the codes fit together": "Comment les codes s’articulent",
        "One or two sentences on how the code entries below work together.": (
            "Une ou deux phrases sur la façon dont les codes ci-dessous fonctionnent "
            "ensemble."
        ),
    },
    "it": {
        "Container runtime": "Runtime dei container",
        "The container runtime your jobs use, if any.": (
            "Il runtime dei container usato dai tuoi job, se presente."
        ),
        "How the codes fit together": "Come si combinano i codici",
        "One or two sentences on how the code entries below work together.": (
            "Una o due frasi su come lavorano insieme le voci di codice qui sotto."
        ),
    },
    "es": {
        "Container runtime": "Entorno de ejecución de contenedores",
        "The container runtime your jobs use, if any.": (
            "El entorno de ejecución de contenedores que usan sus trabajos, si lo hay."
        ),
        "How the codes fit together": "Cómo encajan los códigos",
        "One or two sentences on how the code entries below work together.": (
            "Una o dos frases sobre cómo funcionan juntas las entradas de código de "
            "abajo."
        ),
    },
}
MESSAGE_IGNORES = (
    ".venv/*",
    "node_modules/*",
    "static/*",
    "staticfiles/*",
    "tests/*",
    "test-artifacts/*",
    "var/*",
    "scripts/*",
    "deploy/*",
    "docs/*",
)


class RecipeError(Exception):
    """The recipe could not be applied as written."""


def insert(root: Path, path: str, anchor: str, text: str, *, before=False) -> None:
    """Put ``text`` after (or ``before``) the first ``anchor`` in ``path``."""
    file = root / path
    content = file.read_text(encoding="utf-8")
    at = content.find(anchor)
    if at < 0:
        raise RecipeError(f"{path}: no longer holds {anchor!r}")
    at = at if before else at + len(anchor)
    file.write_text(content[:at] + text + content[at:], encoding="utf-8")


def run(root: Path, *args: str, python=True) -> None:
    command = [str(root / ".venv/bin/python"), *args] if python else list(args)
    env = {**os.environ, "DJANGO_DEBUG": "1"}
    env.pop("DATABASE_URL", None)  # the scratch copy's own SQLite file
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if done.returncode:
        raise RecipeError(f"{' '.join(args)}:\n{done.stdout}{done.stderr}")


def step0_compile(root: Path) -> None:
    ignores = ("--ignore", ".venv", "--ignore", "node_modules")
    run(root, "manage.py", "compilemessages", *ignores, "-v", "0")


def step1_models(root: Path) -> None:
    insert(
        root,
        "proposals/models/proposal.py",
        "    class GpuUnit(models.TextChoices):",
        "    container_runtime = models.CharField(\n"
        '        label("container_runtime"), max_length=limits.LINE_CHARS, blank=True\n'
        "    )\n"
        "    codes_overview = models.TextField(\n"
        '        label("codes_overview"), max_length=limits.JUSTIFICATION_CHARS, '
        "blank=True\n    )\n\n",
        before=True,
    )


def step2_vocabulary(root: Path) -> None:
    insert(
        root,
        "proposals/domain/field_catalogue.py",
        '    scalar(\n        "auxiliary_services",',
        '    scalar(\n        "container_runtime",\n        "selection.container_runtime",\n'
        '        "selection",\n        gettext_noop("Container runtime"),\n'
        '        help=gettext_noop("The container runtime your jobs use, if any."),\n'
        '        example="Singularity/Apptainer",\n    ),\n'
        '    scalar(\n        "codes_overview",\n        "codes_overview",\n'
        '        "codes",\n        gettext_noop("How the codes fit together"),\n'
        "        help=gettext_noop(\n"
        '            "One or two sentences on how the code entries below work together."\n'
        "        ),\n"
        '        example="The pre-processing feeds the training loop.",\n    ),\n',
        before=True,
    )
    # The migration after the vocabulary: the model's label() reads it.
    run(root, "manage.py", "makemigrations", "proposals", "-n", "recipe_check")


def step3_layout_and_form(root: Path) -> None:
    layouts = "proposals/domain/layouts.py"
    insert(
        root,
        layouts,
        '(Cell("auxiliary_services"),),',
        ' (Cell("container_runtime"),),',
    )
    insert(
        root,
        layouts,
        '    "scalability": Layout(',
        '    "codes": Layout((Group("overview", _one("codes_overview")),)),\n',
        before=True,
    )
    # The code-details step's form is derived from the layout: only its template.
    insert(
        root,
        "proposals/jinja2/proposals/wizard/steps/codes.html",
        '<div id="section-codes">',
        "{{ group(page, page.forms.main, page.step.layout.overview) }}\n",
        before=True,
    )


def step4_domain(root: Path) -> None:
    types = "proposals/domain/types.py"
    insert(
        root,
        types,
        "    duration_months: int | None = None\n",
        '    container_runtime: str = ""\n',
    )
    insert(
        root,
        types,
        '    optimisation_narrative: str = ""\n',
        '    codes_overview: str = ""\n',
    )


def step5_format(root: Path) -> None:
    shape = "proposals/domain/formatshape.py"
    insert(
        root,
        shape,
        'Field("duration_months", "integer", nullable=True),',
        '\n        Field("container_runtime", "string", max_length=limits.LINE_CHARS, '
        'default=""),',
    )
    insert(
        root,
        shape,
        'Field("codes", "array", shape=CODE, max_items=limits.MAX_ROWS["codes"]),',
        '\n        Field("codes_overview", "string", '
        'max_length=limits.JUSTIFICATION_CHARS, default=""),',
    )


def step6_format_files(root: Path) -> None:
    run(root, "make", "format-files", f"PY={root / '.venv/bin/python'}", python=False)


def step7_translations(root: Path) -> None:
    ignores = [arg for item in MESSAGE_IGNORES for arg in ("-i", item)]
    # Every catalogue the project ships (locale/<language>/LC_MESSAGES), as
    # `make messages` extracts them: a language added later needs its translations
    # here too, or the check stops and says which.
    languages = sorted(
        path.parent.parent.name
        for path in (root / "locale").glob("*/LC_MESSAGES/django.po")
    )
    if missing := sorted(set(languages) - set(TRANSLATIONS)):
        raise RecipeError(f"no translations written for {', '.join(missing)}")
    chosen = [arg for language in languages for arg in ("-l", language)]
    run(root, "manage.py", "makemessages", *chosen, "--no-obsolete", "--no-wrap",
        "--no-location", *ignores, "-v", "0")  # fmt: skip
    for language, pairs in TRANSLATIONS.items():
        catalogue = root / "locale" / language / "LC_MESSAGES" / "django.po"
        text = catalogue.read_text(encoding="utf-8")
        for msgid, msgstr in pairs.items():
            # A guess from a similar string comes marked fuzzy: drop the marks.
            entry = re.compile(
                r'(?:#, fuzzy\n)?(?:#\| msgid "[^\n]*"\n)?msgid "'
                + re.escape(msgid)
                + r'"\nmsgstr "[^\n]*"'
            )
            text, found = entry.subn(
                lambda _m, i=msgid, s=msgstr: f'msgid "{i}"\nmsgstr "{s}"', text
            )
            if found != 1:
                raise RecipeError(f"{catalogue}: {msgid!r} found {found} times")
        catalogue.write_text(text, encoding="utf-8")
    step0_compile(root)


STEPS = (
    step0_compile,
    step1_models,
    step2_vocabulary,
    step3_layout_and_form,
    step4_domain,
    step5_format,
    step6_format_files,
    step7_translations,
)


def parallel() -> list[str]:
    """pytest-xdist's arguments, as ``make test`` gives them: TEST_WORKERS processes
    (one per core by default), none for TEST_WORKERS=0. The recipe's 247 tests took
    71 CPU seconds in one process, nearly all of it computing (102 s of wall time on
    a machine shared three ways): in two, about half the wall time."""
    workers = os.environ.get("TEST_WORKERS", "auto")
    return [] if workers == "0" else ["-n", workers, "--dist", "loadgroup"]


def scratch_copy() -> Path:
    root = Path(tempfile.mkdtemp(prefix="recipe-check-")) / "copy"
    subprocess.run(
        [
            "git",
            "-C",
            str(ROOT),
            "worktree",
            "add",
            "--detach",
            "-q",
            str(root),
            "HEAD",
        ],
        check=True,
    )
    for name in (".venv", "node_modules"):
        (root / name).symlink_to((ROOT / name).resolve())
    vendor = ROOT / "static" / "vendor"
    if vendor.is_dir():
        shutil.copytree(vendor, root / "static" / "vendor", dirs_exist_ok=True)
    return root


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the scratch copy")
    parser.add_argument("--tests", nargs="*", default=TESTS)
    options = parser.parse_args(argv)
    started = time.monotonic()
    root = scratch_copy()
    print(f"recipe check: scratch copy {root}", flush=True)
    try:
        for step in STEPS:
            step(root)
            print(f"  {step.__name__}: done ({time.monotonic() - started:.0f} s)")
        tests = subprocess.run(
            [
                str(root / ".venv/bin/python"),
                "-m",
                "pytest",
                *options.tests,
                "-q",
                "-p",
                "no:cacheprovider",
                *parallel(),
            ],  # fmt: skip
            cwd=root,
            env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        )
        print(f"recipe check: tests exit {tests.returncode}, "
              f"{time.monotonic() - started:.0f} s in all")  # fmt: skip
        return 0 if tests.returncode == 0 else 1
    except RecipeError as error:
        print(
            f"recipe check: the recipe could not be applied: {error}", file=sys.stderr
        )
        return 2
    finally:
        if not options.keep:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(root)],
                check=False,
            )
            shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
