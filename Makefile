# Quick start: `make demo` (train on CPU with torchrun) and `make test`. `make help` lists everything.
# Every knob below can be set on the command line: `make demo NPROC=4 ARGS="train.max_steps=50"`.
# (Comments sit above the knobs: make keeps trailing spaces of `VAR ?= value  # comment` in the value.)

# Interpreter that creates the virtual environment
PYTHON ?= python3
# Where the project and its tools are installed
VENV ?= .venv
# torch for local runs: the CPU build on these machines; the images pin their own CUDA build
TORCH_VERSION ?= 2.13.0
# Ranks for `make demo`
NPROC ?= 2
# Trainer config for `make demo`: a YAML file, or the name of one in app/configs
CONFIG ?= demo
# Extra arguments: key=value overrides for demo, pytest arguments for test
ARGS ?=

PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-$(TORCH_VERSION)

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "torch==$(TORCH_VERSION)" -e ".[dev]"
	touch $@

.PHONY: venv
venv: $(STAMP) ## Create .venv with torch $(TORCH_VERSION) (CPU), the project and its tools

.PHONY: demo
demo: $(STAMP) ## Train the tiny GPT on CPU with torchrun ($(NPROC) ranks) and print the summary
	$(VENV)/bin/torchrun --standalone --nproc-per-node=$(NPROC) -m app.train --config $(CONFIG) $(ARGS)

.PHONY: system-deps
system-deps: ## As root on Debian: install the system tools the tests use (shellcheck, Apptainer, Slurm)
	bash tests/provision/system.sh

.PHONY: test
test: $(STAMP) system-deps ## Run the whole test suite
	$(VENV)/bin/nox --no-venv -s tests -- $(ARGS)

.PHONY: lint
lint: $(STAMP) ## ruff on Python, shellcheck on every shell script
	$(VENV)/bin/nox --no-venv -s lint

.PHONY: bench
bench: $(STAMP) ## Run the benchmarks and rewrite BENCHMARKS.md
	$(VENV)/bin/nox --no-venv -s bench -- $(ARGS)

.PHONY: clean
clean: ## Remove the virtual environment, nox environments and run directories
	rm -rf $(VENV) .nox runs
