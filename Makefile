# One place for every task. The two that matter most (README): `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# make run PORT=8080 where 8000 is taken.
PORT ?= 8000

.PHONY: recipe-check translations messages run worker setup venv assets migrate demo test test-fast e2e lint typecheck format bench check-deploy clean system-packages loadtest warmup-bench lock install-prod prodcheck

## make run: set everything up, load the demo data and serve at http://127.0.0.1:$(PORT)
## (8000 unless PORT= says otherwise; the links mailed point there too, unless
## DJANGO_SITE_URL says otherwise), with the task worker (it sends the e-mails)
## running beside the server until Ctrl-C, started again whenever it exits
## (scripts/keep_alive.sh).
run: setup demo
	@echo ""
	@echo "  Serving at http://127.0.0.1:$(PORT)"
	@echo "  Demo applicant:     demo / aifactory-demo"
	@echo "  Demo colleague:     colleague / aifactory-colleague (editor on a demo proposal)"
	@echo "  Demo support staff: staff / aifactory-staff"
	@echo "  Administrator:      admin / aifactory-admin (Django admin, superuser)"
	@echo ""
	export DJANGO_SITE_URL="$${DJANGO_SITE_URL:-http://127.0.0.1:$(PORT)}"; \
	  DJANGO_DEBUG=1 bash scripts/keep_alive.sh $(PY) manage.py db_worker --no-reload & \
	  worker=$$!; \
	  trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	  DJANGO_DEBUG=1 $(PY) manage.py runserver 127.0.0.1:$(PORT)

## make worker: only the task worker (sends the queued e-mails), for a separate terminal.
worker: migrate
	DJANGO_DEBUG=1 $(PY) manage.py db_worker

setup: venv assets translations migrate

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

## Bootstrap comes from the npm registry (package-lock.json) and is copied into static/.
assets: static/vendor/.installed

static/vendor/.installed: package.json package-lock.json scripts/vendor_assets.sh
	npm ci --no-audit --no-fund --loglevel=error
	bash scripts/vendor_assets.sh
	touch $@

migrate: venv
	mkdir -p var
	DJANGO_DEBUG=1 $(PY) manage.py migrate --noinput

demo: migrate
	DJANGO_DEBUG=1 $(PY) manage.py load_demo

## make test: the whole suite (domain, web, commands, browser) on SQLite, or on
## PostgreSQL when DATABASE_URL points at it. Installs Chromium (and what the PDF
## export needs) with apt-get when it can, or says what to install.
## In parallel (pytest-xdist): TEST_WORKERS processes, one per core by default
## (auto; each collects the whole suite; more workers than cores were not faster on
## 2 cores, the browser tests included: Chromium is CPU-bound too); TEST_WORKERS=0
## runs in this process. Tests that share a module-scoped server carry an
## xdist_group marker (--dist loadgroup). The long property runs are
## bounded; PYTEST_ARGS=--long-properties runs them in full (tests/properties.py).
## PYTEST_ARGS adds arguments: make test PYTEST_ARGS='-m "not e2e"'.
TEST_WORKERS ?= auto
XDIST = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup)
test: venv assets system-packages translations
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

system-packages:
	@bash scripts/system_packages.sh

test-fast: venv assets translations
	$(PY) -m pytest $(XDIST) -m "not e2e" $(PYTEST_ARGS)

## The interface's German, French, Italian and Spanish catalogues (locale/): compiled for every run
## (msgfmt, Debian's gettext); `make messages` extracts new strings into them.
translations: venv
	@command -v msgfmt >/dev/null || bash scripts/system_packages.sh
	DJANGO_DEBUG=1 $(PY) manage.py compilemessages --ignore '.venv' --ignore 'node_modules' -v 0

MESSAGE_IGNORES := -i '.venv/*' -i 'node_modules/*' -i 'static/*' -i 'staticfiles/*' -i 'tests/*' -i 'test-artifacts/*' -i 'var/*' -i 'scripts/*' -i 'deploy/*' -i 'docs/*'
messages: venv
	DJANGO_DEBUG=1 $(PY) manage.py makemessages -l de -l fr -l it -l es --no-obsolete --no-wrap --no-location $(MESSAGE_IGNORES)
	DJANGO_DEBUG=1 $(PY) manage.py rule_messages -l de -l fr -l it -l es -v 0

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## make typecheck: mypy on the pure domain and the services, as pyproject.toml's
## [tool.mypy] says (django-stubs' plugin reads the test settings); CI runs it after lint.
typecheck: venv
	$(VENV)/bin/mypy

format: venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## make format-files: write what the JSON format generates (after a key is added to
## the vocabulary, README "Adding a field", or a bound changes): the schema, the table
## of bounds in docs/proposal-format.md and the worked examples (exports write every
## key). Needs no venv step: it only runs the engine.
.PHONY: format-files
format-files:
	$(PY) -m proposals.domain.reference --schema > docs/proposal-format.schema.json
	$(PY) -m proposals.domain.reference --format-doc
	$(PY) -c "from pathlib import Path; from proposals.domain.jsonformat import dumps, loads; \
	  [p.write_text(dumps(loads(p.read_text()))) for p in sorted(Path('fixtures/examples').glob('*.json'))]"

## make recipe-check: docs/developers.md's "Adding a field", followed literally in a
## scratch git worktree of HEAD (committed work only), then the tests it names (CI), in
## parallel as make test runs (TEST_WORKERS).
recipe-check: venv
	$(PY) -m scripts.recipe_check

## make bench: performance figures, as ratios against baselines measured in the same run
## (each ratio the median of seven alternated rounds, printed with its spread; a miss
## only when the whole spread is beyond the target).
bench: venv assets
	AIFACTORY_BENCH=1 \
	  $(PY) -m pytest tests/bench -p no:cacheprovider -s -q --no-header -o addopts=""

## make loadtest: N simulated typists (10, 20, 30; one autosave per second each)
## against gunicorn + a scratch PostgreSQL database it creates and drops, loopback
## only; prints throughput, p50/p95/p99 and errors per N and checks that every
## acknowledged save is in the database. The server is LOADTEST_PG (or DATABASE_URL)
## = postgres://USER:PASSWORD@127.0.0.1:5432/postgres, a user that may create
## databases; unset, the machine's PostgreSQL 15 is started and a role made for it
## (scripts/local_postgres.sh). LOADTEST_TYPISTS=10,20,30 and LOADTEST_SECONDS=20 tune it;
## LOADTEST_INSTANCES=2 spreads the typists over two gunicorn instances.
loadtest: venv
	@pg="$${LOADTEST_PG:-$$DATABASE_URL}"; \
	  if [ -z "$$pg" ]; then pg=$$(bash scripts/local_postgres.sh) || exit 1; fi; \
	  LOADTEST_PG="$$pg" $(PY) -m scripts.loadtest

## make warmup-bench: what a recycled gunicorn worker costs the typists, warm-up off
## and on (scripts/loadtest/warmup.py): a fresh worker's first step page and
## autosave against a warm one's, and the autosave p95 while workers recycle; same
## scratch PostgreSQL database as make loadtest (LOADTEST_PG), loopback only.
warmup-bench: venv
	@pg="$${LOADTEST_PG:-$$DATABASE_URL}"; \
	  if [ -z "$$pg" ]; then pg=$$(bash scripts/local_postgres.sh) || exit 1; fi; \
	  LOADTEST_PG="$$pg" $(PY) -m scripts.loadtest.warmup

## make lock: write requirements/production.txt (no test tools) and requirements/test.txt
## from pyproject.toml with uv (pip install uv), pinned with hashes for Linux x86_64.
UV ?= uv
LOCK_FLAGS := --generate-hashes --python-version 3.11 \
  --python-platform x86_64-manylinux_2_28 --quiet --custom-compile-command "make lock"
lock:
	$(UV) pip compile pyproject.toml $(LOCK_FLAGS) -o requirements/production.txt
	$(UV) pip compile pyproject.toml --extra test $(LOCK_FLAGS) -o requirements/test.txt

## make install-prod VENV=/srv/aifactory/venv: the production install (README,
## Production): the lock file only, every package checked against its hash; then the
## German and French catalogues compiled here, by the owner of this directory (the
## service user cannot write into it; a language left uncompiled fails the checks).
install-prod:
	@command -v msgfmt >/dev/null || { echo "install-prod: needs gettext's msgfmt (apt-get install gettext)" >&2; exit 1; }
	@# A new venv's interpreter must be one the services' user may run (not a python3
	@# from root's home, such as pyenv's): every directory up to it open to others.
	@test -d $(VENV) || { $(PYTHON) -m venv $(VENV) && p=$$(readlink -f $(VENV)/bin/python) && \
	  while [ "$$p" != / ]; do [ $$(( 0$$(stat -c %a "$$p") & 1 )) = 1 ] || { \
	    echo "install-prod: $$p is closed to other users: the services could not run $(VENV)/bin/python. rm -r $(VENV), then make install-prod PYTHON=/usr/bin/python3 VENV=$(VENV)" >&2; exit 1; }; \
	  p=$$(dirname "$$p"); done; }
	$(VENV)/bin/python -m pip install --require-hashes --no-deps -r requirements/production.txt
	DJANGO_DEBUG=1 $(VENV)/bin/python manage.py compilemessages --ignore '.venv' --ignore 'node_modules' -v 0

## make prodcheck: the production stack on this machine (PostgreSQL, two gunicorn
## instances behind nginx, the supervised worker, an SMTP relay with STARTTLS and
## login), walked and stopped again (scripts/prod_stack/), then the two instances again
## with a Redis cache. Installs nginx and redis-server when it can.
prodcheck: venv translations
	@bash scripts/system_packages.sh nginx openssl redis-server
	$(PY) -m scripts.prod_stack

check-deploy: venv
	DJANGO_DEBUG=0 DJANGO_SECRET_KEY=$$(head -c 48 /dev/urandom | base64) \
	  DJANGO_ALLOWED_HOSTS=wizard.example.eu DJANGO_SITE_URL=https://wizard.example.eu \
	  DJANGO_CACHE_BACKEND=db $(PY) manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) node_modules static/vendor staticfiles var .mypy_cache
