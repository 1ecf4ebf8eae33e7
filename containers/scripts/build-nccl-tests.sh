#!/usr/bin/env bash
# NVIDIA nccl-tests (all_reduce_perf & co.) from the pinned, sha256-checked source archive, so users
# can compare the image's NCCL with the reference tool. Without MPI: one process drives all GPUs.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA
if [[ $WITH_CUDA != 1 ]]; then log "skipped: WITH_CUDA=$WITH_CUDA (nccl-tests need CUDA)"; exit 0; fi
need NCCL_TESTS_VERSION NCCL_TESTS_SHA256 NVCC_GENCODE

cuda=${CUDA_HOME:-/usr/local/cuda}
src=/tmp/build/nccl-tests
mkdir -p "$src"
fetch_verified "https://github.com/NVIDIA/nccl-tests/archive/refs/tags/v$NCCL_TESTS_VERSION.tar.gz" \
    "$NCCL_TESTS_SHA256" /tmp/build/nccl-tests.tar.gz
tar -xzf /tmp/build/nccl-tests.tar.gz -C "$src" --strip-components=1
# NCCL_HOME=/usr: the base's libnccl and nccl.h (NGC installs them in the system paths).
make -C "$src" -j"$(nproc)" CUDA_HOME="$cuda" NCCL_HOME=/usr NVCC_GENCODE="$NVCC_GENCODE" >/dev/null
install -d /opt/nccl-tests/bin
install -m 755 "$src"/build/*_perf /opt/nccl-tests/bin/
rm -rf "$src" /tmp/build/nccl-tests.tar.gz
