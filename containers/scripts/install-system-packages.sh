#!/usr/bin/env bash
# Distribution packages: the InfiniBand userspace (rdma-core: libibverbs + the mlx5 provider) for
# every flavour, Python for the smoke flavour, compilers and hwloc for the CUDA builds, and the
# libraries a Slingshot host's libfabric needs once it is bound in.
# Only what the base lacks is installed, judged by facts of the base (a soname in the loader cache, a
# header, a command), never by package names: Ubuntu 24.04 (NGC's base) renamed libcurl4 to libcurl4t64
# and librdmacm1 to librdmacm1t64 (the 64-bit time_t transition), so a name check finds them missing in
# every build. And never over NVIDIA's rdma packages: NGC's CUDA-13 bases carry rdma-core from DOCA
# (versions with "mlnx" or "doca"), which apt cannot reinstall or replace (ai-dynamo/nixl#889: "the deb
# files have been deleted").
# PROBE_ROOT (default /) roots the header and file probes; tests point it at a stand-in base.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need WITH_CUDA FLAVOUR

root=${PROBE_ROOT:-}
multiarch=$(uname -m)-linux-gnu

# KIND NAME PACKAGE...: the fact, then the packages that provide it, newest name first; the first one
# the archive has is installed. Kinds: soname (in `ldconfig -p`), header (under /usr/include), command
# (on PATH), file, module (a python3 module), dpkg (installed: rdma-core, whose version
# record-versions.sh records).
# Without libibverbs + ibverbs-providers (libmlx5) NCCL cannot see the HCAs and falls back to TCP:
# `libibverbs: Warning: no userspace device-specific driver found`. --nv binds only the GPU driver.
facts=(
    "soname libibverbs.so.1 libibverbs1"
    "soname libmlx5.so.1 ibverbs-providers"
    "command ibv_devinfo ibverbs-utils"
    "dpkg rdma-core rdma-core"
    "file etc/ssl/certs/ca-certificates.crt ca-certificates"
    # torchrun --numa-binding (the job scripts' NUMA_BINDING) runs each worker under the numactl CLI.
    "command numactl numactl"
)
if [[ $FLAVOUR == smoke ]]; then
    facts+=("command python3 python3" "module ensurepip python3-venv")
fi
if [[ $WITH_CUDA == 1 ]]; then
    # Build tools for libfabric, aws-ofi-nccl (autogen) and nccl-tests; hwloc for the plugin.
    facts+=("command g++ build-essential" "command make build-essential" "command autoconf autoconf"
        "command automake automake" "command libtoolize libtool" "command pkg-config pkg-config"
        "command curl curl" "header hwloc.h libhwloc-dev" "header infiniband/verbs.h libibverbs-dev"
        "header rdma/rdma_cma.h librdmacm-dev")
    # A Slingshot host's libfabric links libcurl and json-c (libfabric prov/cxi/configure.m4), and libcxi
    # links libnl; CSCS's base image installs the same (libcurl4-openssl-dev libjson-c-dev libnl-3-dev
    # libnuma-dev). What the host's library needs and the image still lacks, the job binds from the host.
    facts+=("soname libcurl.so.4 libcurl4t64 libcurl4" "soname libjson-c.so.5 libjson-c5"
        "soname libnl-3.so.200 libnl-3-200t64 libnl-3-200"
        "soname libnl-route-3.so.200 libnl-route-3-200t64 libnl-route-3-200"
        "soname libnuma.so.1 libnuma1")
fi
# Packages of the rdma stack: on a DOCA base, NVIDIA's own build of each of these is installed.
rdma_package='^(rdma-core|ibverbs-|libibverbs|librdmacm|libmlx)'
# A diagnostic tool, not needed to run: where only NVIDIA's build could provide it, go on without it.
optional_on_doca=ibverbs-utils

loader_cache=$(ldconfig -p)

# has KIND NAME: does the base hold this fact?
has() {
    local -r kind=$1 name=$2
    case $kind in
        soname) grep -qE "^[[:space:]]+${name//./\\.} " <<<"$loader_cache" ;;
        header) [[ -e $root/usr/include/$name || -e $root/usr/include/$multiarch/$name ]] ;;
        command) command -v "$name" >/dev/null ;;
        file) [[ -e $root/$name ]] ;;
        module) command -v python3 >/dev/null && python3 -c "import $name" 2>/dev/null ;;
        dpkg) [[ $(dpkg-query -W -f='${Status}' "$name" 2>/dev/null || true) == "install ok installed" ]] ;;
        *) die "unknown fact kind '$kind' in install-system-packages.sh" ;;
    esac
}

# NVIDIA's rdma packages, "NAME VERSION" per line: DOCA versions carry "mlnx" or "doca".
doca=$(dpkg-query -W -f='${Package} ${Version}\n' 2>/dev/null | grep -E "$rdma_package" | grep -E 'mlnx|doca' || true)

missing=() present=()
for fact in "${facts[@]}"; do
    read -r kind name packages <<<"$fact"
    if has "$kind" "$name"; then
        present+=("$name")
        continue
    fi
    package=${packages%% *}
    if [[ -n $doca && $package =~ $rdma_package ]]; then
        nvidia="its rdma packages are NVIDIA's (DOCA: ${doca%%$'\n'*})"
        if [[ $package == "$optional_on_doca" ]]; then
            log "skipping $package: the base has no $name, and $nvidia, which apt must not replace"
            continue
        fi
        die "the base lacks $name, and $nvidia: Ubuntu's $package would replace them (ai-dynamo/nixl#889);" \
            "use an NGC release whose DOCA packages ship $name"
    fi
    missing+=("$kind:$name:$packages")
done
if ((${#missing[@]} == 0)); then
    log "the base has: ${present[*]}; installing: nothing"
    exit 0
fi
log "the base has: ${present[*]:-none of them}; it lacks: ${missing[*]}"

apt-get update -qq
install=()
for entry in "${missing[@]}"; do
    IFS=: read -r kind name packages <<<"$entry"
    chosen=
    for package in $packages; do
        if apt-cache show --no-all-versions "$package" >/dev/null 2>&1; then
            chosen=$package
            break
        fi
    done
    [[ -n $chosen ]] || die "the base lacks $name ($kind) and the archive has none of: $packages"
    [[ " ${install[*]} " == *" $chosen "* ]] || install+=("$chosen")
done
log "installing: ${install[*]}"
apt-get install -y -qq --no-install-recommends "${install[@]}" >/dev/null
apt-get clean
rm -rf /var/lib/apt/lists/*
