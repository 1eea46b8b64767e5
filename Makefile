# Two commands for a new machine: `make run` and `make test`. `make help` lists the rest.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
MANAGE := $(PY) manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.DEFAULT_GOAL := help
.PHONY: help venv install install-dev setup run serve scheduler test lint format pytest clean bench bench-growth bench-clean faults backup restore screenshots screenshots-editor

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(VENV)/.base-installed: requirements/base.txt | $(PY)
	@echo "Installing the pinned dependencies into $(VENV): a few minutes the first time, quietly."
	$(PIP) install --quiet -r requirements/base.txt
	touch $@

$(VENV)/.dev-installed: requirements/base.txt requirements/dev.txt | $(PY)
	@echo "Installing the pinned development dependencies into $(VENV): a few minutes the first time, quietly."
	$(PIP) install --quiet -r requirements/dev.txt
	touch $(VENV)/.base-installed $@

install: $(VENV)/.base-installed ## Create .venv and install the pinned runtime dependencies

# Test-only npm tools (axe-core, the Nu HTML checker), exactly as package-lock.json pins them;
# --ignore-scripts: vnu-jar's install script would try to download a Java runtime.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

install-dev: $(VENV)/.dev-installed node_modules/.package-lock.json ## Install the pinned runtime and development dependencies (Python and npm)

# Absolute URLs (canonical, feeds, sitemap, e-mail links) follow the address `make run` serves,
# unless WAGTAILADMIN_BASE_URL or WAGTAIL_SITE_ROOT_URL is set (docs/operations.md, "Absolute URLs").
setup run: export WAGTAILADMIN_BASE_URL ?= http://$(HOST):$(PORT)

setup: install ## Install, migrate and load the demo content once; later runs keep your edits (no server)
	mkdir -p var
	$(MANAGE) migrate --noinput
	$(MANAGE) load_demo --keep-content

run: setup ## Set up, then serve http://$(HOST):$(PORT)/ with the publishing scheduler beside it
	@echo "Serving http://$(HOST):$(PORT)/ (Ctrl-C stops the server and the scheduler)"
	@$(MANAGE) run_scheduler & scheduler=$$!; \
	trap 'kill $$scheduler 2>/dev/null' EXIT INT TERM; \
	$(MANAGE) runserver $(HOST):$(PORT)

scheduler: install ## Run only the scheduler: due go-lives and expiries every minute (one transaction each), the search log trimmed daily
	$(MANAGE) run_scheduler

lint: install-dev ## ruff check, ruff format --check, Django checks, migrations up to date
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	@# The embedded default database lives in var/ (a fresh clone has none yet): without the folder,
	@# makemigrations cannot open it to check the migration history and only warns.
	mkdir -p var
	@# The system checks and the migrations check side by side (two Django start-ups, 2 s each);
	@# the target fails if either does.
	DJANGO_SETTINGS_MODULE=config.settings.test $(MANAGE) check --fail-level WARNING & checks=$$!; \
	DJANGO_SETTINGS_MODULE=config.settings.test $(MANAGE) makemigrations --check --dry-run; migrations=$$?; \
	wait $$checks && exit $$migrations

format: install-dev ## Apply ruff's fixes and formatting
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# pytest-xdist workers (one per core by default); PYTEST_WORKERS=0 runs in this process.
# loadgroup: tests marked xdist_group share a worker (one S3 or app-server fixture per module);
# --no-loadscope-reorder keeps them in collection order, or the largest group (the multi-server
# one, transactional, which empties the database) would be handed out first, before tests that
# need the demo content (tests/conftest.py runs such tests last).
PYTEST_WORKERS ?= auto
# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE): each
# worker otherwise compiles the project and rewrites every test module's asserts again.
pytest: install-dev ## Run the test suite only (PYTEST_WORKERS=0 for one process, PYTEST_ARGS=... to pass on)
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder $(PYTEST_ARGS)

test: lint pytest ## Lint, then run the whole test suite

backup: install ## Back up the database and media into var/backups/<timestamp>/
	$(MANAGE) backup_site

restore: install ## Restore BACKUP=var/backups/<timestamp> into an empty database (DATABASE_URL)
	@test -n "$(BACKUP)" || { echo "usage: make restore BACKUP=var/backups/<timestamp>"; exit 2; }
	$(MANAGE) restore_site "$(BACKUP)"

# bakerydemo's source comes from a tarball, never from this repository (benchmarks/bench.py says
# where to download it when the default beside the checkout is absent).
BAKERYDEMO_TARBALL ?= ../shared/peer-bench/bakerydemo-8e2b625.tar.gz
bench: install ## Our site against bakerydemo, interleaved, SQLite and PostgreSQL+Redis (~10 min; BENCH_ARGS="--long --write-docs")
	@command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 1; }
	$(PY) benchmarks/bench.py --bakerydemo "$(BAKERYDEMO_TARBALL)" $(BENCH_ARGS)

bench-clean: ## Drop make bench's databases (peerbench_ours, peerbench_bakery) and remove var/bench/
	$(PY) benchmarks/bench.py --clean

bench-growth: install ## Our site alone at BENCH_ARTICLES articles (PostgreSQL, Redis); writes docs/performance.md
	@command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 1; }
	$(PY) benchmarks/run.py

faults: install ## Load and fault runs on a throwaway PostgreSQL and Redis (ports 8710-8713, ~8 min); writes docs/reliability.md
	@command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk"; exit 1; }
	$(PY) benchmarks/faults.py

screenshots: install-dev ## Reader pages at phone and desktop widths into docs/screenshots/reader-*.png (Chromium)
	$(PY) docs/screenshots/capture_reader.py

screenshots-editor: install-dev ## Editor-guide shots (import, chart, footnotes, calendar, review panels) into docs/screenshots/; needs a running demo server: BASE_URL (default http://127.0.0.1:8000), MONTH=YYYY-MM for the calendar
	$(PY) docs/screenshots/capture_editor.py --base-url $(or $(BASE_URL),http://127.0.0.1:8000) $(if $(MONTH),--month $(MONTH))

clean: ## Remove the virtualenv and local data (database, media)
	rm -rf $(VENV) var
