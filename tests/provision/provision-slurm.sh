#!/usr/bin/env bash
# Install what the two-node Slurm test cluster needs (tests/slurm/up.sh brings it up, per test session).
# Install only: no daemon is started here. Idempotent; run as root on Debian by tests/provision/system.sh.
#   - slurmd, slurmctld, slurm-client: Debian's slurm-wlm (22.05 on bookworm), the oldest release tested;
#     the current one is built from source by build-slurm.sh (called at the end)
#   - munge: Slurm's authentication; its key is created by up.sh, not by the package postinst
#   - iproute2: network namespaces, veths and the bridge the two "nodes" live on
#   - user ddpuser: jobs run as a non-root user, because Apptainer refuses most work as root
#     (the images' provisioning creates the same user; `id` keeps this idempotent)
set -euo pipefail
# shellcheck source=tests/provision/lib.sh
source "$(dirname "$0")/lib.sh"

want_debs=(slurmd slurmctld slurm-client munge iproute2)
job_user=${DDP_TEST_USER:-ddpuser}

install_missing provision-slurm "${want_debs[@]}"

if ! id "$job_user" >/dev/null 2>&1; then
    echo "provision-slurm: useradd $job_user" >&2
    # -m: a home with subuid/subgid entries, which Apptainer's --fakeroot and user namespaces use.
    useradd -m -s /bin/bash "$job_user" 2>/dev/null || id "$job_user" >/dev/null
fi

# The current Slurm, built from the source mirror (cached in a versioned prefix: nothing to do when built)
bash "$(dirname "$0")/build-slurm.sh"
