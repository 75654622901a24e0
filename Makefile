# gamepanel.panel: developer and CI entry points.
#
#   make demo    start the panel emulator, show the fleet, restart part of it, stop the emulator
#   make test    every check (TEST_STEPS below), timed, two at a time; .ci/run calls it
#   make release-check   what a release needs on top (RELEASE_STEPS below); .ci/run calls it too
#
# What `make test` runs, in this order (each is a target of its own, `make help` lists them):
#   1. set-up:  venvs (.venv/NAME from requirements/NAME.txt), collection (.ci/build_collection.sh),
#               get-pip-standin (.ci/get_pip_standin.py)
#   2. checks, two at a time (make -j2 --output-sync): sanity docs-check format-check units lint
#      emulator-tests galaxy-importer integration eda-test browser-test
# Set-up logic lives in small scripts under .ci/ (interpreters: .ci/find_python.sh); this file
# only names the steps and their order. See docs/testing.md.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory
.DELETE_ON_ERROR:

ROOT := $(CURDIR)
VENV := .venv
BUILD := build
COLL_ROOT := $(BUILD)/ansible_collections
COLL := $(COLL_ROOT)/gamepanel/panel
COLLECTIONS_PATH := $(ROOT)/$(BUILD)/collections
VERSION := $(shell sed -n 's/^version:[[:space:]]*//p' galaxy.yml)
TARBALL := $(BUILD)/gamepanel-panel-$(VERSION).tar.gz
TMP := $(ROOT)/.tmp

# ---------------------------------------------------------------------------
# Interpreters. ansible-core 2.19 (the oldest supported) runs on Python 3.11, 3.12 and 3.13: the
# oldest of them found is PYTHON_OLDEST, all the demo needs. The newest ansible-core needs Python
# 3.12+ (we use 3.13): PYTHON_LATEST. .ci/find_python.sh says how they are found.
# Override with `make PYTHON_OLDEST=... PYTHON_LATEST=...`.
ifeq ($(origin PYTHON_OLDEST),undefined)
PYTHON_OLDEST := $(shell .ci/find_python.sh 3.11 3.12 3.13)
endif
ifeq ($(origin PYTHON_LATEST),undefined)
PYTHON_LATEST := $(shell .ci/find_python.sh 3.13 3.12)
endif
export PYTHON_OLDEST PYTHON_LATEST
# "yes" when PYTHON_LATEST is a Python 3.12 or later, which the newest ansible-core and the tools
# pinned with it need (the venvs of NEEDS_LATEST below).
LATEST_OK := $(shell "$(PYTHON_LATEST)" -c 'import sys; sys.exit(sys.version_info[:2] < (3, 12))' >/dev/null 2>&1 && echo yes)

# One virtual environment per requirements file, and the interpreter it is built from.
VENV_NAMES := test-ansible-2.19 test-ansible-latest lint galaxy-importer changelog runner builder docsite browser eda guides collection
PY_test-ansible-2.19 = $(PYTHON_OLDEST)
PY_test-ansible-latest = $(PYTHON_LATEST)
PY_lint = $(PYTHON_LATEST)
PY_galaxy-importer = $(PYTHON_LATEST)
PY_changelog = $(PYTHON_OLDEST)
PY_runner = $(PYTHON_LATEST)
PY_builder = $(PYTHON_LATEST)
PY_docsite = $(PYTHON_LATEST)
PY_browser = $(PYTHON_OLDEST)
PY_eda = $(PYTHON_LATEST)
PY_guides = $(PYTHON_OLDEST)
PY_collection = $(PYTHON_OLDEST)
stamp = $(VENV)/$(1)/.installed

# The venvs that pin ansible-core 2.21 or a tool needing Python 3.12+. Without such a Python they
# cannot be built, and make test runs what it can without them and says what it did not test
# (.ci/preflight; with CI set that is a failure).
NEEDS_LATEST := test-ansible-latest lint galaxy-importer runner builder docsite eda
BUILDABLE_VENVS := $(if $(LATEST_OK),$(VENV_NAMES),$(filter-out $(NEEDS_LATEST),$(VENV_NAMES)))
STAMPS := $(foreach name,$(BUILDABLE_VENVS),$(call stamp,$(name)))

# The two ansible-core versions tested (oldest supported, newest release), or only the oldest
# when no Python can run the newest.
T19 := $(VENV)/test-ansible-2.19/bin
TEST_VENVS := test-ansible-2.19 $(if $(LATEST_OK),test-ansible-latest)
TEST_STAMPS := $(foreach name,$(TEST_VENVS),$(call stamp,$(name)))
NOT_TESTED := $(if $(LATEST_OK),,the newest ansible-core (sanity, units, integration and ansible-doc on \
	ansible-core 2.21), format-check, lint, galaxy-importer, docs-check and eda-test: no Python 3.12 or later \
	(PYTHON_LATEST=$(or $(PYTHON_LATEST),none)))

# Environment of every ansible command make runs itself: the installed collection, and no
# writes to ~/.ansible (ansible-test keeps its own cache in ~/.ansible/test regardless).
ANSIBLE_ENV := ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS_PATH) ANSIBLE_HOME=$(TMP)/ansible-home \
	ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0

PYTEST_OPTS := -p no:cacheprovider --rootdir=$(ROOT) -ra --color=$(if $(CI),no,auto)
# Four workers on two cores: an integration test mostly waits for the emulator's agents and clock, not
# for a CPU (2 vCPUs, ansible-core 2.19, 274 tests: 487 s with two workers; 316 s with four, after a
# 60-second retry pause left the 429 test).
INTEGRATION_WORKERS ?= 4

# The steps of `make test` (see the test target at the end).
SETUP_STEPS := venvs collection get-pip-standin
# The checks, longest first: make -j2 starts them in this order.
CHECK_STEPS := sanity integration docs-check format-check units lint emulator-tests galaxy-importer eda-test browser-test
TEST_STEPS := $(SETUP_STEPS) $(CHECK_STEPS)
# The steps of `make release-check` (see the release-check target).
RELEASE_STEPS := release-tests docsite changelog-dry-run release-metadata demo-each-python
empty :=
space := $(empty) $(empty)
comma := ,

# `make test` builds the collection once, then runs checks in parallel with
# COLLECTION_FROZEN=1: they use that build and never rebuild it under each other's feet.
COLL_DEP := $(if $(COLLECTION_FROZEN),,collection)

# pytest on each venv in turn, all of them even when one fails. pytest exits 5 when it
# collected no test: that is a failure here, never a pass.
# $(1): venv names, $(2): what to run (paths and options), $(3): environment prefix
define pytest
	@status=0; for venv in $(1); do \
		bin=$(VENV)/$$venv/bin; \
		echo "--> pytest $(2) with $$($$bin/python -c 'import ansible, sys; print("ansible-core", ansible.__version__, "/ Python", sys.version.split()[0])')"; \
		rc=0; $(3) $$bin/python -m pytest $(PYTEST_OPTS) $(2) || rc=$$?; \
		if [ $$rc -eq 5 ]; then echo "FAILED: pytest collected no test in $(2)"; fi; \
		if [ $$rc -ne 0 ]; then status=1; fi; \
	done; exit $$status
endef

.PHONY: FORCE help demo demo-python demo-each-python test test-steps venvs collection get-pip-standin sanity format-check format units emulator-tests integration \
	lint galaxy-importer docs-check bench clean distclean interpreters \
	release-check release-tests docsite changelog-dry-run release-metadata chromium browser-test java eda-test preflight

help:
	@echo "make demo             run the demo against the bundled panel emulator"
	@echo "make test             set-up ($(SETUP_STEPS)), then every check, two at a time:"
	@echo "                      $(CHECK_STEPS)"
	@echo "make preflight        what make test needs from the machine, and how to get what is missing"
	@echo "make venvs            create .venv/NAME from requirements/NAME.txt for: $(VENV_NAMES)"
	@echo "make collection       build $(TARBALL) and install it into $(BUILD)/collections"
	@echo "make get-pip-standin  provide the pip bootstrap script ansible-test would download"
	@echo "make sanity           ansible-test sanity on ansible-core 2.19 and latest (no ignore entries)"
	@echo "make units            unit tests on both ansible-core versions"
	@echo "make emulator-tests   the emulator's own test suite"
	@echo "make integration      playbook and inventory runs against the emulator, both versions"
	@echo "make browser-test     the fleet report opened in headless Chromium (installs Debian's chromium if missing)"
	@echo "make eda-test         keep_online end to end: a real ansible-rulebook (.venv/eda) against the emulator"
	@echo "                      (installs Debian's openjdk-17-jre-headless when no Java 17+ is found)"
	@echo "make lint             ansible-lint --offline --profile production"
	@echo "make format-check     black --check (the house style, pyproject.toml); make format applies it"
	@echo "make galaxy-importer  the Galaxy import checks on the built tarball"
	@echo "make docs-check       antsibull-docs lint-collection-docs; .ci/docs_sources.py; antsibull-changelog lint"
	@echo "make release-check    the release checks, timed, two at a time: $(RELEASE_STEPS)"
	@echo "make release-tests    tests/release: ansible-runner job (AWX credential type), execution and decision"
	@echo "                      environments (ansible-builder create), emulator wheel and the docs/emulator.md CI example"
	@echo "make docsite          the docsite (antsibull-docs, Sphinx -W) in .tmp/docsite/site/build/html"
	@echo "make changelog-dry-run  antsibull-changelog release of the next version on a throwaway copy"
	@echo "make release-metadata  galaxy.yml's addresses: real https ones or none, never a placeholder"
	@echo "make demo-each-python  make demo with only Python 3.11, then 3.12, then 3.13 (DEMO_PYTHONS), each in its own"
	@echo "                      venvs and build directory (make demo-python DEMO_PYTHON=... for one)"
	@echo "make bench            benchmarks (not part of make test)"
	@echo "make clean            remove build output; make distclean also removes .venv"

interpreters:
	@echo "oldest: $(PYTHON_OLDEST) ($$("$(PYTHON_OLDEST)" --version 2>&1))"
	@echo "latest: $(PYTHON_LATEST) ($$("$(PYTHON_LATEST)" --version 2>&1))"

# ---------------------------------------------------------------------------
# Virtual environments

venvs: $(STAMPS)

$(VENV)/%/.installed: requirements/%.txt
	@if [ -z "$(PY_$*)" ]; then echo "no Python interpreter found for .venv/$*"; exit 1; fi
	@if [ -n "$(filter $*,$(NEEDS_LATEST))" ] && [ -z "$(LATEST_OK)" ]; then \
		echo "FAILED: $(VENV)/$* needs Python 3.12 or later, and PYTHON_LATEST ($(or $(PYTHON_LATEST),none)) is not"; exit 1; fi
	@echo "--> creating $(VENV)/$* with $(PY_$*) ($$("$(PY_$*)" --version 2>&1)) from $<"
	@rm -rf $(VENV)/$*
	@"$(PY_$*)" -m venv $(VENV)/$*
	@PIP_NO_INPUT=1 $(VENV)/$*/bin/python -m pip install --disable-pip-version-check --progress-bar off \
		-r $< > $(VENV)/$*.pip.log 2>&1 || { grep -v 'is neither a file nor a directory' $(VENV)/$*.pip.log; exit 1; }
	@touch $@

$(call stamp,test-ansible-2.19) $(call stamp,test-ansible-latest): requirements/emulator.txt
$(call stamp,browser): requirements/test-ansible-2.19.txt requirements/emulator.txt

# ---------------------------------------------------------------------------
# The collection: a clean copy of the checkout, its tarball, and that tarball installed
# into build/collections (.ci/build_collection.sh says how and why).

COLL_FINGERPRINT := $(BUILD)/.collection.sha1
COLL_STAMP := $(BUILD)/.collection.stamp

collection: $(COLL_STAMP)

# A checksum of every file that goes into the copy, rewritten only when a file is added,
# removed or changed: the copy and the tarball are rebuilt only then.
$(COLL_FINGERPRINT): FORCE
	@mkdir -p $(BUILD)
	@git ls-files -z --cached --others --exclude-standard | LC_ALL=C sort -z \
		| xargs -0 -r sha1sum 2>/dev/null > $@.new || true
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

# The guides venv's pandoc turns the Markdown guides into the docsite pages the copy ships; the
# collection venv's ansible-galaxy (with distlib, for galaxy.yml's manifest) builds and installs it.
# Both venvs are on the oldest Python: building the collection (and so the demo) needs no newer one.
$(COLL_STAMP): $(COLL_FINGERPRINT) $(call stamp,collection) $(call stamp,guides)
	@$(ANSIBLE_ENV) .ci/build_collection.sh $(BUILD) $(VENV)/collection/bin $(VENV)/guides/bin
	@touch $@

FORCE:

# ---------------------------------------------------------------------------
# ansible-test downloads a get-pip.py bootstrap script from a host we cannot reach;
# .ci/get_pip_standin.py writes a stand-in into ~/.ansible/test/cache for each version.

# ansible-test keeps its cache and its sanity virtual environments under ~/.ansible/test.
# ANSIBLE_TEST_HOME gives it another home (for example when several checkouts run sanity at
# once on one machine); pip's download cache stays where it was.
ANSIBLE_TEST_HOME ?=
ANSIBLE_TEST_ENV := $(if $(ANSIBLE_TEST_HOME),HOME=$(abspath $(ANSIBLE_TEST_HOME)) PIP_CACHE_DIR=$(HOME)/.cache/pip)

get-pip-standin: $(TEST_STAMPS)
	@for venv in $(TEST_VENVS); do \
		$(ANSIBLE_TEST_ENV) $(VENV)/$$venv/bin/python .ci/get_pip_standin.py --install-cache || exit 1; \
	done

# ---------------------------------------------------------------------------
# Checks

sanity: get-pip-standin $(COLL_DEP)
	@status=0; for venv in $(TEST_VENVS); do \
		bin=$(ROOT)/$(VENV)/$$venv/bin; \
		py=$$($$bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
		echo "--> ansible-test sanity, ansible-core $$($$bin/python -c 'import ansible; print(ansible.__version__)'), Python $$py"; \
		(cd $(COLL) && $(ANSIBLE_TEST_ENV) PATH=$$bin:$$PATH $$bin/ansible-test sanity --venv --python $$py \
			--color $(if $(CI),no,yes)) || status=1; \
	done; exit $$status

units: $(TEST_STAMPS)
	$(call pytest,$(TEST_VENVS),tests/unit)

emulator-tests: $(call stamp,test-ansible-2.19)
	$(call pytest,test-ansible-2.19,tests/emulator/tests)

integration: $(COLL_DEP) $(TEST_STAMPS)
	$(call pytest,$(TEST_VENVS),tests/integration -n $(INTEGRATION_WORKERS),GAMEPANEL_TEST_COLLECTIONS_PATH=$(COLLECTIONS_PATH))

# The fleet report in a real browser: Debian's chromium (installed here when missing; the
# test fails, never skips, when it cannot be) driven by Playwright from .venv/browser.
# Screenshots go to .tmp/browser-test.
CHROMIUM ?= /usr/bin/chromium
export GAMEPANEL_CHROMIUM := $(CHROMIUM)

chromium:
	@if [ -x "$(CHROMIUM)" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "FAILED: $(CHROMIUM) is missing and only root can install Debian's chromium package (apt-get install chromium)"; \
		exit 1; fi; \
	echo "--> installing Debian's chromium package (apt-get)"; \
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } > $(TMP)/apt-chromium.log 2>&1 \
		|| { tail -n 20 $(TMP)/apt-chromium.log; echo "FAILED: could not install Debian's chromium package (log: .tmp/apt-chromium.log)"; exit 1; }; \
	if [ ! -x "$(CHROMIUM)" ]; then echo "FAILED: the chromium package installed no $(CHROMIUM)"; exit 1; fi

browser-test: $(COLL_DEP) $(call stamp,browser)
	@mkdir -p $(TMP)
	@$(MAKE) chromium || echo "chromium is not available: the browser test will fail and say so"
	$(call pytest,browser,tests/browser,GAMEPANEL_TEST_COLLECTIONS_PATH=$(COLLECTIONS_PATH))

# The fleet watcher end to end (tests/eda): ansible-rulebook from .venv/eda runs the rulebook
# gamepanel.panel.keep_online of the installed collection against the emulator. ansible-rulebook
# needs Java 17 or later: Debian's openjdk-17-jre-headless is installed when none is found (as root;
# the step fails and says so otherwise), and ansible-galaxy on PATH (.venv/eda/bin).
JAVA ?= java
java_major = $$($(1) -version 2>&1 | sed -n 's/.*version "\(1\.\)\{0,1\}\([0-9]*\).*/\2/p' | head -n 1)

java:
	@major=$(call java_major,$(JAVA)); if [ -n "$$major" ] && [ "$$major" -ge 17 ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "FAILED: ansible-rulebook needs Java 17 or later and only root can install Debian's openjdk-17-jre-headless"; \
		exit 1; fi; \
	mkdir -p $(TMP); echo "--> installing Debian's openjdk-17-jre-headless package (apt-get)"; \
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q openjdk-17-jre-headless; } \
		> $(TMP)/apt-java.log 2>&1 \
		|| { tail -n 20 $(TMP)/apt-java.log; echo "FAILED: could not install openjdk-17-jre-headless (log: .tmp/apt-java.log)"; exit 1; }; \
	major=$(call java_major,$(JAVA)); if [ -z "$$major" ] || [ "$$major" -lt 17 ]; then \
		echo "FAILED: openjdk-17-jre-headless is installed but $(JAVA) is not Java 17+ (update-alternatives --config java)"; exit 1; fi

eda-test: $(COLL_DEP) $(call stamp,test-ansible-2.19) $(call stamp,eda)
	@$(MAKE) java
	$(call pytest,test-ansible-2.19,tests/eda,GAMEPANEL_EDA_VENV=$(ROOT)/$(VENV)/eda GAMEPANEL_TEST_COLLECTIONS_PATH=$(COLLECTIONS_PATH))

# One house style for Python: black (from .venv/lint, pinned there), configured in pyproject.toml.
PYTHON_DIRS := plugins tests extensions .ci demo

format-check: $(call stamp,lint)
	@$(VENV)/lint/bin/black --check $(PYTHON_DIRS) \
		|| { echo "FAILED: Python files are not in the house style; run make format"; exit 1; }

format: $(call stamp,lint)
	$(VENV)/lint/bin/black $(PYTHON_DIRS)

# lint: ansible-lint, then import-linter's contracts (pyproject.toml, [tool.importlinter]) on the
# installed collection: the layers of plugins/ and plugins/module_utils (docs/development.md, "The map"),
# then pyflakes' checks (through flake8, which honours noqa comments) on every Python file.
lint: $(COLL_DEP) $(call stamp,lint)
	@$(ANSIBLE_ENV) PATH=$(ROOT)/$(VENV)/lint/bin:$$PATH $(VENV)/lint/bin/ansible-lint --version
	@$(ANSIBLE_ENV) PATH=$(ROOT)/$(VENV)/lint/bin:$$PATH $(VENV)/lint/bin/ansible-lint --offline --profile production
	@echo "--> import-linter: the layers contracts of pyproject.toml"
	@PYTHONPATH=$(COLLECTIONS_PATH) $(VENV)/lint/bin/lint-imports --no-cache --config pyproject.toml
	@echo "--> flake8, pyflakes' checks (F): undefined and unused names, a name defined twice (a test that hides another)"
	@$(VENV)/lint/bin/flake8 --select F --extend-exclude tests/output $(PYTHON_DIRS)

# galaxy-importer writes importer_result.json into its working directory: run it in .tmp.
galaxy-importer: $(COLL_DEP) $(call stamp,galaxy-importer)
	@rm -rf $(TMP)/galaxy-importer && mkdir -p $(TMP)/galaxy-importer
	@tarball=$(ROOT)/$(TARBALL); \
	if ! grep -q '^repository:' galaxy.yml; then \
		tarball=$(TMP)/galaxy-importer/$(notdir $(TARBALL)); \
		$(VENV)/galaxy-importer/bin/python .ci/check_release_metadata.py --importer-copy $(TARBALL) $$tarball; \
		echo "NOTE: galaxy.yml names no repository yet, and galaxy-importer requires one: it checks a copy of the"; \
		echo "tarball whose MANIFEST.json says the repository is not published (.ci/check_release_metadata.py)."; \
		echo "Galaxy and Automation Hub refuse the tarball itself until galaxy.yml names the repository."; \
	fi; \
	rc=0; cd $(TMP)/galaxy-importer && GALAXY_IMPORTER_CONFIG=$(ROOT)/.ci/galaxy-importer.cfg \
		GALAXY_IMPORTER_ANSIBLE_LOCAL_TMP=$(TMP)/galaxy-importer/ansible-tmp \
		GALAXY_IMPORTER_TMP_ROOT_DIR=$(TMP)/galaxy-importer \
		$(ANSIBLE_ENV) PATH=$(ROOT)/$(VENV)/galaxy-importer/bin:$$PATH \
		$(ROOT)/$(VENV)/galaxy-importer/bin/python -m galaxy_importer.main $$tarball \
		> output.txt 2>&1 || rc=$$?; \
	cat output.txt; \
	if [ $$rc -ne 0 ]; then echo "FAILED: galaxy-importer exited $$rc"; exit 1; fi; \
	if grep -E '^(ERROR|WARNING):' output.txt >/dev/null; then \
		echo "FAILED: galaxy-importer reported the errors or warnings above"; exit 1; fi; \
	echo "galaxy-importer: the import succeeded (details in .tmp/galaxy-importer/importer_result.json)"

# docs-check: antsibull-docs lints the documentation of every module, plugin and role (as ansible-doc
# reads it) and the docsite pages of the guides; .ci/docs_sources.py what repeats it where no doc
# fragment reaches (argument specs, playbook headers) and the guides' examples; then the changelog.
docs-check: $(COLL_DEP) $(call stamp,test-ansible-2.19) $(call stamp,docsite) $(call stamp,changelog)
	@status=0; \
	echo "--> antsibull-docs lint-collection-docs --plugin-docs (the installed collection)"; \
	(cd $(COLLECTIONS_PATH)/ansible_collections/gamepanel/panel && $(ANSIBLE_ENV) PATH=$(ROOT)/$(VENV)/docsite/bin:$$PATH \
		antsibull-docs lint-collection-docs --plugin-docs --validate-collection-refs all .) || status=1; \
	echo "--> .ci/docs_sources.py: argument specs, playbook headers, the token wording, the guides' examples"; \
	$(T19)/python .ci/docs_sources.py $(ROOT) || status=1; \
	echo "--> antsibull-changelog lint"; \
	$(VENV)/changelog/bin/antsibull-changelog lint || status=1; \
	exit $$status

# ---------------------------------------------------------------------------
# Release checks (make release-check): each tool runs from its own virtual environment.

# pytest in the 2.19 environment drives the tools of .venv/runner and .venv/builder
# (tests/release/conftest.py) against the emulator and the built collection.
release-tests: $(COLL_DEP) $(call stamp,test-ansible-2.19) $(call stamp,runner) $(call stamp,builder)
	$(call pytest,test-ansible-2.19,tests/release,GAMEPANEL_RELEASE_VENVS=$(ROOT)/$(VENV) GAMEPANEL_TEST_COLLECTIONS_PATH=$(COLLECTIONS_PATH))

docsite: $(COLL_DEP) $(call stamp,docsite)
	@$(ANSIBLE_ENV) PATH=$(ROOT)/$(VENV)/docsite/bin:$$PATH $(VENV)/docsite/bin/python .ci/build_docsite.py \
		--collection-path $(COLLECTIONS_PATH)/ansible_collections/gamepanel/panel --dest $(TMP)/docsite

# antsibull-changelog release of galaxy.yml's version on a copy of the checkout (tracked and
# untracked-not-ignored files; the checkout stays as it is), and the release notes it would publish.
CHANGELOG_COPY := $(TMP)/changelog-dry-run/ansible_collections/gamepanel/panel
changelog-dry-run: $(call stamp,changelog)
	@if grep -q "^  $(VERSION):" changelogs/changelog.yaml; then \
		echo "FAILED: changelogs/changelog.yaml has released $(VERSION) (galaxy.yml's version): bump it"; exit 1; fi
	@rm -rf $(TMP)/changelog-dry-run && mkdir -p $(CHANGELOG_COPY)
	@git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null \
		| tar -xf - -C $(CHANGELOG_COPY)
	@cd $(CHANGELOG_COPY) && ANSIBLE_HOME=$(TMP)/ansible-home PATH=$(ROOT)/$(VENV)/changelog/bin:$$PATH \
		antsibull-changelog release --version $(VERSION)
	@cat $(CHANGELOG_COPY)/CHANGELOG.md

# The addresses galaxy.yml gives Galaxy: real https ones or none, never a placeholder.
release-metadata: $(call stamp,test-ansible-2.19)
	@$(T19)/python .ci/check_release_metadata.py $(ROOT)

# The demo as a user whose only Python is DEMO_PYTHON runs it: PYTHON_OLDEST and PYTHON_LATEST are
# both that one (so a step that needs another Python fails as it would there), with venvs and a build
# directory of its own, .tmp/demo-python-3.X (the shared ones stay untouched; the venvs are kept for
# the next run, the build is made again). Then no venv but the demo's may have been built.
DEMO_PYTHON ?=
demo-python:
	@if [ -z "$(DEMO_PYTHON)" ]; then echo "usage: make demo-python DEMO_PYTHON=/path/to/python3.X"; exit 2; fi
	@version=$$("$(DEMO_PYTHON)" -c 'import sys; print("%d.%d" % sys.version_info[:2])') || exit 1; \
	dir=.tmp/demo-python-$$version; rm -rf $$dir/build; \
	$(MAKE) demo VENV=$$dir/venv BUILD=$$dir/build PYTHON_OLDEST=$(DEMO_PYTHON) PYTHON_LATEST=$(DEMO_PYTHON) \
		COLLECTION_FROZEN= || { echo "FAILED: make demo with only Python $$version ($(DEMO_PYTHON))"; exit 1; }; \
	built=$$(cd $$dir/venv && ls -d */ | tr -d / | LC_ALL=C sort | xargs); \
	wanted=$$(echo $(DEMO_VENVS) | tr ' ' '\n' | LC_ALL=C sort | xargs); \
	if [ "$$built" != "$$wanted" ]; then \
		echo "FAILED: make demo built the venvs [$$built], it needs only [$$wanted]"; exit 1; fi; \
	echo "demo-python: make demo ran to the end with only Python $$version ($(DEMO_PYTHON)), venvs: $$built"

# make demo-python for each Python the demo supports (ansible-core 2.19 runs on each). A version
# missing here fails the step, so that a release is never said to be checked on a Python it was
# not: name the ones this machine has with DEMO_PYTHONS="3.11 3.13".
DEMO_PYTHONS ?= 3.11 3.12 3.13
demo-each-python:
	@status=0; for version in $(DEMO_PYTHONS); do \
		py=$$(.ci/find_python.sh $$version); \
		if [ -z "$$py" ] || [ "$$("$$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != $$version ]; then \
			echo "FAILED: no Python $$version found for its demo (make interpreters; DEMO_PYTHONS=... names fewer)"; \
			status=1; continue; fi; \
		echo "--> make demo with only Python $$version ($$py)"; \
		$(MAKE) demo-python DEMO_PYTHON=$$py || status=1; \
	done; exit $$status

# Benchmarks: every tests/bench/*.py (or BENCH=tests/bench/x.py), with BENCH_ARGS passed on.
BENCH ?= $(wildcard tests/bench/*.py)
BENCH_ARGS ?=
bench: $(COLL_DEP) $(call stamp,test-ansible-2.19) $(call stamp,browser)
	@if [ -z "$(strip $(BENCH))" ]; then echo "no benchmark under tests/bench"; exit 1; fi
	@for f in $(BENCH); do \
		echo "--> $$f $(BENCH_ARGS)"; \
		py=$(T19)/python; case "$$f" in *bench_report.py) $(MAKE) chromium; py=$(VENV)/browser/bin/python;; esac; \
		GAMEPANEL_TEST_COLLECTIONS_PATH=$(COLLECTIONS_PATH) $(ANSIBLE_ENV) $$py $$f $(BENCH_ARGS) || exit 1; \
	done

# ---------------------------------------------------------------------------
# The demo: the emulator plus the playbooks in playbooks/ and the inventory in demo/.

# What the demo needs, and nothing more: one Python, 3.11, 3.12 or 3.13 (README promises it), so a
# user trying the collection needs no second Python, Chromium or Java. It checks that first.
DEMO_VENVS := test-ansible-2.19 guides collection

demo:
	@PYTHON_OLDEST="$(PYTHON_OLDEST)" VENV="$(VENV)" VENV_NAMES="$(DEMO_VENVS)" .ci/preflight demo
	@$(MAKE) collection $(call stamp,test-ansible-2.19)
	@ANSIBLE_COLLECTIONS_PATH=$(COLLECTIONS_PATH) ANSIBLE_HOME=$(TMP)/demo/ansible-home $(if $(CI),ANSIBLE_NOCOLOR=1) \
		$(T19)/python demo/run_demo.py

# ---------------------------------------------------------------------------
# make test: every step, timed. The three preparation steps run first (a failure there stops
# the run); then the checks run two at a time on the two cores (make -j2), sanity and
# integration first since they take longest. Each check's output is kept in .tmp/logs and shown
# whole when it ends (make --output-sync). Every check runs even when one fails (step-% never
# fails: it writes the check's exit code and time to .tmp/steps); the summary says which did.
STEP_DIR := $(TMP)/steps
LOG_DIR := $(TMP)/logs
STEP_FLAGS_venvs := -j3 --output-sync=target
# Without a Python 3.12+, the steps whose venvs need it are left out (NOT_TESTED says which).
CHECK_STEPS_RUN := $(if $(LATEST_OK),$(CHECK_STEPS),$(filter-out format-check lint galaxy-importer eda-test docs-check,$(CHECK_STEPS)))

# What the machine must have (two Pythons with venv, a package index, Chromium, Java), said
# plainly before anything takes time.
preflight:
	@PYTHON_OLDEST="$(PYTHON_OLDEST)" PYTHON_LATEST="$(PYTHON_LATEST)" CHROMIUM="$(CHROMIUM)" JAVA="$(JAVA)" \
		VENV="$(VENV)" VENV_NAMES="$(BUILDABLE_VENVS)" .ci/preflight test

# One step, timed, as `make STEP COLLECTION_FROZEN=1`; its output in .tmp/logs/STEP.log.
step-%:
	@mkdir -p $(STEP_DIR) $(LOG_DIR); started=$$(date +%s); rc=0; \
	$(MAKE) $(STEP_FLAGS_$*) $* COLLECTION_FROZEN=1 < /dev/null > $(LOG_DIR)/$*.log 2>&1 || rc=$$?; \
	took=$$(( $$(date +%s) - started )); echo "$$rc $$took" > $(STEP_DIR)/$*; \
	printf '\n===== make %s\n' $*; cat $(LOG_DIR)/$*.log; \
	printf '===== make %s: %s in %ss (log: .tmp/logs/%s.log)\n' $* "$$([ $$rc = 0 ] && echo ok || echo FAILED)" $$took $*

# $(1): preparation steps, run one after the other (the first failure ends the run);
# $(2): checks, run two at a time. Then the table of every step's outcome and time.
define run_steps
	@rm -rf $(STEP_DIR); started=$$(date +%s); ready=1; \
	for step in $(1); do $(MAKE) step-$$step; read rc took < $(STEP_DIR)/$$step; \
		if [ "$$rc" != 0 ]; then ready=0; break; fi; done; \
	if [ $$ready = 1 ]; then $(MAKE) -j2 --output-sync=target $(addprefix step-,$(2)); fi; \
	status=$$((1 - ready)); printf '\n===== summary (wall clock %ss, two checks at a time)\n' $$(( $$(date +%s) - started )); \
	for step in $(1) $(2); do \
		if [ ! -f $(STEP_DIR)/$$step ]; then printf '  %-20s %s\n' $$step "not run"; continue; fi; \
		read rc took < $(STEP_DIR)/$$step; if [ "$$rc" = 0 ]; then out=ok; else out=FAILED; status=1; fi; \
		printf '  %-20s %-7s %6ss\n' $$step $$out $$took; \
	done; \
	if [ $$ready = 0 ]; then echo "  (set-up failed: the checks did not run)"; fi; \
	exit $$status
endef

test:
	@echo "make test: oldest Python $(PYTHON_OLDEST), latest Python $(or $(PYTHON_LATEST),none)"
	@$(MAKE) preflight
	@rc=0; $(MAKE) --no-print-directory test-steps || rc=$$?; \
	$(if $(NOT_TESTED),echo "NOT TESTED on this machine: $(NOT_TESTED)";) exit $$rc

test-steps:
	$(call run_steps,$(SETUP_STEPS),$(CHECK_STEPS_RUN))

# make release-check: like make test (timed, outputs in .tmp/logs, a summary).
release-check:
	$(call run_steps,venvs collection,$(RELEASE_STEPS))

clean:
	rm -rf $(BUILD) .tmp tests/output .ansible .pytest_cache

distclean: clean
	rm -rf $(VENV)
