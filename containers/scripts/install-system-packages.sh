#!/usr/bin/env bash
# Distribution packages: the InfiniBand userspace (rdma-core: libibverbs + the mlx5 provider) for
# every flavour, Python for the smoke flavour, compilers and hwloc for the CUDA builds.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA FLAVOUR

export DEBIAN_FRONTEND=noninteractive
# Without libibverbs + ibverbs-providers (libmlx5) NCCL cannot see the HCAs and falls back to TCP:
# `libibverbs: Warning: no userspace device-specific driver found`. --nv binds only the GPU driver.
packages=(libibverbs1 ibverbs-providers ibverbs-utils rdma-core ca-certificates)
if [[ $FLAVOUR == smoke ]]; then
    packages+=(python3 python3-venv)
fi
if [[ $WITH_CUDA == 1 ]]; then
    # Build tools for libfabric, aws-ofi-nccl (autogen) and nccl-tests; hwloc for the plugin.
    packages+=(build-essential autoconf automake libtool pkg-config curl libhwloc-dev libibverbs-dev
        librdmacm-dev)
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
apt-get clean
rm -rf /var/lib/apt/lists/*
