#!/usr/bin/env bash
# Python side: the app package and DeepSpeed (and, for the smoke flavour, the CPU torch wheel and its
# dependencies) from the wheelhouse copied in by %files. Offline (--no-index): the build must not reach PyPI.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need FLAVOUR PYTHON TORCH_VERSION DEEPSPEED_VERSION WITH_CUDA

wheelhouse=/opt/app/wheelhouse
ls "$wheelhouse"/app-*.whl >/dev/null 2>&1 || die "no app wheel in the wheelhouse; build it with 'make wheelhouse'"
pip_install=(--no-cache-dir install --no-index --find-links "$wheelhouse")
if [[ $FLAVOUR == smoke ]]; then
    python3 -m venv /opt/venv
    # Everything the wheelhouse holds: torch (CPU), its dependencies, numpy, pyyaml, tqdm and app.
    "$PYTHON" -m pip "${pip_install[@]}" "torch==$TORCH_VERSION" numpy pyyaml tqdm app
else
    # torch and numpy come with the NGC base; add only app (and pyyaml, tqdm where the base lacks them).
    PIP_CONSTRAINT='' "$PYTHON" -m pip "${pip_install[@]}" --no-deps app
    "$PYTHON" -c 'import yaml' || "$PYTHON" -m pip "${pip_install[@]}" pyyaml
    "$PYTHON" -c 'import tqdm' || "$PYTHON" -m pip "${pip_install[@]}" tqdm
fi
found=$("$PYTHON" -c 'import torch; print(torch.__version__)')
# PyPI's wheels report a local label ("2.13.0+cpu", "2.14.1+cu130"): compare the public version part.
[[ $found == "$TORCH_VERSION" || $found == "$TORCH_VERSION+"* ]] ||
    die "torch $found in the image, but containers/versions.env pins $TORCH_VERSION; update the pin or the base"
"$PYTHON" -c 'import app' || die "the app package does not import"

# cuda_arch_list GENCODE: NVCC_GENCODE's GPUs as TORCH_CUDA_ARCH_LIST writes them: `code=sm_90` -> 9.0, and
# `code=compute_90` (PTX that newer GPUs compile at load time) -> +PTX on that architecture.
cuda_arch_list() {
    local word arch list=()
    for word in $1; do
        [[ $word =~ code=sm_([0-9]+)([0-9])$ ]] && list+=("${BASH_REMATCH[1]}.${BASH_REMATCH[2]}")
        if [[ $word =~ code=compute_([0-9]+)([0-9])$ ]]; then
            arch="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
            list=("${list[@]/%$arch/$arch+PTX}")
        fi
    done
    (IFS=';'; echo "${list[*]}")
}

# DeepSpeed, from its source archive (PyPI has no wheel), built here against the image's own torch
# (--no-build-isolation) with the ops a job would otherwise compile at first use on every node, each rank
# taking a file lock in ~/.cache/torch_extensions. DeepSpeed builds ops "just-in-time (JIT)" unless DS_BUILD_*
# asks for them at install, and a JIT build "will only support the archs visible at the time of building"
# (deepspeed.ai/tutorials/advanced-install: "Pre-install DeepSpeed Ops", "Building for the correct
# architectures"). A prebuilt op is used only where the accelerator at run time is the one it was built for
# (op_builder/builder.py OpBuilder.load compares accelerator_name), so DS_ACCELERATOR names it here: the build
# node has no GPU, and DeepSpeed would otherwise take it for a CPU (accelerator/real_accelerator.py).
ds_build=(DS_BUILD_OPS=0)
deepspeed_op=
if [[ $WITH_CUDA == 1 ]]; then
    need NVCC_GENCODE
    # FusedAdam: what DeepSpeed runs for `"optimizer": {"type": "Adam"}` on GPUs (runtime/engine.py
    # get_optimizer_configuration), for the GPUs nccl-tests is built for (containers/arch/ARCH.env).
    arch_list=$(cuda_arch_list "$NVCC_GENCODE")
    [[ -n $arch_list ]] || die "no sm_XY in NVCC_GENCODE='$NVCC_GENCODE'; DeepSpeed's ops need a GPU architecture"
    # Every CUDA op includes torch's ATen/cuda/CUDAContextLight.h, which includes these toolkit headers. NGC's
    # toolkit has them, and so does the NGC twin (containers/twin/lay-out-ngc.sh); on a base without them the ops
    # are left to compile at first use, and the label says so.
    ds_build+=(DS_ACCELERATOR=cuda)
    cuda_include=${CUDA_HOME:-/usr/local/cuda}/include
    missing=()
    for header in cusparse.h cublas_v2.h cublasLt.h cusolverDn.h; do
        [[ -f $cuda_include/$header ]] || missing+=("$header")
    done
    if ((${#missing[@]})); then
        log "warning: no ${missing[*]} in $cuda_include: DeepSpeed's ops are not built into this image (they compile" \
            "at first use where the toolkit is complete)"
        add_label app.deepspeed.prebuilt-ops "none (no ${missing[*]} in $cuda_include)"
    else
        ds_build+=(DS_BUILD_FUSED_ADAM=1 "TORCH_CUDA_ARCH_LIST=$arch_list")
        deepspeed_op=fused_adam
        add_label app.deepspeed.prebuilt-ops "fused_adam for TORCH_CUDA_ARCH_LIST=$arch_list"
    fi
else
    # The CPU accelerator compiles a shared-memory all-reduce as its communication backend starts, in every
    # process (comm/torch.py TorchBackend.__init__ -> build_shm_op): without it built here, a job would need a
    # C++ compiler and Python's headers on every node. They are here only while it builds: install-system-packages.sh
    # installed them (from the package mirror, offline), and they are purged below.
    ds_build+=(DS_ACCELERATOR=cpu DS_BUILD_SHM_COMM=1)
    deepspeed_op=deepspeed_shm_comm
    add_label app.deepspeed.prebuilt-ops deepspeed_shm_comm
    # Building without isolation takes the venv's setuptools: one that writes wheels itself (70.1+; older ones
    # need the `wheel` package, which the venv lacks)
    "$PYTHON" -m pip "${pip_install[@]}" --upgrade "setuptools>=70.1"
fi
log "DeepSpeed $DEEPSPEED_VERSION with ${ds_build[*]}"
# DeepSpeed's dependencies must not replace the base's torch or numpy, and no constraint keeps them: PIP_CONSTRAINT
# names /etc/pip/constraint.txt, which NGC 26.05 ships empty. What keeps them is pip itself: it leaves an installed
# requirement that satisfies (no --upgrade); torch is not in the wheelhouse, so a torch requirement the base does
# not meet stops the install here (--no-index); numpy is (the lock's), so a DeepSpeed that needed a numpy the
# base lacks would replace the base's, and nothing in this build would say so.
# --use-pep517: the same build on every pip (Debian's 23.0 would otherwise take the deprecated `setup.py install`).
started=$SECONDS
env "${ds_build[@]}" "$PYTHON" -m pip "${pip_install[@]}" --no-build-isolation --use-pep517 \
    "deepspeed==$DEEPSPEED_VERSION"
log "DeepSpeed $DEEPSPEED_VERSION built and installed in $((SECONDS - started)) s"
if [[ $WITH_CUDA == 0 ]]; then
    apt-get purge -y -qq --auto-remove g++ python3-dev >/dev/null
    apt-get clean
    rm -rf /var/lib/apt/lists/*
fi
# What setup.py recorded (deepspeed/git_version_info_installed.py), read without importing DeepSpeed
installed=$("$PYTHON" -c 'import importlib.util as u, pathlib as p
print(p.Path(u.find_spec("deepspeed").origin).with_name("git_version_info_installed.py").read_text())')
[[ -z $deepspeed_op || $installed == *"'$deepspeed_op': 1"* ]] ||
    die "DeepSpeed installed without its prebuilt $deepspeed_op op ($installed); see the pip output above"
"$PYTHON" -c 'import deepspeed' || die "DeepSpeed $DEEPSPEED_VERSION does not import"
rm -rf "$wheelhouse"
