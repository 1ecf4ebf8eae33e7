#!/usr/bin/env bash
# Can NCCL load PLUGIN on ARCH? Its ELF must be built for ARCH, and it must export one of the ncclNetPlugin_vN
# tables NCCL looks up: NCCL's src/plugin/net.cc dlsym()s ncclNetPlugin_v12 (from 2.30.3, net/net_v12.cc; 2.29
# starts at v11), then v11 ... down to v6, and takes the first it finds; with none, it logs "External network plugin ... is unsupported" and falls
# back to its own IB/Socket transports, which on Slingshot is the silent slow path. aws-ofi-nccl 1.18.0 exports
# ncclNetPlugin_v2 to v11 (src/nccl_ofi_interface_nvidia.cpp).
#   check-net-plugin.sh PLUGIN ARCH      (ARCH: x86_64 or aarch64; exit 0: it can, 1: it cannot, with the cause)
# Run by build-aws-ofi-nccl.sh inside the build, and on a built image's plugin from the host (readelf only).
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
usage="usage: check-net-plugin.sh PLUGIN ARCH     (ARCH: x86_64 or aarch64)"
plugin=${1:?$usage}
arch=${2:?$usage}
# readelf -h's Machine line for each architecture (binutils' own names).
case $arch in
    x86_64) machine="Advanced Micro Devices X86-64" ;;
    aarch64) machine=AArch64 ;;
    *) die "ARCH '$arch' is neither x86_64 nor aarch64 ($usage)" ;;
esac
# The versions NCCL tries, newest first (src/plugin/net.cc, ncclNetVersion).
nccl_versions=(12 11 10 9 8 7 6)

[[ -f $plugin ]] || die "no plugin at $plugin; did aws-ofi-nccl's make install run?"
found=$(LC_ALL=C readelf -h "$plugin" 2>/dev/null | sed -n 's/^ *Machine: *//p' || true)
[[ -n $found ]] || die "$plugin is not an ELF file (readelf -h reads no Machine)"
[[ $found == "$machine" ]] ||
    die "$plugin is built for '$found', not $arch ('$machine'): NCCL on $arch cannot dlopen it; build the image for $arch (make image ARCH=$arch)"

# Defined (not UND), global, exported objects named ncclNetPlugin_vN; a version suffix (@...) is dropped.
mapfile -t exported < <(LC_ALL=C readelf --dyn-syms -W "$plugin" |
    awk '$4 == "OBJECT" && $5 == "GLOBAL" && $7 != "UND" { sub(/@.*/, "", $8); print $8 }' |
    sed -n 's/^ncclNetPlugin_v\([0-9]*\)$/\1/p' | sort -n -u)
for version in "${nccl_versions[@]}"; do
    for have in "${exported[@]}"; do
        if [[ $have == "$version" ]]; then
            log "$plugin: $arch, exports ncclNetPlugin_v$version (the newest NCCL looks for that it has)"
            exit 0
        fi
    done
done
die "$plugin exports no ncclNetPlugin_v{${nccl_versions[-1]}..${nccl_versions[0]}} (it has: ${exported[*]/#/v}); NCCL would skip it as unsupported: build aws-ofi-nccl >= 1.7 against NCCL's headers"
