#!/usr/bin/env bash
# The distribution packages FLAVOUR's build would install on BASE, downloaded into DEST for an offline build:
#   containers/gather-debs.sh FLAVOUR BASE DEST [PYTHON]       (`make sources` runs it; needs Apptainer)
# The base itself is asked: the build's own probe (scripts/install-system-packages.sh) runs in it with
# `apptainer exec`, resolves with the base's apt sources for the base's distribution and architecture, and
# downloads what is missing with every dependency the base lacks (DEB_DOWNLOAD). DEST gets the .debs, the
# mirror's own index (Packages) and SHA256SUMS, and in lists/ what the distribution signed for them (each
# archive's InRelease and Packages, which the offline build verifies every .deb against with the base's keys);
# `make image SOURCES=DIR` installs from there alone.
set -euo pipefail
usage="usage: gather-debs.sh FLAVOUR BASE DEST [PYTHON]     (BASE: a .sif or a root file system directory)"
flavour=${1:?$usage}
base=${2:?$usage}
dest=${3:?$usage}
python=${4:-python3}
apptainer=${APPTAINER:-apptainer}
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "error: $*" >&2; exit 1; }
args=$(PYTHONPATH="$here:$here/..${PYTHONPATH:+:$PYTHONPATH}" "$python" -m imagetool render --arch "$flavour" --all)
arg() { sed -n "s/^$1=//p" <<<"$args"; }
[[ -e $base ]] || die "no base at $base to ask which packages the $flavour build installs; fetch it first" \
    "(make base ARCH=$(arg ARCH), or name it: BASE=FILE)"

# Written beside DEST and renamed when complete: an interrupted run never leaves a mirror that looks whole.
# umask 022: `make image` refuses a mirror that others can write.
umask 022
work="$dest.partial"
rm -rf "$work"
mkdir -p "$work"
# --fakeroot: apt resolves as root in the base (its dpkg status, its sources); --cleanenv: the probe sees the
# base's environment, as the build does, not this shell's.
"$apptainer" exec --fakeroot --cleanenv --bind "$here/scripts:/mnt/app-scripts:ro" --bind "$work:/mnt/app-debs" \
    --env "FLAVOUR=$(arg FLAVOUR)" --env "WITH_CUDA=$(arg WITH_CUDA)" --env DEB_DOWNLOAD=/mnt/app-debs \
    "$base" bash /mnt/app-scripts/install-system-packages.sh
rm -rf "$dest"
mv "$work" "$dest"
echo "gathered $dest: $(grep -c . "$dest/SHA256SUMS" || true) packages for $flavour from $base"
