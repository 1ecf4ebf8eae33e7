#!/usr/bin/env bash
# Install what the two-node Slurm test cluster needs (tests/slurm/up.sh brings it up, per test session).
# Install only: no daemon is started here. Idempotent; run as root on Debian by tests/provision/system.sh.
#   - slurmd, slurmctld, slurm-client: Debian's slurm-wlm (22.05 on bookworm), one slurmd per network namespace
#   - munge: Slurm's authentication; its key is created by up.sh, not by the package postinst
#   - iproute2: network namespaces, veths and the bridge the two "nodes" live on
#   - user ddpuser: jobs run as a non-root user, because Apptainer refuses most work as root
#     (the images' provisioning creates the same user; `id` keeps this idempotent)
set -euo pipefail

want_debs=(slurmd slurmctld slurm-client munge iproute2)
job_user=${DDP_TEST_USER:-ddpuser}

missing=()
for deb in "${want_debs[@]}"; do
    dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed" || missing+=("$deb")
done
if ((${#missing[@]})); then
    echo "provision-slurm: apt-get install ${missing[*]}" >&2
    apt-get update -qq
    # DPkg::Lock::Timeout: other jobs on a shared machine may hold the dpkg lock for a moment.
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! id "$job_user" >/dev/null 2>&1; then
    echo "provision-slurm: useradd $job_user" >&2
    # -m: a home with subuid/subgid entries, which Apptainer's --fakeroot and user namespaces use.
    useradd -m -s /bin/bash "$job_user" 2>/dev/null || id "$job_user" >/dev/null
fi
