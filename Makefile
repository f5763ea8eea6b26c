# The two commands that matter: `make run` (serve the back-office locally) and `make test`.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip install --disable-pip-version-check -q
HOST   ?= 127.0.0.1:8000

.PHONY: run test lint typecheck worker beat venv messages compilemessages

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
	  echo "error: $(PYTHON) was not found on PATH. Install Python 3.11 (e.g. 'pyenv install 3.11' or your" >&2; \
	  echo "       distribution's python3.11 package) and run make again, or set PYTHON=/path/to/python3.11." >&2; \
	  exit 1; }
	$(PYTHON) -m venv $(VENV)

venv: $(PY)

## run: install runtime deps, migrate, load the demo data, serve on http://127.0.0.1:8000
run: $(PY)
	$(PIP) -r requirements/base.txt
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) manage.py runserver $(HOST)

## test: install dev deps, lint, type-check, check migrations are up to date, then the suite twice:
## on PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/chemin), and on SQLite, the
## README's default (tests marked `postgres` skip there, and only there), with the night played on
## `make run` itself (tests/browser/test_default_night.py). PYTEST_WORKERS: pytest-xdist's -n.
## POOLER_DATABASE_URL (PgBouncer in transaction pooling, .ci/pool_and_standby.sh; CI sets it): a
## pooled pass between the two, the tests marked `concurrency` and `pooler` once more with the
## default database reached through it (docs/scaling.md); without it the pass is left out.
## PYTEST_DIST: how xdist shares the tests between the workers.
PYTEST_WORKERS ?= auto
## A worker that runs out of tests takes half of another's queue; the tests marked `slow` are
## collected first (tests/conftest.py), so the long ones end beside the short ones.
PYTEST_DIST    ?= --dist worksteal
SQLITE_TEST_DB := sqlite:///$(CURDIR)/var/suite.sqlite3
POOLER_DATABASE_URL ?=
test: $(PY)
	$(PIP) -r requirements/dev.txt
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	DJANGO_SETTINGS_MODULE=casino.settings.test $(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) $(PYTEST_DIST) -m "not default_night and not pooler"
ifneq ($(POOLER_DATABASE_URL),)
	DATABASE_URL=$(POOLER_DATABASE_URL) DATABASE_POOLER=pgbouncer-transaction $(VENV)/bin/pytest -n 0 -m "concurrency or pooler"
endif
	DATABASE_URL=$(SQLITE_TEST_DB) $(VENV)/bin/pytest -n $(PYTEST_WORKERS) $(PYTEST_DIST)

lint: $(PY)
	$(VENV)/bin/ruff check .

## typecheck: mypy over the tree (strict on the engines, the services, the money, the bridge, the lifecycle and the selectors; see pyproject.toml)
typecheck: $(PY)
	$(PIP) -r requirements/dev.txt
	$(VENV)/bin/mypy

## worker / beat: Celery processes (need CELERY_BROKER_URL, e.g. redis://127.0.0.1:6379/0)
worker: $(PY)
	$(VENV)/bin/celery -A casino worker --loglevel=INFO --queues=celery,reports --prefetch-multiplier=1

beat: $(PY)
	$(VENV)/bin/celery -A casino beat --loglevel=INFO --scheduler django_celery_beat.schedulers:DatabaseScheduler

## messages: re-extract every marked string into locale/{fr,ru}/LC_MESSAGES/django.po (needs GNU
## gettext); then translate the new and fuzzy entries and run `make compilemessages` (docs/i18n.md)
MAKEMESSAGES_IGNORE := --ignore=.venv --ignore=tests --ignore=bench --ignore=var --ignore=staticfiles
messages: $(PY)
	$(PY) manage.py makemessages -l fr -l ru --add-location=file --no-obsolete $(MAKEMESSAGES_IGNORE)

## compilemessages: django.po → django.mo (the .mo files are committed: `make run` and CI need no gettext)
compilemessages: $(PY)
	$(PY) manage.py compilemessages --ignore=.venv
