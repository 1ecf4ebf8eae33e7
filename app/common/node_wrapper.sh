#!/bin/sh
# The node wrapper: runs on every node around torchrun (inside the container). The job scripts pass this
# file's text to `sh -c` (jobscripts/lib.sh, DDP_NODE_WRAPPER), so it needs no path inside the image.
#
# When the stop file appears on the shared filesystem, SIGTERM goes to torchrun's workers (its direct
# children), and to torchrun itself only if they have not ended within TORCH_ELASTIC_SHUTDOWN_TIMEOUT
# (the job's grace, SHUTDOWN_TIMEOUT_S). Why not to torchrun first: torchrun SIGKILLs its workers a fixed
# time after its own SIGTERM, 30 s before torch 2.12 whatever the environment says (the variable came with
# pytorch PR #172596), and a snapshot of a large model takes longer. The workers stop together (the trainer
# agrees on the step and leaves through a barrier), so torchrun's own stop of a failed group (30 s in every
# version: LocalElasticAgent._stop_workers) finds them gone. A command that is not torchrun (LAUNCH=srun:
# the worker itself) gets the SIGTERM directly.
# Why not a signal through the scheduler: `scancel --signal` and srun's forwarding reach every process of
# the step, including Apptainer's squashfuse_ll, whose exit unmounts the image under the running
# trainer (Bus error, failed imports; seen on the test cluster). And SIGTERM, not USR1, for torchrun:
# its agent handles SIGTERM/SIGINT/SIGHUP/SIGQUIT by forwarding and waiting; an unhandled USR1 kills it.
# When the rendezvous address is the owner's fabric interface (app/launch/rendezvous.py), the wrapper adds
# is_host=1 (owner) or is_host=0 (the others) to torchrun's --rdzv-conf, and it moves --rdzv-id behind the
# job's secret into the environment (DDP_STORE_SECRET, see below). Before torchrun starts, it
# sources the fabric policy: the first readable file of a colon-separated list (the image's copy, then
# the checkout's, for an image built before the policy moved there).
# POSIX sh, one check per second: $1 = stop file, $2 = rendezvous owner ('' = let torchrun decide),
# $3 = fabric policy candidates, the rest = the command.
stop=$1 owner=$2 policies=$3; shift 3
policy=
old_ifs=$IFS; IFS=:
set -f  # split on colons only: no file name globbing of the candidates
for candidate in $policies; do
    if [ -r "$candidate" ]; then policy=$candidate; break; fi
done
IFS=$old_ifs
set +f  # children() below globs /proc
# shellcheck disable=SC1090  # the image's copy of app/common/fabric_policy.env, or the checkout's
if [ -n "$policy" ]; then . "$policy"
elif [ -n "$policies" ]; then echo "warning: no fabric policy readable at $policies: NCCL/libfabric defaults not set" >&2
fi
is_host=
if [ -n "$owner" ]; then
    if [ "$(uname -n)" = "$owner" ]; then is_host=1; else is_host=0; fi
fi
# torchrun's rendezvous id: the step's name (--rdzv-id=NAME, public: the job id) behind the job's secret, in
# PET_RDZV_ID (torchrun reads each option from PET_<NAME> when argv lacks it: torch/distributed/argparse_util.py,
# class env), so that no other user learns it from argv (`ps`). The rendezvous state lives in the store under
# torch.rendezvous.<id> as a pickle every agent loads (torch/distributed/elastic/rendezvous/dynamic_rendezvous.py).
for arg do
    shift
    case $arg in
        --rdzv-conf=*) if [ -n "$is_host" ]; then arg="$arg,is_host=$is_host"; fi ;;
        --rdzv-id=*)
            if [ -n "${DDP_STORE_SECRET:-}" ]; then
                PET_RDZV_ID="$DDP_STORE_SECRET-${arg#--rdzv-id=}"
                export PET_RDZV_ID
                continue
            fi ;;
    esac
    set -- "$@" "$arg"
done
# children PID: the PIDs whose parent is PID (from /proc: procps may not be in the image).
children() {
    for status in /proc/[0-9]*/status; do
        while read -r key value; do
            if [ "$key" = PPid: ]; then
                if [ "$value" = "$1" ]; then pid=${status#/proc/}; echo "${pid%/status}"; fi
                break
            fi
        done <"$status" 2>/dev/null
    done
}
# stop_gracefully PID: SIGTERM to torchrun's workers, then to torchrun after the grace.
stop_gracefully() {
    case ${first##*/} in
        torchrun) workers=$(children "$1") ;;
        *) workers= ;;
    esac
    # shellcheck disable=SC2086  # one PID per word
    kill -TERM ${workers:-$1} 2>/dev/null
    waited=0
    while kill -0 "$1" 2>/dev/null && [ "$waited" -lt "${TORCH_ELASTIC_SHUTDOWN_TIMEOUT:-30}" ]; do
        sleep 1
        waited=$((waited + 1))
    done
    kill -TERM "$1" 2>/dev/null
}
# torch.compile's caches: torch keeps them in $TMPDIR/torchinductor_<user> (its default_cache_dir(), the user as
# Python's getpass.getuser() reads it), made without an owner check and loaded with pickle (see
# app/common/compile_cache.py). When that place is a link, someone else's, or writable by others, the command and
# everything it starts (your own script too) get a fresh private TMPDIR instead. A TORCHINDUCTOR_CACHE_DIR you set
# is left to you (the trainer and the check refuse one that is not yours alone).
if [ -z "${TORCHINDUCTOR_CACHE_DIR:-}" ]; then
    cache="${TMPDIR:-/tmp}/torchinductor_${LOGNAME:-${USER:-${LNAME:-${USERNAME:-$(id -un)}}}}"
    mode=$(ls -ld "$cache" 2>/dev/null) || mode=
    case $mode in
        '') ;;  # not there: the trainer makes it 0700 before torch does; a script of yours gets torch's own
        d????w*|d???????w*|l*) shared=1 ;;  # group- or other-writable, or a link
        *) if [ -O "$cache" ]; then shared=; else shared=1; fi ;;
    esac
    if [ -n "${shared:-}" ] && private_tmp=$(mktemp -d "${TMPDIR:-/tmp}/ddp-tmp-XXXXXXXX"); then
        echo "warning: the compile cache's usual place $cache is not yours alone: not used; TMPDIR=$private_tmp" >&2
        TMPDIR=$private_tmp
        export TMPDIR
    fi
fi
first=$1
"$@" &
child=$!
while kill -0 "$child" 2>/dev/null; do
    if [ -e "$stop" ]; then stop_gracefully "$child"; break; fi
    sleep 1
done
wait "$child"
