"""Every component's messages that app.diagnose reads, in the words of the version quoted
(tests/diagnose/component_source_lines.py): the log line a row gives is what its statement prints, and
app.diagnose names the row's cause first for it. NCCL's own rows are in nccl_source_lines.py."""

from __future__ import annotations

import re
import time

import pytest

from app.host.diagnose import diagnose_lines
from app.host.diagnose.causes import CAUSES
from app.host.diagnose.layers import VERDICTS
from tests.diagnose.component_source_lines import QUOTES, TWO_NODES, Quote
from tests.diagnose.test_nccl_messages import _LITERAL, format_string

#: printf (with Slurm's %ps and glibc's %m), Go's %v, Python's {} and str.format, ${...} of string.Template and
#: the shell.
_CONVERSION = re.compile(r"%%|%ps|%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j)?[diouxXcspmvfgq]|\$\{[^{}]*\}|\{[^{}]*\}")

#: Every component the jobs run through has its messages quoted (NVIDIA's closed ones by where they come from).
COMPONENTS = {"NCCL", "aws-ofi-nccl", "UCX", "systemd",
              "libfabric", "rdma-core", "CUDA", "NVML", "NVIDIA kernel module", "Linux",
              "torch", "Slurm", "PBS", "Open MPI", "PMIx", "Apptainer", "libnvidia-container", "enroot", "DeepSpeed",
              "nccl-tests", "glibc", "CPython", "bash", "dash", "GCC", "OpenSSH", "Gloo", "Cray MPICH", "pyxis",
              "kmod", "munge", "Torque", "HDF5", "squashfs-tools", "squashfuse", "libfuse",
              "filelock", "Lightning", "gdrcopy", "cloud-init", "NVSHMEM", "UCCL", "k8s-device-plugin",
              "coreutils", "RCCL", "HIP", "NVIDIA Fabric Manager", "Chef", "Accelerate"}
#: The causes read from the components' sources (app/host/diagnose/causes.py's last section): each has a quote.
FROM_SOURCES = {"nccl-version-across-ranks", "versions-differ-across-nodes", "nvml-driver-mismatch",
                "cuda-driver-combination", "container-cuda-requirement", "container-no-driver", "apptainer-tmp-full",
                "slurm-mpi-plugin-missing", "mpi-without-pmi", "nccl-tests-without-mpi", "p2p-acs-iommu",
                "ib-hca-filter-empty", "gpu-hardware-fault", "gpu-busy-exclusive", "slurm-task-launch-failed",
                "efa-unreachable",
                "efa-libfabric-too-old", "deepspeed-no-hostfile", "rank-sigkill", "pbs-request-refused",
                "launcher-local-rank-argument-rejected", "slurm-output-file-not-writable",
                "slurm-request-refused", "cuda-arch-unsupported", "command-not-on-node",
                "slurm-step-blocked", "cxi-vni-not-granted", "enroot-registry-refused", "ib-link-layers-mixed",
                "nvlink-p2p-disabled", "nccl-multi-rank-per-gpu-false-p2p-disabled-check", "p2p-peer-access-refused",
                "memlock-limit-tiny", "enroot-no-gpu-hook", "nvidia-control-device-node-missing",
                "binary-built-for-newer-cpu-isa", "image-tag-not-found-no-latest",
                "ib-transport-retry-timeout-under-congestion", "imex-channel-missing-fabric-memory-refused",
                "conda-env-mpi-shadows-site-mpi",
                "enroot-hook-failed", "slurm-fewer-tasks-than-nodes", "slurm-ntasks-per-node-ignored",
                "efa-gdr-unavailable", "mnnvl-imex-not-working",
                "slurm-pmix-library-mismatch", "net-device-count-differs", "ranks-disagree-on-size",
                "env-rendezvous-unset", "deepspeed-hostfile-bad",
                "cxi-match-entries-exhausted", "ib-device-not-accessible",
                "apptainer-nv-no-host-driver", "apptainer-no-loop-device",
                "slurm-workdir-missing", "mpirun-not-enough-slots",
                "enroot-image-file-bad", "userns-restricted", "disk-full", "open-files-limit",
                "shared-cache-nfs-stale-handle", "scontrol-missing-in-container", "orted-not-on-remote-path",
                "mpirun-not-on-path", "launch-script-line-continuation", "mpirun-run-as-root",
                "mpirun-conflicting-mapping", "slurm-prolog-failure", "gres-conf-duplicate-gpus",
                "slurm-node-memory-below-config", "enroot-path-not-writable", "bind-spec-malformed",
                "python-dev-headers-missing", "libcuda-stub-loaded", "dmabuf-unsupported", "gloo-loopback-address",
                "slurm-controller-unreachable", "rendezvous-name-not-resolvable", "hostname-resolves-to-loopback",
                "ssh-host-key-changed", "ssh-host-key-unknown", "cray-gtl-not-linked", "pals-mpiexec-openmpi-options",
                "enroot-rootfs-lock-timeout", "image-no-shell", "pyxis-seccomp-flag-unsupported",
                "apptainer-session-dir-missing", "hca-resources-exhausted", "driver-broken-after-suspend",
                "nccl-too-old-for-gpu", "srun-step-exceeds-allocation", "openmpi-host-slots-unsupported",
                "mount-source-missing", "enroot-image-reference-invalid", "mpirun-daemon-callback-failed",
                "userns-restricted-apparmor", "gpudirect-rdma-disabled", "p2p-disabled-by-env",
                "peermem-module-unloadable", "ib-port-down", "hca-fatal-error", "slurm-preempted",
                "pmix-munge-unavailable", "bind-kind-mismatch", "deepspeed-pdsh-ssh-args-bug",
                "gloo-socket-ifname-invalid", "gloo-hostname-unresolved", "gloo-address-family-mismatch",
                "pmix-socket-path-too-long", "pmix-rendezvous-file-unusable", "munge-credential-invalid",
                "munge-clock-skew", "munged-unreachable", "gres-conf-invalid-cores-spec", "rdma-core-abi",
                "gres-count-below-config", "mpirun-executable-not-found", "mpirun-workdir-missing",
                "slurm-job-credential-refused", "hdf5-file-locking-unsupported", "cuda-library-missing",
                "pg-timeout-too-short", "slurm-spank-plugin-failed", "squashfs-compression-unsupported",
                "enroot-fuse-tools-unsupported", "file-locks-unsupported", "unsquashfs-xattr-write-failed",
                "rendezvous-endpoint-malformed", "libnvidia-container-firmware-mount-failed",
                "libnvidia-container-release-regression-1-17-7", "selinux-blocks-nvidia-container-cli",
                "nvidia-container-ldconfig-not-run", "sbatch-environment-srun-switch-plugin-unloadable",
                "slurm-ntasks-not-matching-trainer-devices", "lightning-num-nodes-not-set",
                "openmpi-tcp-btl-wrong-interfaces", "nccl-usb-nic-topology-bug", "mpi-libfabric-older-than-build",
                "container-gpu-access-lost-systemd-cgroup-reload", "gres-autodetect-affinity-not-socket-aligned",
                "slurm-auth-key-missing", "slurmd-manual-start-cgroup-controllers-disabled",
                "slurm-topology-missing-node", "k8s-shared-gpu-request-over-one-refused",
                "deepspeed-train-batch-below-gpu-count",
                "mpi-daemon-compiler-runtime-missing-noninteractive", "torch-mpi-backend-cuda-aware-openmpi-only",
                "cray-mpich-nic-policy-numa-rank-spans-numa", "spectrum-mpi-cuda-hook-before-mpi-init",
                "openmpi-nonblocking-collectives-gpu-buffers-unsupported", "image-musl-ldconfig-breaks-enroot-hooks",
                "enroot-nvidia-visible-devices-unset", "mksquashfs-not-on-batch-path",
                "gdrdrv-same-process-check-rejects-threads", "cloud-init-duplicate-mac-ib-interface",
                "nvshmem-ibgda-uninitialized-ah-attr", "nccl-net-plugin-env-names-missing-library",
                "nccl-ll128-gpudirect-slingshot-data-corruption", "memlock-limit-lowered-without-reboot",
                "cma-ptrace-denied-in-container", "torch-load-weights-only-default",
                "deepspeed-fp16-loss-scale-exhausted", "ofi-nccl-plugin-not-on-library-path",
                "nvccli-contain-without-nvidia-visible-devices", "slurm-gres-core-bitmap-stale-at-startup",
                "tcpstore-connection-reset-after-connect", "job-pids-limit-exceeded",
                "slurm-user-uid-differs-across-nodes", "slurm-conf-not-found", "slurm-node-address-unknown",
                "slurmd-cgroup-fs-read-only", "user-unknown-on-node",
                "nvidia-container-toolkit-1-12-0-cdi-missing-dev-nodes",
                "ucx-ib-memory-registration-enomem-reg-methods", "ucx-posix-shm-proc-link-permission-denied",
                "hpcx-ucx-rc-verbs-remote-access-error-large-sends",
                "ucx-cuda-ipc-gdrcopy-same-buffer-registration-conflict", "amd-iommu-not-passthrough",
                "rccl-ib-socket-port-exhaustion-large-alltoall", "cray-mpich-gpu-ipc-broken-by-slurm-gpu-binding",
                "fabric-manager-started-before-local-fm-ready", "fabric-manager-start-timeout-node-bootstrap",
                "cuda-forward-compat-driver-breaks-nic-memory-registration",
                "accelerate-config-conflicts-with-deepspeed-config-file", "pbs-cpu-over-limit",
                "pbs-task-manager-unreachable", "pbs-queued-jobs-limit",
                "pbs-launch-host-outside-job", "cxi-event-queue-overflow",
                "fi-provider-not-in-libfabric", "cxi-nic-resources-exhausted",
                "ofi-nccl-nic-dup-conns-with-gdr", "slurm-step-unkillable", "slurm-plugin-load-failed",
                "slurm-protocol-version-unsupported", "slurm-message-timed-out", "apptainer-loop-device-unattached",
                "apptainer-overlay-in-use"}


def message_format(row: Quote) -> str:
    """The format the statement prints: `fmt` where the row gives one, else its first run of adjacent string
    literals (a `%"PRIu64"` macro read as the %d it is)."""
    if row.fmt:
        return row.fmt
    source = re.sub(r'%"PRI\w+"', "%d", row.source)
    assert _LITERAL.search(source), f"{row.component} {row.path}: no string literal; give the row a fmt"
    return format_string(source).rstrip("\n")


def printed_pattern(fmt: str) -> re.Pattern[str]:
    """What a line printed by `fmt` looks like: its literal text, anything where a conversion is."""
    pieces, at = [], 0
    for conversion in _CONVERSION.finditer(fmt):
        pieces.append(re.escape(fmt[at:conversion.start()]))
        pieces.append("%" if conversion.group() == "%%" else ".*?")
        at = conversion.end()
    pieces.append(re.escape(fmt[at:]))
    return re.compile("".join(pieces))


def _id(row: Quote) -> str:
    return f"{row.component}@{row.version.split(' ')[0]}:{row.path.split(' ')[0]}:{row.line}"


@pytest.mark.parametrize("row", QUOTES, ids=[_id(row) for row in QUOTES])
def test_the_line_is_what_the_quoted_statement_prints(row: Quote) -> None:
    fmt = message_format(row)
    if row.fmt:  # the format's words are the statement's
        for piece in _CONVERSION.split(row.fmt):
            joined = row.source.replace('"\n"', "").replace('"\nf"', "")  # adjacent literals, f-strings too
            assert " ".join(piece.split()) in " ".join(joined.split()), (piece, row.source)
    assert printed_pattern(fmt).search(row.printed), (fmt, row.printed)


@pytest.mark.parametrize("row", QUOTES, ids=[_id(row) for row in QUOTES])
def test_the_cause_is_named_first_for_the_line(row: Quote) -> None:
    findings = diagnose_lines([*row.context, row.printed])
    assert findings and findings[0].key == row.cause, [f.key for f in findings]


def test_wrong_elements_on_one_gh200_node_or_none_across_nodes_are_not_ll128_over_c2c() -> None:
    """LL128's corruption is on the network card's writes into GPU memory: ranks on one node, or rows with no wrong
    element, are not it."""
    from tests.diagnose.component_source_lines import GH200_RANKS
    wrong = ("     2097152       2097152      int8     sum      -1  6249.20    0.34    0.63   18134  6142.32    "
             "0.34    0.64    9609")
    right = ("     2097152       2097152      int8     sum      -1   130.34    8.05   15.08       0   130.86    8.01   "
             "15.02       0")
    assert "nccl-ll128-gpudirect-slingshot-data-corruption" not in [
        f.key for f in diagnose_lines([GH200_RANKS[0], GH200_RANKS[0].replace("Rank  0", "Rank  1"), wrong])]
    assert diagnose_lines([*GH200_RANKS, right, "# Avg bus bandwidth    : 12.5"]) == []


def test_a_step_that_got_its_resources_after_waiting_is_no_failure() -> None:
    """srun says "Step created for %ps" (Slurm 25.11.7 src/srun/launch.c line 1245) once the wait is over."""
    waited = "srun: Job 4512 step creation temporarily disabled, retrying (Requested nodes are busy)"
    assert [f.key for f in diagnose_lines([waited])] == ["slurm-step-blocked"]
    assert diagnose_lines([waited, "srun: Step created for StepId=4512.3"]) == []


def test_ranks_of_different_versions_in_a_run_that_did_not_fail_are_no_cause() -> None:
    """Each rank logs its versions (NCCL's INIT lines): only a failed run makes a difference among them a cause."""
    ranks = ["gpu-a-017:1:2 [0] NCCL INFO cudaDriverVersion 12080",
             "gpu-a-018:1:2 [0] NCCL INFO cudaDriverVersion 12020"]
    assert diagnose_lines(ranks) == []
    assert [f.key for f in diagnose_lines([*ranks, "Traceback (most recent call last):"])] == [
        "versions-differ-across-nodes"]



def test_a_small_memlock_limit_in_a_run_that_did_not_fail_is_no_cause() -> None:
    """libibverbs warns at every start under a 32 KiB limit; only a failed run makes the warning its cause."""
    warned = "libibverbs: Warning: RLIMIT_MEMLOCK is 16384 bytes."
    assert diagnose_lines([warned, "    This will severely limit memory registrations."]) == []
    assert [f.key for f in diagnose_lines([warned, "Traceback (most recent call last):"])] == ["memlock-limit-tiny"]



def test_open_mpis_locked_memory_text_under_an_unlimited_limit_is_not_the_memlock_limit() -> None:
    """openib shows [init-fail-no-mem] for any ENOMEM, with the limit getrlimit gave: "unlimited" is another limit."""
    text = ["memlock limits are set too low.  For most HPC installations, the", "  Device:        mlx4_0"]
    assert [f.key for f in diagnose_lines([*text, "  Memlock limit: 65536"])][:1] == ["memlock-too-low"]
    assert "memlock-too-low" not in [f.key for f in diagnose_lines([*text, "  Memlock limit: unlimited"])]


def test_nccls_completion_error_quoted_without_its_prefix_is_still_read() -> None:
    """Vendors' troubleshooting pages quote NCCL's WARN from "Got completion" on (NCCL 2.4 to 2.7's words)."""
    quoted = "Got completion with error 12, opcode 1, len 32478, vendor err 129"
    assert [f.key for f in diagnose_lines([quoted])][:1] == ["roce-gid-index"]


def test_refused_cross_memory_reads_in_a_run_that_did_not_fail_are_no_cause() -> None:
    """Open MPI in an unprivileged container prints "Read -1, ... errno = 1" and runs on (horovod/horovod#300)."""
    refused = "[96c7e3d99641:24984] Read -1, expected 122880, errno = 1"
    assert diagnose_lines([refused, "Epoch 10/10 done"]) == []
    aborted = "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD"
    assert [f.key for f in diagnose_lines([refused, aborted])][:1] == ["cma-ptrace-denied-in-container"]


def test_a_one_task_step_in_a_larger_job_that_did_not_fail_is_no_cause() -> None:
    """srun warns for any step of fewer tasks than the job's nodes (`srun -n 1 hostname` in a two-node job)."""
    warned = "srun: warning: can't run 1 processes on 2 nodes, setting nnodes to 1"
    assert diagnose_lines([warned, "gpu-a-017"]) == []
    timed_out = "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"
    findings = diagnose_lines([warned, "Traceback (most recent call last):", timed_out])
    assert findings[0].key == "slurm-fewer-tasks-than-nodes"


def test_apptainer_finding_no_driver_in_a_run_that_did_not_fail_is_no_cause() -> None:
    """--nv on a CPU node warns and the container runs: only a failed job makes the warning its cause."""
    assert diagnose_lines(["WARNING: Could not find any nv libraries on this host!", "step 10 loss 2.31"]) == []

def test_a_failed_enroot_hook_ranks_below_the_cause_its_own_lines_name() -> None:
    """enroot's hook runner reports the hook's exit after the hook has printed why (here libnvidia-container)."""
    lines = ["slurmstepd: error: pyxis: nvidia-container-cli: initialization error: nvml error: driver not loaded",
             "slurmstepd: error: pyxis: [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1"]
    assert [f.key for f in diagnose_lines(lines)][:2] == ["container-no-driver", "enroot-hook-failed"]

def test_no_net_plugin_is_a_cause_only_where_the_fabric_needs_one_and_sockets_carried_the_traffic() -> None:
    """Every run without a plugin prints NCCL's "No plugin found": on InfiniBand (NCCL's own transport), on one
    node, or where the job chose sockets, it is no cause."""
    missing = "gpu-a-017:2741:2790 [0] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)"
    via_socket = "gpu-a-017:2741:2790 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0"
    efa = "export FI_PROVIDER=efa"
    key = "ofi-nccl-plugin-not-on-library-path"
    assert diagnose_lines([efa, missing]) == []
    assert key not in [f.key for f in diagnose_lines(["NCCL INFO NET/IB : Using [0]mlx5_0:1/IB", missing, via_socket])]
    assert key not in [f.key for f in diagnose_lines([efa, "export NCCL_NET=Socket", missing, via_socket])]
    assert [f.key for f in diagnose_lines([efa, missing, via_socket])][:1] == ["ofi-nccl-plugin-not-on-library-path"]


def test_a_store_connection_reset_after_start_up_is_not_the_start_up_race() -> None:
    """Once the store has started, a reset is the store's rank going away, not the backlog at connect."""
    reset = ("[W1128 10:02:11.611 TCPStore.cpp:182] [c10d] recvValue failed on SocketImpl(fd=24, addr=[n2]:51880, "
             "remote=[n1]:29500): Connection reset by peer")
    assert "tcpstore-connection-reset-after-connect" not in [f.key for f in diagnose_lines([reset])]
    assert [f.key for f in diagnose_lines([reset, "#10 c10d::TCPStore::waitForWorkers() from libtorch_cpu.so"])][
        :1] == ["tcpstore-connection-reset-after-connect"]


def test_a_container_without_nv_is_a_cause_only_in_a_gpu_job_that_crashed_and_never_asked_for_the_driver() -> None:
    """A CPU step in a container needs no --nv; a job that gave --nv elsewhere had the driver there."""
    run = "+ srun apptainer exec --bind /scratch image.sif python prep.py"
    gpus, crashed = "#SBATCH --gpus-per-node=4", "/var/spool/slurm/job1/slurm_script: line 9: 4120 Segmentation fault"
    assert diagnose_lines([run, crashed]) == []
    assert diagnose_lines([gpus, run]) == []
    assert diagnose_lines([gpus, run, "+ srun apptainer exec --nv image.sif python train.py", crashed]) == []
    assert [f.key for f in diagnose_lines([gpus, run, crashed])][:1] == ["apptainer-no-nv"]


def test_a_lightning_world_whose_ranks_all_registered_is_no_verdict() -> None:
    """Rank 0 logs "All distributed processes registered" once the process group formed (Lightning 2.6.5)."""
    assert diagnose_lines(["Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4", "-" * 100,
                           "distributed_backend=nccl",
                           "All distributed processes registered. Starting with 4 processes"]) == []
    assert diagnose_lines(["Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/1"]) == []


def test_slurm_19_05s_warning_that_mem_and_mem_per_cpu_were_both_given_refuses_nothing() -> None:
    """Slurm 19.05.0 to 19.05.3 (src/srun/libsrun/opt.c line 695, sbatch/opt.c 768, salloc/opt.c 481) print
    error("--mem and --mem-per-cpu are mutually exclusive.") and go on, --mem raised to --mem-per-cpu (18.08 said it
    as info("WARNING: ...")); from 19.05.4 on, both on the command line are fatal() (25.11.7 src/common/
    slurm_opt.c line 4867) and one of them set by salloc's environment is dropped without a word."""
    assert diagnose_lines(["srun: error: --mem and --mem-per-cpu are mutually exclusive."]) == []
    assert diagnose_lines(["srun: error: --mem and --mem-per-cpu are mutually exclusive"]) == []
    refused = "srun: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive."
    assert [f.key for f in diagnose_lines([refused])] == ["slurm-request-refused"]


def test_an_ssh_host_key_question_that_was_answered_is_no_cause() -> None:
    """OpenSSH asks about a key it has never seen, then records it once answered (V_9_6_P1 sshconnect.c lines 1154
    and 1227): only a question left unanswered, or a host refused, makes it the cause."""
    asked = ["The authenticity of host 'gpu-a-018 (10.1.0.18)' can't be established.",
             "ED25519 key fingerprint is SHA256:2f3Qx1Zp.",
             "Are you sure you want to continue connecting (yes/no/[fingerprint])? yes"]
    added = "Warning: Permanently added 'gpu-a-018' (ED25519) to the list of known hosts."
    assert diagnose_lines([*asked, added]) == []
    assert [f.key for f in diagnose_lines(asked)] == ["ssh-host-key-unknown"]
    assert [f.key for f in diagnose_lines([*asked, added, "Host key verification failed."])] == [
        "ssh-host-key-unknown"]


def test_a_user_id_without_a_name_in_a_run_that_did_not_fail_is_no_cause() -> None:
    """A container run as a uid its image does not list prints coreutils' "id: cannot find name for user ID" (a
    shell's prompt asks) and runs on; only a failed job or container start makes the node's user database the cause."""
    unnamed = "id: cannot find name for user ID 1000"
    assert diagnose_lines([unnamed, "step 10 loss 2.31"]) == []
    lines = ["slurmstepd: error: pyxis:     " + unnamed,
             "slurmstepd: error: pyxis:     mkdir: cannot create directory '/scratch/1000': Permission denied",
             "slurmstepd: error: pyxis: couldn't start container"]
    assert [f.key for f in diagnose_lines(lines)][:1] == ["user-unknown-on-node"]


def test_every_component_has_its_messages_quoted() -> None:
    assert {row.component for row in QUOTES} >= COMPONENTS, COMPONENTS - {row.component for row in QUOTES}


def test_every_cause_from_the_sources_and_every_verdict_has_a_quote() -> None:
    quoted = {row.cause for row in QUOTES}
    assert FROM_SOURCES | {verdict.key for verdict in VERDICTS} <= quoted


def test_every_quote_names_where_it_comes_from() -> None:
    for row in QUOTES:
        assert row.version and row.path and row.line >= 0 and row.source.strip(), row
        assert row.line or " " in row.path or row.version.startswith(("commit", "12.x", "driver", "v6.")), row


@pytest.mark.parametrize("filler", ["a", " ", "0", "-", "NCCL WARN ", "FATAL: While ", "URL ", "a:1:2 [0] ",
                                    "Task launch for ", "exitcode ", "#  Rank  0 ", "with CUDA capability ",
                                    "/var/apptainer/mnt/", "/opt/bin/", ": 1: "])
def test_the_patterns_from_the_sources_read_a_200_kb_line_in_linear_time(filler: str) -> None:
    """A pattern searched from every position of a long line must not rescan what follows each one."""
    line = (filler * (200_000 // len(filler)))[:200_000]
    keys = FROM_SOURCES | {verdict.key for verdict in VERDICTS}
    patterns = [re.compile(p) for cause in (*CAUSES, *VERDICTS) if cause.key in keys for p in cause.patterns]
    start = time.thread_time()  # this thread's CPU time: a loaded machine does not inflate it
    for pattern in patterns:
        pattern.search(line)
    assert time.thread_time() - start < 1.0, f"a pattern backtracks on a line of {filler!r}"


def test_torch_warning_that_one_address_family_failed_is_no_cause() -> None:
    """torch's socket.cpp (2.1 to 2.13) records "The client socket cannot be initialized to connect to {} {}." as a
    warning (`[W socket.cpp]`) for each address it cannot use (IPv6 on a host without it, errno 97) and tries the
    next; only when every address failed does it throw "has failed to connect to any network address of"."""
    warned = ("[W1128 10:02:11.482 socket.cpp:767] [c10d] The client socket cannot be initialized to connect to "
              "[gpu-a-017]:29500 (errno: 97 - Address family not supported by protocol).")
    assert diagnose_lines([warned, warned, "step 10 loss 2.31"]) == []
    # The same for an address of a family the host cannot use (recordError "The client socket has failed to connect
    # to {} {}." with errno 99); an address that timed out (110) is a failure to reach the store.
    refused = ("[W1128 10:02:11.482 socket.cpp:663] [c10d] The client socket has failed to connect to "
               "[localhost]:29500 (errno: 99 - Cannot assign requested address).")
    assert diagnose_lines([refused, "step 10 loss 2.31"]) == []
    timed_out = refused.replace("[localhost]", "[gpu-a-017]").replace("99 - Cannot assign requested address",
                                                                      "110 - Connection timed out")
    assert [f.key for f in diagnose_lines([timed_out])] == ["rendezvous-connect"]
    thrown = ("torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of "
              "(gpu-a-017, 29500). The client socket cannot be initialized to connect to gpu-a-017:29500 (errno: 1 - "
              "Operation not permitted).")
    assert [f.key for f in diagnose_lines([warned, thrown])][:1] == ["rendezvous-connect"]


def test_a_cuda_mismatch_deepspeed_accepts_is_no_cause() -> None:
    """DeepSpeed 0.19.5 op_builder/builder.py line 119 prints the mismatch it accepts (compatible minor versions)."""
    accepted = ("Installed CUDA version 12.2 does not match the version torch was compiled with 12.4 but since the "
                "APIs are compatible, accepting this combination")
    assert diagnose_lines([accepted, "Traceback (most recent call last):", "ValueError: bad batch"]) == []


def test_enroot_warning_that_nvidia_uvm_is_not_loaded_without_a_failed_hook_is_no_cause() -> None:
    """enroot 4.1.2 conf/hooks/98-nvidia.sh line 77 warns and goes on; only the hook's failure makes it the cause."""
    warned = ("[WARN] Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is installed and "
              "loaded.")
    assert diagnose_lines([warned, "step 10 loss 2.31"]) == []


def test_torch_agent_store_bind_warnings_in_a_healthy_run_are_no_cause() -> None:
    """torch 2.4 to 2.13 under torchrun's agent store: each worker tries the store's port, records "The server socket
    has failed to bind to {} {}." as a warning (socket.cpp) and TCPStore.cpp says "TORCHELASTIC_USE_AGENT_STORE is
    enabled so ignoring the error"; only the thrown "failed to listen on any local network address" is a cause."""
    lines = ["[W1128 10:02:11.482 socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 "
             "- Address already in use).",
             "[W1128 10:02:11.482 socket.cpp:464] [c10d] The server socket has failed to bind to 0.0.0.0:29500 "
             "(errno: 98 - Address already in use).",
             "[E1128 10:02:11.482 TCPStore.cpp:277] [c10d] The server socket on 29500 has failed to bind. "
             "TORCHELASTIC_USE_AGENT_STORE is enabled so ignoring the error.", "step 10 loss 2.31"]
    assert diagnose_lines(lines) == []


def test_pmix_lock_teardown_error_in_a_run_that_worked_is_no_cause() -> None:
    """PMIx's ds12 lock component logs PMIX_ERROR_LOG when pthread_rwlock_destroy fails at finalize
    (pmix_ds12_lock_finalize, src/mca/gds/ds12/gds_ds12_lock_pthread.c); programs print it after running fine
    (open-mpi/ompi#7516, openpmix/openpmix#1716). The data store's own errors (gds_dstore.c) still name the cause."""
    lock = ("[gpu-a-017:12345] PMIX ERROR: ERROR in file ../../../../../../src/mca/gds/ds12/gds_ds12_lock_pthread.c "
            "at line 168")
    assert diagnose_lines(["Hello world from rank 0", lock]) == []
    store = "[gpu-a-017:12345] PMIX ERROR: OUT-OF-RESOURCE in file ../../src/mca/gds/ds12/gds_ds12_base.c at line 97"
    assert [f.key for f in diagnose_lines([store])] == ["pmix-gds-mismatch"]


def test_pmix_store_not_found_lines_of_a_job_that_ran_are_no_cause() -> None:
    """ALCF's Aurora known issues: single-node jobs print PMIX_ERR_NOT_FOUND and PMIX_ERROR from dstore_base.c, and
    they "can be safely ignored". In a job whose MPI start failed they still name the store."""
    noise = ["PMIX ERROR: PMIX_ERR_NOT_FOUND in file dstore_base.c at line 1567",
             "PMIX ERROR: PMIX_ERROR in file dstore_base.c at line 2334"]
    assert diagnose_lines(["step 10 loss 2.31", *noise]) == []
    failed = [*noise, "*** An error occurred in MPI_Init_thread"]
    assert [f.key for f in diagnose_lines(failed)][:1] == ["pmix-gds-mismatch"]


def test_a_collective_that_times_out_after_lightnings_fit_ended_is_the_programs_own_code() -> None:
    """Lightning prints "`Trainer.fit` stopped: `max_epochs=N` reached." (lightning/pytorch/loops/fit_loop.py) when
    its loop ends: a collective that then times out belongs to the program's code after training (a checkpoint or
    barrier only some ranks enter), not to a rank the filesystem starved. The same timeout during training still
    names it."""
    timeout = ("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=412, OpType=ALLREDUCE, "
               "NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800090 milliseconds before timing out.")
    assert "nccl-watchdog" not in [f.key for f in diagnose_lines(["`Trainer.fit` stopped: `max_epochs=5` reached.",
                                                                  timeout])]
    assert [f.key for f in diagnose_lines(["Epoch 3: 40%", timeout])][:1] == ["nccl-watchdog"]


def test_a_step_refused_because_the_job_was_already_ending_defers_to_why_it_ended() -> None:
    """srun's "Unable to create step for job %u: %m" with ESLURM_ALREADY_DONE ("Job/step already completing or
    completed", Slurm 25.11.7 src/common/slurm_errno.c) follows the job's end: the time limit says why."""
    lines = ["slurmstepd: error: *** JOB 4512 ON gpu-a-017 CANCELLED AT 2026-11-28T10:02:11 DUE TO TIME LIMIT ***",
             "srun: error: Unable to create step for job 4512: Job/step already completing or completed"]
    assert [f.key for f in diagnose_lines(lines)] == ["walltime"]


def test_ucx_skipping_a_device_it_cannot_use_in_a_run_that_completed_is_no_cause() -> None:
    """UCX logs a verbs device it cannot open (ENOMEM under a small memlock limit) and goes on with shared memory:
    only a failed run makes its line the cause."""
    probe = ("[1700000000.123456] [gpu-a-017:2741:0]     rdmacm_cm.c:120  UCX  ERROR ibv_create_cq() failed: Cannot "
             "allocate memory")
    assert diagnose_lines([probe, "# OSU MPI Broadcast Latency Test v5.8", "1                       0.23"]) == []


def test_cuda_forward_compatibility_on_a_gpu_without_it_names_the_old_driver_then_the_compat_library() -> None:
    """804 means the runtime is newer than the driver and the compat libcuda cannot run on this GPU: a newer driver
    is the usual fix, a container runtime that injected the compat library (or LD_LIBRARY_PATH) the other."""
    line = "RuntimeError: CUDA error: forward compatibility was attempted on non supported HW"
    assert [f.key for f in diagnose_lines([line])] == ["driver-too-old", "cuda-driver-combination"]


def test_gloo_falling_back_to_loopback_in_a_run_whose_gloo_connected_is_no_cause() -> None:
    """torch warns once on any host whose name does not resolve (one-node runs print it and work); only Gloo's
    failed connections make it the cause."""
    warned = ("[rank0]:[W ProcessGroupGloo.cpp:721] Warning: Unable to resolve hostname to a (local) address. Using "
              "the loopback address as fallback. Manually set the network interface to bind to with "
              "GLOO_SOCKET_IFNAME. (function operator())")
    assert diagnose_lines([warned, "step 10 loss 2.31"]) == []


def test_no_space_on_a_line_a_specific_cause_explains_is_not_also_a_full_disk() -> None:
    """ENOSPC in /dev/shm or in Apptainer's session directory is that cause alone; elsewhere it is the disk."""
    shm = "gpu-a-017:2741:2790 [0] NCCL WARN Call to posix_fallocate failed: No space left on device"
    session = "cp: error writing '/var/apptainer/mnt/session/rootfs/etc/resolv.conf': No space left on device"
    assert [f.key for f in diagnose_lines([shm])] == ["shm-too-small"]
    assert [f.key for f in diagnose_lines([session])] == ["apptainer-tmp-full"]
    assert [f.key for f in diagnose_lines(["OSError: [Errno 28] No space left on device"])] == ["disk-full"]


def test_srun_timing_out_on_a_node_is_not_the_controller() -> None:
    """srun's own messages to a node's slurmd (port 6818) time out with the same errno string: that is the task
    launch failing on that node, not the controller out of reach."""
    lines = ["srun: error: slurm_receive_msgs: [[gpu-a-018]:6818] failed: Socket timed out on send/recv operation",
             "srun: error: Task launch for StepId=34.0 failed on node gpu-a-018: Socket timed out on send/recv "
             "operation"]
    assert "slurm-controller-unreachable" not in [f.key for f in diagnose_lines(lines)]


def test_a_name_lookup_that_failed_once_in_a_run_that_went_on_is_no_cause() -> None:
    """torch 2.x records each failed lookup as a warning and retries (socket.cpp): a name whose record appeared a
    moment later (a pod's DNS entry) is a healthy run; only a failed run or the give-up makes it the cause."""
    warned = ("[W1128 10:02:11.482 socket.cpp:833] [c10d] The IPv4 network addresses of (gpu-a-017, 29500) cannot be "
              "retrieved (gai error: -3 - Temporary failure in name resolution).")
    assert diagnose_lines([warned, "step 10 loss 2.31"]) == []
    # An address family the host lacks is not a name that does not resolve (EAI_ADDRFAMILY, -9).
    family = warned.replace("IPv4", "IPv6").replace("-3 - Temporary failure in name resolution",
                                                    "-9 - Address family for hostname not supported")
    assert diagnose_lines([family, "Traceback (most recent call last):"]) == []


def test_a_loopback_peer_in_a_one_node_job_is_not_a_host_name_on_loopback() -> None:
    """Ranks of one node meet on 127.0.0.1 by design: a refused connection there is a peer that died."""
    refused = "RuntimeError: [../gloo/transport/tcp/pair.cc:144] connect: Connection refused, remote=[127.0.0.1]:48213"
    assert "hostname-resolves-to-loopback" not in [f.key for f in diagnose_lines([refused])]
    assert [f.key for f in diagnose_lines([TWO_NODES, refused])][:1] == ["hostname-resolves-to-loopback"]


def test_ssh_refusing_a_changed_key_is_not_also_an_unknown_one() -> None:
    """OpenSSH ends both refusals with "Host key verification failed.": after a changed key only that is named."""
    lines = ["@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @",
             "Host key for gpu-a-018 has changed and you have requested strict checking.",
             "Host key verification failed."]
    assert [f.key for f in diagnose_lines(lines)] == ["ssh-host-key-changed"]


def test_nccl_shrinking_its_shared_memory_in_a_run_that_went_on_is_no_cause() -> None:
    """NCCL 2.25.1 (src/enqueue.cc line 52) logs the shrink as INFO and goes on; 2.26 and later refuse the GPU."""
    shrunk = "gpu-a-017:2741:2790 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856"
    assert diagnose_lines([shrunk, "step 10 loss 2.31"]) == []


def test_a_download_whose_host_name_did_not_resolve_is_not_the_ranks_address() -> None:
    """Compute nodes without a route out fail every download by name (CPython's socket.gaierror): that is no
    rendezvous address."""
    lines = ["Traceback (most recent call last):",
             "socket.gaierror: [Errno -3] Temporary failure in name resolution",
             "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries "
             "exceeded"]
    assert "rendezvous-name-not-resolvable" not in [f.key for f in diagnose_lines(lines)]


def test_a_graph_file_in_a_run_nccl_did_not_fail_and_a_topology_file_in_one_it_did_are_no_cause() -> None:
    """NCCL_GRAPH_FILE counts only in a run NCCL failed; NCCL_TOPO_FILE, which VM images set rightly, never alone."""
    graph = "gpu-a-017:2741:2790 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/microsoft/ncv4/graph.xml"
    topo = "gpu-a-017:2741:2790 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ncv4/topo.xml"
    failed = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error."
    assert diagnose_lines([graph]) == []
    assert [f.key for f in diagnose_lines([topo, failed])] == ["layer-fabric-error"]


def test_gpudirect_rdma_off_on_the_socket_transport_is_no_cause() -> None:
    """NCCL's socket transport never has GPUDirect RDMA (src/graph/topo.cc prints it Disabled for every net)."""
    assert diagnose_lines(["gpu-a-017:2741:2790 [0] NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 "
                           "'eth0'"]) == []


def test_a_locked_memory_limit_of_a_gigabyte_or_unlimited_is_no_cause() -> None:
    assert diagnose_lines(["Max locked memory         unlimited            unlimited            bytes     ",
                           "Max locked memory         1073741824           1073741824           bytes     ",
                           "max locked memory           (kbytes, -l) unlimited"]) == []


def test_a_graph_file_in_a_run_that_failed_of_a_known_cause_ranks_below_it() -> None:
    """A topology file set is a suspect only; a cause the failure's own lines name comes first."""
    lines = ["gpu-a-017:2741:2790 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /etc/graph.xml",
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "ncclSystemError"]
    assert diagnose_lines(lines)[0].key == "cuda-oom"


def test_ignoring_a_layout_of_more_than_one_task_per_node_in_a_run_that_did_not_fail_is_no_cause() -> None:
    """Only one task per node (one launcher per node) makes the ignored option a cause by itself."""
    assert diagnose_lines(["srun: warning: can't honor --ntasks-per-node set to 4 which doesn't match the requested "
                           "tasks 16 with the maximum number of requested nodes 2. Ignoring --ntasks-per-node."]) == []


def test_an_address_the_plugin_could_not_add_on_slingshot_is_not_efa() -> None:
    lines = ["NCCL INFO NET/OFI Selected provider is cxi, fabric is cxi (found 4 nics)",
             "NCCL WARN NET/OFI Unable to insert remote address into address vector for device 1. RC: 0"]
    assert "efa-unreachable" not in [f.key for f in diagnose_lines(lines)]


def test_slurms_failcnt_notice_in_a_run_that_finished_is_no_cause() -> None:
    """Old Slurm printed it from the cgroup's failcnt, page cache included, also for runs that ended well."""
    assert diagnose_lines(["slurmstepd: error: Exceeded step memory limit at some point."]) == []


def test_a_component_named_munge_outside_pmix_security_framework_is_no_cause() -> None:
    assert diagnose_lines(["Framework: btl", "Component: munge"]) == []


def test_apptainer_skipping_a_bind_it_may_skip_is_no_cause() -> None:
    assert diagnose_lines(["WARNING: could not mount /etc/localtime: not a directory"]) == []


def test_transports_turned_off_are_no_cause_of_a_run_that_failed() -> None:
    """P2P off by the environment or no GPUDirect RDMA make a run slower; a failed run's cause is elsewhere."""
    failed = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error."
    for line in ("gpu-a-017:1:2 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC",
                 "gpu-a-017:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'"):
        assert [f.key for f in diagnose_lines([line, failed])] == ["layer-fabric-error"]


def test_a_step_refused_for_its_size_is_the_step_even_with_its_job_id_masked() -> None:
    """srun's "Unable to create step for job %u: %m" (Slurm 25.11.7 src/srun/launch.c line 1258) is the step's size
    whatever the job id reads (threads mask it); the same error after sbatch's "Batch job submission failed: " is
    the job's request."""
    masked = "srun: error: Unable to create step for job NNNNN: More processors requested than permitted"
    assert [f.key for f in diagnose_lines([masked])][:1] == ["srun-step-exceeds-allocation"]
    refused = "sbatch: error: Batch job submission failed: More processors requested than permitted"
    assert [f.key for f in diagnose_lines([refused])][:1] == ["slurm-request-refused"]


def test_a_verbs_provider_of_another_rdma_core_in_a_run_that_did_not_fail_is_no_cause() -> None:
    """libibverbs warns about a provider it cannot load and goes on with the others (rdma-core v59.0
    libibverbs/dynamic_driver.c line 207): only a failed run makes the missing symbol version its cause."""
    warned = ("libibverbs: Warning: couldn't load driver 'libhns-rdmav34.so': /lib64/libhns.so.1: version "
              "`IBVERBS_PRIVATE_34' not found (required by /usr/lib/libibverbs/libhns-rdmav34.so)")
    assert diagnose_lines([warned, "step 10 loss 2.31"]) == []
    assert [f.key for f in diagnose_lines([warned, "Traceback (most recent call last):"])][:1] == ["rdma-core-abi"]


def test_nccl_retrying_a_connection_in_a_run_that_went_on_is_no_cause() -> None:
    """NCCL retries a refused connection (v2.30.7-1 src/os/linux.cc line 293, INFO) while the peer starts: only a
    run that then failed makes the retries a cause."""
    retry = ("gpu-a-017:2741:2790 [0] NCCL INFO socketPollConnect: connect to 10.1.0.18<43117> returned Connection "
             "refused, retrying (1/34) after sleep for 100 msec")
    assert diagnose_lines([retry, "step 10 loss 2.31"]) == []


@pytest.mark.parametrize("errno,keys", [(38, ["hdf5-file-locking-unsupported"]),
                                        (524, ["hdf5-file-locking-unsupported"]), (11, [])])
def test_an_hdf5_lock_is_a_cause_only_where_the_file_system_cannot_lock(errno, keys) -> None:
    """EAGAIN (11) is another process holding the file, which says nothing about the file system."""
    line = f"OSError: Unable to open file (unable to lock file, errno = {errno}, error message = '...')"
    assert [f.key for f in diagnose_lines([line])] == keys


def test_the_drivers_own_library_missing_is_not_read_as_a_missing_cuda_toolkit() -> None:
    """libcuda.so.1 comes with the driver (the host's, bound in by --nv): its absence is another cause."""
    keys = [f.key for f in diagnose_lines(["OSError: libcuda.so.1: cannot open shared object file: No such file"])]
    assert "cuda-library-missing" not in keys and keys[0] == "apptainer-no-nv"


def test_bridge_interfaces_nccl_lists_in_a_run_whose_network_calls_did_not_fail_are_no_cause() -> None:
    """NCCL lists Docker bridges and veth pairs on many workstations; only its network calls failing makes them one."""
    listed = ("ws:115664:115664 [0] NCCL INFO NET/Socket : Using [0]enp68s0:99.153.71.9<0> "
              "[1]br-59eaa4e42ac2:172.18.0.1<0> [2]cali1076d8e8af2:fe80::ecee:eeff:feee:eeee%cali1076d8e8af2<0>")
    assert diagnose_lines([listed, "Traceback (most recent call last):", "torch.OutOfMemoryError: CUDA out of "
                           "memory. Tried to allocate 2.00 GiB"])[0].key != "nccl-connect"
    assert diagnose_lines([listed, "Epoch 1: 100%"]) == []
    assert [f.key for f in diagnose_lines([listed, "ncclSystemError: System call (socket, malloc, munmap, etc) "
                                           "failed."])][:1] == ["nccl-connect"]


def test_a_cgroup_controller_not_enabled_in_a_slurmd_that_started_is_no_cause() -> None:
    """Slurm 25.11.7 cgroup_v2.c line 551 "Controller %s is not enabled!" is the cause only where the plugin then
    failed to initialise (line 1838 "%s cgroup controller is not available.", slurmd's fatal)."""
    lines = ["slurmd: error: Controller io is not enabled!", "slurmd: slurmd version 25.11.7 started",
             "slurmd: slurmd started on Mon, 30 Nov 2026 04:30:11 +0000"]
    assert [f.key for f in diagnose_lines(lines)] == []



def test_a_step_refusal_srun_wraps_over_two_lines_is_the_steps_size() -> None:
    """srun's "Unable to create step for job %u: %m" (Slurm 25.11.7 src/srun/launch.c line 1258) cut where a
    terminal or a page wraps it."""
    for lines in (["srun: error: Unable to create step for job 234123: More processors requested", "than permitted"],
                  ["srun: error: Unable to create step for job 234123: Memory required ", "by task is not available"]):
        assert [f.key for f in diagnose_lines(lines)][:1] == ["srun-step-exceeds-allocation"], lines


def test_ucx_registration_enomem_is_the_limit_only_where_ucx_says_so() -> None:
    """UCX appends "Please set max locked memory" to ibv_reg_mr's ENOMEM whenever the limit is finite (v1.5 to
    v1.19): the bare line is another exhaustion, and only a failed send or run makes it a cause."""
    bare = ("[1613401128.440695] [nid001192:11838:0] ib_md.c:325 UCX ERROR ibv_reg_mr(address=0xabcf12c0, "
            "length=26400, access=0xf) failed: Cannot allocate memory")
    assert diagnose_lines([bare, "step 100 loss 2.31"]) == []
    failed = "Fatal error in PMPI_Isend: Other MPI error, error stack:"
    keys = [f.key for f in diagnose_lines([bare, failed])]
    assert keys[:1] == ["ucx-ib-memory-registration-enomem-reg-methods"] and "memlock-too-low" not in keys
    advised = bare + ". Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 kbytes)"
    assert [f.key for f in diagnose_lines([advised, failed])][:1] == ["memlock-too-low"]


def test_rccls_iommu_warning_is_a_cause_only_beside_its_failed_ipc_handle() -> None:
    """RCCL warns at every init on a node without iommu=pt; the warning alone is a healthy run, and an IPC failure
    on a node where RCCL did not warn (iommu=pt is set) is not this cause."""
    warned = ('gpu-a-017:2741:2741 [0] NCCL WARN Missing "iommu=pt" from kernel command line which can lead to '
              "system instablity or hang!")
    failed = "gpu-a-017:2741:2790 [0] NCCL WARN hipIpcGetMemHandle failed : invalid argument"
    assert diagnose_lines([warned, "step 100 loss 2.31"]) == []
    assert "amd-iommu-not-passthrough" not in [f.key for f in diagnose_lines([failed])]
    assert [f.key for f in diagnose_lines([warned, failed])][:1] == ["amd-iommu-not-passthrough"]


def test_a_plugin_the_spank_stack_could_not_load_is_the_stack_and_a_launch_timeout_is_the_launch() -> None:
    """The general readings of Slurm's errno strings rank below the failures whose own lines name where they
    happened: a SPANK stack that failed over a plugin of another release, a task launch that timed out on a node."""
    spank = ["srun: error: spank: /usr/local/lib/slurm/spank_pyxis.so: Incompatible plugin version",
             "srun: error: Plug-in initialization failed"]
    assert diagnose_lines(spank)[0].key == "slurm-spank-plugin-failed"
    launch = ["srun: error: slurm_receive_msgs: [[gpu-a-018]:6818] failed: Socket timed out on send/recv operation",
              "srun: error: Task launch for StepId=34.0 failed on node gpu-a-018: Socket timed out on send/recv "
              "operation"]
    assert diagnose_lines(launch)[0].key == "slurm-task-launch-failed"
