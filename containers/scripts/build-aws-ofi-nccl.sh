#!/usr/bin/env bash
# aws-ofi-nccl (NCCL's libfabric network plugin, needed on Slingshot) from its pinned, sha256-checked
# source archive, built against /opt/libfabric, the system hwloc and the base's CUDA.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA
if [[ $WITH_CUDA != 1 ]]; then log "skipped: WITH_CUDA=$WITH_CUDA (the plugin needs CUDA)"; exit 0; fi
need AWS_OFI_NCCL_VERSION AWS_OFI_NCCL_SHA256

cuda=${CUDA_HOME:-/usr/local/cuda}
[[ -d $cuda/include ]] || die "no CUDA toolkit at $cuda; the CUDA flavour needs a CUDA devel base (NGC PyTorch is one)"
src=/tmp/build/aws-ofi-nccl
mkdir -p "$src"
fetch_verified "https://github.com/aws/aws-ofi-nccl/archive/refs/tags/v$AWS_OFI_NCCL_VERSION.tar.gz" \
    "$AWS_OFI_NCCL_SHA256" /tmp/build/aws-ofi-nccl.tar.gz
tar -xzf /tmp/build/aws-ofi-nccl.tar.gz -C "$src" --strip-components=1
cd "$src"
./autogen.sh >/dev/null
# No --with-mpi: the plugin does not need it and the image should not drag in an MPI.
./configure --prefix=/opt/aws-ofi-nccl --with-libfabric=/opt/libfabric --with-cuda="$cuda" \
    --with-hwloc=/usr --disable-tests >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
# NCCL dlopen()s libnccl-net.so (or libnccl-net-$NCCL_NET_PLUGIN.so) through the loader's cache.
echo /opt/aws-ofi-nccl/lib >/etc/ld.so.conf.d/50-aws-ofi-nccl.conf
ldconfig
[[ -e /opt/aws-ofi-nccl/lib/libnccl-net.so ]] || die "aws-ofi-nccl installed no libnccl-net.so"
rm -rf "$src" /tmp/build/aws-ofi-nccl.tar.gz
