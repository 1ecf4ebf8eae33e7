#!/usr/bin/env bash
# Build the Slurm release the sites run today (tests/slurm/current-release.env) from the offline source
# mirror, into a versioned prefix the test cluster runs from (tests/slurm/up.sh, SLURM_TEST_RELEASE=current).
# Debian's slurm-wlm (22.05) stays installed for the tests that show the oldest release a site may run.
#   bash tests/provision/build-slurm.sh            (as root; about 270 s cold on 2 cores, nothing when built)
# The source: $SLURM_CURRENT_ARCHIVE, GitHub's tag archive of SchedMD/slurm (it carries `configure`), from
# $APP_SOURCE_MIRROR or the ../shared/sources CI keeps beside the checkout. Without it the step says so and
# returns 0: the tests that need this Slurm then skip (fail under CI=true).
# With the mpi/pmix plugin, from Debian's PMIx 4.2.2 (libpmix-dev): `srun --mpi=pmix` starts the MPI ranks of
# the images' nccl-tests (tests/jobscripts/test_nccl_tests_multinode.py), as on the sites' Slurm.
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
# libmunge-dev: auth/munge and cred/munge; libpmix-dev: mpi/pmix, the launcher the sites document for MPI
# jobs (`srun --mpi=pmix`, https://slurm.schedmd.com/mpi_guide.html#pmix). The plugins the test cluster needs
# that have a dependency; without a PMIx Slurm builds only pmi2 and cray_shasta, and says so only as a warning.
install_missing build-slurm libmunge-dev libpmix-dev build-essential
# Debian keeps PMIx out of the default paths, in /usr/lib/<multiarch>/pmix2/{include,lib}: take the directory
# from the package's own file list. Named explicitly, configure stops when it holds no PMIx headers
# (auxdir/x_ac_pmix.m4: "No PMIX installation found in DIR"), instead of building without the plugin.
# (grep reads the whole list: with -m1 it could leave early, and dpkg-query's SIGPIPE fail the pipeline)
pmix_header=$(dpkg-query -L libpmix-dev | grep '/include/pmix_server\.h$') ||
    { echo "build-slurm: libpmix-dev installs no pmix_server.h (dpkg -L libpmix-dev)" >&2; exit 1; }
pmix_header=${pmix_header%%$'\n'*}
pmix_dir=${pmix_header%/include/pmix_server.h}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$mirror/$archive" -C "$work" --strip-components=1
echo "build-slurm: building Slurm $release into $prefix (about 5 minutes on 2 cores)" >&2
(
    cd "$work"
    # sysconfdir inside the prefix: this Slurm's commands read their own slurm.conf, Debian's 22.05 /etc/slurm
    ./configure --quiet --prefix="$prefix" --sysconfdir="$prefix/etc" --disable-debug \
        --with-pmix="$pmix_dir" >/dev/null
    make -j"$(nproc)" >/dev/null
    make install >/dev/null
) || { echo "build-slurm: the Slurm $release build failed (log above)" >&2; exit 1; }
# configure only warns when PMIx's headers are there but its link test fails ("unable to locate pmix
# installation") and then builds no mpi/pmix: check the plugin itself, and leave the prefix unstamped.
if [[ ! -e $prefix/lib/slurm/mpi_pmix.so ]]; then
    echo "build-slurm: Slurm $release built without the mpi/pmix plugin (no $prefix/lib/slurm/mpi_pmix.so);" \
        "configure found no usable PMIx in $pmix_dir (libpmix-dev)" >&2
    exit 1
fi
touch "$prefix/.built"
echo "build-slurm: Slurm $release installed in $prefix" >&2
