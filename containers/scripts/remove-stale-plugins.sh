#!/usr/bin/env bash
# Leave NCCL exactly one network plugin: ours. NGC images carry others (HPC-X's SHARP plugin, an
# EFA-built aws-ofi-nccl) and export NCCL_NET_PLUGIN pointing at one, which makes NCCL load it and
# ignore NCCL_NET; on Slingshot that is the EFA plugin failing or TCP fallback at 1/20 the speed.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"

ours=/opt/aws-ofi-nccl/lib
while IFS= read -r -d '' plugin; do
    log "removing stale NCCL network plugin $plugin"
    rm -f "$plugin"
done < <(find /usr /opt /lib /lib64 -xdev -path "$ours" -prune -o \
    \( -name 'libnccl-net*.so*' -o -name 'libnccl-net-ofi*.so*' \) -print0 2>/dev/null)
# Only where a base installs libraries: /tmp and /home during a build are the build host's own (bound in,
# and on the same file system, so -xdev does not stop there); a search of / deleted plugins of the host.
# The EFA libfabric is AWS-only and would shadow ours (NGC 26.06 keeps aws-ofi-nccl at /opt/amazon/ofi-nccl).
rm -rf /opt/amazon/efa /opt/amazon/aws-ofi-nccl /opt/amazon/ofi-nccl
rm -f /etc/ld.so.conf.d/*efa* /etc/ld.so.conf.d/*aws-ofi-nccl-ngc* 2>/dev/null || true
ldconfig

# The base image's environment (Docker ENV, rendered by Apptainer into this file) may export
# NCCL_NET_PLUGIN; drop it at the source. fabric_policy.env also unsets it at run time.
docker_env=/.singularity.d/env/10-docker2singularity.sh
if [[ -f $docker_env ]]; then sed -i '/NCCL_NET_PLUGIN/d' "$docker_env"; fi
if grep -rqs 'NCCL_NET_PLUGIN=' /.singularity.d/env/ /etc/environment /etc/profile.d/; then
    die "NCCL_NET_PLUGIN is still set by $(grep -rls 'NCCL_NET_PLUGIN=' /.singularity.d/env/ /etc/environment /etc/profile.d/)"
fi
