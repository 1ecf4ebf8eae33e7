#!/usr/bin/env bash
# Can this machine build the image for ARCH? Run by `make image` before `apptainer build`; each
# failure prints the cause and the command that fixes it, and exits 1.
#   containers/check-build-host.sh ARCH
# Probed paths can be redirected for tests: APPTAINER (executable), SUBUID_FILE, BINFMT_DIR, HOST_ARCH.
set -euo pipefail

target=${1:?usage: check-build-host.sh x86_64|aarch64|smoke-arch}
apptainer=${APPTAINER:-apptainer}
subuid_file=${SUBUID_FILE:-/etc/subuid}
binfmt_dir=${BINFMT_DIR:-/proc/sys/fs/binfmt_misc}
host=${HOST_ARCH:-$(uname -m)}
user=$(id -un)

fail() { echo "error: $*" >&2; exit 1; }

command -v "$apptainer" >/dev/null ||
    fail "'$apptainer' not found. Install Apptainer >= 1.2 (Debian 12, as root: bash tests/provision/provision-apptainer.sh;" \
        "clusters: 'module load apptainer' or 'module load singularity' and make image APPTAINER=singularity)"

# The definition is a template ({{ VAR }} with --build-arg-file): Apptainer 1.2.0 brought that (its
# CHANGELOG), SingularityCE 4.0.0 likewise. Older releases stop at the first {{ with a parse error.
version_line=$("$apptainer" --version 2>/dev/null || true)
version=$(grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' <<<"$version_line" | head -1 || true)
case $version_line in
    singularity*) minimum=4.0.0 product="SingularityCE" ;;  # and the Singularity it forked from
    *) minimum=1.2.0 product="Apptainer" ;;
esac
if [[ -z $version ]]; then
    fail "'$apptainer --version' printed '$version_line', no version; need $product >= $minimum"
fi
if [[ $(printf '%s\n' "$minimum" "$version" | sort -V | head -1) != "$minimum" ]]; then
    fail "$product $version is too old to build these images (templated definitions need >= $minimum):" \
        "load a newer one ('module avail apptainer') or install it (Debian 12, as root:" \
        "bash tests/provision/provision-apptainer.sh), then make image APPTAINER=/path/to/apptainer"
fi

grep -q "^$user:" "$subuid_file" 2>/dev/null ||
    fail "--fakeroot is not configured for user '$user': no entry in $subuid_file. As root run" \
        "'apptainer config fakeroot --add $user' (or add '$user:100000:65536' to /etc/subuid and /etc/subgid)"

if [[ $target != "$host" ]]; then
    qemu=$binfmt_dir/qemu-$target
    if [[ ! -e $qemu ]] || ! grep -q '^enabled' "$qemu"; then
        fail "building a $target image on this $host machine needs QEMU user emulation registered with binfmt_misc" \
            "(not found: $qemu). As root: apt-get install qemu-user-static binfmt-support &&" \
            "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable qemu-$target." \
            "Emulated builds are ~10x slower: better run 'make image ARCH=$target' on a $target node (e.g. a GH200 login node)"
    fi
fi
