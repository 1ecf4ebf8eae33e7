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
#
# Where the packages come from:
#   neither variable set  the base's own apt sources (a build with a network)
#   DEB_DOWNLOAD=DIR      `make sources` runs this script in the base itself (apptainer exec): the same probe,
#                         then apt-get --download-only into DIR (every dependency the base lacks too), with
#                         what the distribution signed for them (lists/: each archive's InRelease and Packages),
#                         the mirror's own index (Packages) and SHA256SUMS; nothing is installed
#   DEB_MIRROR=DIR        an offline build: DIR's .debs and signed lists, each verified back to the distribution's
#                         keys in the base (signed-debs.sh); the base's apt, with its own sources, reads those lists
#                         in place of the archive's, and the .debs must be exactly what it picks for this build;
#                         it installs them from private copies, downloading nothing. SHA256SUMS is a quick check
#                         that names a missing file; anything missing, altered, unsigned, extra or other than
#                         what apt picks stops the build in one line
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=containers/scripts/signed-debs.sh
source "$(dirname "$0")/signed-debs.sh"
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
    # DeepSpeed's CPU op is compiled in install-python.sh with g++ and Python's headers, which it purges after:
    # asked for here, so that `make sources` gathers them and an offline build finds them in the mirror.
    facts+=("command g++ g++" "command python3-config python3-dev")
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
gather="gather them where there is a network: make sources SOURCES=DIR (it asks this base which it lacks)"

# index_debs DIR: the Packages index apt reads from a file repository, and SHA256SUMS, of every .deb in DIR.
index_debs() {
    local -r dir=$1
    local deb name sum
    : >"$dir/Packages.tmp"
    : >"$dir/SHA256SUMS.tmp"
    for deb in "$dir"/*.deb; do
        [[ -e $deb ]] || continue
        name=${deb##*/}
        sum=$(sha256sum "$deb" | cut -d' ' -f1)
        { dpkg-deb --field "$deb"; printf 'Filename: ./%s\nSize: %s\nSHA256: %s\n\n' "$name" "$(stat -c %s "$deb")" \
            "$sum"; } >>"$dir/Packages.tmp"
        echo "$sum  $name" >>"$dir/SHA256SUMS.tmp"
    done
    mv "$dir/Packages.tmp" "$dir/Packages"
    mv "$dir/SHA256SUMS.tmp" "$dir/SHA256SUMS"
}

# check_debs DIR: every file SHA256SUMS lists is there with its sha256: a quick check that names a missing file
# in one line. Not the trust anchor (whoever can swap a .deb can rewrite SHA256SUMS): signed_debs::verify is.
check_debs() {
    local -r dir=$1
    local sum name
    [[ -f $dir/SHA256SUMS && -f $dir/Packages ]] || die "the package mirror $dir has no SHA256SUMS or Packages; $gather"
    while read -r sum name; do
        [[ -f $dir/$name ]] || die "the package mirror $dir lacks $name (listed in its SHA256SUMS); $gather"
        echo "$sum  $dir/$name" | sha256sum --check --status ||
            die "sha256 mismatch for $dir/$name: SHA256SUMS has $sum, the file $(sha256sum "$dir/$name" | cut -d' ' -f1);" \
                "$gather"
    done <"$dir/SHA256SUMS"
}

if ((${#missing[@]} == 0)); then
    log "the base has: ${present[*]}; installing: nothing"
    if [[ -n ${DEB_DOWNLOAD:-} ]]; then index_debs "$DEB_DOWNLOAD"; fi
    exit 0
fi
log "the base has: ${present[*]:-none of them}; it lacks: ${missing[*]}"

# apt's state for a mirror or a download lives in a private directory: the base's own is read-only under
# `apptainer exec`, and an offline build must not read lists of an archive it cannot reach.
apt_options=()
if [[ -n ${DEB_DOWNLOAD:-}${DEB_MIRROR:-} ]]; then
    state=$(mktemp -d)
    mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
    # Debug::NoLocking: the base's dpkg lock is read-only under `apptainer exec`; Sandbox::User=root: the
    # fakeroot namespace maps no _apt user to drop to; GzipIndexes=false: the lists stay as the signed Release
    # hashes them, uncompressed (Docker-made bases set it true), for signed_debs::keep_lists, and apt reads the
    # verified ones offline as they are.
    apt_options=(-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o Debug::NoLocking=1
        -o APT::Sandbox::User=root -o Acquire::GzipIndexes=false)
fi
if [[ -n ${DEB_MIRROR:-} ]]; then
    check_debs "$DEB_MIRROR"
    # The base's apt, with its own sources, reads the mirror's signed lists of the suites those name in place of
    # the archive's: copies in a private directory, verified there, as the .debs are, so what apt reads and
    # installs is what was verified (signed_debs::verify).
    mkdir -p "$state/repo"
    for deb in "$DEB_MIRROR"/*.deb; do [[ -e $deb ]] && cp "$deb" "$state/repo/"; done
    signed_debs::verify "$DEB_MIRROR" "$state/repo" "$root" "$state/verify" "$state/lists" "${apt_options[@]}"
    where="the package mirror $DEB_MIRROR"
else
    apt-get update -qq "${apt_options[@]}"
    where="the archive"
fi

install=()
for entry in "${missing[@]}"; do
    IFS=: read -r kind name packages <<<"$entry"
    chosen=
    for package in $packages; do
        if apt-cache show --no-all-versions "${apt_options[@]}" "$package" >/dev/null 2>&1; then
            chosen=$package
            break
        fi
    done
    if [[ -z $chosen && -n ${DEB_MIRROR:-} ]]; then
        die "the base lacks $name ($kind) and $where has none of: $packages; $gather"
    fi
    [[ -n $chosen ]] || die "the base lacks $name ($kind) and $where has none of: $packages"
    [[ " ${install[*]} " == *" $chosen "* ]] || install+=("$chosen")
done

# picked_from LISTS DEBS: stop unless the verified .debs in DEBS are what the base's apt picks for this build from
# the verified lists in LISTS alone (signed_debs::picked); they go into apt's archive cache, as apt names them.
picked_from() {
    local -r lists=$1 debs=$2
    local uris
    uris=$(apt-get install --print-uris -qq --no-install-recommends "${apt_options[@]}" -o "Dir::State::Lists=$lists" \
        "${install[@]}" 2>"$state/picked.err") ||
        die "the base's apt cannot resolve ${install[*]} from the package mirror's signed lists alone" \
            "($(awk '/^E:/ { print; exit }' "$state/picked.err")); $gather"
    signed_debs::picked "$debs" "$state/verify" "$uris" "$state/cache/archives"
}
if [[ -n ${DEB_DOWNLOAD:-} ]]; then
    log "downloading into $DEB_DOWNLOAD: ${install[*]} and what they need that the base lacks"
    apt-get install -y -qq --download-only --no-install-recommends "${apt_options[@]}" \
        -o "Dir::Cache::archives=$DEB_DOWNLOAD" "${install[@]}" >/dev/null
    rm -rf "$DEB_DOWNLOAD/partial" "$DEB_DOWNLOAD/lock"
    signed_debs::keep_lists "$state/lists" "$DEB_DOWNLOAD"
    # What the offline build will check, checked now against the same base's keys and sources: a mirror make
    # sources wrote is one that installs.
    signed_debs::verify "$DEB_DOWNLOAD" "$DEB_DOWNLOAD" "$root" "$state/verify" "$state/kept" "${apt_options[@]}"
    picked_from "$state/kept" "$DEB_DOWNLOAD"
    rm -rf "$state"
    index_debs "$DEB_DOWNLOAD"
    exit 0
fi
offline=()
if [[ -n ${DEB_MIRROR:-} ]]; then
    picked_from "$state/lists" "$state/repo"
    offline=(--no-download)
fi
log "installing from $where: ${install[*]}"
apt-get install -y -qq --no-install-recommends "${offline[@]}" "${apt_options[@]}" "${install[@]}" >/dev/null
apt-get clean
rm -rf /var/lib/apt/lists/* ${state:+"$state"}
