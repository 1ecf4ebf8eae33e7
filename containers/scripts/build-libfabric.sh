#!/usr/bin/env bash
# libfabric from its pinned release tarball, for aws-ofi-nccl to build and run against.
# On Slingshot the job binds the host's libfabric (built with the cxi provider) over /opt/libfabric
# or ahead of it on LD_LIBRARY_PATH; the ABI (libfabric.so.1) is the same.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA
if [[ $WITH_CUDA != 1 ]]; then log "skipped: WITH_CUDA=$WITH_CUDA (libfabric is only needed by the CUDA plugin)"; exit 0; fi
need LIBFABRIC_VERSION LIBFABRIC_SHA256

src=/tmp/build/libfabric
mkdir -p "$src"
fetch_verified "https://github.com/ofiwg/libfabric/releases/download/v$LIBFABRIC_VERSION/libfabric-$LIBFABRIC_VERSION.tar.bz2" \
    "$LIBFABRIC_SHA256" /tmp/build/libfabric.tar.bz2
tar -xjf /tmp/build/libfabric.tar.bz2 -C "$src" --strip-components=1
cd "$src"
./configure --prefix=/opt/libfabric --enable-verbs --enable-tcp --enable-shm --disable-efa \
    --disable-psm2 --disable-psm3 --disable-opx --disable-usnic >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
echo /opt/libfabric/lib >/etc/ld.so.conf.d/50-libfabric.conf
ldconfig
rm -rf /tmp/build/libfabric /tmp/build/libfabric.tar.bz2
