# Learning to Attend. Two commands matter: `make lab` (learn) and `make test` (check everything).
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The website's packages (requirements-site.txt) go into the same .venv, on top; learners who only run notebooks skip them.
SITE_STAMP := $(VENV)/.installed-site
# Notebooks run in parallel on both cores (one torch thread each); set JOBS=0 to run serially.
JOBS   ?= 2
LAB_PORT ?= 8888
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
XDIST  := $(if $(filter-out 0,$(JOBS)),-n $(JOBS) --dist loadfile,)
# Pinned numerical code paths (helpers/pinning.py is the one list): exported to every command below, so that
# pytest, nbval's kernels, JupyterLab's kernels, make execute, the benchmarks and grading all load torch with them.
PIN_ENV := $(shell $(PYTHON) helpers/pinning.py --env)
$(foreach kv,$(PIN_ENV),$(eval export $(kv)))
KERNEL_DIR := $(VENV)/share/jupyter/kernels/python3

.PHONY: help install lab lint test test-fast execute evidence bench assignments student-release grade clean zh zh-extract site

help:
	@echo "make lab      set up .venv (first time) and start JupyterLab on notebooks/"
	@echo "make test     set up .venv (first time) and run every test: helpers, hygiene, browser, strict nbval"
	@echo "make test-fast  only the helper tests (no notebooks)"
	@echo "make site     the course website, both editions, into site/en and site/zh (offline; SITE_REPO=owner/name)"
	@echo "make lint     ruff (pyflakes, pycodestyle, isort, bugbear) over the Python code"
	@echo "make zh       rebuild the Chinese edition notebooks/zh/ from notebooks/ and i18n/zh/ (nothing is re-run)"
	@echo "make zh-extract  merge new and changed cells and messages into the PO catalogues (i18n/zh/*.po, messages.po)"
	@echo "make execute  re-execute every notebook in place (NB=notebooks/03_qkv_by_hand.ipynb for one), and its"
	@echo "             Chinese edition if the chapter runs in Chinese"
	@echo "make evidence  run the multi-seed experiments once and write data/evidence/*.json (NAME=scorers for one)"
	@echo "make bench    run the benchmarks and update README's Performance section"
	@echo "make assignments  build student and autograder versions into assignments/dist/"
	@echo "make student-release DEST=../class-repo  the course without masters, solutions or hidden tests"
	@echo "make grade A=attention_by_hand S=submissions/attention_by_hand CSV=grades/gradebook.csv FEEDBACK=feedback"
	@echo "             (in bubblewrap; UNSAFE=1 grades without a sandbox where bwrap is missing)"

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m helpers.devtools kernelspec $(KERNEL_DIR)
	touch $(STAMP)

$(SITE_STAMP): $(STAMP) requirements-site.txt
	$(BIN)/python -m pip install --quiet -r requirements-site.txt
	touch $(SITE_STAMP)

install: $(STAMP)

# SITE_REPO (owner/name of the class repository) fills the Binder and JupyterHub links; SITE_HUB the hub's host.
site: $(SITE_STAMP)
	$(BIN)/python -m helpers.devtools.site

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks --port=$(LAB_PORT) $(ROOT_FLAG) $(LAB_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) $(SITE_STAMP) lint
	@if [ ! -d tests ]; then echo "tests/ is not part of the student release: make test is for teachers and authors"; \
	else $(BIN)/python -m pytest -rsx $(XDIST) $(NBVAL) tests notebooks; fi

test-fast: $(STAMP)
	$(BIN)/python -m pytest -rs -m "not browser and not slow" tests

execute: $(STAMP)
	$(BIN)/python -m helpers.devtools execute $(NB)
	$(BIN)/python -m helpers.devtools.zh build
	$(BIN)/python -m helpers.devtools.zh execute --skip-others $(NB)

zh: $(STAMP)
	$(BIN)/python -m helpers.devtools.zh build

zh-extract: $(STAMP)
	$(BIN)/python -m helpers.devtools.zh extract

evidence: $(STAMP)
	$(BIN)/python -m helpers.evidence build $(NAME) --jobs $(if $(filter-out 0,$(JOBS)),$(JOBS),1)

bench: $(SITE_STAMP)
	for b in benchmarks/run_notebooks.py benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

GRADE_JOBS ?= 2

assignments: $(STAMP)
	$(BIN)/python -m assignments.build

student-release: $(STAMP)
	@test -n "$(DEST)" || { echo "usage: make student-release DEST=../class-repo [FORCE=1]"; exit 2; }
	$(BIN)/python -m assignments.release $(DEST) $(if $(FORCE),--force,)

grade: $(STAMP)
	@test -n "$(A)" -a -n "$(S)" || { echo "usage: make grade A=attention_by_hand S=submissions/attention_by_hand [CSV=grades/gradebook.csv] [FEEDBACK=feedback] [MANUAL=grades/manual.csv]"; exit 2; }
	$(BIN)/python -m assignments.grade $(A) $(S) $(if $(CSV),--csv $(CSV),) $(if $(FEEDBACK),--feedback $(FEEDBACK),) $(if $(MANUAL),--manual $(MANUAL),) --jobs $(GRADE_JOBS) $(if $(UNSAFE),--no-sandbox-i-understand,)

clean:
	rm -rf $(VENV) .pytest_cache tests/artifacts site build/site
