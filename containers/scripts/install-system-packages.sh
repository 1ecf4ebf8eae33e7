#!/usr/bin/env bash
# Distribution packages: the InfiniBand userspace (rdma-core: libibverbs + the mlx5 provider) for
# every flavour, Python for the smoke flavour, compilers and hwloc for the CUDA builds, and the
# libraries a Slingshot host's libfabric needs once it is bound in. Only what the base lacks is
# installed: NGC's CUDA-13 bases carry rdma-core from NVIDIA's own packages, which apt cannot
# reinstall or replace (ai-dynamo/nixl#889: "the deb files have been deleted").
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA FLAVOUR

export DEBIAN_FRONTEND=noninteractive
# Without libibverbs + ibverbs-providers (libmlx5) NCCL cannot see the HCAs and falls back to TCP:
# `libibverbs: Warning: no userspace device-specific driver found`. --nv binds only the GPU driver.
packages=(libibverbs1 ibverbs-providers ibverbs-utils rdma-core ca-certificates)
# torchrun --numa-binding (the job scripts' NUMA_BINDING) runs each worker under the numactl CLI.
packages+=(numactl)
if [[ $FLAVOUR == smoke ]]; then
    packages+=(python3 python3-venv)
fi
if [[ $WITH_CUDA == 1 ]]; then
    # Build tools for libfabric, aws-ofi-nccl (autogen) and nccl-tests; hwloc for the plugin.
    packages+=(build-essential autoconf automake libtool pkg-config curl libhwloc-dev libibverbs-dev
        librdmacm-dev)
    # A Slingshot host's libfabric links libcurl and json-c (libfabric prov/cxi/configure.m4), and libcxi
    # links libnl; CSCS's base image installs the same (libcurl4-openssl-dev libjson-c-dev libnl-3-dev
    # libnuma-dev). What the host's library needs and the image still lacks, the job binds from the host.
    packages+=(libcurl4 libjson-c5 libnl-3-200 libnl-route-3-200 libnuma1)
fi
missing=() present=()
for package in "${packages[@]}"; do
    if [[ $(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true) == "install ok installed" ]]; then
        present+=("$package")
    else
        missing+=("$package")
    fi
done
log "the base has: ${present[*]:-none of them}; installing: ${missing[*]:-nothing}"
if ((${#missing[@]})); then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    apt-get clean
    rm -rf /var/lib/apt/lists/*
fi
