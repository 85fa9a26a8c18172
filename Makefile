# ns2-repro: the two commands of the README, and the steps they share.
#
#   make reproduce   set up, build ns-2, run `snakemake reproduce-all` on the default profile
#   make test        set up, build ns-2, run the test suite (pytest)
#
# Set-up is idempotent: Debian packages are installed only when missing, the
# virtualenv only when requirements.txt changed, ns-2 only when its cache key changed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Build: compiler, patch tools and the Tcl/OTcl/TclCL that ns-2 links against;
# libxt-dev because ns-2's configure insists on X11/Intrinsic.h (a bare Debian 12,
# e.g. the container's base, lacks it).
# Tests: Debian's packaged ns (the reference binary), perl4 core libs and csh
# used by ns-2's validation suites. Runs: tcllib (json) for the Tcl driver.
APT_PACKAGES := build-essential patch xz-utils binutils python3-venv \
	tcl-dev libotcl1-dev libtclcl1-dev tclcl libx11-dev libxext-dev libxt-dev \
	ns2 libperl4-corelibs-perl csh tcllib

.PHONY: reproduce test setup apt venv requirements ns2 lint

# SNAKEMAKE_ARGS: more of Snakemake's options, e.g. `make reproduce SNAKEMAKE_ARGS=--dry-run`.
reproduce: setup
	$(BIN)/snakemake reproduce-all $(SNAKEMAKE_ARGS)

# TEST_WORKERS: pytest-xdist processes; a group of tests that must not run side by side stays on one worker
# (tests/conftest.py). The slowest tests are listed at the end, to see where the time goes.
TEST_WORKERS ?= 2
test: setup ns2
	$(BIN)/pytest --numprocesses $(TEST_WORKERS) --dist loadgroup --durations 25

setup: apt venv

apt:
	@missing=$$(for p in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "[setup] apt-get install $$missing"; \
		$(SUDO) apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

venv: $(VENV)/.installed

# Two steps, so that the Dockerfile can install the pinned requirements in a layer
# of their own, before the project's sources are copied in.
requirements: $(VENV)/.requirements

$(VENV)/.requirements: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed: $(VENV)/.requirements pyproject.toml
	$(BIN)/pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e .
	touch $@

ns2: setup
	$(BIN)/python ns2-patches/ns2_build.py --out build/ns2

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/snakefmt --check Snakefile workflows/
	$(BIN)/snakemake --lint
