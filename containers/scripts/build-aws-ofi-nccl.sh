#!/usr/bin/env bash
# aws-ofi-nccl (NCCL's libfabric network plugin, needed on Slingshot) from its pinned, sha256-checked
# tag archive, built against /opt/libfabric, the system hwloc and the base's CUDA; then checked to load
# against the oldest host libfabric we support.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA BUILD_DIR
if [[ $WITH_CUDA != 1 ]]; then log "skipped: WITH_CUDA=$WITH_CUDA (the plugin needs CUDA)"; exit 0; fi
need ARCH AWS_OFI_NCCL_VERSION AWS_OFI_NCCL_URL AWS_OFI_NCCL_SHA256 AWS_OFI_NCCL_ARCHIVE LIBFABRIC_HOST_ABI

cuda=${CUDA_HOME:-/usr/local/cuda}
[[ -d $cuda/include ]] || die "no CUDA toolkit at $cuda; the CUDA flavour needs a CUDA devel base (NGC PyTorch is one)"
src=$BUILD_DIR/aws-ofi-nccl
mkdir -p "$src"
fetch_verified "$AWS_OFI_NCCL_URL" "$AWS_OFI_NCCL_SHA256" "$AWS_OFI_NCCL_ARCHIVE" "$BUILD_DIR/aws-ofi-nccl.tar.gz"
tar -xzf "$BUILD_DIR/aws-ofi-nccl.tar.gz" -C "$src" --strip-components=1
cd "$src"
./autogen.sh >/dev/null 2>&1
# No --with-hwloc: given a path, m4/check_pkg_hwloc.m4 adds `-isystem PATH/include`, and for the system
# hwloc that is `-isystem /usr/include`, which breaks libstdc++'s #include_next (GCC bug 70129: every
# C++ file stops at `cstdlib: fatal error: stdlib.h: No such file or directory`). Left out, configure
# finds hwloc.h and -lhwloc in the default paths. No --with-mpi: only the plugin's own tests need it.
./configure --prefix=/opt/aws-ofi-nccl --with-libfabric=/opt/libfabric --with-cuda="$cuda" \
    --disable-tests >/dev/null
make -j"$(nproc)" >/dev/null
make install >/dev/null
# NCCL dlopen()s libnccl-net.so (or libnccl-net-$NCCL_NET_PLUGIN.so) through the loader's cache.
echo /opt/aws-ofi-nccl/lib >/etc/ld.so.conf.d/50-aws-ofi-nccl.conf
ldconfig
plugin=/opt/aws-ofi-nccl/lib/libnccl-net.so
[[ -e $plugin ]] || die "aws-ofi-nccl installed no libnccl-net.so"
# An ELF of the image's architecture with a table NCCL looks up (an emulated cross-build must not hand NCCL
# a host-architecture library, nor a plugin NCCL would skip as "unsupported").
bash "$(dirname "$0")/check-net-plugin.sh" "$plugin" "$ARCH"

# The host's libfabric replaces ours at run time on Slingshot: the plugin must need no symbol version
# newer than the oldest host library we support has, or the loader refuses it there
# (`version 'FABRIC_1.8' not found`, then NCCL's `Failed to initialize any NET plugin`; NCCL 2.26 and older
# said `network AWS Libfabric not found`).
newest=$(objdump -T "$plugin" | grep -o 'FABRIC_[0-9.]*' | sort -u -V | tail -1)
[[ -n $newest ]] || die "$plugin references no libfabric symbol version; was it linked against libfabric?"
if [[ $(printf '%s\n' "$newest" "$LIBFABRIC_HOST_ABI" | sort -V | tail -1) != "$LIBFABRIC_HOST_ABI" ]]; then
    die "$plugin needs $newest, newer than $LIBFABRIC_HOST_ABI (libfabric $LIBFABRIC_VERSION): it would not load on hosts with that libfabric; build it against libfabric $LIBFABRIC_VERSION"
fi
log "plugin needs libfabric symbol versions up to $newest (host libfabric may be as old as $LIBFABRIC_VERSION)"
if ldd -r "$plugin" 2>&1 | grep -E 'not found|undefined symbol'; then
    die "$plugin has unresolved libraries or symbols in the image (ldd -r above)"
fi
rm -rf "$src" "$BUILD_DIR/aws-ofi-nccl.tar.gz"
