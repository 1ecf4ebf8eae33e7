#!/usr/bin/env bash
# The twin's environment as NGC's Docker ENV makes it under Apptainer, and the files that ENV names (run by
# lay-out-ngc.sh; ROOT is / there, a scratch directory in the tests):
#   ngc-environment.sh ROOT SITE_PACKAGES      (TWIN_CUDA_VERSION, TWIN_TORCH_VERSION, TWIN_NCCL_VERSION set)
# The ENV lines are NGC's (PyTorch 25.10 arm64 layer history; 26.07's for PIP_*, NCCL_NET_PLUGIN): PATH with
# CUDA and HPC-X first, LD_LIBRARY_PATH, ENV=/etc/shinit_v2 (the startup file a POSIX shell reads) and
# BASH_ENV=/etc/bash.bashrc (bash's), PIP_CONSTRAINT and PIP_BREAK_SYSTEM_PACKAGES, NCCL_NET_PLUGIN=spcx,
# OPAL_PREFIX=/opt/hpcx/ompi (HPC-X's Open MPI).
set -euo pipefail
usage="usage: ngc-environment.sh ROOT SITE_PACKAGES"
root=${1:?$usage}
site=${2:?$usage}
: "${TWIN_CUDA_VERSION:?} ${TWIN_TORCH_VERSION:?} ${TWIN_NCCL_VERSION:?}"
# The driver the twin's stand-in compat libraries name (lay-out-ngc.sh); NGC's ENV carries its own as
# CUDA_DRIVER_VERSION (its entrypoint's driver check compares the node's with it).
compat_driver=${TWIN_COMPAT_DRIVER:-580.95.05}
here=$(cd "$(dirname "$0")" && pwd)

# NGC 26.05 ships /etc/pip/constraint.txt empty: PIP_CONSTRAINT names it, but it pins nothing (releases from 25.03
# on have the file; what it lists varies by release). An image build must not count on it to keep torch.
mkdir -p "$root/etc/pip"
: >"$root/etc/pip/constraint.txt"

# NGC's /etc/shinit_v2 checks the GPU driver against the image's CUDA (compat libraries) with nvidia-smi each
# time a shell starts through ENV. The stand-in keeps what a job meets: a startup file that runs
# `nvidia-smi -q -d COMPUTE` where there is one, so a script that shadows nvidia-smi with a shell script
# recurses there as it would on NGC; it prints nothing.
cat >"$root/etc/shinit_v2" <<'SHINIT'
# Stand-in for NGC's shell startup file (containers/twin/ngc-environment.sh): runs nvidia-smi as NGC's does.
if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -q -d COMPUTE >/dev/null 2>&1 || true
fi
SHINIT

mkdir -p "$root/.singularity.d/env"
bash "$here/write-docker-env.sh" "$root/.singularity.d/env/10-docker2singularity.sh" <<ENV
PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/mpi/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/ucx/bin:/opt/amazon/efa/bin
LD_LIBRARY_PATH=$site/torch/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64
CUDA_HOME=/usr/local/cuda
CUDA_VERSION=$TWIN_CUDA_VERSION
CUDA_DRIVER_VERSION=$compat_driver
NCCL_VERSION=$TWIN_NCCL_VERSION
PYTORCH_VERSION=$TWIN_TORCH_VERSION
ENV=/etc/shinit_v2
BASH_ENV=/etc/bash.bashrc
SHELL=/bin/bash
PIP_CONSTRAINT=/etc/pip/constraint.txt
PIP_BREAK_SYSTEM_PACKAGES=1
NCCL_NET_PLUGIN=spcx
OPAL_PREFIX=/opt/hpcx/ompi
NVIDIA_VISIBLE_DEVICES=all
NVIDIA_DRIVER_CAPABILITIES=compute,utility,video
ENV
