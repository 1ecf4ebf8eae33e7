#!/usr/bin/env bash
# Bring up a real Slurm cluster of SLURM_TEST_NODES nodes (default 2) on one Linux machine, for the job-script tests.
#
#   root namespace : munged and slurmctld, on bridge $SLURM_TEST_BRIDGE ($NET.1)
#   netns sln1     : munged and slurmd -N node1 ($NET.11, own UTS namespace: hostname node1)
#   netns sln2     : munged and slurmd -N node2 ($NET.12, hostname x1000c0s1b0n0: see below)
#   netns sln3     : munged and slurmd -N node3 ($NET.13, own UTS namespace: hostname node3)
#
# SLURM_TEST_RELEASE picks the Slurm: `current` (default; tests/slurm/current-release.env, built from source
# by tests/provision/build-slurm.sh) or `debian` (Debian's slurm-wlm 22.05, the oldest a site may run).
# Each node has its own munged, as on a real cluster: with one munged shared by every node, Slurm 25.11
# refuses every job step (a credential forwarded between nodes and decoded twice by the same munged counts
# as a replay: slurmd logs "_verify_signature: failed decode"). Each node's munged serves the default
# socket path inside the node's own mount namespace.
# Node names are not always hostnames: node2's hostname is an HPE xname, x1000c0s1b0n0 (slurm.conf
# NodeHostname; its NodeName stays node2), as where a site names its nodes in Slurm otherwise than the hosts
# call themselves; node2 is the node the bad-node tests blame. Every node also answers to an FQDN (nodeN.ddptest.local), as PBS node files may write them.
#
# A twin of the sites' networks, not only of Slurm: each node's `eth0` is the management Ethernet, and its
# hostname resolves to that address (as on MareNostrum 5, and as Olivia's `...mgmt...` node names show
# on the GH200 system). The fast fabric is a separate interface on its own subnet, reachable between the
# nodes but unknown to name resolution: `ib0` ($IB_NET.1x, IPoIB on MareNostrum 5) and `hsn0`
# ($HSN_NET.1x, Slingshot). A job that rendezvouses on the fabric address must cope with torchrun not
# recognising that address as its own host's (torch's `_matches_machine_hostname` misses secondary NICs).
#
# Each node advertises 80 CPUs and a GRES gpu:4 backed by fake devices (see gres.conf below), so job scripts
# written for MareNostrum 5 (`--gres=gpu:4 --cpus-per-task=80`) schedule unchanged. The nodes share the filesystem.
# Packages come from tests/provision/provision-slurm.sh; this script installs nothing. Run as root;
# tear down with down.sh. Creates: $BASE, $SPOOL_ROOT and $TMPFS_ROOT (each node's spool and TmpFS, see below),
# $ETC/{slurm,gres,cgroup}.conf ($ETC: /etc/slurm for Debian's, the
# prefix's etc/ for the current release), a marked block in /etc/hosts, the bridges ($BR, ${BR}ib, ${BR}hsn),
# veths slv*/slvib*/slvhsn* and netns sln1, sln2, ...
set -euo pipefail

BASE=${SLURM_TEST_BASE:-/tmp/ddp-slurm-test}
# Each node's SlurmdSpoolDir and TmpFS, where a real node keeps them: outside /tmp and /var/tmp, the two
# directories Apptainer binds into every container (apptainer.conf `mount tmp = yes`). Slurm's mpi/pmix plugin
# keeps a step's PMIx server files under SlurmdSpoolDir/pmix.JOB.STEP and the client's under
# TmpFS/spmix_appdir_UID_JOB.STEP (src/plugins/mpi/pmix/pmixp_info.c): under /tmp a rank in a container would
# see both without the job scripts binding them, and a missing bind would pass every test here.
SPOOL_ROOT=${SLURM_TEST_SPOOL_ROOT:-/var/spool/ddp-slurm-test}
TMPFS_ROOT=${SLURM_TEST_TMPFS_ROOT:-/var/local/ddp-slurm-test}
NNODES=${SLURM_TEST_NODES:-2}
RELEASE=${SLURM_TEST_RELEASE:-current}
DOMAIN=ddptest.local
# A private /24 that exists only inside this machine
NET=${SLURM_TEST_NET:-10.77.0}
BR=${SLURM_TEST_BRIDGE:-slbr0}
# The fabric subnets (IPoIB and Slingshot), each on a bridge of its own
IB_NET=${SLURM_TEST_IB_NET:-10.78.0}
HSN_NET=${SLURM_TEST_HSN_NET:-10.79.0}
FABRIC_BRIDGES=("${BR}ib" "${BR}hsn")
CTL_IP=$NET.1
CTL_HOST=$(hostname -s)

log() { printf '[slurm-up] %s\n' "$*"; }
die() { printf 'slurm-up: error: %s\n' "$*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root (it creates network namespaces and starts slurmd)"
case $RELEASE in
    current)
        # shellcheck source=tests/slurm/current-release.env
        source "$(dirname "$0")/current-release.env"
        [[ -e $SLURM_CURRENT_PREFIX/.built ]] ||
            die "Slurm $SLURM_CURRENT_RELEASE is not built; build it with: bash tests/provision/build-slurm.sh"
        export PATH="$SLURM_CURRENT_PREFIX/bin:$SLURM_CURRENT_PREFIX/sbin:$PATH"
        # Built with --sysconfdir there: its commands read this slurm.conf, Debian's read /etc/slurm's
        ETC=$SLURM_CURRENT_PREFIX/etc
        ;;
    debian) ETC=/etc/slurm ;;
    *) die "SLURM_TEST_RELEASE=$RELEASE is not current or debian" ;;
esac
for tool in slurmctld slurmd sbatch munged ip nsenter; do
    command -v "$tool" >/dev/null || die "$tool not found; install it with: bash tests/provision/provision-slurm.sh"
done
# node_hostname I: what node I calls itself (node2: an xname, see above)
node_hostname() { if (($1 == 2)); then echo x1000c0s1b0n0; else echo "node$1"; fi; }

mkdir -p "$BASE/ctld"
# What down.sh needs to find this release's commands and configuration again
printf 'SLURM_TEST_ETC=%q\nSLURM_TEST_PATH=%q\nSLURM_TEST_NODE_ROOTS=(%q %q)\n' "$ETC" "$PATH" \
    "$SPOOL_ROOT" "$TMPFS_ROOT" >"$BASE/release.env"
install -d -m 0755 "$SPOOL_ROOT" "$TMPFS_ROOT"
for i in $(seq 1 "$NNODES"); do
    mkdir -p "$BASE/node$i" "$SPOOL_ROOT/node$i"
    # The node's own scratch for Slurm (TmpFS below), world-writable with the sticky bit as /tmp is
    install -d -m 1777 "$TMPFS_ROOT/node$i"
    install -d -o munge -g munge -m 0755 "$BASE/node$i/munge"
done

# ---- munge: the key is created here, not by the package, so a fresh machine works without a postinst
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [[ ! -s /etc/munge/munge.key ]]; then
    if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key
    else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; fi
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
pid_alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
if ! pid_alive /run/munge/munged.pid; then
    runuser -u munge -- /usr/sbin/munged
    for _ in $(seq 50); do [[ -S /run/munge/munge.socket.2 ]] && break; sleep 0.1; done
fi
munge -n | unmunge >/dev/null || die "munge credential round-trip failed; see /var/log/munge/munged.log"

# ---- network: a bridge in the root namespace, one namespace per node
if ! ip link show "$BR" >/dev/null 2>&1; then
    ip link add "$BR" type bridge
    ip addr add "$CTL_IP/24" dev "$BR"
    ip link set "$BR" up
fi
for bridge in "${FABRIC_BRIDGES[@]}"; do
    if ! ip link show "$bridge" >/dev/null 2>&1; then
        ip link add "$bridge" type bridge
        ip link set "$bridge" up
    fi
done
# node_iface NS NAME HOST_SIDE BRIDGE ADDRESS: a veth NAME inside the node, its peer on BRIDGE
node_iface() {
    ip link add "$3" type veth peer name "$2" netns "$1"
    ip link set "$3" master "$4" up
    ip -n "$1" addr add "$5/24" dev "$2"
    ip -n "$1" link set "$2" up
}
for i in $(seq 1 "$NNODES"); do
    ns=sln$i
    if [[ ! -e /run/netns/$ns ]]; then
        ip netns add "$ns"
        node_iface "$ns" eth0 "slv$i" "$BR" "$NET.$((10 + i))"
        node_iface "$ns" ib0 "slvib$i" "${FABRIC_BRIDGES[0]}" "$IB_NET.$((10 + i))"
        node_iface "$ns" hsn0 "slvhsn$i" "${FABRIC_BRIDGES[1]}" "$HSN_NET.$((10 + i))"
        ip -n "$ns" link set lo up
        # No default route on purpose: nothing leaves the /24s, and glibc's DNS look-ups fail at once
        # instead of stalling 10 s each.
    fi
done

# Node names resolve through a marked block in /etc/hosts (removed by down.sh), to the management address only
sed -i '/# BEGIN ddp-slurm-test/,/# END ddp-slurm-test/d' /etc/hosts
{
    echo "# BEGIN ddp-slurm-test"
    echo "$CTL_IP slurmctl"
    for i in $(seq 1 "$NNODES"); do
        names="node$i node$i.$DOMAIN"
        [[ $(node_hostname "$i") == "node$i" ]] || names+=" $(node_hostname "$i")"
        echo "$NET.$((10 + i)) $names"
    done
    echo "# END ddp-slurm-test"
} >>/etc/hosts

# ---- configuration
# release_specific_plugins: 22.05 needs the `*/none` plugins named; 25.11 has none of them (slurm.conf(5):
# TaskPlugin, JobAcctGatherType, AccountingStorageType ... "Unset by default") and reads the names as unset.
release_specific_plugins() {
    [[ $RELEASE == debian ]] || return 0
    printf '%s\n' TaskPlugin=task/none JobAcctGatherType=jobacct_gather/none \
        AccountingStorageType=accounting_storage/none JobCompType=jobcomp/none
}
# release_specific_scheduling: once a requeued job has completed, slurmctld holds it requeue_delay + 1 s
# (batch_requeue_fini and _requeue_delay, src/slurmctld/job_mgr.c, 25.11.7; slurm.conf(5): the default is
# cred_expire, 11 s here), a pure wait in every requeue test. The bad-node requeue's exclude-list update
# (app/host/launch/requeue.py) runs before its batch script ends, so before the delay starts.
# 22.05 has no requeue_delay (its slurm.conf(5)) and keeps cred_expire's.
release_specific_scheduling() {
    [[ $RELEASE == debian ]] || printf ',requeue_delay=3'
}
mkdir -p "$ETC"
cat >"$ETC/slurm.conf" <<CONF
# generated by tests/slurm/up.sh
ClusterName=ddptest
SlurmctldHost=$CTL_HOST($CTL_IP)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# A requeued job may start again cred_expire + 1 s after the requeue (default 120 s): keep tests quick
AuthInfo=cred_expire=10
StateSaveLocation=$BASE/ctld
SlurmctldPidFile=$BASE/ctld/slurmctld.pid
SlurmctldLogFile=$BASE/ctld/slurmctld.log
# %n = node name: every slurmd gets its own spool, pid file and log
SlurmdSpoolDir=$SPOOL_ROOT/%n
SlurmdPidFile=$BASE/%n/slurmd.pid
SlurmdLogFile=$BASE/%n/slurmd.log
# No cgroups (slurmd runs in a namespace of a shared machine): plain process tracking, no binding, no accounting
ProctrackType=proctrack/linuxproc
$(release_specific_plugins)
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
# Schedule a requeued job within a second or two instead of the default 30 s backfill pass. The backfill pass
# skips a cycle in which no job, node, partition or reservation changed (_more_work, backfill.c, 25.11.7), and a
# pending job's BeginTime passing is no change: the main loop, every sched_interval s (default 60), starts it.
SchedulerParameters=bf_interval=1,sched_interval=1,sched_min_interval=100000$(release_specific_scheduling)
# The nodes advertise what MareNostrum 5 ACC nodes have (80 cores, 4 GPUs), not what this machine has
SlurmdParameters=config_overrides
GresTypes=gpu
MpiDefault=none
# Each node its own TmpFS, as a real node's local scratch is its own: mpi/pmix makes
# TmpFS/spmix_appdir_UID_JOB.STEP on every node of a step (src/plugins/mpi/pmix/pmixp_info.c), and in one
# directory these nodes share, the second node's step fails: "Cannot create client cli tmpdir ... File exists".
# %n: the node's name (slurm_get_tmp_fs, src/common/slurm_protocol_api.c); Debian's 22.05 starts with it too.
TmpFS=$TMPFS_ROOT/%n
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
SlurmctldDebug=info
SlurmdDebug=info
CONF
for i in $(seq 1 "$NNODES"); do
    echo "NodeName=node$i NodeAddr=$NET.$((10 + i)) NodeHostname=$(node_hostname "$i") CPUs=80 Boards=1 SocketsPerBoard=2" \
        "CoresPerSocket=40 ThreadsPerCore=1 RealMemory=4000 Gres=gpu:4 State=UNKNOWN" >>"$ETC/slurm.conf"
done
echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$ETC/slurm.conf"
# Fake GPUs: slurmd 22.05 reports 0 GPUs when gres.conf gives only a count, so each "GPU" is a tty device
# (any existing character device will do; task/none binds nothing). Jobs get CUDA_VISIBLE_DEVICES=0,1,2,3
# and SLURM_GPUS_ON_NODE=4, as on a real GPU node; torch still sees no CUDA device.
if [[ -e $ETC/gres.conf ]] && ! grep -q '^# generated by tests/slurm/up.sh' "$ETC/gres.conf"; then
    die "$ETC/gres.conf exists and is not ours; move it aside to run the test cluster"
fi
cat >"$ETC/gres.conf" <<CONF
# generated by tests/slurm/up.sh
AutoDetect=off
Name=gpu File=/dev/tty[0-3]
CONF

if [[ $RELEASE == current ]]; then
    # No cgroup plugin: slurmd must stay off the host's cgroups (and none was built without libdbus-1-dev)
    printf '# generated by tests/slurm/up.sh\nCgroupPlugin=disabled\n' >"$ETC/cgroup.conf"
fi

# ---- daemons
if ! pid_alive "$BASE/ctld/slurmctld.pid"; then
    slurmctld
    for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
    [[ $(scontrol ping) == *UP* ]] || { tail -30 "$BASE/ctld/slurmctld.log" >&2; die "slurmctld did not come up"; }
fi
for i in $(seq 1 "$NNODES"); do
    pid_alive "$BASE/node$i/slurmd.pid" && continue
    # nsenter, not `ip netns exec`: the latter remounts /sys, hiding /sys/fs/cgroup, and slurmd 22.05 then
    # dies with "No filesystem mounted on /sys/fs/cgroup". unshare --uts gives the node its own hostname,
    # --mount its own /run/munge (the node's munged, see above); slurmd's jobs inherit both.
    # shellcheck disable=SC2016  # expanded by the node's sh
    nsenter --net="/run/netns/sln$i" unshare --uts --mount --propagation private sh -c '
        mount --bind "$1" /run/munge && hostname "$2" &&
        runuser -u munge -- /usr/sbin/munged --log-file="$1/munged.log" --seed-file="$1/munged.seed" &&
        exec slurmd -N "$3"' node "$BASE/node$i/munge" "$(node_hostname "$i")" "node$i"
    for _ in $(seq 50); do pid_alive "$BASE/node$i/slurmd.pid" && break; sleep 0.1; done
done

# ---- wait until every node is usable (a trailing '*' means not responding)
up=0
for _ in $(seq 150); do
    up=$(sinfo -h -N -o '%N %T' | grep -cE ' (idle|mixed|allocated|completing)$' || true)
    ((up >= NNODES)) && break
    sleep 0.2
done
if ((up < NNODES)); then
    sinfo -N -l >&2
    tail -n 20 "$BASE"/node*/slurmd.log "$BASE/ctld/slurmctld.log" >&2
    die "only $up of $NNODES nodes came up"
fi
log "cluster ready: $NNODES nodes, state in $BASE, spool in $SPOOL_ROOT, TmpFS in $TMPFS_ROOT"
