#!/usr/bin/env bash
# libfabric from its pinned, sha256-checked tag archive, for aws-ofi-nccl to build and run against.
# The version is the oldest host libfabric we support (containers/versions.env says why): on Slingshot
# the job binds the host's libfabric (built with the cxi provider) over /opt/libfabric at run time.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA BUILD_DIR
if [[ $WITH_CUDA != 1 ]]; then log "skipped: WITH_CUDA=$WITH_CUDA (libfabric is only needed by the CUDA plugin)"; exit 0; fi
need LIBFABRIC_VERSION LIBFABRIC_URL LIBFABRIC_SHA256 LIBFABRIC_ARCHIVE

src=$BUILD_DIR/libfabric
mkdir -p "$src"
fetch_verified "$LIBFABRIC_URL" "$LIBFABRIC_SHA256" "$LIBFABRIC_ARCHIVE" "$BUILD_DIR/libfabric.tar.gz"
tar -xzf "$BUILD_DIR/libfabric.tar.gz" -C "$src" --strip-components=1
cd "$src"
# A tag archive has no configure script.
./autogen.sh >/dev/null 2>&1
# libibverbs.so / librdmacm.so may be missing on the base (NGC CUDA-13): link through our own dev links.
dev_links "$BUILD_DIR/devlinks" ibverbs rdmacm
# tcp (with rxm) for Ethernet and the plugin's tests, shm within a node, verbs for RoCE/IB users of the
# plugin; nothing else (efa is AWS-only, and the cxi provider comes with the Slingshot host's library).
./configure --prefix=/opt/libfabric --disable-static --enable-only --enable-tcp --enable-rxm --enable-shm \
    --enable-verbs LDFLAGS="-L$BUILD_DIR/devlinks" >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
echo /opt/libfabric/lib >/etc/ld.so.conf.d/50-libfabric.conf
ldconfig
found=$(/opt/libfabric/bin/fi_info --version | sed -n 's/^libfabric: *//p')
[[ $found == "$LIBFABRIC_VERSION" ]] || die "built libfabric reports $found, not $LIBFABRIC_VERSION"
rm -rf "$BUILD_DIR/libfabric" "$BUILD_DIR/libfabric.tar.gz"
