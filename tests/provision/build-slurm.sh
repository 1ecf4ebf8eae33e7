#!/usr/bin/env bash
# Build the Slurm release the sites run today (tests/slurm/current-release.env) from the offline source
# mirror, into a versioned prefix the test cluster runs from (tests/slurm/up.sh, SLURM_TEST_RELEASE=current).
# Debian's slurm-wlm (22.05) stays installed for the tests that show the oldest release a site may run.
#   bash tests/provision/build-slurm.sh            (as root; about 270 s cold on 2 cores, nothing when built)
# The source: $SLURM_CURRENT_ARCHIVE, GitHub's tag archive of SchedMD/slurm (it carries `configure`), from
# $APP_SOURCE_MIRROR or the ../shared/sources CI keeps beside the checkout. Without it the step says so and
# returns 0: the tests that need this Slurm then skip (fail under CI=true).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=tests/provision/lib.sh
source "$here/lib.sh"

# shellcheck source=tests/slurm/current-release.env
source "$here/../slurm/current-release.env"
release=$SLURM_CURRENT_RELEASE
archive=$SLURM_CURRENT_ARCHIVE
prefix=$SLURM_CURRENT_PREFIX
mirror=${APP_SOURCE_MIRROR:-$here/../../../shared/sources}

if [[ -e $prefix/.built ]]; then
    exit 0
fi
if [[ ! -s $mirror/$archive ]]; then
    echo "build-slurm: no $mirror/$archive; Slurm $release is not built and its tests will skip" \
        "(set APP_SOURCE_MIRROR=DIR to a directory holding it)" >&2
    exit 0
fi
# libmunge-dev: auth/munge and cred/munge, the only plugins the test cluster needs that have a dependency
install_missing build-slurm libmunge-dev build-essential

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$mirror/$archive" -C "$work" --strip-components=1
echo "build-slurm: building Slurm $release into $prefix (about 5 minutes on 2 cores)" >&2
(
    cd "$work"
    # sysconfdir inside the prefix: this Slurm's commands read their own slurm.conf, Debian's 22.05 /etc/slurm
    ./configure --quiet --prefix="$prefix" --sysconfdir="$prefix/etc" --disable-debug >/dev/null
    make -j"$(nproc)" >/dev/null
    make install >/dev/null
) || { echo "build-slurm: the Slurm $release build failed (log above)" >&2; exit 1; }
touch "$prefix/.built"
echo "build-slurm: Slurm $release installed in $prefix" >&2
