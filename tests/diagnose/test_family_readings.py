"""The readings that depend on what else the log holds, for the failure families read from the components' sources
(tests/diagnose/component_source_lines.py quotes each message): when the same line is a cause, when it is not, and
which of two causes that fit comes first."""

from __future__ import annotations

from app.host.diagnose import diagnose_lines

TRACEBACK = "Traceback (most recent call last):"


def keys(lines: list[str]) -> list[str]:
    return [finding.key for finding in diagnose_lines(lines)]


def test_a_log_pasted_with_typographic_quotes_reads_as_the_program_printed_it() -> None:
    """Chats, wikis and word processors turn ' into ’: Apptainer's "mount source %s doesn't exist" must still match."""
    pasted = ("FATAL:   container creation failed: mount /etc/localtime->/etc/localtime error: while mounting "
              "/etc/localtime: mount source /etc/localtime doesn\u2019t exist")
    assert keys([pasted]) == ["mount-source-missing"]
    assert diagnose_lines([pasted])[0].evidence[0].text.endswith("doesn't exist")


def test_no_space_while_enroot_starts_the_container_is_enroot_s_space_not_the_job_s() -> None:
    """A hook that failed after ENOSPC: the container never started, so enroot's data path is what is full."""
    start = ["sed: couldn't close stdout: No space left on device",
             "[ERROR] /etc/enroot/hooks.d/10-shadow.sh exited with return code 4"]
    assert keys(start)[:2] == ["pyxis-runtime-full", "disk-full"]
    # The same ENOSPC in a job whose container started and whose training filled the disk is the job's.
    training = [TRACEBACK, "OSError: [Errno 28] No space left on device: '/scratch/u/ckpt/step_900.pt'",
                "pyxis: imported docker image: nvcr.io#nvidia/pytorch:24.05-py3"]
    assert keys(training) == ["disk-full"]


def test_apptainer_s_container_process_on_enospc_is_the_user_namespace_limit_not_a_full_disk() -> None:
    assert keys(["ERROR  : Failed to create container process: No space left on device"]) == ["userns-restricted"]


def test_deepspeed_s_local_only_warning_is_a_cause_when_the_process_group_then_failed() -> None:
    warned = ("[WARNING] [runner.py:178:fetch_hostfile] Unable to find hostfile, will proceed with training with "
              "local resources only.")
    assert keys([warned, "step 10 loss 2.31"]) == []
    failed = [warned, TRACEBACK, '  File "/opt/conda/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py"'
              ", line 595, in init_process_group", "    store, rank, world_size = next(rendezvous_iterator)"]
    assert keys(failed) == ["deepspeed-no-hostfile"]


def test_an_errno_of_a_missing_lock_is_a_cause_only_where_the_log_shows_a_lock_call() -> None:
    enosys = "OSError: [Errno 38] Function not implemented"
    assert keys([TRACEBACK, "    os.sched_setaffinity(0, cpus)", enosys]) == []
    assert keys([TRACEBACK, "    fcntl.lockf(dump, fcntl.LOCK_EX)", enosys]) == ["file-locks-unsupported"]


def test_fuse_s_unknown_option_is_enroot_s_fuse_tools_only_where_enroot_could_not_mount() -> None:
    unknown = "[WARN] fuse: unknown option `uid=2039'"
    assert keys([unknown]) == []
    assert keys([unknown, "[ERROR] Failed to mount: /home/u/ubuntu.sqsh"]) == ["enroot-fuse-tools-unsupported"]


def test_nccl_going_on_without_nvls_is_no_failure() -> None:
    """NCCL 2.27 and later print the bind failure as INFO and go on where NVLS was not forced (src/transport/nvls.cc
    line 288): only the WARN fails the communicator."""
    info = ("gpu-a-017:2741:2790 [0] NCCL INFO Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : "
            "CUDA error 401 'the operation cannot be performed in the present state'. Proceeding without NVLS support.")
    assert keys([info, "step 10 loss 2.31"]) == []


def test_a_required_spank_plugin_that_failed_for_its_own_reason_is_not_the_plugin_stack() -> None:
    """pyxis is a SPANK plugin: its task_init failure is reported by the stack, but the container is the cause."""
    lines = ["slurmstepd: error: pyxis: container start failed with error code: 1",
             "slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1",
             "slurmstepd: error: Failed to invoke spank plugin stack"]
    assert "slurm-spank-plugin-failed" not in keys(lines)


def test_ucx_errors_in_a_run_that_went_on_are_no_verdict() -> None:
    """UCX logs an ERROR for a device it cannot use and goes on with its other transports (the run completes)."""
    cq = ("[1668693503.473099] [node1:1188443:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq() failed: "
          "Cannot allocate memory.")
    assert keys([cq, "# Size       Avg Latency(us)", "1                       0.23"]) == []
    unreachable = ("[1619044902.015564] [node1:33810:0]           sock.c:261  UCX  ERROR connect(fd=23, "
                   "dest_addr=127.0.0.1:47793) failed: Connection refused")
    failed = "[1619044902.015588] [node1:33810:0]        libperf.c:1238 UCX  ERROR ucp_ep_create() failed: " \
             "Destination is unreachable"
    assert keys([unreachable, failed]) == ["layer-ucx-error"]


def test_locks_that_were_acquired_are_no_wait() -> None:
    tries = [f"DEBUG: Attempting to acquire lock 14019200992{i} on /home/u/.triton/x.pickle.lock" for i in range(3)]
    assert keys(tries) == ["layer-file-lock-wait"]
    assert keys([*tries, "DEBUG: Lock 140192009920 acquired on /home/u/.triton/x.pickle.lock"]) == []
    assert keys(tries[:2]) == []


def test_a_libfabric_domain_refused_with_enosys_is_a_missing_vni_only_on_slingshot() -> None:
    """cxi's domain open returns -FI_ENOSYS when the NIC holds no service for the process (no VNI granted);
    other providers have other reasons for it."""
    refused = ("gpu-a-017:88123:88190 [0] NCCL WARN NET/OFI Couldn't open a fabric access domain. RC: -38, ERROR: "
               "Function not implemented")
    assert "cxi-vni-not-granted" not in keys([refused])
    on_slingshot = "gpu-a-017:88123:88190 [0] NCCL INFO NET/OFI Selected provider is cxi, fabric is cxi (found 4 nics)"
    assert keys([on_slingshot, refused])[:1] == ["cxi-vni-not-granted"]


def test_a_spank_plugin_that_did_not_load_is_a_cause_only_where_the_stack_failed() -> None:
    """An optional plugin's load error is logged and the job goes on (the error that follows is the job's)."""
    optional = "srun: error: spank: x11.so: Plugin file not found"
    assert "slurm-spank-plugin-failed" not in keys([optional, "PMI2_Init failed to intialize.  Return code: 1"])
    assert keys([optional, "srun: error: Plug-in initialization failed"]) == ["slurm-spank-plugin-failed"]


def test_a_provider_name_libfabric_does_not_know_is_a_cause_only_where_no_provider_was_found() -> None:
    """libfabric warns of every unknown name in FI_PROVIDER, an exclusion (`^psm3`) or FI_LOG_PROV's too: harmless
    where the network then started."""
    unknown = ("libfabric:2741:1700000000::core:core:verify_filter_names():613<warn> provider cxi is unknown, "
               "misspelled or DL provider?")
    failed = ("nid001:2741:2790 [0] nccl_ofi_rdma.cpp:7282 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data "
              "available")
    assert keys([unknown, failed])[0] == "fi-provider-not-in-libfabric"
    started = "nid001:2741:2790 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct"
    assert keys([unknown, started]) == []
    assert "fi-provider-not-in-libfabric" not in keys(["export FI_PROVIDER='^cxi'", unknown, failed])
    # FI_PROVIDER=efa,cxi on a cxi build: the RDMA protocol's fi_getinfo() failed, the SENDRECV one found cxi.
    assert "fi-provider-not-in-libfabric" not in keys([unknown.replace("cxi", "efa"), failed, started])


def test_a_cxi_allocation_refused_for_another_reason_is_not_the_nic_s_limit() -> None:
    """Only the driver's -ENOSPC (-28) is a service limit reached; an -EINVAL is another fault."""
    assert keys(["libfabric:88123:1732790000::cxi:domain:cxip_pte_alloc_nomap():210<warn> nid001234: Failed to "
                 "allocate PTE: -22"]) == []

