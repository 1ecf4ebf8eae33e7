#!/usr/bin/env bash
# NVIDIA nccl-tests (all_reduce_perf & co.) from the pinned, sha256-checked tag archive, built with MPI
# against the base's OpenMPI (NGC: HPC-X at /opt/hpcx/ompi), so the reference tool runs across nodes:
# `srun --mpi=pmix ... all_reduce_perf` or `mpirun ...`, one process per GPU (docs/images.md, "Run").
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA BUILD_DIR
if [[ $WITH_CUDA != 1 ]]; then log "skipped: WITH_CUDA=$WITH_CUDA (nccl-tests need CUDA)"; exit 0; fi
need NCCL_TESTS_VERSION NCCL_TESTS_URL NCCL_TESTS_SHA256 NCCL_TESTS_ARCHIVE NVCC_GENCODE

cuda=${CUDA_HOME:-/usr/local/cuda}
mpi_home=${MPI_HOME:-/opt/hpcx/ompi}
[[ -e $mpi_home/include/mpi.h ]] ||
    die "no MPI at $mpi_home (no include/mpi.h); NGC bases have HPC-X's OpenMPI there: set MPI_HOME to another MPI"
src=$BUILD_DIR/nccl-tests
mkdir -p "$src"
fetch_verified "$NCCL_TESTS_URL" "$NCCL_TESTS_SHA256" "$NCCL_TESTS_ARCHIVE" "$BUILD_DIR/nccl-tests.tar.gz"
tar -xzf "$BUILD_DIR/nccl-tests.tar.gz" -C "$src" --strip-components=1
# nccl-tests link `-L$NCCL_HOME/lib -lnccl` and include `$NCCL_HOME/include`: NGC installs NCCL in the
# system directories, where libnccl.so (the dev link) may be missing, so give them a home of their own.
nccl_h=$(find /usr/include /usr/local/include -maxdepth 1 -name nccl.h -print -quit)
[[ -n $nccl_h ]] || die "no nccl.h in /usr/include or /usr/local/include: the base has no NCCL headers"
nccl_home=$BUILD_DIR/nccl-home
dev_links "$nccl_home/lib" nccl
ln -s "$(dirname "$nccl_h")" "$nccl_home/include"
make -C "$src/src" -j"$(nproc)" MPI=1 MPI_HOME="$mpi_home" CUDA_HOME="$cuda" NCCL_HOME="$nccl_home" \
    NVCC_GENCODE="$NVCC_GENCODE" >/dev/null
install -d /opt/nccl-tests/bin
install -m 755 "$src"/build/*_perf /opt/nccl-tests/bin/
# the whole of ldd's output, not `ldd | grep -q`: grep -q leaves at the first match, and under pipefail the
# SIGPIPE that ldd then gets fails the check at random
[[ $(ldd /opt/nccl-tests/bin/all_reduce_perf) == *libmpi* ]] || die "all_reduce_perf is not linked with MPI"
rm -rf "$src" "$nccl_home" "$BUILD_DIR/nccl-tests.tar.gz"
