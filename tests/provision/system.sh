#!/usr/bin/env bash
# Install the system packages the test suite uses, when we are root on Debian and they are missing.
# Called by `make test`. Not root (a laptop): print what would be skipped and carry on; the tests
# that need a missing tool skip with a reason, except under CI=true where they fail.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

# autotools: the tests build a Cray-layout host libfabric from the source mirror (tests/containers/test_twin_image.py);
# openmpi-bin: the one-node nccl-tests command the job scripts print runs under a real mpirun
# (tests/jobscripts/test_jobscripts_nccl_tests.py); docker-registry: the OCI registry (CNCF distribution) the
# registry route pushes to and pulls from; its tests start their own on a free loopback port
# (tests/fixtures/registry.py) and never use the service Debian may start on :5000; gnupg: gpg signs the stand-in
# archive whose Release the offline build verifies (tests/containers/test_install_system_packages.py)
want_debs=(shellcheck autoconf automake libtool openmpi-bin docker-registry gnupg)

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "provision: not root on Debian; tests needing ${want_debs[*]} may skip" >&2
    exit 0
fi

# shellcheck source=tests/provision/lib.sh
source "$here/lib.sh"
install_missing provision "${want_debs[@]}"

# Further provisioning steps (Apptainer, the Slurm test cluster) live beside this file.
for step in "$here"/provision-*.sh; do
    [[ -e $step ]] || continue
    bash "$step"
done
