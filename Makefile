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
# Trainer config for `make demo`: a YAML file, or the name of one in app/train/configs
CONFIG ?= demo
# Extra arguments: key=value overrides for demo, pytest arguments for test
ARGS ?=

PY      := $(VENV)/bin/python
# nox --no-venv runs `pytest`, `ruff` from PATH: the .venv's must come first (see test/lint/bench)
STAMP   := $(VENV)/.installed-$(TORCH_VERSION)

# The knobs `make help` lists with their values (and writes into the targets' descriptions)
HELP_KNOBS := NPROC CONFIG ARGS TORCH_VERSION VENV ARCH APPTAINER IMAGE_DIR SOURCES BASE

.PHONY: help
help: ## List the targets and the knobs' current values
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}' | \
	    sed $(foreach knob,$(HELP_KNOBS),-e 's|$$($(knob))|$($(knob))|g')
	@echo "knobs (make TARGET NAME=value):"
	@printf '  %s\n' $(foreach knob,$(HELP_KNOBS),"$(knob)=$($(knob))")

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "torch==$(TORCH_VERSION)" -e ".[dev]"
	touch $@

.PHONY: venv
venv: $(STAMP) ## Create .venv with torch $(TORCH_VERSION) (CPU), the project and its tools

# NCCL puts one rank on one GPU: with fewer GPUs than ranks (a one-GPU workstation) the demo says so and
# trains on CPU with gloo instead of stopping; `make demo NPROC=1` trains on the GPU.
# torchrun as a job starts it on a node (static rendezvous, sealed store: app/host/launch/local.py), not
# --standalone, whose rendezvous state is a pickle any user of the machine can replace
DEMO := $(PY) -m app.launch local --nproc-per-node=$(NPROC) -- -m app.train --config $(CONFIG) $(ARGS)

.PHONY: demo
demo: $(STAMP) ## Train the tiny GPT with torchrun ($(NPROC) ranks; on GPUs if there are enough, else CPU)
	@gpus=$$($(PY) -c 'import torch; print(torch.cuda.device_count())'); \
	if [ "$$gpus" -gt 0 ] && [ "$$gpus" -lt $(NPROC) ]; then \
	    echo "make demo: $(NPROC) ranks but $$gpus GPU(s), and NCCL needs a GPU per rank: training on CPU" \
	        "with gloo (to train on the GPU: make demo NPROC=$$gpus)"; \
	    export CUDA_VISIBLE_DEVICES=; \
	fi; \
	echo "$(DEMO)"; $(DEMO)

.PHONY: system-deps
system-deps: ## As root on Debian: install the system tools the tests use (shellcheck, Apptainer, Slurm)
	bash tests/provision/system.sh

.PHONY: test
test: $(STAMP) system-deps ## Run the whole test suite
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/nox --no-venv -s tests -- $(ARGS)

.PHONY: check
check: $(STAMP) ## Run the fast tests: none that needs root, Slurm, Apptainer, or is slow (about 2 min on 2 cores)
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/nox --no-venv -s fast -- $(ARGS)

.PHONY: lint
lint: $(STAMP) ## ruff on Python, shellcheck on every shell script
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/nox --no-venv -s lint

.PHONY: bench
bench: $(STAMP) ## Run the benchmarks and rewrite BENCHMARKS.md
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/nox --no-venv -s bench -- $(ARGS)

.PHONY: clean
clean: ## Remove the virtual environment, nox environments and run directories
	rm -rf $(VENV) .nox runs

# --- Images (containers/) --------------------------------------------------------------------
# `make image ARCH=aarch64|x86_64` lints the definition, then builds build/app-ARCH-VERSION.sif;
# `make smoke-image` builds the CPU smoke flavour CI runs (build/smoke.sif). Versions live in
# containers/versions.env, the per-architecture values in containers/arch/ARCH.env.

# Python for the image tooling (containers/imagetool: standard library only; pip 21.3+ for the wheels from PyPI):
# the .venv's where there is one, else the system's python3, so a login node builds and gathers without torch or a .venv
IMAGE_PYTHON ?= $(if $(wildcard $(PY)),$(PY),python3)
# The build-time image tooling lives beside the definitions it reads, outside the runtime package
IMAGETOOL = PYTHONPATH=containers:. $(IMAGE_PYTHON) -m imagetool
# Image architecture: x86_64 (MareNostrum 5 ACC) or aarch64 (GH200); default: this machine
ARCH ?= $(shell uname -m)
# Apptainer executable (`singularity` on sites that still call it that)
APPTAINER ?= apptainer
# Where images, rendered build arguments, wheelhouses and the smoke rootfs go
IMAGE_DIR ?= build
# Squashfs compression: zstd level 3 builds ~3x faster than gzip at a similar size (Apptainer >= 1.4; older
# releases and SingularityCE have no --mksquashfs-args and use gzip)
SQUASHFS_ARGS ?= -comp zstd -Xcompression-level 3
# Extra `apptainer build` flags, e.g. --tmpdir /scratch/$$USER or --notest
APPTAINER_BUILD_FLAGS ?=
# Source mirror to build from offline (the archives and locked wheels `make sources` gathers); empty: download them
SOURCES ?=
# The flavours `make sources` gathers wheels and distribution packages for (e.g. smoke); empty: every one of ARCH
FLAVOURS ?=
# Local base image (`make base ARCH=...` pulls the pinned one for ARCH's platform) instead of the registry pull
BASE ?=

APP_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
IMAGE_SOURCES := containers/app.def containers/versions.env \
                 $(wildcard containers/scripts/*.sh) containers/wheelhouse.sh containers/fetch-wheels.sh \
                 containers/imagetool/appwheel.py containers/imagetool/pyproject.py \
                 $(wildcard containers/locks/wheelhouse-*.txt) pyproject.toml \
                 $(shell find app -name "*.py" -o -name "*.yaml" -o -name "*.env")

# The flavours (containers/arch/*.env) whose images are for ARCH: `make sources` gathers the wheels of each.
ARCH_FLAVOURS = $(sort $(basename $(notdir $(shell grep -l '^ARCH=$(ARCH)$$' containers/arch/*.env))))

# Per-image values (target-specific) feed the one recipe below, build_image.
image:       FLAVOUR     = $(ARCH)
image:       SIF         = $(IMAGE_DIR)/app-$(ARCH)-$(APP_VERSION).sif
image:       BUILD_ARCH  = $(ARCH)
ARGS_FILE    = $(IMAGE_DIR)/$(FLAVOUR).args
WHEELHOUSE   = $(IMAGE_DIR)/wheelhouse-$(FLAVOUR)
SMOKE_ROOTFS = $(IMAGE_DIR)/smoke-rootfs

# An offline build: the mirror must hold every pinned archive before Apptainer starts.
SOURCE_SETS = $(if $(SOURCES),--set SOURCES=$(SOURCES))
# A local base file replaces the registry pull; its sha256 stands where the registry digest would. Lint
# only needs to know there is one: the file (many GB) is hashed once, for the build arguments.
BASE_LOCAL = --set BOOTSTRAP=localimage --set BASE=$(BASE) --set BASE_NAME=$(notdir $(BASE))
LINT_BASE_SETS = $(if $(BASE),$(BASE_LOCAL) --set "BASE_DIGEST=local file $(notdir $(BASE))")
BASE_SETS = $(if $(BASE),$(BASE_LOCAL) \
    --set "BASE_DIGEST=sha256:$$(sha256sum $(BASE) | cut -d' ' -f1) (local file $(notdir $(BASE)))")

# lint -> host checks -> sources -> build arguments -> wheelhouse -> apptainer build (its flags follow the
# installed release's version: imagetool/apptainer.py)
define build_image
	$(IMAGETOOL) lint --arch $(FLAVOUR) $(IMAGE_SETS) $(LINT_BASE_SETS)
	$(IMAGETOOL) check-host --arch $(FLAVOUR) --build-arch $(BUILD_ARCH) --apptainer $(APPTAINER) $(IMAGE_SETS) \
	    $(LINT_BASE_SETS) --extra="$(APPTAINER_BUILD_FLAGS)"
	$(if $(SOURCES),$(IMAGETOOL) sources --check --arch $(FLAVOUR) --mirror $(SOURCES))
	mkdir -p $(IMAGE_DIR)/no-sources
	$(IMAGETOOL) render --arch $(FLAVOUR) --out $(ARGS_FILE) --set WHEELHOUSE=$(WHEELHOUSE) $(IMAGE_SETS) \
	    $(SOURCE_SETS) $(BASE_SETS)
	SOURCES=$(SOURCES) bash containers/wheelhouse.sh $(FLAVOUR) $(WHEELHOUSE) $(IMAGE_PYTHON)
	$(IMAGETOOL) build --arch $(FLAVOUR) --build-arch $(BUILD_ARCH) --apptainer $(APPTAINER) $(IMAGE_SETS) \
	    --args-file $(ARGS_FILE) --squashfs-args "$(SQUASHFS_ARGS)" --extra="$(APPTAINER_BUILD_FLAGS)" --out $(SIF).tmp
	mv $(SIF).tmp $(SIF)
	@echo "built $(SIF): apptainer inspect --labels $(SIF)"
endef

# The base `make sources` asks which distribution packages a flavour's build installs: the registry base
# `make base` pulled (or BASE=FILE), the NGC twin's, the smoke rootfs. A flavour whose base is absent is skipped.
base_of = $(if $(filter smoke,$1),$(SMOKE_ROOTFS),$(if $(filter ngc-twin%,$1),$(TWIN_BASE),$(or $(BASE),$(IMAGE_DIR)/ngc-pytorch-$(ARCH).sif)))
base_hint = $(if $(filter smoke,$1),make smoke-image,$(if $(filter ngc-twin%,$1),make twin-base,make base ARCH=$(ARCH) or BASE=FILE))
# Asking the base runs its apt: the one part of `make sources` that needs the image's architecture (this machine's,
# or QEMU registered with binfmt_misc). Elsewhere it is skipped with the way round: gather on a machine of that
# architecture with a network, or build online as a job on a node of it (jobscripts/build-image.sh).
runs_arch = { [ "$$(uname -m)" = $(ARCH) ] || grep -qs enabled /proc/sys/fs/binfmt_misc/qemu-$(ARCH); }
gather_debs = if [ ! -e $(call base_of,$1) ]; then echo "make sources: no base at $(call base_of,$1), so no \
    distribution packages for $1 (first: $(call base_hint,$1))"; elif ! $(runs_arch); then echo "make sources: \
    no debs-$1: finding the distribution packages $1's base lacks runs its $(ARCH) apt, and this $$(uname -m) \
    machine has no QEMU for $(ARCH); run 'make sources SOURCES=$(MIRROR) ARCH=$(ARCH) FLAVOURS=$1' on an $(ARCH) \
    machine with a network, or build online on an $(ARCH) node: sbatch jobscripts/build-image.sh"; \
    else APPTAINER=$(APPTAINER) bash containers/gather-debs.sh $1 $(call base_of,$1) $(MIRROR)/debs-$1 \
    $(IMAGE_PYTHON); fi

.PHONY: sources
sources: MIRROR = $(or $(SOURCES),$(IMAGE_DIR)/sources)
sources: ## Gather into SOURCES (default build/sources) every archive, locked wheel and missing distribution package ARCH's images take, hash-checked
	$(IMAGETOOL) sources --arch $(ARCH) --mirror $(MIRROR)
	$(foreach flavour,$(or $(FLAVOURS),$(ARCH_FLAVOURS)),SOURCES= bash containers/fetch-wheels.sh $(flavour) \
	    $(MIRROR)/wheelhouse-$(flavour) $(IMAGE_PYTHON) &&) true
	$(foreach flavour,$(or $(FLAVOURS),$(ARCH_FLAVOURS)),$(call gather_debs,$(flavour)) &&) true

.PHONY: wheelhouse-lock
wheelhouse-lock: $(STAMP) ## Rewrite containers/locks/wheelhouse-*.txt (every wheel's sha256) from the pins; needs a network
	for flavour in $(basename $(notdir $(wildcard containers/arch/*.env))); do \
	    bash containers/lock-wheelhouse.sh $$flavour $(PY) || exit 1; done

.PHONY: base
base: ## Pull the pinned NGC base for ARCH's platform into $(IMAGE_DIR)/ngc-pytorch-ARCH.sif (for BASE=)
	$(IMAGETOOL) pull-base --arch $(ARCH) --apptainer $(APPTAINER) --out $(IMAGE_DIR)/ngc-pytorch-$(ARCH).sif
	@echo "then, offline if need be: make image ARCH=$(ARCH) BASE=$(IMAGE_DIR)/ngc-pytorch-$(ARCH).sif"

.PHONY: image
image: ## Build the CUDA image for ARCH (x86_64|aarch64); offline: SOURCES=DIR BASE=ngc.sif
	$(build_image)

# `make image-extend`: a built image plus your own Python packages, from a directory of wheels (docs/packages.md)
# The image to extend (the job scripts' IMAGE, if you exported it)
IMAGE ?= app.sif
# A directory of wheels: your packages and those of their dependencies the image lacks
WHEELS ?=
# The image to write
OUT ?=
# The packages to install, space-separated; empty: the project of every wheel in WHEELS
PACKAGES ?=

.PHONY: image-extend
image-extend: ## Write OUT: IMAGE plus the wheels in WHEELS (make image-extend IMAGE=app.sif WHEELS=dir OUT=my.sif)
	APPTAINER=$(APPTAINER) SQUASHFS_ARGS="$(SQUASHFS_ARGS)" APPTAINER_BUILD_FLAGS="$(APPTAINER_BUILD_FLAGS)" \
	    bash containers/extend-image.sh "$(IMAGE)" "$(WHEELS)" "$(OUT)" "$(PACKAGES)"

.PHONY: image-lint
image-lint: ## Render and lint the image definition for ARCH and print its summary
	$(IMAGETOOL) summary --arch $(ARCH)

.PHONY: smoke-image
smoke-image: $(IMAGE_DIR)/smoke.sif ## Build the CPU smoke image CI runs (build/smoke.sif), if its inputs changed

$(IMAGE_DIR)/smoke.sif: IMAGE_SETS = --set BASE=$(SMOKE_ROOTFS)
$(IMAGE_DIR)/smoke.sif: FLAVOUR = smoke
$(IMAGE_DIR)/smoke.sif: SIF = $(IMAGE_DIR)/smoke.sif
$(IMAGE_DIR)/smoke.sif: BUILD_ARCH = $(shell uname -m)
$(IMAGE_DIR)/smoke.sif: $(IMAGE_SOURCES) containers/arch/smoke.env $(SMOKE_ROOTFS)/.debootstrapped
	$(build_image)

$(SMOKE_ROOTFS)/.debootstrapped: containers/versions.env containers/debootstrap-rootfs.sh
	bash containers/debootstrap-rootfs.sh $(SMOKE_ROOTFS) $$(sed -n 's/^SMOKE_DEBIAN_SUITE=//p' containers/versions.env)
	touch $@

# --- The NGC twin (CI): the CUDA flavour, every step unmodified, on a local twin of NGC's base ------
# ARCH picks the twin: x86_64's is CI's (flavour ngc-twin, on the smoke flavour's rootfs); aarch64's (flavour
# ngc-twin-aarch64, on an arm64 rootfs) is built under QEMU user emulation on an x86_64 machine, about an hour
# for both stages (`nox -s image_aarch64`, before a change to containers/ lands).
TWIN_FLAVOUR = $(if $(filter x86_64,$(ARCH)),ngc-twin,ngc-twin-$(ARCH))
TWIN_BASE    = $(IMAGE_DIR)/$(TWIN_FLAVOUR).sif
TWIN_ROOTFS  = $(if $(filter x86_64,$(ARCH)),$(SMOKE_ROOTFS),$(IMAGE_DIR)/twin-rootfs-$(ARCH))
TWIN_SIF     = $(IMAGE_DIR)/app-$(TWIN_FLAVOUR).sif

.PHONY: twin-base
twin-base: $(TWIN_BASE) ## Build the local twin of the NGC PyTorch base for ARCH (build/ngc-twin*.sif; root, ~5 min)

$(TWIN_BASE): containers/twin/ngc-pytorch.def containers/twin/lay-out-ngc.sh containers/twin/build-twin.sh \
              containers/versions.env $(TWIN_ROOTFS)/.debootstrapped | $(STAMP)
	APPTAINER=$(APPTAINER) bash containers/twin/build-twin.sh $(TWIN_ROOTFS) $(IMAGE_DIR)/wheelhouse-twin-base$(if \
	    $(filter x86_64,$(ARCH)),,-$(ARCH)) $@ $(PY) $(if $(filter x86_64,$(ARCH)),,$(ARCH))

# The arm64 (Debian's name for aarch64) Debian the aarch64 twin starts from; x86_64's is the smoke rootfs.
$(IMAGE_DIR)/twin-rootfs-aarch64/.debootstrapped: containers/versions.env containers/debootstrap-rootfs.sh
	bash containers/debootstrap-rootfs.sh $(@D) $$(sed -n 's/^SMOKE_DEBIAN_SUITE=//p' containers/versions.env) arm64
	touch $@

.PHONY: twin-image
twin-image: $(TWIN_SIF) ## Build the CUDA flavour on ARCH's NGC twin (build/app-ngc-twin*.sif; SOURCES=DIR builds offline)

$(TWIN_SIF): FLAVOUR = $(TWIN_FLAVOUR)
$(TWIN_SIF): SIF = $(TWIN_SIF)
$(TWIN_SIF): BUILD_ARCH = $(ARCH)
$(TWIN_SIF): IMAGE_SETS = --set BASE=$(TWIN_BASE)
$(TWIN_SIF): $(IMAGE_SOURCES) containers/arch/$(TWIN_FLAVOUR).env $(TWIN_BASE) | $(STAMP)
	$(build_image)

# --- Sharing images through an OCI registry (docs/images.md) ---------------------------------------
# One member builds, signs and pushes (`make push REGISTRY=oras://HOST/NAMESPACE ARCH=...`: NAMESPACE/app:VERSION-ARCH);
# jobs name it (IMAGE=oras://...), pull it once per digest into build/images and verify its signature first.
# `make pull IMAGE=oras://...` does the same on a login node (of any architecture) ahead of the jobs.

# The group's registry: oras://HOST[:PORT]/NAMESPACE
REGISTRY ?=
# The image `make push` and `make sign` take: by default the one `make image ARCH=...` builds
PUSH_IMAGE ?= $(IMAGE_DIR)/app-$(ARCH)-$(APP_VERSION).sif
# 1: the registry speaks plain http (on loopback, or an internal network); as the job scripts' knob
IMAGE_NO_HTTPS ?= 0
# Where `make pull` puts images, as the job scripts' knob; empty: build/images of this checkout
IMAGE_CACHE ?=
# The PGP keyring that signs and verifies (Apptainer's APPTAINER_KEYSDIR); empty: ~/.apptainer/keys
KEYS_DIR ?=

KEYS_ENV      = $(if $(KEYS_DIR),APPTAINER_KEYSDIR=$(abspath $(KEYS_DIR)))
# Standard library only: the system python3 of any login node, no .venv
REGISTRY_TOOL = $(KEYS_ENV) $(PYTHON) -m app.host.launch.image_registry
NO_HTTPS_FLAG = $(if $(filter 1,$(IMAGE_NO_HTTPS)),--no-https)

.PHONY: keys
keys: ## Make the group's signing key in KEYS_DIR (asks a name, an email, a passphrase); export its public half to share
	mkdir -p $(or $(KEYS_DIR),$(HOME)/.apptainer/keys)
	$(KEYS_ENV) $(APPTAINER) key newpair
	@echo "share the public key with the group: $(KEYS_ENV) $(APPTAINER) key export group.asc (they: apptainer key import group.asc)"

.PHONY: sign
sign: ## Sign PUSH_IMAGE with the first key of your keyring (KEYS_DIR)
	$(KEYS_ENV) $(APPTAINER) sign $(PUSH_IMAGE)

.PHONY: push
push: ## Sign PUSH_IMAGE if it is not yet and push it as REGISTRY/app:VERSION-ARCH; prints the IMAGE= that pins it
	@test -n "$(REGISTRY)" || { echo "make push: set REGISTRY to your group's registry, e.g." \
	    "make push REGISTRY=oras://registry.example.org/mygroup ARCH=$(ARCH)" >&2; exit 2; }
	$(REGISTRY_TOOL) push $(PUSH_IMAGE) --registry $(REGISTRY) --tag $(APP_VERSION)-$(ARCH) $(NO_HTTPS_FLAG) \
	    --apptainer $(APPTAINER)

.PHONY: pull
pull: ## Pull IMAGE=oras://... into build/images (once per digest) and verify its signature, as a job does
	$(REGISTRY_TOOL) pull $(IMAGE) --cache "$(IMAGE_CACHE)" $(NO_HTTPS_FLAG) --apptainer $(APPTAINER)
