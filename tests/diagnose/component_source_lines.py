"""The components' own statements for the messages app.diagnose reads, beside NCCL's (nccl_source_lines.py): each
quoted from the component's source at the version named (`git show TAG:PATH`, the statement starting at LINE),
not retyped from memory, with the log line it prints. tests/diagnose/test_component_messages.py checks that the
line is what the statement prints (its format, conversions filled) and that app.diagnose names the cause given.

Where a component publishes no source (the CUDA runtime's and NVML's error strings, the NVIDIA kernel module's
Xid line), `path` says where the string comes from and `line` is 0; where a file was read at a commit rather
than a tag, `version` names the commit. To refresh for a new version: `git grep -n` the message at the new tag
and add its row.
"""

from __future__ import annotations

from typing import NamedTuple


class Quote(NamedTuple):
    component: str
    version: str
    path: str
    line: int
    source: str
    """The statement as it stands in the file (continuation lines joined with a newline, dedented)."""
    printed: str
    """A line it prints, with sample values, as it appears in a job's log (with the program's prefix)."""
    cause: str
    """The cause (or layer verdict) app.diagnose must name first for `printed`."""
    context: tuple[str, ...] = ()
    """Other lines of the log the reading needs (the job's node count, a second rank's line)."""
    fmt: str = ""
    """The message's format when the statement holds it other than as a string literal (a macro's argument)."""


TWO_NODES = "SLURM_JOB_NUM_NODES=2"
#: How torch reports the failure a WARN line explains (ProcessGroupNCCL's watchdog, torch 2.4 to 2.13).
FAILED = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
          "ProcessGroupNCCL.cpp:2057, internal error - please report this issue to the NCCL developers, NCCL version "
          "2.21.5")
#: How Open MPI reports a rank that could not start (ompi/errhandler "*** An error occurred in %s").
MPI_FAILED = "*** An error occurred in MPI_Init"
TRACEBACK = "Traceback (most recent call last):"
#: nccl-tests' ranks on two GH200 nodes (v2.17.6 src/util.cu line 566).
GH200_RANKS = ("#  Rank  0 Group  0 Pid 206828 on   gpu-1-43 device  0 [0009:01:00] NVIDIA GH200 120GB",
               "#  Rank  4 Group  0 Pid 215832 on   gpu-1-47 device  0 [0009:01:00] NVIDIA GH200 120GB")
NCCL_WARN = "gpu-a-017:2741:2790 [0] {where} NCCL WARN "
NCCL_INFO = "gpu-a-017:2741:2790 [0] NCCL INFO "
#: An AWS EFA node, as NCCL's environment plugin or a job's export shows it.
EFA_NODE = "export FI_PROVIDER=efa LD_LIBRARY_PATH=/opt/amazon/efa/lib:/opt/amazon/openmpi/lib"

QUOTES = (
    # --- launchers and the scripts they start (round A) ---
    # The launcher appends the rank as an argument (torch.distributed.launch without --use-env, DeepSpeed's launcher
    # without --no_local_rank); a script whose argparse parser does not declare that spelling exits with status 2.
    Quote("CPython", "v3.11.7", "Lib/argparse.py", 1871,
          "msg = _('unrecognized arguments: %s')\nself.error(msg % ' '.join(argv))",
          "main.py: error: unrecognized arguments: --local-rank=0", "launcher-local-rank-argument-rejected",
          fmt="unrecognized arguments: %s"),
    Quote("CPython", "v3.11.7", "Lib/argparse.py", 2630,
          "self.exit(2, _('%(prog)s: error: %(message)s\\n') % args)",
          "train.py: error: unrecognized arguments: --local_rank=0", "launcher-local-rank-argument-rejected",
          fmt="%s: error: %s"),
    Quote("torch", "v2.13.0", "torch/distributed/run.py", 966,
          'cmd_args.append(f"--local-rank={macros.local_rank}")',
          "main.py: error: unrecognized arguments: --local-rank=1", "launcher-local-rank-argument-rejected"),
    Quote("torch", "v1.13.1", "torch/distributed/run.py", 720,
          'cmd_args.append(f"--local_rank={macros.local_rank}")',
          "train.py: error: unrecognized arguments: --local_rank=0", "launcher-local-rank-argument-rejected"),
    Quote("DeepSpeed", "v0.16.4", "deepspeed/launcher/launch.py", 246,
          'cmd.append(f"--local_rank={local_rank}")',
          "finetune.py: error: unrecognized arguments: --local_rank=3",
          "launcher-local-rank-argument-rejected"),
    # A rank killed with SIGKILL, as the launchers that started it report it.
    Quote("DeepSpeed", "v0.16.4", "deepspeed/launcher/launch.py", 325,
          'logger.error(f"{cmd} exits with return code = {last_return_code}")',
          "[2025-02-21 12:05:41,118] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', "
          "'finetune.py', '--local_rank=0', '--deepspeed', 'zero3.json'] exits with return code = -9", "rank-sigkill"),
    Quote("CPython", "v3.11.7", "Lib/argparse.py", 2142,
          "self.error(_('the following arguments are required: %s') %\n', '.join(required_actions))",
          "train.py: error: the following arguments are required: --local_rank",
          "script-requires-local-rank-argument", fmt="the following arguments are required: %s"),
    # Raised at line 1140 as ModuleNotFoundError(_ERR_MSG.format(name)), _ERR_MSG = _ERR_MSG_PREFIX + '{!r}'
    Quote("CPython", "v3.11.7", "Lib/importlib/_bootstrap.py", 1117,
          "_ERR_MSG_PREFIX = 'No module named '",
          "ModuleNotFoundError: No module named 'transformers'", "python-module-missing", fmt="No module named %s"),
    Quote("CPython", "v3.11.7", "Lib/subprocess.py", 142,
          "return \"Command '%s' died with %r.\" % (\nself.cmd, signal.Signals(-self.returncode))",
          "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' died with <Signals.SIGKILL: 9>.",
          "rank-sigkill", fmt="Command '%s' died with %s."),
    # MPICH's Hydra: the proxy on each host changes to the working directory and starts the program; its errors
    # carry the proxy's prefix "[proxy:%d:%d@HOST] " and "FUNCTION (FILE:LINE): " (src/pm/hydra/lib/hydra.h
    # HYDU_error_printf at v4.3.2).
    Quote("MPICH", "v4.3.2", "src/pm/hydra/proxy/pmip_cb.c", 872,
          'HYDU_ERR_SETANDJUMP(status, HYD_INTERNAL_ERROR,\n"unable to change wdir to %s (%s)\\n", exec->wdir,\n'
          "MPL_strerror(errno));",
          "[proxy:0:1@velascoj] launch_procs (proxy/pmip_cb.c:872): unable to change wdir to /home/edscott/temp (No "
          "such file or directory)", "mpirun-workdir-missing"),
    Quote("MPICH", "v3.2", "src/pm/hydra/pm/pmiserv/pmip_cb.c", 638,
          'HYDU_ERR_SETANDJUMP(status, HYD_INTERNAL_ERROR,\n"unable to change wdir to %s (%s)\\n", exec->wdir,\n'
          "HYDU_strerror(errno));",
          "[proxy:0:1@node2] launch_procs (./pm/pmiserv/pmip_cb.c:638): unable to change wdir to /scratch/local/run "
          "(No such file or directory)", "mpirun-workdir-missing"),
    Quote("MPICH", "v4.3.2", "src/pm/hydra/lib/utils/launch.c", 73,
          'HYDU_error_printf("execvp error on file %s (%s)\\n", client_arg[0], MPL_strerror(errno));',
          "[proxy:0:1@node2] HYDU_create_process (lib/utils/launch.c:73): execvp error on file /tmp/bench/a.out (No "
          "such file or directory)", "mpirun-executable-not-found"),
    # A Python script mpirun starts that is not at its path on a node (a file in the first node's /tmp).
    Quote("CPython", "3.11.7 (the format in libpython3.11.so.1.0; the statement from a stored copy, commit not "
          "recorded)", "Modules/main.c pymain_run_file_obj()", 0,
          'PySys_FormatStderr("%S: can\'t open file %R: [Errno %d] %s\\n",\n'
          "program_name, filename, errno, strerror(errno));",
          "python3: can't open file '/tmp/tmp4z0qonwy/mlps_collector.py': [Errno 2] No such file or directory",
          "mpirun-executable-not-found", context=("Primary job  terminated normally, but 1 process returned",),
          fmt="%s: can't open file %s: [Errno %d] %s"),
    Quote("Open MPI", "v4.1.6", "orte/mca/errmgr/base/help-errmgr-base.txt", 112,
          "%s job %s terminated normally, but %d %s. Per user-direction, the job has been aborted.",
          "Primary job  terminated normally, but 1 process returned", "mpirun-executable-not-found",
          context=("python3: can't open file '/tmp/tmp4z0qonwy/mlps_collector.py': [Errno 2] No such file or "
                   "directory",),
          fmt="%s job %s terminated normally, but %d %s"),
    # --- NCCL (beyond nccl_source_lines.py) -----------------------------------------------------------------------
    Quote("NCCL", "v2.23.4-1", "src/init.cc", 775,
          'WARN("Mismatched NCCL version detected : rank %d version %d rank %d version %d",\n'
          "i, comm->peerInfo[i].version, rank, comm->peerInfo[rank].version);",
          NCCL_WARN.format(where="init.cc:775") + "Mismatched NCCL version detected : rank 4 version 22304 rank 0 "
          "version 22105", "nccl-version-across-ranks"),
    Quote("NCCL", "v2.30.7-1", "src/init.cc", 1043,
          'WARN("Mismatched NCCL version detected : rank %d version %d rank %d version %d", '
          "i, comm->peerInfo[i].version,\nrank, comm->peerInfo[rank].version);",
          NCCL_WARN.format(where="init.cc:1043") + "Mismatched NCCL version detected : rank 1 version 23007 rank 0 "
          "version 22703", "nccl-version-across-ranks"),
    Quote("NCCL", "v2.21.5-1", "src/init.cc", 472,
          '#define VERSION_STRING "NCCL version " STR(NCCL_MAJOR) "." STR(NCCL_MINOR) "." STR(NCCL_PATCH) NCCL_SUFFIX '
          '"+cuda" STR(CUDA_MAJOR) "." STR(CUDA_MINOR)',
          NCCL_INFO + "NCCL version 2.21.5+cuda12.4", "versions-differ-across-nodes",
          context=(NCCL_INFO.replace("gpu-a-017", "gpu-a-018") + "NCCL version 2.18.1+cuda12.1", FAILED),
          fmt="NCCL version %d.%d.%d+cuda%d.%d"),
    Quote("NCCL", "v2.30.7-1", "src/misc/cudawrap.cc", 282,
          'INFO(NCCL_INIT, "cudaDriverVersion %d", driverVersion);',
          NCCL_INFO + "cudaDriverVersion 12080", "versions-differ-across-nodes",
          context=(NCCL_INFO.replace("gpu-a-017", "gpu-a-018") + "cudaDriverVersion 12020", FAILED)),
    # Before 2.21 IBV_INT_CHECK_RET_ERRNO printed strerror alone, no errno (name is "ibv_modify_qp").
    Quote("NCCL", "v2.18.5-1", "src/misc/ibvwrap.cc", 52,
          'WARN("Call to " name " failed with error %s", strerror(ret));',
          NCCL_WARN.format(where="misc/ibvwrap.cc:52") + "Call to ibv_modify_qp failed with error Connection timed out",
          "rail-only-fabric", fmt=" failed with error %s"),
    Quote("NCCL", "v2.18.5-1", "src/misc/ibvwrap.cc", 52,
          'WARN("Call to " name " failed with error %s", strerror(ret));',
          NCCL_WARN.format(where="misc/ibvwrap.cc:52") + "Call to ibv_modify_qp failed with error Invalid argument",
          "roce-gid-index", fmt=" failed with error %s"),
    # The link layer NCCL names per device: on RoCE a queue pair that times out is a GID the nodes cannot route.
    Quote("NCCL", "v2.18.5-1", "src/transport/net_ib.cc", 259,
          'snprintf(line+strlen(line), 1023-strlen(line), " [%d]%s:%d/%s", d, ncclIbDevs[d].devName,\n'
          'ncclIbDevs[d].port, ncclIbDevs[d].link == IBV_LINK_LAYER_INFINIBAND ? "IB" : "RoCE");',
          NCCL_INFO + "NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.17<0>", "roce-gid-index",
          context=(NCCL_WARN.format(where="misc/ibvwrap.cc:52")
                   + "Call to ibv_modify_qp failed with error Connection timed out",)),
    # NCCL before 2.21: the error strings torch quotes, without "(run with NCCL_DEBUG=INFO for details)".
    Quote("NCCL", "v2.14.3-1", "src/init.cc", 1520,
          'case ncclInternalError          : return "internal error";',
          "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
          "1275, internal error, NCCL version 2.14.3", "layer-nccl-internal"),
    Quote("NCCL", "v2.14.3-1", "src/init.cc", 1518,
          'case ncclUnhandledCudaError     : return "unhandled cuda error";',
          "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled cuda "
          "error, NCCL version 2.14.3", "layer-gpu-error"),
    Quote("NCCL", "v2.18.5-1", "src/include/checks.h", 16,
          'WARN("Cuda failure \'%s\'", cudaGetErrorString(err));',
          NCCL_WARN.format(where="init.cc:426") + "Cuda failure 'operation not supported'", "layer-gpu-error"),
    Quote("NCCL", "v2.30.7-1", "src/include/cudawrap.h", 37,
          'WARN("Cuda failure %d \'%s\'", err, errStr);',
          NCCL_WARN.format(where="transport/nvls.cc:223") + "Cuda failure 999 'unknown error'",
          "fabric-manager-restarted"),
    Quote("NCCL", "v2.30.7-1", "src/include/cudawrap.h", 37,
          'WARN("Cuda failure %d \'%s\'", err, errStr);',
          NCCL_WARN.format(where="transport/p2p.cc:391") + "Cuda failure 999 'unknown error'", "layer-gpu-error"),
    # The driver API's check (cuMem calls) with CUDA's 217: NCCL's p2p transport peers only GPUs that can
    # (cudaDeviceCanAccessPeer) and words its own refusal "failed to peer with device"; the cuMem host memory
    # of the shm transport does not ask first. torch repeats the line under "Last error:" without its location.
    Quote("NCCL", "v2.30.7-1", "src/include/cudawrap.h", 37,
          'WARN("Cuda failure %d \'%s\'", err, errStr);',
          "Cuda failure 217 'peer access is not supported between these two devices'", "cumem-host-no-p2p",
          context=("ncclUnhandledCudaError: Call to CUDA function failed.", "Last error:")),
    Quote("NCCL", "v2.21.5-1", "src/include/alloc.h", 186,
          'if (*ptr == nullptr) WARN("Failed to CUDA calloc %ld bytes", nelem*sizeof(T));',
          NCCL_WARN.format(where="alloc.h:186") + "Failed to CUDA calloc 2097152 bytes", "cuda-oom"),
    Quote("NCCL", "v2.30.7-1", "src/include/alloc.h", 493,
          'if (*ptr == nullptr && nelem > 0) WARN("Failed to CUDA calloc %ld bytes", nelem * ncclSizeOfT<T>());',
          NCCL_WARN.format(where="alloc.h:493") + "Failed to CUDA calloc 2097152 bytes", "cuda-oom"),
    Quote("NCCL", "v2.21.5-1", "src/init.cc", 2261,
          'case ncclSystemError            : return "unhandled system error (run with NCCL_DEBUG=INFO for details)";',
          "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:"
          "268, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
          "layer-fabric-error"),
    Quote("NCCL", "v2.30.7-1", "src/init.cc", 3429,
          'case ncclRemoteError:\nreturn "remote process exited or there was a network error";',
          "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:"
          "77, remote process exited or there was a network error, NCCL version 2.27.5",
          "layer-fabric-error"),
    Quote("NCCL", "v2.30.7-1", "src/init.cc", 3419,
          'case ncclUnhandledCudaError:\nreturn "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";',
          "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:"
          "77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.27.5",
          "layer-gpu-error"),
    Quote("NCCL", "v2.21.5-1", "src/init.cc", 1160,
          'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",\n'
          "comm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);",
          NCCL_INFO + "comm 0x55d0c0ffee00 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL 0",
          "layer-one-node-only", context=(TWO_NODES,)),

    Quote("NCCL", "v2.21.5-1", "src/transport/net_ib.cc", 413,
          'if (userIbEnv != NULL && shownIbHcaEnv++ == 0) INFO(NCCL_NET|NCCL_ENV, "NCCL_IB_HCA set to %s", userIbEnv);',
          NCCL_INFO + "NCCL_IB_HCA set to mlx5_0:1,mlx5_3:1", "ib-hca-filter-empty",
          context=(NCCL_INFO + "NET/IB : No device found.",)),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_ib/init.cc", 470,
          'INFO(NCCL_INIT | NCCL_NET, "NET/IB : No device found.");',
          NCCL_INFO + "NET/IB : No device found.", "ib-hca-filter-empty",
          context=(NCCL_INFO + "NCCL_IB_HCA set to =mlx5_8",)),

    Quote("NCCL", "v2.21.5-1", "src/misc/socket.cc", 30,
          'WARN("socketProgressOpt: Call to recv from %s failed : %s", ncclSocketToString(&sock->addr, line), '
          "strerror(errno));",
          NCCL_WARN.format(where="misc/socket.cc:30") + "socketProgressOpt: Call to recv from 10.0.1.18<54212> "
          "failed : Connection reset by peer", "layer-fabric-error", context=(FAILED,)),
    Quote("NCCL", "v2.30.7-1", "src/misc/socket.cc", 58,
          'WARN("socketProgress: Connection closed by remote peer %s",\n'
          "ncclSocketToString(&sock->addr, line, /*numericHostForm*/ 0));",
          NCCL_WARN.format(where="misc/socket.cc:58") + "socketProgress: Connection closed by remote peer "
          "gpu-a-018<40122>", "layer-fabric-error", context=(FAILED,)),

    Quote("NCCL", "v2.26.6-1", "src/transport/net_ib.cc", 1337,
          'WARN("NET/IB : Attempted to connect incompatible devices: [%d]%s:%d/%s and [%d]%s:%d/%s. Try selecting '
          'NICs of only one link type using NCCL_IB_HCA",',
          NCCL_WARN.format(where="transport/net_ib.cc:1337") + "NET/IB : Attempted to connect incompatible devices: "
          "[0]mlx5_0:1/IB and [1]mlx5_bond_0:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA",
          "ib-link-layers-mixed"),
    Quote("NCCL", "v2.26.6-1", "src/transport/net_ib.cc", 1376,
          'WARN("NET/IB : Remote %s device is incompatible with the local [%d]%s:%d/%s. Try selecting NICs of only '
          'one link type using NCCL_IB_HCA",',
          NCCL_WARN.format(where="transport/net_ib.cc:1376") + "NET/IB : Remote RoCE device is incompatible with the "
          "local [0]mlx5_0:1/IB. Try selecting NICs of only one link type using NCCL_IB_HCA", "ib-link-layers-mixed"),
    Quote("NCCL", "v2.27.7-1", "src/transport/net_ib.cc", 588,
          'WARN("NET/IB : Attempted to merge incompatible devices: [%d]%s:%d/%s and [%d]%s:%d/%s. Try selecting NICs '
          'of only one link type using NCCL_IB_HCA",',
          NCCL_WARN.format(where="transport/net_ib.cc:588") + "NET/IB : Attempted to merge incompatible devices: "
          "[0]mlx5_0:1/IB and [4]mlx5_4:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA",
          "ib-link-layers-mixed"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_ib/connect.cc", 987,
          'WARN("NET/IB : Attempted to connect incompatible devices: [%d]%s:%d/%s and [%d]%s:%d/%s. Try selecting '
          'NICs of "\n"only one link type using NCCL_IB_HCA",',
          NCCL_WARN.format(where="transport/net_ib/connect.cc:987") + "NET/IB : Attempted to connect incompatible "
          "devices: [0]mlx5_0:1/IB and [1]mlx5_bond_0:1/RoCE. Try selecting NICs of only one link type using "
          "NCCL_IB_HCA", "ib-link-layers-mixed"),
    Quote("NCCL", "v2.18.1-1", "src/graph/paths.cc", 324,
          'WARN("P2P is disabled between NVLINK connected GPUs %d and %d. This should not be the case given their '
          'connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set '
          'NCCL_IGNORE_DISABLED_P2P=1.", indexes[i-1], indexes[i-0]);',
          NCCL_WARN.format(where="graph/paths.cc:324") + "P2P is disabled between NVLINK connected GPUs 1 and 3. This "
          "should not be the case given their connectivity, and is probably due to a hardware issue. If you still "
          "want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.", "nvlink-p2p-disabled"),
    Quote("NCCL", "v2.30.7-1", "src/graph/paths.cc", 396,
          'WARN("P2P is disabled between NVLINK connected GPUs %d and %d. This should not be the case given their "\n'
          '"connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set "\n'
          '"NCCL_IGNORE_DISABLED_P2P=1.",\nindexes[i - 1], indexes[i - 0]);',
          NCCL_WARN.format(where="graph/paths.cc:396") + "P2P is disabled between NVLINK connected GPUs 0 and 1. This "
          "should not be the case given their connectivity, and is probably due to a hardware issue. If you still "
          "want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.", "nvlink-p2p-disabled"),
    # The same WARN on master from the v2.30 development commit b3aeda4 (ranks may share a GPU) to the fix 04cdb80,
    # released in v2.30.3-1: the check compared topology indices, so two ranks of one GPU got NVML's P2P status of
    # the GPU with itself, and the WARN names the same device twice.
    Quote("NCCL", "commit b3aeda4", "src/graph/paths.cc", 375,
          'WARN("P2P is disabled between NVLINK connected GPUs %d and %d. This should not be the case given their '
          'connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set '
          'NCCL_IGNORE_DISABLED_P2P=1.", indexes[i-1], indexes[i-0]);',
          NCCL_WARN.format(where="graph/paths.cc:375") + "P2P is disabled between NVLINK connected GPUs 0 and 0. This "
          "should not be the case given their connectivity, and is probably due to a hardware issue. If you still "
          "want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.",
          "nccl-multi-rank-per-gpu-false-p2p-disabled-check"),
    Quote("NCCL", "v2.21.5-1", "src/transport/p2p.cc", 309,
          'WARN("failed to peer with device %d(=%lx): %d %s",\npeerInfo->cudaDev, peerInfo->busId, err, '
          "cudaGetErrorString(err));",
          NCCL_WARN.format(where="transport/p2p.cc:309") + "failed to peer with device 1(=1c000): 217 peer access is "
          "not supported between these two devices", "p2p-peer-access-refused"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net.cc", 476,
          'WARN("failed to peer with device %d: %d %s", map->cudaDev, err, cudaGetErrorString(err));',
          NCCL_WARN.format(where="transport/net.cc:476") + "failed to peer with device 3: 711 peer mapping resources "
          "exhausted", "p2p-peer-access-refused"),
    Quote("NCCL", "v2.25.1-1", "src/mnnvl.cc", 69,
          'WARN("MNNVL (cliqueSize %d) is available but not supported on this system. Check the IMEX configuration.",'
          "\ncomm->clique.size);",
          NCCL_WARN.format(where="mnnvl.cc:69") + "MNNVL (cliqueSize 72) is available but not supported on this "
          "system. Check the IMEX configuration.", "mnnvl-imex-not-working"),
    Quote("NCCL", "v2.27.7-1", "src/mnnvl.cc", 63,
          'WARN("MNNVL (cliqueSize %d) is available but not working on this system. Check the IMEX channel '
          'configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.",',
          NCCL_WARN.format(where="mnnvl.cc:63") + "MNNVL (cliqueSize 72) is available but not working on this "
          "system. Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 "
          "to ignore this issue.", "mnnvl-imex-not-working"),
    Quote("NCCL", "v2.30.7-1", "src/mnnvl.cc", 86,
          'WARN("MNNVL (cliqueSize %d) is available but not working on this system. Check the IMEX configuration "\n'
          '"(nvidia-imex-ctl -N). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.",',
          NCCL_WARN.format(where="mnnvl.cc:86") + "MNNVL (cliqueSize 4) is available but not working on this system. "
          "Check the IMEX configuration (nvidia-imex-ctl -N). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.",
          "mnnvl-imex-not-working"),
    Quote("NCCL", "v2.24.3-1", "src/ras/ras.cc", 391,
          'WARN("NCCL version mismatch with remote peer %s (local: %d, remote %d)",',
          NCCL_WARN.format(where="ras/ras.cc:391") + "NCCL version mismatch with remote peer 10.0.1.18<28028> "
          "(local: 22403, remote 22105)", "nccl-version-across-ranks"),
    Quote("NCCL", "v2.30.7-1", "src/ras/ras.cc", 415,
          'WARN("NCCL version mismatch with remote peer %s (local: %s, remote %s)",',
          NCCL_WARN.format(where="ras/ras.cc:415") + "NCCL version mismatch with remote peer 10.0.1.18<28028> "
          "(local: 2.30.7, remote 2.27.5)", "nccl-version-across-ranks"),
    Quote("NCCL", "v2.30.7-1", "src/init.cc", 1339,
          'WARN("Detected mixed local Net device counts across ranks (min %d, max %d). Set NCCL_IGNORE_NET_MISMATCH=1 '
          'to "\n"continue.",',
          NCCL_WARN.format(where="init.cc:1339") + "Detected mixed local Net device counts across ranks (min 3, "
          "max 4). Set NCCL_IGNORE_NET_MISMATCH=1 to continue.", "net-device-count-differs"),
    Quote("NCCL", "v2.18.1-1", "src/bootstrap.cc", 126,
          'WARN("Bootstrap Root : mismatch in rank count from procs %d : %d", nranks, info.nranks);',
          NCCL_WARN.format(where="bootstrap.cc:126") + "Bootstrap Root : mismatch in rank count from procs 8 : 16",
          "ranks-disagree-on-size"),
    Quote("NCCL", "v2.23.4-1", "src/bootstrap.cc", 310,
          'WARN("Bootstrap Root : mismatch in info from procs, nranks %d vs %d, nroots %d vs %d, iroot %d vs %d", '
          "nranks, info.nranks, nroots, info.nroots, iroot, info.iroot);",
          NCCL_WARN.format(where="bootstrap.cc:310") + "Bootstrap Root : mismatch in info from procs, nranks 8 vs "
          "16, nroots 1 vs 1, iroot 0 vs 0", "ranks-disagree-on-size"),
    Quote("NCCL", "v2.30.7-1", "src/bootstrap.cc", 335,
          'WARN("Bootstrap Root : mismatch in info from procs, nranks %d vs %d, nroots %d vs %d, iroot %d vs %d, '
          'offset %d "\n"vs %d",',
          NCCL_WARN.format(where="bootstrap.cc:335") + "Bootstrap Root : mismatch in info from procs, nranks 8 vs "
          "16, nroots 1 vs 1, iroot 0 vs 0, offset 0 vs 0", "ranks-disagree-on-size"),
    Quote("NCCL", "v2.18.1-1", "src/transport/net_ib.cc", 193,
          'WARN("NET/IB : Unable to open device %s", devices[d]->name);',
          NCCL_WARN.format(where="transport/net_ib.cc:193") + "NET/IB : Unable to open device mlx5_0",
          "ib-device-not-accessible"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_ib/init.cc", 334,
          'WARN("NET/IB : Unable to open device %s", devices[d]->name);',
          NCCL_WARN.format(where="transport/net_ib/init.cc:334") + "NET/IB : Unable to open device mlx5_2",
          "ib-device-not-accessible"),

    # --- aws-ofi-nccl -----------------------------------------------------------------------------------------------
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_net.cpp", 584,
          'NCCL_OFI_WARN("EFA provider requires at least libfabric version 1.22.0.");',
          "ip-10-0-1-17:2741:2790 [0] nccl_ofi_net.cpp:584 NCCL WARN NET/OFI EFA provider requires at least "
          "libfabric version 1.22.0.", "efa-libfabric-too-old"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_net.cpp", 281,
          'NCCL_OFI_WARN("Unable to find a protocol that worked.  Failing initialization.");',
          "nid001:2741:2790 [0] nccl_ofi_net.cpp:281 NCCL WARN NET/OFI Unable to find a protocol that worked.  "
          "Failing initialization.", "no-fabric-provider"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_rdma.cpp", 7282,
          'NCCL_OFI_WARN("OFI fi_getinfo() call failed: %s", fi_strerror(ret));',
          "nid001:2741:2790 [0] nccl_ofi_rdma.cpp:7282 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data "
          "available", "no-fabric-provider"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_sendrecv.cpp", 606,
          'NCCL_OFI_WARN("Unable to register memory (type = %d) for device %d. RC: %d, Error: %s",',
          "ip-10-0-1-17:2741:2790 [0] nccl_ofi_sendrecv.cpp:606 NCCL WARN NET/OFI Unable to register memory "
          "(type = 2) for device 0. RC: -12, Error: Cannot allocate memory", "memlock-too-low"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/platform-aws.cpp", 752,
          'NCCL_OFI_WARN("GDR disabled on GDR-supported instance type %s", platform_data->name);',
          "ip-10-0-1-17:2741:2790 [0] platform-aws.cpp:752 NCCL WARN NET/OFI GDR disabled on GDR-supported instance "
          "type p5.48xlarge", "efa-gdr-unavailable"),

    # --- UCX (Open MPI's and NVSHMEM's InfiniBand transport) ------------------------------------------------------
    Quote("UCX", "commit a9aeeea", "src/uct/ib/base/ib_iface.c", 0,
          'ucs_error("ibv_create_cq(cqe=%d) failed: %m", cqe);',
          "[1700000000.123456] [gpu-a-017:2741:0]        ib_iface.c:640  UCX  ERROR ibv_create_cq(cqe=4096) failed: "
          "Cannot allocate memory", "memlock-too-low", context=(MPI_FAILED,)),
    # The interface's CQ alone: ucp_worker_add_resource_ifaces fails the worker when one interface does not open.
    Quote("UCX", "v1.12.0", "src/uct/ib/base/ib_iface.c", 1035,
          'ucs_error("ibv_create_cq(cqe=%d) failed: %m", cq_size);',
          "[1652739463.054681] [gpu-a-017:2741:0]        ib_iface.c:1035 UCX  ERROR ibv_create_cq(cqe=4096) failed: "
          "Cannot allocate memory", "memlock-too-low"),
    Quote("UCX", "v1.20.0", "src/uct/ib/base/ib_iface.c", 1363,
          "uct_ib_check_memlock_limit_msg(ibv_context, UCS_LOG_LEVEL_ERROR,\n"
          '"ibv_create_cq(cqe=%d)", cq_size);',
          "[1700000000.123456] [gpu-a-017:2741:0]          ib_log.c:246  UCX  ERROR mlx5_0: ibv_create_cq(cqe=4096) "
          "failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to 'unlimited' (current: 64 "
          "kbytes)", "memlock-too-low", fmt="ibv_create_cq(cqe=%d)"),
    Quote("UCX", "commit 249682b", "src/uct/ib/rdmacm/rdmacm_cm.c", 0,
          'ucs_error("ibv_create_cq() failed: %m");',
          "[1700000000.123456] [gpu-a-017:2741:0]     rdmacm_cm.c:120  UCX  ERROR ibv_create_cq() failed: Cannot "
          "allocate memory", "memlock-too-low", context=(MPI_FAILED,)),
    Quote("UCX", "commit 004eadf", "src/uct/ib/base/ib_md.c uct_ib_md_print_mem_reg_err_msg()", 0,
          'ucs_string_buffer_appendf(\n&msg, "%s(address=%p, length=%zu, access=0x%lx) failed: %s", title,\n'
          "address, length, access_flags, strerror(err));",
          "[1700000000.123456] [gpu-a-017:2741:0]          ib_md.c:293  UCX  ERROR ibv_reg_mr(address=0x7f3c00000, "
          "length=4194304, access=0xf) failed: Cannot allocate memory",
          # The line without UCX's "Please set max locked memory" advice: the limit was unlimited (see the rows of
          # UCX's registration below).
          "ucx-ib-memory-registration-enomem-reg-methods", context=(MPI_FAILED,)),

    # --- Open MPI's openib and usnic BTLs out of locked memory (Open MPI 1.x to 4.1, their verbs transports) --------
    # mca_btl_openib_show_init_error (v4.1.8 opal/mca/btl/openib/btl_openib.c line 155) shows [init-fail-no-mem] on
    # ENOMEM with the limit as getrlimit(RLIMIT_MEMLOCK) gives it ("%ld", or "unlimited" when the ENOMEM is another
    # limit than ulimit -l); usnic's check_reg_mem_basics (btl_usnic_component.c line 307) shows its text at 64 KiB
    # or less.
    Quote("Open MPI", "v4.1.8", "opal/mca/btl/openib/help-mpi-btl-openib.txt", 123,
          "  Memlock limit: %s",
          "     Memlock limit: 65536", "memlock-too-low", fmt="Memlock limit: %s"),
    Quote("Open MPI", "v1.6.5", "ompi/mca/btl/openib/help-mpi-btl-openib.txt", 119,
          "  Memlock limit: %s",
          "  Memlock limit: 32768", "memlock-too-low", fmt="Memlock limit: %s"),
    Quote("Open MPI", "v4.1.8", "opal/mca/btl/openib/help-mpi-btl-openib.txt", 115,
          "memlock limits are set too low.  For most HPC installations, the",
          "memlock limits are set too low.  For most HPC installations, the", "memlock-too-low",
          fmt="memlock limits are set too low.  For most HPC installations, the"),
    Quote("Open MPI", "v4.1.8", "opal/mca/btl/usnic/help-mpi-btl-usnic.txt", 86,
          'memory.  This typically can indicate that the "memlock" limits are set',
          'memory.  This typically can indicate that the "memlock" limits are set', "memlock-too-low",
          fmt='memory.  This typically can indicate that the "memlock" limits are set'),
    # The UD connection manager's verbs objects (udcm_module_init, btl_openib_connect_udcm.c): a completion channel,
    # two CQs and the registered buffers, each refused under a small locked-memory limit; BTL_VERBOSE (printed with
    # btl_base_verbose) prefixes "[node][[job,vpid],rank][file:line:function] " (ompi/mca/btl/base/btl_base_error.h).
    Quote("Open MPI", "v1.8.4", "ompi/mca/btl/openib/connect/btl_openib_connect_udcm.c", 567,
          'BTL_VERBOSE(("error creating ud send completion queue"));',
          "[binf316][[17980,1],0][../../../../../openmpi-1.8.4/ompi/mca/btl/openib/connect/btl_openib_connect_udcm.c:"
          "567:udcm_module_init] error creating ud send completion queue", "memlock-too-low"),
    Quote("Open MPI", "v1.8.4", "ompi/mca/btl/openib/connect/btl_openib_connect_udcm.c", 560,
          'BTL_VERBOSE(("error creating ud recv completion queue"));',
          "[node01][[4012,1],3][connect/btl_openib_connect_udcm.c:560:udcm_module_init] error creating ud recv "
          "completion queue", "memlock-too-low"),
    Quote("Open MPI", "v4.1.8", "opal/mca/btl/openib/connect/btl_openib_connect_udcm.c", 698,
          'BTL_VERBOSE(("error creating ud completion channel"));',
          "[node01][[4012,1],3][connect/btl_openib_connect_udcm.c:698:udcm_module_init] error creating ud completion "
          "channel", "memlock-too-low"),
    Quote("Open MPI", "v4.1.8", "opal/mca/btl/openib/connect/btl_openib_connect_udcm.c", 719,
          'BTL_VERBOSE(("error allocating cm buffers"));',
          "[node01][[4012,1],3][connect/btl_openib_connect_udcm.c:719:udcm_module_init] error allocating cm buffers",
          "memlock-too-low"),
    # Open MPI 1.8.0 to 1.8.4 constructed cm_recv_msg_queue (udcm line 620) only after those verbs objects, so a
    # udcm_module_init that failed on one of them went to udcm_module_finalize, whose OBJ_DESTRUCT (line 736) of
    # the unconstructed queue fails its assert (opal/class/opal_object.h line 368 assert(OPAL_OBJ_MAGIC_ID ==
    # ((opal_object_t *) (object))->obj_magic_id), OPAL_OBJ_MAGIC_ID line 133), in glibc's words
    # "%s%s%s:%u: %s%sAssertion `%s' failed." (assert/assert.c); 1.8.5 moved the construct first.
    Quote("Open MPI", "v1.8.4", "ompi/mca/btl/openib/connect/btl_openib_connect_udcm.c", 736,
          "OBJ_DESTRUCT(&m->cm_recv_msg_queue);",
          "hello_c: connect/btl_openib_connect_udcm.c:736: udcm_module_finalize: Assertion `((0xdeafbeedULL << 32) + "
          "0xdeafbeedULL) == ((opal_object_t *) (&m->cm_recv_msg_queue))->obj_magic_id' failed.", "memlock-too-low",
          fmt="&m->cm_recv_msg_queue"),

    # --- Open MPI's CUDA IPC (smcuda BTL) refused between two GPUs of a node ----------------------------------------
    # opal_show_help("help-mpi-common-cuda.txt", "cuIpcOpenMemHandle failed", ...) with CUDA's result (v4.1.8
    # opal/mca/common/cuda/common_cuda.c line 1158); 205 is CUDA_ERROR_MAP_FAILED (cuda.h), the peer GPU's memory not
    # mappable from this one (no peer path between them).
    Quote("Open MPI", "v1.8.8", "ompi/mca/common/cuda/help-mpi-common-cuda.txt", 72,
          "  cuIpcOpenMemHandle return value:   %d",
          "     cuIpcOpenMemHandle return value:   205", "p2p-peer-access-refused",
          fmt="cuIpcOpenMemHandle return value:   %d"),
    Quote("Open MPI", "v4.1.8", "opal/mca/common/cuda/help-mpi-common-cuda.txt", 87,
          "  cuIpcOpenMemHandle return value:  %d",
          "  cuIpcOpenMemHandle return value:  217", "p2p-peer-access-refused",
          fmt="cuIpcOpenMemHandle return value:  %d"),
    # --- Open MPI's shared-memory single copy (cross-memory attach) refused between two ranks of a node --------------
    # process_vm_readv/process_vm_writev failing with EPERM (errno 1): ranks in different user namespaces (one
    # container per rank) or ptrace forbidden. opal_output(0, ...) prefixes "[host:pid] ".
    Quote("Open MPI", "v4.1.8", "opal/mca/btl/vader/btl_vader_get.c", 98,
          'opal_output(0, "Read %ld, expected %lu, errno = %d\\n", (long)ret, (unsigned long)size, errno);',
          "[cn002:21512] Read -1, expected 6144, errno = 1", "cma-ptrace-denied-in-container", context=(MPI_FAILED,)),
    Quote("Open MPI", "v1.8.8", "ompi/mca/btl/vader/btl_vader_put.c", 83,
          'opal_output(0, "Wrote %ld, expected %lu, errno = %d\\n", (long)ret, (unsigned long)size, errno);',
          "[cn001:23947] Wrote -1, expected 9792, errno = 1", "cma-ptrace-denied-in-container", context=(MPI_FAILED,)),
    Quote("Open MPI", "v5.0.6", "opal/mca/smsc/cma/smsc_cma_module.c", 205,
          'OPAL_OUTPUT_VERBOSE((MCA_BASE_VERBOSE_ERROR, opal_smsc_base_framework.framework_output,\n'
          '"CMA read %ld, expected %lu, errno = %d\\n", (long) ret,\n(unsigned long) size, errno));',
          "[cn002:21512] CMA read -1, expected 6144, errno = 1", "cma-ptrace-denied-in-container",
          context=(MPI_FAILED,)),
    Quote("Open MPI", "v4.1.8", "opal/mca/btl/vader/help-btl-vader.txt", 130,
          "ERROR: Linux kernel CMA support was requested via the",
          "ERROR: Linux kernel CMA support was requested via the", "cma-ptrace-denied-in-container",
          fmt="ERROR: Linux kernel CMA support was requested via the"),
    # --- Open MPI 1.4 to 1.10's openib BTL could not start its async event thread (pthread_create failed) ---------
    Quote("Open MPI", "v1.4.5", "ompi/mca/btl/openib/btl_openib_component.c", 562,
          'BTL_ERROR(("Failed to create async event thread"));',
          "[node15.cluster][[8097,1],0][../../../../../ompi/mca/btl/openib/btl_openib_component.c:562:"
          "start_async_event_thread] Failed to create async event thread", "memlock-limit-lowered-without-reboot"),
    Quote("Open MPI", "v1.10.7", "ompi/mca/btl/openib/btl_openib_async.c", 711,
          'BTL_ERROR(("Failed to create async event thread"));',
          "[node15][[8097,1],3][btl_openib_async.c:711:start_async_event_thread] Failed to create async event thread",
          "memlock-limit-lowered-without-reboot"),
    # --- libfabric --------------------------------------------------------------------------------------------------
    Quote("libfabric", "v1.22.0", "prov/efa/src/efa_errno.h", 72,
          "_(13,\tLOCAL_ERROR_UNRESP_REMOTE,\tUnresponsive remote (detected locally))",
          "libfabric:12345:1700000000::efa:cq:efa_rdm_cq_proc_ibv_recv_rdma_with_imm_completion():312<warn> "
          "Unresponsive remote (detected locally)", "efa-unreachable",
          fmt="Unresponsive remote (detected locally)"),
    # Newer libfabric (2.x) names the receiver that never completed the handshake (status 4126); aws-ofi-nccl
    # prints the string in its "Request %p completed with error. RC: %d. Error: %d (%s)" line.
    Quote("libfabric", "commit 31557ab", "prov/efa/src/efa_errno.h", 0,
          "_(4126, UNESTABLISHED_RECV_UNRESP,\tUnresponsive receiver (reachable by EFA device but handshake failed))",
          "ip-10-0-1-17:2741:2790 [0] NCCL WARN NET/OFI Request 0x7f456c224810 completed with error. RC: 103. Error: "
          "4126 (Unresponsive receiver (reachable by EFA device but handshake failed) My EFA addr: "
          "fi_addr_efa://[fe80::c55:2eff:fe44:db5]:0:142160333", "efa-unreachable",
          fmt="Unresponsive receiver (reachable by EFA device but handshake failed)"),
    Quote("libfabric", "v1.22.0", "prov/efa/src/efa_strerror.c", 71,
          'help = "This error is detected locally. "\n'
          '"The connection status is unknown or was never established via "\n'
          '"handshake. This typically indicates one or more misconfigured "\n'
          '"EC2 instances; most often due to incorrect inbound/outbound "\n'
          '"security group rules and/or instances placed in different "\n"subnets. ',
          "libfabric:12345:1700000000::efa:cq:efa_show_help():84<warn> This error is detected locally. The "
          "connection status is unknown or was never established via handshake. This typically indicates one or "
          "more misconfigured EC2 instances; most often due to incorrect inbound/outbound security group rules "
          "and/or instances placed in different subnets. ", "efa-unreachable"),
    Quote("libfabric", "v1.22.0", "src/fabric.c", 1380,
          'FI_WARN(&core_prov, FI_LOG_CORE,\n"fi_getinfo: provider %s output empty list\\n",\n'
          "prov->provider->name);",
          "libfabric:12345:1700000000::core:core:fi_getinfo_():1380<warn> fi_getinfo: provider efa output empty list",
          "efa-on-slingshot", context=("nid001:2741:2790 [0] NCCL INFO NET/OFI Selected provider is cxi",
                                       "FI_PROVIDER=efa")),

    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_if.c", 217,
          'CXIP_WARN("Invalid VNI %d for %s and svc_id %d\\n",\nvni, iface->dev->info.device_name,\nrgroup_id);',
          "libfabric:2741:1700000000::cxi:core:cxip_get_if_domain():217<warn> nid001: Invalid VNI 1024 for cxi0 and "
          "svc_id 2", "cxi-vni-not-granted"),
    # cxip_gen_auth_key() (prov/cxi/src/cxip_info.c line 1507) returns -FI_ENOSYS when the NIC has no default
    # service (rgroup) for the process: no VNI was granted to it.
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_dom.c", 1766,
          'CXIP_WARN("cxip_gen_auth_key failed: %d:%s", ret,\nfi_strerror(-ret));',
          "libfabric:2741:1700000000::cxi:core:cxip_domain():1766<warn> nid001: cxip_gen_auth_key failed: "
          "-38:Function not implemented", "cxi-vni-not-granted"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_if.c", 154,
          'CXIP_WARN("Failed to open CXI Device, ret: %d\\n", ret);',
          "libfabric:2741:1700000000::cxi:core:cxip_get_if():154<warn> nid001: Failed to open CXI Device, ret: -2",
          "no-fabric-provider"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_msg_hpc.c", 30,
          '#define FC_SW_ONLOAD_MSG_FATAL "LE resources not recovered during "\\\n"flow control. '
          'FI_CXI_RX_MATCH_MODE=[hybrid|software] is required\\n"',
          "libfabric:48213:1732790000::cxi:core:cxip_ux_onload_cb():2659<warn> nid001017: RXC (0x1a2:0) PtlTE "
          "12:[Fatal] LE resources not recovered during flow control. FI_CXI_RX_MATCH_MODE=[hybrid|software] is "
          "required", "cxi-match-entries-exhausted"),
    # No SLINGSHOT_VNIS/SLINGSHOT_SVC_IDS from the launcher and no CXI service the user may use: the provider
    # records service 0, which cxip_gen_auth_key() then refuses with -FI_ENOSYS (cxip_info.c line 1525).
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_nic.c", 252,
          'CXIP_WARN("Failed to find valid default rgroup and vni for %s\\n",\nnic_if->info->device_name);',
          "libfabric:2741:1700000000::cxi:fabric:cxip_nic_get_rgroup_vni():252<warn> nid001: Failed to find valid "
          "default rgroup and vni for cxi0", "cxi-vni-not-granted"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_nic.c", 220,
          'CXIP_WARN("No valid VNIs for %s service ID %u\\n",\nnic_if->info->device_name, i);',
          "libfabric:2741:1700000000::cxi:fabric:cxip_nic_get_best_rgroup_vni():220<warn> nid001: No valid VNIs for "
          "cxi0 service ID 3", "cxi-vni-not-granted"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_dom.c", 452,
          'CXIP_WARN("cxil_get_svc with %s and svc_id %d failed: %d:%s\\n",\n'
          "dom->iface->dev->info.device_name,\ndom->auth_key.svc_id, ret, strerror(-ret));",
          "libfabric:2741:1700000000::cxi:domain:cxip_domain_enable():452<warn> nid001: cxil_get_svc with cxi0 and "
          "svc_id 5 failed: -22:Invalid argument", "cxi-vni-not-granted"),
    # The NIC's hardware event queue dropped events (it was full); the provider aborts the process.
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_evtq.c", 406,
          'CXIP_WARN("EQ %d dropped event, rsvd slots %u, free slots %u\\n",\nevtq->eq->eqn,\n'
          "evtq->eq->status->event_slots_rsrvd,\nevtq->eq->status->event_slots_free);",
          "libfabric:48213:1732790000::cxi:cq:cxip_evtq_progress():406<warn> nid001017: EQ 41 dropped event, rsvd "
          "slots 0, free slots 0", "cxi-event-queue-overflow"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_evtq.c", 410,
          'CXIP_FATAL("H/W Event Queue overflow detected.\\n");',
          "libfabric:48213:1732790000::cxi:core:cxip_evtq_progress():410<warn> nid001017: H/W Event Queue overflow "
          "detected.", "cxi-event-queue-overflow"),
    # A send to a peer whose NIC holds no match for the job's VNI: cxi's own warning (proverr2errno() turns
    # C_RC_VNI_NOT_FOUND, 25, into FI_ENOTCONN) and aws-ofi-nccl's line for the same completion error, whose
    # string is fi_cq_strerror(), cxi's cxi_rc_to_str().
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_msg.c", 663,
          'TXC_WARN(txc, "Request dest_addr: %ld caddr.nic: %#X caddr.pid: %u error: %p (err: %d, %s)\\n",\n'
          "req->send.dest_addr, req->send.caddr.nic,\nreq->send.caddr.pid, req, ret_err,\n"
          "cxi_rc_to_str(req->send.rc));",
          "libfabric:88123:1732790000::cxi:ep_data:cxip_report_send_completion():663<warn> nid001234: TXC (0x19d1:1): "
          "Request dest_addr: 32 caddr.nic: 0X19D3 caddr.pid: 1 error: 0x26c450f0 (err: 107, VNI_NOT_FOUND)",
          "cxi-vni-not-granted"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_rdma.cpp", 1456,
          'NCCL_OFI_WARN("Request %p seq %d completed with error. RC: %d. Error: %d (%s). Completed length: %ld, '
          'Request: %s",\nreq, req->msg_seq_num, err_entry->err,\nerr_entry->prov_errno,\n'
          "fi_cq_strerror(cq, err_entry->prov_errno, err_entry->err_data, NULL, 0),\n"
          "(long)err_entry->len, nccl_net_ofi_req_str(req));",
          "nid001234:88123:88190 [0] nccl_ofi_rdma.cpp:1456 NCCL WARN NET/OFI Request 0x7f456c224810 seq 3 completed "
          "with error. RC: 107. Error: 25 (VNI_NOT_FOUND). Completed length: 0, Request: { dev: 0, size: 0, state: "
          "PENDING, type: SEND }", "cxi-vni-not-granted"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_sendrecv.cpp", 217,
          'NCCL_OFI_WARN("Request %p completed with error. RC: %d. Error: %d (%s). Completed length: %ld, Request: '
          '%s",',
          "nid001234:88123:88190 [0] nccl_ofi_sendrecv.cpp:217 NCCL WARN NET/OFI Request 0x7f456c224810 completed "
          "with error. RC: 107. Error: 25 (VNI_NOT_FOUND). Completed length: 0, Request: { dev: 0, size: 1048576, "
          "state: PENDING, direction: SEND }", "cxi-vni-not-granted"),
    # FI_PROVIDER names a provider the loaded libfabric does not have (a build without cxi in the container), and
    # the plugin then finds no provider.
    Quote("libfabric", "v1.22.0", "src/fabric.c", 613,
          'FI_WARN(&core_prov, FI_LOG_CORE,\n"provider %s is unknown, misspelled"\n" or DL provider?\\n", '
          "split_names[j]);",
          "libfabric:2741:1700000000::core:core:verify_filter_names():613<warn> provider cxi is unknown, misspelled "
          "or DL provider?", "fi-provider-not-in-libfabric",
          context=("nid001:2741:2790 [0] nccl_ofi_rdma.cpp:7282 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No "
                   "data available",)),
    Quote("libfabric", "v1.22.0", "src/fabric.c", 227,
          'FI_WARN(&core_prov, FI_LOG_CORE,\n"Instead misspelled provider: %s, you may want: %s?\\n",\n'
          "miss_prov_name, prov_name);",
          "libfabric:2741:1700000000::core:core:ofi_closest_prov_names():227<warn> Instead misspelled provider: cx, "
          "you may want: cxi?", "fi-provider-not-in-libfabric",
          context=("nid001:2741:2790 [0] nccl_ofi_net.cpp:281 NCCL WARN NET/OFI Unable to find a protocol that "
                   "worked.  Failing initialization.",)),
    # The NIC refused a hardware resource for the job's CXI service: libcxi passes the driver's -ENOSPC (-28) on
    # (shs-libcxi src/libcxi.c device_write), which the driver returns when the service's limit is reached.
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_evtq.c", 566,
          'CXIP_WARN("Failed to allocated EQ: %d\\n", ret);',
          "libfabric:88123:1732790000::cxi:cq:cxip_evtq_init():566<warn> nid001234: Failed to allocated EQ: -28",
          "cxi-nic-resources-exhausted"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_cmdq.c", 202,
          'CXIP_WARN("Failed to allocate %s, ret: %d\\n",\ncq_opts->flags & CXI_CQ_IS_TX ? "TXQ" : "TGQ", ret);',
          "libfabric:88123:1732790000::cxi:domain:cxip_cmdq_alloc():202<warn> nid001234: Failed to allocate TXQ, "
          "ret: -28", "cxi-nic-resources-exhausted"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_pte.c", 210,
          'CXIP_WARN("Failed to allocate PTE: %d\\n", ret);',
          "libfabric:88123:1732790000::cxi:domain:cxip_pte_alloc_nomap():210<warn> nid001234: Failed to allocate "
          "PTE: -28", "cxi-nic-resources-exhausted"),
    Quote("libfabric", "v1.22.0", "prov/cxi/src/cxip_cntr.c", 668,
          'CXIP_WARN("Failed to allocate CT, ret: %d\\n", ret);',
          "libfabric:88123:1732790000::cxi:ep_data:cxip_cntr_enable():668<warn> nid001234: Failed to allocate CT, "
          "ret: -28", "cxi-nic-resources-exhausted"),
    # OFI_NCCL_NIC_DUP_CONNS (include/nccl_ofi_param.h line 79, the "OFI_NCCL_" prefix) refused where the
    # provider does GPUDirect RDMA; the message spells the variable NCCL_OFI_NIC_DUP_CONNS.
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_net.cpp", 334,
          'NCCL_OFI_WARN("NCCL_OFI_NIC_DUP_CONNS set on platform that supports GPUDirect RDMA.  This configuration is '
          'not supported.");',
          "nid001234:88123:88190 [0] nccl_ofi_net.cpp:334 NCCL WARN NET/OFI NCCL_OFI_NIC_DUP_CONNS set on platform "
          "that supports GPUDirect RDMA.  This configuration is not supported.", "ofi-nccl-nic-dup-conns-with-gdr"),

    # --- rdma-core (libibverbs) -------------------------------------------------------------------------------------
    Quote("rdma-core", "v59.0", "libibverbs/dynamic_driver.c", 207,
          "fprintf(stderr, PFX \"Warning: couldn't load driver '%s': %s\\n\", so_name,\ndlerror());",
          "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav34.so': libmlx5-rdmav34.so: cannot open shared "
          "object file: No such file or directory", "no-verbs-driver"),
    Quote("rdma-core", "v59.0", "libibverbs/init.c", 613,
          'fprintf(stderr, PFX\n"Warning: no userspace device-specific driver found for %s\\n",\n'
          "sysfs_dev->ibdev_name);",
          "libibverbs: Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0",
          "no-verbs-driver"),

    Quote("rdma-core", "v28.0", "libibverbs/init.c", 486,
          'fprintf(stderr, PFX "Warning: RLIMIT_MEMLOCK is %llu bytes.\\n"\n'
          '"    This will severely limit memory registrations.\\n",\n(unsigned long long)rlim.rlim_cur);',
          "libibverbs: Warning: RLIMIT_MEMLOCK is 16384 bytes.", "memlock-limit-tiny",
          context=(FAILED,), fmt="Warning: RLIMIT_MEMLOCK is %llu bytes."),
    Quote("rdma-core", "v59.0", "libibverbs/init.c", 506,
          'fprintf(stderr, PFX "Warning: RLIMIT_MEMLOCK is %llu bytes.\\n"\n'
          '"    This will severely limit memory registrations.\\n",\n(unsigned long long)rlim.rlim_cur);',
          "libibverbs: Warning: RLIMIT_MEMLOCK is 32768 bytes.", "memlock-limit-tiny",
          context=(FAILED,), fmt="Warning: RLIMIT_MEMLOCK is %llu bytes."),

    # NCCL's WARN for a failed DMA-BUF registration (IBV_PTR_CHECK_ERRNO with name "ibv_reg_dmabuf_mr", line 174).
    Quote("NCCL", "v2.21.5-1", "src/misc/ibvwrap.cc", 34,
          'WARN("Call to " name " failed with error %s", strerror(errno)); \\',
          NCCL_WARN.format(where="misc/ibvwrap.cc:288") + "Call to ibv_reg_dmabuf_mr failed with error Operation not "
          "supported", "dmabuf-unsupported", fmt=" failed with error %s"),
    # The compiler's words for a missing header (GCC 12.2.0, Debian 12: run on `#include <Python.h>`).
    Quote("GCC", "12.2.0", "libcpp (observed: gcc -x c - on #include <Python.h>)", 0,
          '"fatal error: Python.h: No such file or directory"',
          "/venv/lib/python3.10/site-packages/torch/include/torch/csrc/python_headers.h:12:10: fatal error: Python.h: "
          "No such file or directory", "python-dev-headers-missing"),

    Quote("NVIDIA Fabric Manager", "driver 550", "nv-fabricmanager's log (closed source)", 0,
          '"NVIDIA GPU driver interface version %s don\'t match with driver version %s"',
          "NVIDIA GPU driver interface version 550.90.07 don't match with driver version 550.54.15",
          "fabric-manager-down", fmt="NVIDIA GPU driver interface version %s don't match with driver version %s"),
    Quote("libfabric", "shs-cassini-headers commit 06f69b0", "include/cxi_prov_hw.h c_return_code_strs", 0,
          '[C_RC_VNI_NOT_FOUND]\t\t= "VNI_NOT_FOUND",',
          "Request dest_addr: 32 caddr.nic: 0X19D1 caddr.pid: 1 rxc_id: 0  error: 0x26c450f0 (err: 5, VNI_NOT_FOUND)",
          "cxi-vni-not-granted"),

    # --- the CUDA driver and runtime, NVML, the NVIDIA kernel module (no public source) -------------------------------
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorSystemDriverMismatch = 803)", 0,
          '"system has unsupported display driver / cuda driver combination"',
          "RuntimeError: CUDA error: system has unsupported display driver / cuda driver combination",
          "cuda-driver-combination"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorECCUncorrectable = 214)", 0,
          '"uncorrectable ECC error encountered"',
          "torch.AcceleratorError: CUDA error: uncorrectable ECC error encountered", "gpu-hardware-fault"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorDevicesUnavailable = 46)", 0,
          '"CUDA-capable device(s) is/are busy or unavailable"',
          "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable", "gpu-busy-exclusive"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorPeerAccessUnsupported = 217)", 0,
          '"peer access is not supported between these two devices"',
          "RuntimeError: CUDA error: peer access is not supported between these two devices",
          "p2p-peer-access-refused"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorSystemNotReady = 802)", 0,
          '"system not yet initialized"',
          "RuntimeError: CUDA error: system not yet initialized", "fabric-manager-down"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorInsufficientDriver = 35)", 0,
          '"CUDA driver version is insufficient for CUDA runtime version"',
          "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
          "driver-too-old"),
    # CUDA's documentation of 222: "the PTX was generated by a compiler newer than what is supported by the CUDA
    # driver and PTX JIT compiler".
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorUnsupportedPtxVersion = 222)", 0,
          '"the provided PTX was compiled with an unsupported toolchain."',
          "torch.AcceleratorError: CUDA error: the provided PTX was compiled with an unsupported toolchain.",
          "driver-too-old"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorNoKernelImageForDevice = 209)", 0,
          '"no kernel image is available for execution on the device"',
          "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device",
          "cuda-arch-unsupported"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorCompatNotSupportedOnDevice = 804)", 0,
          '"forward compatibility was attempted on non supported HW"',
          "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
          "NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on "
          "non supported HW", "driver-too-old"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorStubLibrary = 34)", 0,
          '"CUDA driver is a stub library"',
          "RuntimeError: CUDA error: CUDA driver is a stub library", "libcuda-stub-loaded"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorNoDevice = 100)", 0,
          '"no CUDA-capable device is detected"',
          "RuntimeError: CUDA error: no CUDA-capable device is detected", "cuda-unavailable"),
    Quote("CUDA", "10.x", "cudaGetErrorString(cudaErrorDevicesUnavailable = 46), before CUDA 11", 0,
          '"all CUDA-capable devices are busy or unavailable"',
          "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable", "gpu-busy-exclusive"),
    Quote("NVML", "driver 535 to 580", "nvmlErrorString(NVML_ERROR_LIB_RM_VERSION_MISMATCH)", 0,
          '"Driver/library version mismatch"',
          "Failed to initialize NVML: Driver/library version mismatch", "nvml-driver-mismatch"),
    Quote("NVIDIA kernel module", "driver 535 to 580", "NVRM Xid report (NVIDIA's Xid catalogue: 79)", 0,
          '"NVRM: Xid (PCI:%s): %d, pid=%d, name=%s, GPU has fallen off the bus."',
          "NVRM: Xid (PCI:0000:3b:00): 79, pid=2741, name=python, GPU has fallen off the bus.",
          "gpu-hardware-fault"),
    # The GSP RPC timeout's words, from NVIDIA/open-gpu-kernel-modules (a stored copy, version not recorded), reported
    # as Xid 119 (NVIDIA's Xid catalogue).
    Quote("NVIDIA kernel module", "open-gpu-kernel-modules, a stored copy (version not recorded)",
          "src/nvidia (NV_ERROR_LOG GSP_RPC_TIMEOUT, reported as Xid 119)", 0,
          'NV_ERROR_LOG(pGpu, GSP_RPC_TIMEOUT,\n"Timeout after %llus of waiting for RPC response from GPU%d GSP! '
          'Expected function %d (%s) (0x%llx 0x%llx).",',
          "NVRM: Xid (PCI:0000:3b:00): 119, pid=2741, name=python, Timeout after 6s of waiting for RPC response "
          "from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4).", "gpu-hardware-fault"),
    Quote("NVIDIA kernel module", "driver 550 and later (the words as public logs print them)",
          "NVRM Xid report (NVIDIA's Xid catalogue: 154, GPU recovery action)", 0,
          '"NVRM: Xid (PCI:%s): %d, GPU recovery action changed from %s to %s"',
          "NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset "
          "Required)", "gpu-hardware-fault"),

    # --- Linux (the IOMMU's fault reports, as dmesg shows them) ----------------------------------------------------
    Quote("Linux", "v6.8", "drivers/iommu/intel/dmar.c", 0,
          'pr_err("[%s NO_PASID] Request device [%02x:%02x.%d] fault addr 0x%llx [fault reason 0x%02x] %s\\n",\n'
          'type ? "DMA Read" : "DMA Write",',
          "DMAR: [DMA Read NO_PASID] Request device [3b:00.0] fault addr 0x7f3c00000 [fault reason 0x06] PTE Read "
          "access is not set", "p2p-acs-iommu"),
    Quote("Linux", "v6.8", "drivers/iommu/amd/iommu.c", 0,
          'pci_err(pdev, "Event logged [IO_PAGE_FAULT domain=0x%04x address=0x%llx flags=0x%04x]\\n",',
          "nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0027 address=0x7f3c00000 flags=0x0020]",
          "p2p-acs-iommu"),

    # --- systemd (the journal of the node's services: NVIDIA Fabric Manager's unit) ------------------------------
    Quote("systemd", "a stored copy (commit not recorded)", "src/core/service.c service_sigchld_event()", 0,
          'LOG_UNIT_MESSAGE(u, "Main process exited, code=%s, status=%i/%s",',
          "Nov 28 10:02:11 gpu-a-017 systemd[1]: nvidia-fabricmanager.service: Main process exited, code=exited, "
          "status=1/FAILURE", "fabric-manager-down"),

    # --- torch ------------------------------------------------------------------------------------------------------
    Quote("torch", "v2.13.0", "torch/csrc/distributed/c10d/TCPStore.cpp (libtorch_cpu.so)", 0,
          '"Timed out after {} seconds waiting for clients. {}/{} clients joined."',
          "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined.",
          "layer-rendezvous-timeout"),
    Quote("torch", "2024 (a stored copy of main, commit not recorded)",
          "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp heartbeatMonitor()", 0,
          '"Heartbeat monitor timed out! Process will be terminated after dumping debug info.",',
          "[rank25]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 25] Heartbeat monitor timed out! Process will be "
          "terminated after dumping debug info. workMetaList_.size()=2", "layer-hang-after-init"),
    Quote("torch", "2024 (a stored copy of main, commit not recorded)",
          "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp heartbeatMonitor()", 0,
          '"ProcessGroupNCCL\'s watchdog got stuck for ",\nheartbeatTimeoutInSec_,\n" seconds without making progress '
          'in monitoring enqueued collectives. ",',
          "[rank25]:[F ProcessGroupNCCL.cpp:1169] [PG 0 Rank 25] [PG 0 Rank 25] ProcessGroupNCCL's watchdog got stuck "
          "for 600 seconds without making progress in monitoring enqueued collectives. This typically indicates a "
          "NCCL/CUDA API hang blocking the watchdog, ", "layer-hang-after-init",
          fmt="ProcessGroupNCCL's watchdog got stuck for %d seconds without making progress in monitoring enqueued "
              "collectives. "),
    Quote("torch", "2024 (a stored copy of main, commit not recorded)",
          "torch/csrc/distributed/c10d/NCCLUtils.cpp getNcclErrorDetailStr()", 0,
          'interpret =\n"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting '
          'prematurely.";',
          "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
          "layer-fabric-error"),
    # cuBLAS' CUBLAS_STATUS_ALLOC_FAILED: "Resource allocation failed inside the cuBLAS library. This is usually
    # caused by a cudaMalloc() failure" (cuBLAS documentation, cublasStatus_t), in torch's words.
    Quote("torch", "2024 (a stored copy of main, commit not recorded)",
          "aten/src/ATen/cuda/Exceptions.h TORCH_CUDABLAS_CHECK", 0,
          'TORCH_CHECK(__err == CUBLAS_STATUS_SUCCESS,\n"CUDA error: ",\nat::cuda::blas::_cublasGetErrorEnum(__err),\n'
          '" when calling `" #EXPR "`");',
          "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", "cuda-oom",
          fmt="CUDA error: {} when calling `{}`"),
    Quote("torch", "v2.13.0", "torch/cuda/__init__.py", 427,
          '"""\n{} with CUDA capability sm_{} is not compatible with the current PyTorch installation.',
          "UserWarning: NVIDIA GH200 480GB with CUDA capability sm_90 is not compatible with the current PyTorch "
          "installation.", "cuda-arch-unsupported",
          fmt="{} with CUDA capability sm_{} is not compatible with the current PyTorch installation."),
    Quote("torch", "v2.13.0", "torch/csrc/distributed/c10d/socket.cpp (libtorch_cpu.so)", 0,
          '"The client socket has failed to connect to any network address of ({}, {})."',
          "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of "
          "(gpu-a-017, 29500).", "rendezvous-connect"),
    Quote("torch", "v2.13.0", "torch/distributed/elastic/multiprocessing/errors/__init__.py", 188,
          '"  exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}"',
          "  exitcode  : -9 (pid: 2741)  (SIGKILL)", "rank-sigkill"),
    Quote("torch", "v2.13.0", "torch/distributed/elastic/multiprocessing/api.py", 1003,
          '"failed (exitcode: %s) local_rank: %s (pid: %s) of binary: %s",',
          "E1128 10:02:11.482000 2741 torch/distributed/elastic/multiprocessing/api.py:1003] failed (exitcode: -9) "
          "local_rank: 0 (pid: 2741) of binary: /opt/venv/bin/python", "rank-sigkill"),
    Quote("torch", "v2.13.0", "torch/distributed/rendezvous.py", 249,
          'return _error(f"environment variable {var} expected, but not set")',
          "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable "
          "MASTER_ADDR expected, but not set", "env-rendezvous-unset"),

    Quote("torch", "commit 03d4ef6", "torch/csrc/DataLoader.cpp THPModule_errorIfAnyWorkerFails()", 0,
          'oss << "It is possible that dataloader\'s workers are out of shared memory. "',
          "RuntimeError: DataLoader worker (pid 572) is killed by signal: Bus error. It is possible that "
          "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
          "shm-too-small"),
    Quote("torch", "commit 03d4ef6", "torch/csrc/DataLoader.cpp handler_SIGBUS", 0,
          '"ERROR: Unexpected bus error encountered in worker. "\n'
          '"This might be caused by insufficient shared memory (shm).\\n"',
          "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory "
          "(shm).", "shm-too-small"),
    Quote("torch", "commit f5ae37e", "torch/csrc/distributed/c10d/ProcessGroupGloo.cpp createDefaultDevice()", 0,
          'TORCH_WARN_ONCE(\n"Unable to resolve hostname to a (local) address. ",\n'
          '"Using the loopback address as fallback. ",\n'
          '"Manually set the network interface to bind to with GLOO_SOCKET_IFNAME.");',
          "[rank8]:[W ProcessGroupGloo.cpp:721] Warning: Unable to resolve hostname to a (local) address. Using the "
          "loopback address as fallback. Manually set the network interface to bind to with GLOO_SOCKET_IFNAME. "
          "(function operator())", "gloo-loopback-address",
          context=("RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144]"
                   " no error",)),
    # torch 1.x's store client (before socket.cpp): tcputil::connect() in torch/lib/c10d/Utils.cpp.
    Quote("torch", "commit 0106cc7", "torch/lib/c10d/Utils.cpp kConnectTimeoutMsg", 0,
          'const std::string kConnectTimeoutMsg = "connect() timed out.";',
          "RuntimeError: connect() timed out. Original timeout was 60000 ms.", "rendezvous-connect",
          context=(TRACEBACK,)),
    Quote("torch", "commit 0106cc7", "torch/lib/c10d/Utils.cpp tcputil::connect()", 0,
          'throw std::invalid_argument(\n"host not found: " + std::string(gai_strerror(err)));',
          "ValueError: host not found: Name or service not known", "rendezvous-name-not-resolvable",
          context=(TRACEBACK,),
          fmt="host not found: %s"),

    # --- Slurm ------------------------------------------------------------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/mpi.c", 241,
          'error("MPI: Cannot create context for %s", plugin_name);',
          "srun: error: MPI: Cannot create context for mpi/pmix", "slurm-mpi-plugin-missing"),
    # Slurm before the interfaces/ rewrite (17.11 to 20.11): the same missing plugin in older words.
    Quote("Slurm", "commit 0398d71", "src/common/mpi.c", 0,
          'error("cannot create %s context for %s", plugin_type, type);',
          "srun: error: cannot create mpi context for mpi/pmix", "slurm-mpi-plugin-missing"),
    Quote("Slurm", "commit 00f0289", "src/srun/libsrun/opt.c", 0,
          'error("\\"--mpi=%s\\" -- long invalid MPI type, "\n"--mpi=list for acceptable types.",',
          'srun: error: "--mpi=pmix" -- long invalid MPI type, --mpi=list for acceptable types.',
          "slurm-mpi-plugin-missing", fmt='"--mpi=%s" -- long invalid MPI type, --mpi=list for acceptable types.'),
    # slurmstepd's memory enforcement (jobacct_gather, with JobAcctGatherParams=OverMemoryKill) and slurmd's.
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/jobacct_gather.c", 883,
          'error("%ps exceeded memory limit (%"PRIu64" > %"PRIu64"), being killed",',
          "slurmstepd: error: StepId=7518.0 exceeded memory limit (626359956 > 512000000), being killed", "host-oom",
          fmt="%ps exceeded memory limit (%d > %d), being killed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/jobacct_gather.c", 290,
          'notify_req.message     = "Exceeded job memory limit";',
          "slurmstepd: error: Exceeded job memory limit", "host-oom"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmd/job_mem_limit.c", 276,
          'info("Job %u exceeded memory limit "\n"(%"PRIu64">%"PRIu64"), cancelling it",',
          "slurmd: Job 7518 exceeded memory limit (626359956>512000000), cancelling it", "host-oom",
          fmt="Job %u exceeded memory limit (%d>%d), cancelling it"),
    # slurmctld's reason for a batch job whose launch (or prolog) failed on its node, shown by squeue and
    # scontrol show job; after MaxBatchRequeue such failures, the second.
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmctld/job_mgr.c", 18079,
          'job_ptr->state_desc =\nxstrdup("launch failed requeued held");',
          "   JobState=PENDING Reason=launch_failed_requeued_held Dependency=(null)    launch failed requeued held",
          "slurm-task-launch-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmctld/job_mgr.c", 6075,
          'job_ptr->state_desc =\nxstrdup("launch failure limit exceeded requeued held");',
          "4512  acc  train  u1  PD  0:00  2 (launch failure limit exceeded requeued held)",
          "slurm-task-launch-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/mpi.c", 635,
          'error("%s: unable to resolve MPI plugin offset from plugin_id=%u. This error usually results from a job '
          'being submitted against an MPI plugin which was not compiled into slurmd but was for job submission '
          'command.",',
          "slurmstepd: error: _plugrack_foreach: unable to resolve MPI plugin offset from plugin_id=106. This error "
          "usually results from a job being submitted against an MPI plugin which was not compiled into slurmd but "
          "was for job submission command.", "slurm-mpi-plugin-missing"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/mpi/pmix/mpi_pmix.c", 152,
          'PMIXP_ERROR("pmi/pmix: incorrect PMIx library version loaded %d was loaded, required %d version",\n'
          "pmixp_lib_get_version(), (int)HAVE_PMIX_VER);",
          "srun: error:  mpi/pmix_v5: _libpmix_open: gpu-a-017 [0]: mpi_pmix.c:152: pmi/pmix: incorrect PMIx "
          "library version loaded 4 was loaded, required 5 version", "slurm-pmix-library-mismatch",
          context=("srun: error: MPI: Cannot create context for mpi/pmix_v5",)),
    Quote("Slurm", "slurm-25-11-7-1", "src/api/step_launch.c", 1590,
          'error("Task launch for %ps failed on node %s: %m",\n&ctx->step_req->step_id, ret_data->node_name);',
          "srun: error: Task launch for StepId=4512.0 failed on node gpu-a-018: Invalid node name specified",
          "slurm-task-launch-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/launch.c", 1258,
          'error("Unable to create step for job %u: %m",\nstep_req->step_id.job_id);',
          "srun: error: Unable to create step for job 4512: Memory required by task is not available",
          "srun-step-exceeds-allocation"),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/launch.c", 429,
          'error("%s: %s %s: Exited with exit code %d",\nhosts, task_str, tasks, rc);',
          "srun: error: gpu-a-018: tasks 4-7: Exited with exit code 1", "layer-one-node-error",
          context=(TWO_NODES,)),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/launch.c", 415,
          'error("%s: %s %s: Out Of Memory", hosts, task_str,',
          "srun: error: gpu-a-018: task 5: Out Of Memory", "host-oom"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/task/cgroup/task_cgroup_memory.c", 291,
          'error("Detected %"PRIu64" oom_kill event%s in %ps. Some of the step tasks have been OOM Killed.",',
          "slurmstepd: error: Detected 1 oom_kill event in StepId=4512.0. Some of the step tasks have been OOM "
          "Killed.", "host-oom"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/req.c", 925,
          'error("*** %s ON %s CANCELLED AT %s DUE TO TIME LIMIT ***",',
          "slurmstepd: error: *** JOB 4512 ON gpu-a-017 CANCELLED AT 2026-11-28T10:02:11 DUE TO TIME LIMIT ***",
          "walltime"),
    # --gpus, --gpus-per-node, --gpus-per-task and --tres-per-task requests are TRES: a GPU type or count the
    # nodes do not have is refused in these words instead of the GRES ones.
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 636,
          'ERRTAB_ENTRY(ESLURM_INVALID_TRES),\n"Invalid Trackable RESource (TRES) specification",',
          "sbatch: error: Batch job submission failed: Invalid Trackable RESource (TRES) specification",
          "slurm-gres"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 408,
          '"Requested time limit is invalid (missing or exceeds some limit)",',
          "srun: error: Unable to allocate resources: Requested time limit is invalid (missing or exceeds some "
          "limit)", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 403,
          '"Job violates accounting/QOS policy (job submit limit, user\'s "\n"size and/or time limits)",',
          "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's "
          "size and/or time limits)", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/launch.c", 1271,
          'info("Job %u step creation temporarily disabled, retrying (%s)",\nstep_req->step_id.job_id,\n'
          "slurm_strerror(rc));",
          "srun: Job 4512 step creation temporarily disabled, retrying (Requested nodes are busy)",
          "slurm-step-blocked"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/task.c", 546,
          'error("execve(): %s: %m", task->argv[0]);',
          "slurmstepd: error: execve(): torchrun: No such file or directory", "command-not-on-node"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 240,
          '"Requested node configuration is not available",',
          "sbatch: error: Batch job submission failed: Requested node configuration is not available",
          "slurm-request-unsatisfiable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 476,
          '"Invalid generic resource (gres) specification",',
          "sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification",
          "slurm-gres"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 653,
          '"Invalid GRES specification (with and without type identification)",',
          "srun: error: Unable to allocate resources: Invalid GRES specification (with and without type "
          "identification)", "slurm-gres"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 593,
          '"Duplicate generic resource (gres) specification",',
          "sbatch: error: Batch job submission failed: Duplicate generic resource (gres) specification", "slurm-gres"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 665,
          '"Requested GRES option unsupported by configured SelectType plugin",',
          "sbatch: error: Batch job submission failed: Requested GRES option unsupported by configured SelectType "
          "plugin", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 714,
          '"Insufficient GRES available in allocation",',
          "srun: error: Unable to create step for job 4512: Insufficient GRES available in allocation",
          "srun-step-exceeds-allocation"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 386,
          '"Invalid qos specification",',
          "sbatch: error: Batch job submission failed: Invalid qos specification", "slurm-qos-account"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/mgr.c", 1883,
          'error("couldn\'t chdir to `%s\': %m: going to /tmp instead",\nstep->cwd);',
          "slurmstepd: error: couldn't chdir to `/local/u1/run3': No such file or directory: going to /tmp instead",
          "slurm-workdir-missing",
          context=("python: can't open file '/tmp/train.py': [Errno 2] No such file or directory",
                   "srun: error: gpu-a-018: task 1: Exited with exit code 2")),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/mgr.c", 1877,
          'error("couldn\'t chdir to `%s\': %m", step->cwd);',
          "slurmstepd: error: couldn't chdir to `/local/u1/run3': No such file or directory",
          "slurm-workdir-missing", context=("srun: error: gpu-a-018: task 1: Exited with exit code 1",)),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/opt.c", 1221,
          'warning("can\'t run %d processes on %d nodes, setting nnodes to %d",\nopt.ntasks, opt.min_nodes, '
          "opt.ntasks);",
          "srun: warning: can't run 1 processes on 2 nodes, setting nnodes to 1", "slurm-fewer-tasks-than-nodes",
          context=(FAILED,)),
    Quote("Slurm", "slurm-25-11-7-1", "src/sbatch/opt.c", 859,
          'warning("can\'t run %d processes on %d nodes, setting nnodes to %d",\nopt.ntasks, opt.min_nodes, '
          "opt.ntasks);",
          "sbatch: warning: can't run 2 processes on 4 nodes, setting nnodes to 2", "slurm-fewer-tasks-than-nodes",
          context=(FAILED,)),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/opt.c", 1269,
          'warning("can\'t honor --ntasks-per-node set to %u which doesn\'t match the requested tasks %u with the '
          'maximum number of requested nodes %u. Ignoring --ntasks-per-node.",',
          "srun: warning: can't honor --ntasks-per-node set to 4 which doesn't match the requested tasks 16 with the "
          "maximum number of requested nodes 2. Ignoring --ntasks-per-node.", "slurm-ntasks-per-node-ignored",
          context=(FAILED,)),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/opt.c", 1278,
          'warning("can\'t honor --ntasks-per-node set to %u which doesn\'t match the requested tasks %u and '
          '-mpack, which forces min number of nodes to 1",',
          "srun: warning: can't honor --ntasks-per-node set to 4 which doesn't match the requested tasks 8 and "
          "-mpack, which forces min number of nodes to 1", "slurm-ntasks-per-node-ignored", context=(FAILED,)),
    # One task per node ignored: the launchers (one torchrun per node) share nodes, a cause without a failure line.
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/opt.c", 1269,
          'warning("can\'t honor --ntasks-per-node set to %u which doesn\'t match the requested tasks %u with the '
          'maximum number of requested nodes %u. Ignoring --ntasks-per-node.",',
          "srun: warning: can't honor --ntasks-per-node set to 1 which doesn't match the requested tasks 16 with the "
          "maximum number of requested nodes 2. Ignoring --ntasks-per-node.", "slurm-ntasks-per-node-ignored"),

    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 1069,
          '"Socket timed out on send/recv operation",',
          "salloc: error: Job submit/allocate failed: Socket timed out on send/recv operation",
          "slurm-controller-unreachable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 149,
          '"Unable to contact slurm controller (connect failure)",',
          "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)",
          "slurm-controller-unreachable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmd/req.c", 2434,
          'xstrfmtcat(buf, "Prolog failure on node %s",\nconf->node_name);',
          "srun: Prolog failure on node gpu-a-017", "slurm-prolog-failure"),
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/gres.c", 1940,
          'fatal("gres.conf duplicate records for %s",\ngres_ctx->gres_name);',
          "Nov 28 10:02:11 gpu-a-017 slurmd[5712]: fatal: gres.conf duplicate records for gpu",
          "gres-conf-duplicate-gpus"),
    Quote("Slurm", "slurm-20-02-7-1", "src/slurmctld/node_mgr.c", 2474,
          'error("Node %s has low real_memory size (%"PRIu64" < %"PRIu64")",',
          "[2026-11-28T10:02:11.414] error: Node gpu-a-017 has low real_memory size (435161 < 443596)",
          "slurm-node-memory-below-config"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmctld/node_mgr.c", 3440,
          'debug("Node %s has low real_memory size (%"PRIu64" / %"PRIu64") < %.2f%%",',
          "[2026-11-28T10:02:11.414] debug:  Node gpu-a-017 has low real_memory size (435161 / 443596) < 100.00%",
          "slurm-node-memory-below-config"),

    # --- enroot and Apptainer refusing their configuration ------------------------------------------------------------
    Quote("enroot", "v4.1.2", "enroot.in", 106,
          '(umask 077 && mkdir -p "${ENROOT_CACHE_PATH}" "${ENROOT_DATA_PATH}" "${ENROOT_RUNTIME_PATH}")',
          "slurmstepd: error: pyxis:     mkdir: cannot create directory '/run/enroot': Permission denied",
          "enroot-path-not-writable", fmt="${ENROOT_RUNTIME_PATH}"),
    Quote("Apptainer", "v1.4.5", "internal/pkg/util/fs/mount/mount_linux.go", 406,
          'return fmt.Errorf("destination must be an absolute path")',
          "FATAL:   container creation failed: unable to add /scratch/u to mount list: destination must be an "
          "absolute path", "bind-spec-malformed"),

    # --- PBS (OpenPBS; PBS Pro prints the same texts) -----------------------------------------------------------------
    Quote("PBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 235,
          'char *msg_excqresc = "Job violates queue and/or server resource limits";',
          "qsub: Job violates queue and/or server resource limits", "pbs-request-refused"),
    Quote("PBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 234,
          'char *msg_unkresc = "Unknown resource";',
          "qsub: Unknown resource", "pbs-request-refused"),
    Quote("PBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 194,
          'char *msg_badatval = "Illegal attribute or resource value";',
          "qsub: Illegal attribute or resource value", "pbs-request-refused"),
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 6016,
          'sprintf(log_buffer,\n"walltime %lu exceeded limit %lu",\nnum, value);',
          "=>> PBS: job killed: walltime 7230 exceeded limit 7200", "walltime"),
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 5969,
          'sprintf(log_buffer, "mem %lukb exceeded limit %lukb", llnum / 1024, llvalue / 1024);',
          "=>> PBS: job killed: mem 268435456kb exceeded limit 251658240kb", "host-oom"),
    # The MoM's other kills, each written to the job's stderr as "=>> PBS: job killed: %s\n" (mom_main.c line
    # 8780): virtual memory on one node; memory or CPU time summed over the job's nodes (job_over_limit(), on the
    # first node of a multi-node job); CPU time; more busy CPUs than ncpus (the MoM's cpuburst and cpuaverage).
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 5954,
          'sprintf(log_buffer, "vmem %lukb exceeded limit %lukb", llnum / 1024, llvalue / 1024);',
          "=>> PBS: job killed: vmem 536870912kb exceeded limit 503316480kb", "host-oom"),
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 6185,
          'sprintf(log_buffer, "%s job total %lu %s exceeded limit %lu %s",\nrd->rs_name, *total, units, limit, '
          'units);',
          "=>> PBS: job killed: mem job total 524288000 kb exceeded limit 503316480 kb", "host-oom"),
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 6185,
          'sprintf(log_buffer, "%s job total %lu %s exceeded limit %lu %s",\nrd->rs_name, *total, units, limit, '
          'units);',
          "=>> PBS: job killed: cput job total 1843200 secs exceeded limit 1728000 secs", "pbs-cpu-over-limit"),
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 5999,
          'sprintf(log_buffer,\n"cput %lu exceeded limit %lu",\nnum, value);',
          "=>> PBS: job killed: cput 921734 exceeded limit 864000", "pbs-cpu-over-limit"),
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 5895,
          'sprintf(log_buffer,\n"ncpus %.1f exceeded limit %lu (burst)",\n(float) num / 100.0, value);',
          "=>> PBS: job killed: ncpus 97.3 exceeded limit 72 (burst)", "pbs-cpu-over-limit"),
    Quote("PBS", "v23.06.06", "src/resmom/mom_main.c", 5924,
          'sprintf(log_buffer,\n"ncpus %.2f exceeded limit %lu (sum)",\n(double) cput_sum / (double) walltime_sum,'
          '\nvalue);',
          "=>> PBS: job killed: ncpus 80.41 exceeded limit 72 (sum)", "pbs-cpu-over-limit"),
    # PBS' own launchers reach the MoM's task manager (tm_init(), src/lib/Libifl/tm.c line 583) through the
    # variables the MoM sets in the job (PBS_JOBID, PBS_JOBCOOKIE, PBS_NODENUM, PBS_TASKNUM, PBS_MOMPORT); its
    # errors are named by get_ecname() (tm.c line 136, "%s (%d)"), so pbsdsh prints the number twice.
    Quote("PBS", "v23.06.06", "src/cmds/pbsdsh.c", 273,
          'fprintf(stderr, "%s: tm_init failed, rc = %s (%d)\\n", id,\nget_ecname(rc), rc);',
          "pbsdsh: tm_init failed, rc = bad environment (17005) (17005)", "pbs-task-manager-unreachable"),
    Quote("PBS", "v23.06.06", "src/cmds/pbsdsh.c", 273,
          'fprintf(stderr, "%s: tm_init failed, rc = %s (%d)\\n", id,\nget_ecname(rc), rc);',
          "/opt/pbs/bin/pbsdsh: tm_init failed, rc = system error - MOM cannot be contacted (17000) (17000)",
          "pbs-task-manager-unreachable"),
    Quote("PBS", "v23.06.06", "src/cmds/pbsdsh.c", 265,
          'fprintf(stderr, "%s: not executing under PBS\\n", id);',
          "pbsdsh: not executing under PBS", "pbs-task-manager-unreachable"),
    Quote("PBS", "v23.06.06", "src/cmds/pbs_tmrsh.c", 259,
          'fprintf(stderr, "%s: not executing under PBS\\n", id);',
          "pbs_tmrsh: not executing under PBS", "pbs-task-manager-unreachable"),
    Quote("PBS", "v23.06.06", "src/cmds/pbs_tmrsh.c", 271,
          'fprintf(stderr, "%s: tm_init: %s\\n", id, get_ecname(rc));',
          "pbs_tmrsh: tm_init: bad environment (17005)", "pbs-task-manager-unreachable"),
    Quote("PBS", "v23.06.06", "src/cmds/pbs_attach_sup.c", 134,
          'fprintf(stderr, "%s: tm_attach: %s\\n", argv[0], get_ecname(rc));',
          "pbs_attach: tm_attach: system error - MOM cannot be contacted (17000)", "pbs-task-manager-unreachable"),
    # pbs_tmrsh, the remote shell MPI launchers use under PBS, starts a process only on the job's own nodes.
    Quote("PBS", "v23.06.06", "src/cmds/pbs_tmrsh.c", 298,
          'fprintf(stderr, "%s: host \\"%s\\" is not a node in job <%s>\\n",\nid, host, jobid);',
          '/opt/pbs/default/bin/pbs_tmrsh: host "r1i4n33" is not a node in job <27928.lic01>',
          "pbs-launch-host-outside-job"),
    Quote("PBS", "v23.06.06", "src/cmds/pbs_tmrsh.c", 303,
          'fprintf(stderr, "%s: PBS_NODEFILE contains %d entries, "\n"only %d nodes in job\\n",\nid, i, numnodes);',
          "pbs_tmrsh: PBS_NODEFILE contains 9 entries, only 8 nodes in job", "pbs-launch-host-outside-job"),

    Quote("rdma-core", "v59.0", "libibverbs/init.c", 614,
          'fprintf(stderr, PFX\n"Warning: no userspace device-specific driver found for %s\\n",',
          "Warning: no userspace device-specific driver found for /sys/class/infiniband_verbs/uverbs0",
          "no-verbs-driver"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 269,
          'char *msg_BadNodespec = "node(s) specification error";',
          "qsub: node(s) specification error", "pbs-request-refused"),
    # qsub prints the server's refusal as it comes (src/cmds/qsub.c line 2932 sprintf(retmsg, "qsub: %s\n",
    # errmsg)): the error table's words (pbs_messages.c), or the server's entity-limit message naming the queue,
    # the user and the resource (src/server/svr_func.c check_entity_ct_limit_max(), check_entity_resc_limit_max()).
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 201,
          'char *msg_unkque = "Unknown queue";',
          "qsub: Unknown queue", "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 207,
          'char *msg_qunoenb = "Queue is not enabled";',
          "qsub: Queue is not enabled", "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 208,
          'char *msg_qacess = "Access to queue is denied";',
          "qsub: Access to queue is denied", "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 187,
          'char *msg_perm = "Unauthorized Request ";',
          "qsub: Unauthorized Request ", "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 248,
          'char *msg_badacct = "Invalid Account";',
          "qsub: Invalid Account", "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 278,
          'char *msg_invalselectresc = "Resource invalid in \\"select\\" specification";',
          'qsub: Resource invalid in "select" specification', "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/cmds/qsub.c", 1195,
          'fprintf(stderr, "qsub: illegal -l value\\n");',
          "qsub: illegal -l value", "pbs-request-refused"),
    # A #PBS line qsub could not read (process_opts() failed on a directive, not on the command line: here TORQUE's
    # array option, not in qsub_sup.c's GETOPT_ARGS), and a job a routing queue placed in none of its destinations.
    Quote("OpenPBS", "v23.06.06", "src/cmds/qsub.c", 1763,
          'nxt_pos = snprintf(retmsg, max_size, "qsub: directive error: ");',
          "qsub: directive error: -t 0-9 ", "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 238,
          'char *msg_routebad = "Job rejected by all possible destinations";',
          "qsub: Job rejected by all possible destinations", "pbs-request-refused"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 245,
          'char *msg_maxqueued = "Maximum number of jobs already in queue";',
          "qsub: Maximum number of jobs already in queue", "pbs-queued-jobs-limit"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 334,
          'char *msg_et_qct = "Maximum number of jobs already in queue %s";',
          "qsub: Maximum number of jobs already in queue gpu", "pbs-queued-jobs-limit"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 347,
          'char *msg_et_suq = "Maximum number of jobs for user %s already in queue %s";',
          "qsub: Maximum number of jobs for user alice already in queue gpu", "pbs-queued-jobs-limit"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 371,
          'char *msg_et_guq_q = "would exceed queue %s\'s per-user limit of jobs in \'Q\' state";',
          "qsub: would exceed queue workq's per-user limit of jobs in 'Q' state", "pbs-queued-jobs-limit"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 372,
          'char *msg_et_gus_q = "would exceed complex\'s per-user limit of jobs in \'Q\' state";',
          "qsub: would exceed complex's per-user limit of jobs in 'Q' state", "pbs-queued-jobs-limit"),
    Quote("OpenPBS", "v23.06.06", "src/lib/Liblog/pbs_messages.c", 361,
          'char *msg_et_rsuq = "would exceed user %s\'s limit on resource %s in queue %s";',
          "qsub: would exceed user alice's limit on resource ngpus in queue gpu", "pbs-queued-jobs-limit"),

    # --- Open MPI's launcher (its help texts print as the lines are in the file) -------------------------------------
    Quote("Open MPI", "v4.1.6", "orte/orted/orted_submit.c", 316,
          'fprintf(stderr, "%s has detected an attempt to run as root.\\n\\n", orte_basename);',
          "mpirun has detected an attempt to run as root.", "mpirun-run-as-root"),
    Quote("Open MPI", "v4.1.6", "orte/mca/rmaps/base/help-orte-rmaps-base.txt", 137,
          "Conflicting directives for %s policy are causing the policy\nto be redefined:",
          "Conflicting directives for mapping policy are causing the policy", "mpirun-conflicting-mapping",
          fmt="Conflicting directives for %s policy are causing the policy"),
    Quote("Open MPI", "v4.1.6", "opal/mca/hwloc/base/help-opal-hwloc-base.txt", 32,
          "Conflicting directives for binding policy are causing the policy\nto be redefined:",
          "Conflicting directives for binding policy are causing the policy", "mpirun-conflicting-mapping",
          fmt="Conflicting directives for binding policy are causing the policy"),
    Quote("Open MPI", "v4.1.6", "orte/mca/rmaps/ppr/help-orte-rmaps-ppr.txt", 53,
          "Your job has requested more processes than the ppr for\nthis topology can support:",
          "Your job has requested more processes than the ppr for", "mpirun-not-enough-slots",
          fmt="Your job has requested more processes than the ppr for"),
    Quote("Open MPI", "v4.1.6", "orte/mca/errmgr/base/help-errmgr-base.txt", 36,
          "ORTE was unable to reliably start one or more daemons.",
          "ORTE was unable to reliably start one or more daemons.", "orted-not-on-remote-path",
          fmt="ORTE was unable to reliably start one or more daemons."),

    # --- the shells: bash (and the translations it ships) and dash, Debian's and Ubuntu's /bin/sh --------------------
    # fork() failing with EAGAIN: the job's processes and threads reached a limit (pids cgroup, RLIMIT_NPROC); bash
    # retries, doubling its sleep, then gives up (sys_error prints "%s: " the shell or script, then ": %s\n" strerror).
    Quote("bash", "bash-5.2", "jobs.c", 2173,
          'sys_error ("fork: retry");',
          "/var/spool/slurmd/job4512/slurm_script: fork: retry: Resource temporarily unavailable",
          "job-pids-limit-exceeded"),
    Quote("bash", "bash-5.2", "jobs.c", 2190,
          'sys_error ("fork");',
          "bash: fork: Resource temporarily unavailable", "job-pids-limit-exceeded"),
    Quote("bash", "bash-5.2", "execute_cmd.c", 5728,
          'internal_error (_("%s: command not found"), pathname);',
          "/var/spool/slurmd/job4512/slurm_script: line 10: -np: command not found",
          "launch-script-line-continuation"),
    Quote("bash", "bash-5.2", "po/zh_CN.po", 1067,
          'msgstr "%s: 未找到命令"',
          "--deepspeed_multinode_launcher: 未找到命令", "launch-script-line-continuation", fmt="%s: 未找到命令"),
    Quote("bash", "bash-5.2", "po/fr.po", 1059,
          'msgstr "%s : commande introuvable"',
          "run.sh : ligne 12 : mpirun : commande introuvable", "mpirun-not-on-path"),
    Quote("bash", "bash-5.2", "execute_cmd.c", 5728,
          'internal_error (_("%s: command not found"), pathname);',
          "bash: orted: command not found", "orted-not-on-remote-path"),
    # src/exec.c line 146 prints it after the program's name: exerror(EXEND, "%s: %s", argv[0], errmsg(e, E_EXEC)).
    Quote("dash", "0.5.12", "src/error.c", 227,
          'return "not found";',
          "/bin/dash: 1: scontrol: not found", "scontrol-missing-in-container"),

    # --- Open MPI and PMIx ------------------------------------------------------------------------------------------
    Quote("Open MPI", "v4.1.8", "orte/mca/ess/base/help-ess-base.txt", 54,
          'The application appears to have been direct launched using "srun",\nbut OMPI was not built with SLURM\'s '
          "PMI support and therefore cannot",
          "but OMPI was not built with SLURM's PMI support and therefore cannot", "mpi-without-pmi",
          fmt="but OMPI was not built with SLURM's PMI support and therefore cannot"),
    Quote("Open MPI", "v4.1.8", "orte/mca/ess/base/help-ess-base.txt", 71,
          'The application appears to have been direct launched using "srun",\nbut OMPI was not built with SLURM '
          "support. This usually happens",
          "but OMPI was not built with SLURM support. This usually happens", "mpi-without-pmi",
          fmt="but OMPI was not built with SLURM support. This usually happens"),
    Quote("Open MPI", "v5.0.0", "ompi/runtime/help-mpi-runtime.txt", 118,
          "Open MPI requires access to a local PMIx server to execute. Please ensure",
          "Open MPI requires access to a local PMIx server to execute. Please ensure", "mpi-without-pmi",
          fmt="Open MPI requires access to a local PMIx server to execute. Please ensure"),
    Quote("Open MPI", "v5.0.10", "ompi/runtime/help-mpi-runtime.txt", 123,
          "No PMIx server was reachable, but a PMI1/2 was detected.",
          "No PMIx server was reachable, but a PMI1/2 was detected.", "mpi-without-pmi",
          fmt="No PMIx server was reachable, but a PMI1/2 was detected."),
    Quote("Open MPI", "v4.1.8", "orte/mca/rmaps/base/help-orte-rmaps-base.txt", 26,
          "There are not enough slots available in the system to satisfy the %d\nslots that were requested by the "
          "application:",
          "There are not enough slots available in the system to satisfy the 8", "mpirun-not-enough-slots",
          fmt="There are not enough slots available in the system to satisfy the %d"),
    Quote("Open MPI", "v4.1.8", "orte/mca/rmaps/round_robin/help-orte-rmaps-rr.txt", 40,
          "There are not enough slots on the nodes in your allocation to satisfy your request to launch on a %d "
          "process-per-node basis - only %d slots/node were available.",
          "There are not enough slots on the nodes in your allocation to satisfy your request to launch on a 4 "
          "process-per-node basis - only 1 slots/node were available.", "mpirun-not-enough-slots",
          fmt="There are not enough slots on the nodes in your allocation to satisfy your request to launch on a %d "
              "process-per-node basis - only %d slots/node were available."),
    Quote("PMIx", "v4.2.9", "src/util/pmix_error.h", 48,
          'pmix_output(0, "PMIX ERROR: %s in file %s at line %d", PMIx_Error_string((r)), \\',
          "[gpu-a-017:02741] PMIX ERROR: ERROR in file ../../../../../src/mca/gds/ds12/gds_ds12_lock_pthread.c at "
          "line 168", "pmix-gds-mismatch", context=("*** An error occurred in MPI_Init",)),
    Quote("PMIx", "v4.2.9", "src/util/pmix_error.h", 48,
          'pmix_output(0, "PMIX ERROR: %s in file %s at line %d", PMIx_Error_string((r)), \\',
          "[gpu-a-017:02741] PMIX ERROR: UNREACHABLE in file ../../../../../src/mca/ptl/tcp/ptl_tcp.c at line 790",
          "pmix-gds-mismatch"),

    # --- Apptainer --------------------------------------------------------------------------------------------------
    # The starter's user namespace (unprivileged installs): nserror() words EPERM and ENOSPC itself, strerror
    # the rest (EACCES, a security module's refusal such as Ubuntu's AppArmor restriction: "Permission denied").
    Quote("Apptainer", "v1.4.5", "cmd/starter/c/starter.c", 1442,
          'fatalf("Failed to create user namespace: %s\\n", nserror(errno, CLONE_NEWUSER));',
          "ERROR  : Failed to create user namespace: Permission denied", "userns-restricted-apparmor"),
    Quote("Apptainer", "v1.4.5", "cmd/starter/c/starter.c", 520,
          'snprintf(msg, MSG_SIZE-1, "user namespace requires to set %s to 1", path);',
          "FATAL:   Failed to create user namespace: user namespace requires to set "
          "/proc/sys/kernel/unprivileged_userns_clone to 1", "userns-restricted"),
    Quote("Apptainer", "v1.4.5", "cmd/starter/c/starter.c", 510,
          'snprintf(msg, MSG_SIZE-1, "maximum number of %s namespaces exceeded, check %s", name, path);',
          "FATAL:   Failed to create user namespace: maximum number of user namespaces exceeded, check "
          "/proc/sys/user/max_user_namespaces", "userns-restricted"),
    Quote("Apptainer", "v1.4.5", "cmd/internal/cli/pull.go", 334,
          'sylog.Fatalf("While making image from oci registry: %v", err)',
          "FATAL:   While making image from oci registry: error fetching image to cache: while building SIF from "
          "layers: packer failed to pack: while unpacking tmpfs: error unpacking rootfs: unpack entry: "
          "usr/lib/libcudnn.so.9: write /tmp/build-temp-123/rootfs/usr/lib/libcudnn.so.9: no space left on device",
          "apptainer-tmp-full"),
    Quote("Apptainer", "v1.4.5", "cmd/internal/cli/build_linux.go", 407,
          'sylog.Fatalf("While performing build: %v", err)',
          "FATAL:   While performing build: while creating SIF: while creating squashfs: create command failed: "
          "exit status 1: Write failed because No space left on device", "apptainer-tmp-full"),
    Quote("Apptainer", "v1.1.9", "cmd/internal/cli/actions_linux.go", 849,
          'sylog.Fatalf("while extracting %s: %s", image, err)',
          "FATAL:   while extracting /scratch/u1/app.sif: root filesystem extraction failed: write "
          "/tmp/rootfs-817/opt/venv/lib/libtorch_cuda.so: no space left on device", "apptainer-tmp-full"),
    Quote("Apptainer", "v1.5.3", "internal/pkg/runtime/launch/launcher_linux.go", 1219,
          'sylog.Fatalf("while extracting %s: %s", image, err)',
          "FATAL:   while extracting app.sif: root filesystem extraction failed: write /tmp/rootfs-1234/usr/lib/"
          "libcudnn.so.9: no space left on device", "apptainer-tmp-full"),
    Quote("Apptainer", "v1.1.9", "cmd/internal/cli/actions_linux.go", 1078,
          'sylog.Warningf("Could not find any %s libraries on this host!", gpuPlatform)',
          "WARNING: Could not find any nv libraries on this host!", "apptainer-nv-no-host-driver",
          context=("ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
                   "Traceback (most recent call last):")),
    Quote("Apptainer", "v1.5.3", "internal/pkg/runtime/launch/launcher_linux.go", 951,
          'sylog.Warningf("Could not find any %s files on this host!", gpuPlatform)',
          "WARNING: Could not find any nv files on this host!", "apptainer-nv-no-host-driver",
          context=("RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
                   "Traceback (most recent call last):")),
    Quote("Apptainer", "v1.1.9", "pkg/util/loop/loop.go", 233,
          'return fmt.Errorf("no loop devices available")',
          "FATAL:   container creation failed: mount /proc/self/fd/3->/var/apptainer/mnt/session/rootfs error: "
          "while mounting image /proc/self/fd/3: failed to find loop device: no loop devices available",
          "apptainer-no-loop-device"),
    Quote("Apptainer", "v1.5.3", "internal/pkg/runtime/engine/apptainer/container_linux.go", 1002,
          'return fmt.Errorf("failed to find loop device: %s", err)',
          "FATAL:   container creation failed: mount /proc/self/fd/3->/usr/local/var/apptainer/mnt/session/rootfs "
          "error: while mounting image /proc/self/fd/3: failed to find loop device: no loop devices available",
          "apptainer-no-loop-device"),
    # A /dev/loopN node with no loop device behind it (ENXIO): before 1.1.8, shared loop devices returned it.
    Quote("Apptainer", "v1.1.7", "pkg/util/loop/loop.go", 138,
          'return fmt.Errorf("failed to attach loop device: %s", err)',
          "FATAL:   container creation failed: mount /proc/self/fd/3->/var/apptainer/mnt/session/rootfs error: "
          "while mounting image /proc/self/fd/3: failed to find loop device: could not attach image file to loop "
          "device: failed to attach loop device: could not open /dev/loop12: no such device or address",
          "apptainer-loop-device-unattached"),
    Quote("Apptainer", "v1.4.5", "internal/pkg/runtime/engine/apptainer/rpc/server/server_linux.go", 310,
          'return fmt.Errorf("could not attach image file to loop device: %v", err)',
          "FATAL:   container creation failed: mount /proc/self/fd/3->/var/apptainer/mnt/session/rootfs error: "
          "while mounting image /proc/self/fd/3: failed to find loop device: could not attach image file to loop "
          "device: failed to attach loop device: could not open /dev/loop7: no such device or address",
          "apptainer-loop-device-unattached"),
    # A writable overlay another container still holds (the byte-range lock on the image or its partition).
    Quote("Apptainer", "v1.4.5", "pkg/image/image.go", 343,
          'return fmt.Errorf("can\'t open %s for writing, currently in use by another process", i.Path)',
          "FATAL:   while loading overlay images: failed to open overlay image /scratch/ab123/overlay-25GB-500K.ext3: "
          "can't open /scratch/ab123/overlay-25GB-500K.ext3 for writing, currently in use by another process",
          "apptainer-overlay-in-use"),
    Quote("Apptainer", "v1.4.5", "internal/pkg/runtime/engine/apptainer/container_linux.go", 834,
          'return fmt.Errorf("destination %s doesn\'t exist in container", mnt.Destination)',
          "FATAL:   container creation failed: mount hook function failure: mount /scratch->/scratch error: while "
          "mounting /scratch: destination /scratch doesn't exist in container", "bind-destination-missing"),
    Quote("Apptainer", "v1.4.5", "internal/pkg/runtime/engine/apptainer/process_linux.go", 638,
          'return fmt.Errorf("image targets \'%s\', cannot run on \'%s\'", elfArch, runtime.GOARCH)',
          "FATAL:   image targets 'amd64', cannot run on 'arm64'", "image-arch"),

    # --- libnvidia-container (the GPU hook of enroot/pyxis and Docker) ----------------------------------------------
    Quote("libnvidia-container", "commit 5823754", "src/cli/dsl.c", 0,
          'error_setx(err, "unsatisfied condition: %s, please update your driver to a newer version, or use an '
          'earlier cuda container", predicate_format);',
          "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.8, please update your driver to "
          "a newer version, or use an earlier cuda container", "container-cuda-requirement"),
    Quote("libnvidia-container", "commit 09df17a", "src/cli/configure.c", 0,
          'warnx("initialization error: %s", nvc_error(nvc));',
          "nvidia-container-cli: initialization error: nvml error: driver not loaded", "container-no-driver"),
    # NVML's strings reach the log lower-cased: error_vset() (src/error.c) ends in `strlower(err->msg)`.
    Quote("libnvidia-container", "commit 417f41c", "src/driver.c call_nvml() and src/error.c error_vset()", 0,
          'error_set_nvml((ctx)->err, (ctx)->nvml_dl, r_, "nvml error");',
          "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown.",
          "nvml-driver-mismatch", fmt="nvml error"),
    # The driver's mounts: xmount() (src/xfuncs.h) names the path it could not mount, after configure's "mount
    # error: %s" (src/cli/configure.c); the firmware directory's mount (src/nvc_mount.c mount_firmware(), 1.6 and
    # 1.7) failing on an NFS root, NVIDIA/libnvidia-container#147.
    Quote("libnvidia-container", "commit 1352197", "src/xfuncs.h xmount()", 0,
          'error_set(err, "mount operation failed: %s", (source != NULL && *source == \'/\') ? source : target);',
          "nvidia-container-cli: mount error: mount operation failed: /tmp/enroot/pyt+0.1/usr/lib/firmware/nvidia/"
          "470.57.02: operation not permitted", "libnvidia-container-firmware-mount-failed",
          fmt="mount operation failed: %s"),
    Quote("libnvidia-container", "commit 077f498", "src/nvc_mount.c nvc_driver_mount()", 0,
          'log_errf("error mounting firmware path %s", info->firmwares[i]);',
          "E0212 10:01:02.000001 4242 nvc_mount.c:812] error mounting firmware path /lib/firmware/nvidia/535.104.05/"
          "gsp_ga10x.bin", "libnvidia-container-firmware-mount-failed"),
    # The driver's control devices: src/nvc_info.c always lists /dev/nvidiactl and /dev/nvidia-modeset (and
    # nvidia-uvm, nvidia-uvm-tools when found), and mount_device() (src/nvc_mount.c) stats each on the host with
    # xstat() (src/xfuncs.h), whose error configure prints after "mount error: %s" (src/cli/configure.c).
    Quote("libnvidia-container", "commit 1352197", "src/xfuncs.h xstat() and src/nvc_mount.c mount_device()", 0,
          'error_set(err, "stat failed: %s", path);',
          "slurmstepd: error: pyxis:     nvidia-container-cli: mount error: stat failed: /dev/nvidia-modeset: no "
          "such file or directory", "nvidia-control-device-node-missing", fmt="stat failed: %s",
          context=("slurmstepd: error: pyxis:     [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return "
                   "code 1",)),
    Quote("libnvidia-container", "commit 1352197", "src/xfuncs.h xstat() and src/nvc_mount.c mount_device()", 0,
          'error_set(err, "stat failed: %s", path);',
          "docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI "
          "runtime create failed: runc create failed: unable to start container process: error during container "
          "init: error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as "
          "'legacy'\nnvidia-container-cli: mount error: stat failed: /dev/nvidiactl: no such file or directory: "
          "unknown.", "nvidia-control-device-node-missing", fmt="stat failed: %s"),
    # The GPU's device rules (setup_device_cgroup's RPC handler): enroot's 98-nvidia.sh always runs
    # `nvidia-container-cli --user configure --no-cgroups`, so a device-rule error under enroot is the CLI adding
    # rules it was told not to: the 1.17.7 release (NVIDIA/nvidia-container-toolkit#1093,
    # NVIDIA/libnvidia-container#313).
    Quote("libnvidia-container", "a stored copy (commit not recorded)",
          "src/cgroup.c nvcgo_setup_device_cgroup_1_svc()", 0,
          'error_setx(err, "failed to add device rules: %s", rerr);',
          "slurmstepd: error: pyxis:     nvidia-container-cli: mount error: failed to add device rules: open "
          "/sys/fs/cgroup/devices/slurm/uid_28788/job_85/step_0/task_0/devices.allow: permission denied",
          "libnvidia-container-release-regression-1-17-7",
          context=("slurmstepd: error: pyxis:     [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return "
                   "code 1",)),
    # perm_set_capabilities() (src/utils.c): cap_set_proc() refused, which SELinux in enforcing mode does to the
    # hook (NVIDIA/enroot#88).
    Quote("libnvidia-container", "commit 077f498", "src/utils.c perm_set_capabilities()", 0,
          'error_set(err, "capability change failed");',
          "nvidia-container-cli: permission error: capability change failed: operation not permitted",
          "selinux-blocks-nvidia-container-cli", fmt="capability change failed"),
    # nvc_ldcache_update() (src/nvc_ldcache.c): the ldconfig the runtime names could not be executed; ENOENT exits 0,
    # so the container starts without a library cache (NVIDIA/nvidia-docker#1163, #854).
    Quote("libnvidia-container", "commit 0f8e13d", "src/nvc_ldcache.c nvc_ldcache_update()", 0,
          'log_errf("could not start %s: %s", argv[0], ctx->err.msg);',
          "E0105 19:55:43.488469 1 nvc_ldcache.c:384] could not start /sbin/ldconfig: process execution failed: no "
          "such file or directory", "nvidia-container-ldconfig-not-run"),

    # --- enroot (pyxis imports images through it) --------------------------------------------------------------------
    Quote("enroot", "v4.1.2", "src/common.sh", 134,
          'common::err "URL ${@: -1} returned error code: ${code} ${status}"',
          "slurmstepd: error: pyxis:     [ERROR] URL https://nvcr.io/proxy_auth?scope=repository:nvidia/pytorch:pull "
          "returned error code: 401 Unauthorized", "enroot-registry-refused"),
    Quote("enroot", "v4.1.2", "bin/enroot-nsenter.c", 167,
          'err(EXIT_FAILURE, "failed to create user namespace");',
          "enroot-nsenter: failed to create user namespace: Permission denied", "userns-restricted-apparmor"),
    Quote("enroot", "v3.4.1", "src/runtime.sh", 395,
          'common::err "No such file or directory: ${image}"',
          "slurmstepd: error: pyxis:     [ERROR] No such file or directory: /home/u1/images/pytorch-25.01.sqsh",
          "enroot-image-file-bad"),
    Quote("enroot", "v4.1.2", "src/runtime.sh", 405,
          'common::err "Invalid image format: ${image}"',
          "slurmstepd: error: pyxis:     [ERROR] Invalid image format: /scratch/u1/app.sif", "enroot-image-file-bad"),
    Quote("enroot", "v3.1.0", "conf/hooks/98-nvidia.sh", 65,
          'common::err "Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container"',
          "[ERROR] Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container",
          "enroot-no-gpu-hook"),
    Quote("enroot", "v4.1.2", "conf/hooks/98-nvidia.sh", 74,
          'common::err "Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container"',
          "[ERROR] Command not found: nvidia-container-cli, see https://github.com/NVIDIA/libnvidia-container",
          "enroot-no-gpu-hook"),
    # A warning on its own (a job that needs no GPU runs on); a cause once the GPU hook has failed.
    Quote("enroot", "v4.1.2", "conf/hooks/98-nvidia.sh", 77,
          'common::log WARN "Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device driver is installed '
          'and loaded."',
          "slurmstepd: error: pyxis:     [WARN] Kernel module nvidia_uvm is not loaded. Make sure the NVIDIA device "
          "driver is installed and loaded.", "container-no-driver",
          context=("slurmstepd: error: pyxis:     [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return "
                   "code 1",)),
    Quote("enroot", "v3.1.0", "src/common.sh", 216,
          '"${file}" || common::err "${file} exited with return code $?"',
          "[ERROR] /etc/enroot/hooks.d/99-mellanox.sh exited with return code 1", "enroot-hook-failed",
          fmt="${file} exited with return code ${?}"),
    Quote("enroot", "v4.1.2", "src/common.sh", 216,
          '"${file}" || common::err "${file} exited with return code $?"',
          "slurmstepd: error: pyxis: [ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1",
          "enroot-hook-failed", fmt="${file} exited with return code ${?}"),

    # --- DeepSpeed --------------------------------------------------------------------------------------------------
    Quote("DeepSpeed", "v0.19.5", "deepspeed/launcher/runner.py", 232,
          'logger.warning("Unable to find hostfile, will proceed with training "\n"with local resources only.")',
          "[2026-11-28 10:02:11,482] [WARNING] [runner.py:232:fetch_hostfile] Unable to find hostfile, will "
          "proceed with training with local resources only.", "deepspeed-no-hostfile", context=(TWO_NODES,)),
    Quote("DeepSpeed", "v0.10.3", "deepspeed/launcher/runner.py", 233,
          'raise ValueError(f"Hostfile contains multiple entries for {host}, unable to proceed with launching")',
          "ValueError: Hostfile contains multiple entries for gpu-a-017, unable to proceed with launching",
          "deepspeed-hostfile-bad"),
    Quote("DeepSpeed", "v0.19.5", "deepspeed/launcher/runner.py", 266,
          'raise ValueError(f"Hostfile contains a bad entry: {line}, unable to proceed with launching")',
          "ValueError: Hostfile contains a bad entry: gpu-a-017 slots 4, unable to proceed with launching",
          "deepspeed-hostfile-bad"),
    Quote("DeepSpeed", "v0.19.5", "deepspeed/launcher/runner.py", 270,
          'raise ValueError("Hostfile is empty or not formatted correctly, unable to proceed with launching.")',
          "ValueError: Hostfile is empty or not formatted correctly, unable to proceed with launching.",
          "deepspeed-hostfile-bad"),
    # The same mismatch is only printed where DeepSpeed accepts it (minor versions it knows compatible,
    # DS_SKIP_CUDA_CHECK=1, lines 119 and 125); raised, it ends in "unable to compile".
    Quote("DeepSpeed", "v0.19.5", "op_builder/builder.py", 130,
          'raise CUDAMismatchException(\nf">- DeepSpeed Op Builder: Installed CUDA version {sys_cuda_version} does '
          'not match the "\nf"version torch was compiled with {torch.version.cuda}, unable to compile "\n'
          '"cuda/cpp extensions without a matching cuda version.")',
          "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version "
          "12.2 does not match the version torch was compiled with 12.4, unable to compile cuda/cpp extensions "
          "without a matching cuda version.", "deepspeed-op-build",
          fmt=">- DeepSpeed Op Builder: Installed CUDA version {} does not match the version torch was compiled with "
              "{}, unable to compile cuda/cpp extensions without a matching cuda version."),
    Quote("DeepSpeed", "v0.19.5", "op_builder/builder.py", 51,
          'raise MissingCUDAException("CUDA_HOME does not exist, unable to compile CUDA op(s)")',
          "deepspeed.ops.op_builder.builder.MissingCUDAException: CUDA_HOME does not exist, unable to compile CUDA "
          "op(s)", "deepspeed-op-build"),

    # --- glibc's error strings (strerror, %m) and CPython's OSError around them ---------------------------------------
    Quote("glibc", "commit 3d7d5c1", "sysdeps/gnu/errlist.h (ENOSPC)", 0,
          '_S(ENOSPC, N_("No space left on device"))',
          "OSError: [Errno 28] No space left on device", "disk-full", context=(TRACEBACK,)),
    Quote("glibc", "commit 3d7d5c1", "sysdeps/gnu/errlist.h (EDQUOT)", 0,
          '_S(EDQUOT, N_("Disk quota exceeded"))',
          "cp: error writing '/home/u/ckpt/step_1000.pt': Disk quota exceeded", "disk-full"),
    # The same errno in Apptainer's session directory (a tmpfs of `sessiondir max size`) is Apptainer's space.
    Quote("glibc", "commit 3d7d5c1", "sysdeps/gnu/errlist.h (ENOSPC)", 0,
          '_S(ENOSPC, N_("No space left on device"))',
          "cp: error writing '/var/apptainer/mnt/session/rootfs/etc/resolv.conf': No space left on device",
          "apptainer-tmp-full"),
    Quote("glibc", "commit 3d7d5c1", "sysdeps/gnu/errlist.h (EMFILE)", 0,
          '_S(EMFILE, N_("Too many open files"))',
          "OSError: [Errno 24] Too many open files: '/scratch/u/data/shard_0001.bin'", "open-files-limit",
          context=(TRACEBACK,)),
    Quote("CPython", "commit 007fda4", "Lib/multiprocessing/reduction.py recvfds()", 0,
          "raise RuntimeError('received %d items of ancdata' %\nlen(ancdata))",
          "RuntimeError: received 0 items of ancdata", "open-files-limit", context=(TRACEBACK,),
          fmt="received %d items of ancdata"),
    Quote("glibc", "commit 3d7d5c1", "sysdeps/gnu/errlist.h (ESTALE)", 0,
          '_S(ESTALE, N_("Stale file handle"))',
          "OSError: [Errno 116] Stale file handle", "shared-cache-nfs-stale-handle", context=(TRACEBACK,)),

    # --- nccl-tests -------------------------------------------------------------------------------------------------
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 566,
          'len += snprintf(line+len, MAX_LINE-len, "#  Rank %2d Group %2d Pid %6d on %10s device %2d '
          '[%04x:%02x:%02x] %s\\n",',
          "#  Rank  0 Group  0 Pid   2741 on  gpu-a-017 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
          "nccl-tests-without-mpi",
          context=("#  Rank  0 Group  0 Pid   2742 on  gpu-a-017 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",)),
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 643,
          'PRINT("# Out of bounds values : %d %s\\n", errors[0], errors[0] ? "FAILED" : "OK");',
          "# Out of bounds values : 12 FAILED", "p2p-acs-iommu"),
    # A result row with wrong elements (#wrong, "%6g") across GH200 nodes: LL128 over NVLink-C2C (NVIDIA/nccl#2001).
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 480,
          'PRINT("  %7s  %6s  %6s  %6g", timeStr, algBwStr, busBwStr, (double)wrongElts);',
          "     2097152       2097152      int8     sum      -1  6249.20    0.34    0.63   18134  6142.32    0.34    "
          "0.64    9609", "nccl-ll128-gpudirect-slingshot-data-corruption",
          context=GH200_RANKS),
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 424,
          'PRINT("%12li  %12li  %8s  %6s  %6s", nBytes, nElem, typeName, opName, rootName);',
          "     4194304       4194304      int8     sum      -1  9489.31    0.44    0.83       0  10542.7    0.40    "
          "0.75  124342", "nccl-ll128-gpudirect-slingshot-data-corruption",
          context=GH200_RANKS),
    # The same row with ranks on one node, of other GPUs: wrong data, no cause the log shows (a layer verdict).
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 480,
          'PRINT("  %7s  %6s  %6s  %6g", timeStr, algBwStr, busBwStr, (double)wrongElts);',
          "  4294967296     134217728     float    none      -1  29122.0  129.05  129.05  1.2e+06  29169.4  128.84  "
          "128.84  1.2e+06", "layer-nccl-tests-wrong-results",
          context=("#  Rank  0 Group  0 Pid   2741 on  gpu-a-017 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",)),
    # --- host names that do not resolve, or resolve to loopback ----------------------------------------------------
    Quote("torch", "2.x", "torch/csrc/distributed/c10d/socket.cpp (SocketConnectOp::tryConnect)", 0,
          'recordError(\n"The {}network addresses of ({}, {}) cannot be retrieved (gai error: {} - {}).",\n'
          'family == AF_INET ? "IPv4 " : family == AF_INET6 ? "IPv6 " : "",\nhost_,\nport_,\nr,\ngai_err);',
          "[W1128 10:02:11.482 socket.cpp:833] [c10d] The IPv4 network addresses of (gpu-a-017, 29500) cannot be "
          "retrieved (gai error: -2 - Name or service not known).", "rendezvous-name-not-resolvable",
          context=("torch.distributed.DistNetworkError: The client socket has timed out after 900000ms while trying "
                   "to connect to (gpu-a-017, 29500).",)),
    Quote("NCCL", "v2.21.5-1", "src/misc/socket.cc", 267,
          'WARN("Net : error encountered when getting address info : %s", gai_strerror(rv));',
          NCCL_WARN.format(where="misc/socket.cc:267") + "Net : error encountered when getting address info : Name or "
          "service not known", "rendezvous-name-not-resolvable", context=(FAILED,)),
    Quote("NCCL", "v2.30.7-1", "src/misc/socket.cc", 257,
          'WARN("Net : error encountered when getting address info : %s", gai_strerror(rv));',
          NCCL_WARN.format(where="misc/socket.cc:257") + "Net : error encountered when getting address info : "
          "Temporary failure in name resolution", "rendezvous-name-not-resolvable", context=(FAILED,)),
    Quote("Gloo", "commit 1d9e62a", "gloo/transport/tcp/pair.cc", 722,
          'signalAndThrowException(\nGLOO_ERROR_MSG("connect ", peer_.str(), ": ", strerror(optval)));',
          "  what():  [/opt/conda/conda-bld/pytorch/work/third_party/gloo/gloo/transport/tcp/pair.cc:723] connect "
          "[127.0.1.1]:3210: Connection refused", "hostname-resolves-to-loopback", fmt="connect "),
    Quote("Gloo", "commit cc44198", "gloo/transport/tcp/error.cc", 26,
          'ss << syscall_ << ": " << strerror(error_) << ", remote=" << remote_.str();',
          "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] "
          "connect: Connection refused, remote=[127.0.0.1]:48213", "hostname-resolves-to-loopback",
          context=(TWO_NODES,), fmt=", remote="),
    Quote("Gloo", "commit cc44198", "gloo/transport/tcp/pair.h", 310,
          'signalAndThrowException(\nGLOO_ERROR_MSG("Connect timeout ", peer_.str()));',
          "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] Connect timeout [127.0.1.1]:60119",
          "hostname-resolves-to-loopback", fmt="Connect timeout "),
    # --- OpenSSH's host keys --------------------------------------------------------------------------------------
    Quote("OpenSSH", "V_9_6_P1", "sshconnect.c", 1646,
          'error("@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @");',
          "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @", "ssh-host-key-changed"),
    Quote("OpenSSH", "V_7_4_P1", "sshconnect.c", 1099,
          'error("%s host key for %.200s has changed and you have "\n"requested strict checking.", type, host);',
          "RSA host key for gpu-a-018 has changed and you have requested strict checking.", "ssh-host-key-changed",
          context=("Host key verification failed.",)),
    Quote("OpenSSH", "V_9_6_P1", "sshconnect.c", 1301,
          'error("Host key for %.200s has changed and you have "\n"requested strict checking.", host);',
          "Host key for gpu-a-018 has changed and you have requested strict checking.", "ssh-host-key-changed",
          context=("Host key verification failed.",)),
    # ssh asking whether to trust a key it has never seen: a launcher's ssh waits there for an answer nobody gives.
    Quote("OpenSSH", "V_9_6_P1", "sshconnect.c", 1154,
          'xasprintf(&msg1, "The authenticity of host "\n"\'%.200s (%s)\' can\'t be established", host, ip);',
          "The authenticity of host 'gpu-a-018 (10.1.0.18)' can't be established.", "ssh-host-key-unknown"),
    Quote("OpenSSH", "V_7_4_P1", "sshconnect.c", 986,
          'snprintf(msg, sizeof(msg),\n"The authenticity of host \'%.200s (%s)\' can\'t be "\n"established%s\\n"\n'
          '"%s key fingerprint is %s.%s%s\\n%s"\n"Are you sure you want to continue connecting "\n"(yes/no)? ",\n'
          'host, ip, msg1, type, fp,\noptions.visual_host_key ? "\\n" : "",\noptions.visual_host_key ? ra : "",\n'
          'msg2);',
          "The authenticity of host 'gpu-a-018 (10.1.0.18)' can't be established", "ssh-host-key-unknown",
          fmt="The authenticity of host '%s (%s)' can't be established"),
    Quote("OpenSSH", "V_9_6_P1", "sshconnect.c", 1147,
          'error("No %s host key is known for %.200s and you "\n"have requested strict checking.", type, host);',
          "No ED25519 host key is known for gpu-a-018 and you have requested strict checking.",
          "ssh-host-key-unknown"),
    Quote("OpenSSH", "V_9_6_P1", "sshconnect2.c", 105,
          'fatal("Host key verification failed.");',
          "Host key verification failed.", "ssh-host-key-unknown"),
    # --- Cray MPICH's GPU transport layer, an mpiexec that is not Open MPI's -----------------------------------------
    Quote("Cray MPICH", "8.1", "libmpi_cray (closed source; the string MPIDI_CRAY_init prints)", 0,
          '"MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked"',
          "MPICH ERROR [Rank 0] [job id 4512.0] [Sun Nov 29 03:50:00 2026] [nid001234] - Abort(-1) (rank 0 in comm 0): "
          "MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked", "cray-gtl-not-linked"),
    Quote("glibc", "2.3x", "elf/dl-load.c (_dl_map_object)", 0,
          '_dl_signal_error (errno, name, NULL,\nN_("cannot open shared object file"));',
          "ImportError: libmpi_gtl_cuda.so.0: cannot open shared object file: No such file or directory",
          "cray-gtl-not-linked", fmt="cannot open shared object file"),
    Quote("glibc", "2.3x", "elf/dl-load.c (_dl_map_object)", 0,
          '_dl_signal_error (errno, name, NULL,\nN_("cannot open shared object file"));',
          "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
          "cuda-library-missing", fmt="cannot open shared object file"),
    Quote("glibc", "2.3x", "elf/dl-load.c (_dl_map_object)", 0,
          '_dl_signal_error (errno, name, NULL,\nN_("cannot open shared object file"));',
          "OSError: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory",
          "cuda-library-missing", fmt="cannot open shared object file"),
    Quote("glibc", "2.26", "posix/getopt.c (process_long_option)", 0,
          'fprintf (stderr, _("%s: unrecognized option \'%s%s\'\\n"),\nargv[0], prefix, d->__nextchar);',
          "mpiexec: unrecognized option '--map-by'", "pals-mpiexec-openmpi-options"),
    # --- enroot/pyxis and Apptainer starting a container --------------------------------------------------------
    Quote("enroot", "v4.1.2", "src/runtime.sh", 250,
          'flock -w 30 "${_lock}" > /dev/null 2>&1 || common::err "Could not acquire rootfs lock"',
          "58: slurmstepd: error: pyxis: [ERROR] Could not acquire rootfs lock", "enroot-rootfs-lock-timeout",
          fmt="Could not acquire rootfs lock"),
    Quote("enroot", "v4.1.2", "bin/enroot-switchroot.c", 726,
          'err(EXIT_FAILURE, "failed to execute: %s", shell);',
          "enroot-switchroot: failed to execute: /bin/sh: No such file or directory", "image-no-shell"),
    Quote("pyxis", "v0.24.0", "pyxis_slurmstepd.c", 1670,
          'slurm_error("pyxis: seccomp filter failed: %s", strerror(errno));',
          "slurmstepd: error: pyxis: seccomp filter failed: Invalid argument", "pyxis-seccomp-flag-unsupported"),
    Quote("Apptainer", "v1.4.5", "internal/pkg/runtime/engine/apptainer/container_linux.go", 417,
          'return fmt.Errorf("failed to resolve session directory %s: %s", buildcfg.SESSIONDIR, err)',
          "FATAL:   container creation failed: failed to resolve session directory /var/lib/apptainer/mnt/session: "
          "lstat /var/lib/apptainer: no such file or directory", "apptainer-session-dir-missing"),
    # --- the adapter's limits, the driver's state -----------------------------------------------------------------
    # Read in a stored copy of the file (5.x, before mlx5_cmd_out_err), not at a tag.
    Quote("Linux", "5.x", "drivers/net/ethernet/mellanox/mlx5/core/cmd.c (mlx5_cmd_check)", 0,
          'mlx5_core_err_rl(dev,\n"%s(0x%x) op_mod(0x%x) failed, status %s(0x%x), syndrome (0x%x)\\n",\n'
          "mlx5_command_str(opcode), opcode, op_mod,\ncmd_status_str(status), status, syndrome);",
          "[2605244.823409] mlx5_core 0000:61:00.0: mlx5_cmd_check:795:(pid 53945): ALLOC_UAR(0x802) op_mod(0x0) "
          "failed, status limits exceeded(0x8), syndrome (0x5a7939)", "hca-resources-exhausted"),
    # Read in the patch that added mlx5_cmd_out_err (Linux 6.x, "net/mlx5: cmdif, ..."), not at a tag.
    Quote("Linux", "6.x", "drivers/net/ethernet/mellanox/mlx5/core/cmd.c (mlx5_cmd_out_err)", 0,
          'mlx5_core_err_rl(dev,\n"%s(0x%x) op_mod(0x%x) failed, status %s(0x%x), syndrome (0x%x), err(%d)\\n",\n'
          "mlx5_command_str(opcode), opcode, op_mod,\ncmd_status_str(status), status, syndrome, "
          "cmd_status_to_err(status));",
          "mlx5_core 0000:61:00.0: mlx5_cmd_out_err:838:(pid 53945): CREATE_QP(0x500) op_mod(0x0) failed, status "
          "limits exceeded(0x8), syndrome (0x2a4e9b), err(-12)", "hca-resources-exhausted"),
    # torch/cuda/__init__.py warns "CUDA initialization: " + the error this check raises.
    Quote("torch", "2.x", "c10/cuda/CUDAFunctions.cpp (device_count_impl, case cudaErrorUnknown)", 0,
          'TORCH_CHECK(\nfalse,\n"CUDA unknown error - this may be due to an "\n"incorrectly set up environment, e.g. '
          'changing env "\n"variable CUDA_VISIBLE_DEVICES after program start. "\n"Setting the available devices to '
          'be zero.");',
          "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up "
          "environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available "
          "devices to be zero. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
          "driver-broken-after-suspend"),
    # cuInit's result by its name, as XLA's stream executor logs it (cuda_driver.cc "failed call to cuInit: ").
    Quote("CUDA", "12.x", "cuda.h (enum cudaError_enum)", 0,
          "CUDA_ERROR_UNKNOWN = 999",
          "2023-10-04 12:33:47.594219: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:268] failed call to "
          "cuInit: CUDA_ERROR_UNKNOWN: unknown error", "driver-broken-after-suspend", fmt="CUDA_ERROR_UNKNOWN"),
    # --- NCCL's InfiniBand completions refused as local protection errors (GPUDirect RDMA through ACS) -----------
    Quote("NCCL", "v2.18.5-1", "src/transport/net_ib.cc", 1295,
          'WARN("NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d (%s)%s%s%s%s",',
          "H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
          "fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)",
          "p2p-acs-iommu"),
    Quote("NCCL", "v2.21.5-1", "src/transport/net_ib.cc", 1909,
          'WARN("NET/IB : Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d (%s)%s%s%s%s",',
          NCCL_WARN.format(where="transport/net_ib.cc:1909") + "NET/IB : Got completion from peer 10.0.0.18<47212> "
          "with status=4 opcode=0 len=0 vendor err 81 (Send)", "p2p-acs-iommu"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_ib/p2p.cc", 688,
          'WARN("NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u %s%s%s%s hca %s", '
          "sockStr,",
          NCCL_WARN.format(where="transport/net_ib/p2p.cc:688") + "NET/IB: Got completion from peer 10.0.0.18<47212> "
          "with status=IBV_WC_LOC_PROT_ERR(4) opcode=IBV_WC_SEND(0) vendor_err=81  hca mlx5_0", "p2p-acs-iommu"),
    # NCCL 2.4 to 2.7's completion error before the peer was named: error 12 (IBV_WC_RETRY_EXC_ERR) on RoCE.
    Quote("NCCL", "v2.7.8-1", "src/transport/net_ib.cc", 818,
          'WARN("NET/IB : Got completion with error %d, opcode %d, len %d, vendor err %d", wc->status, wc->opcode, '
          "wc->byte_len, wc->vendor_err);",
          "gpu-a-017:2741:2790 [0] NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 32478, vendor err "
          "129", "roce-gid-index"),
    # --- NCCL older than the GPU: its kernels' shared memory ------------------------------------------------------
    Quote("NCCL", "v2.26.2-1", "src/enqueue.cc", 50,
          'WARN("cudaArch %d ncclMaxSharedMem %d exceeds device/fn maxSharedMem %zu",\n'
          "cudaArch, sharedMemSize, maxSharedMem-attr.sharedSizeBytes);",
          NCCL_WARN.format(where="enqueue.cc:50") + "cudaArch 1200 ncclMaxSharedMem 82240 exceeds device/fn "
          "maxSharedMem 79856", "nccl-too-old-for-gpu"),
    Quote("NCCL", "v2.30.7-1", "src/enqueue.cc", 81,
          'WARN("cudaArch %d dynamic smem %d exceeds device/fn maxSharedMem %d", cudaArch, '
          "ncclShmemDynamicSize(cudaArch),\nmaxDynamicSmem);",
          NCCL_WARN.format(where="enqueue.cc:81") + "cudaArch 1210 dynamic smem 82240 exceeds device/fn maxSharedMem "
          "79856", "nccl-too-old-for-gpu"),
    Quote("NCCL", "v2.25.1-1", "src/enqueue.cc", 52,
          'INFO(NCCL_INIT, "ncclMaxSharedMem %d exceeds device/fn maxSharedMem %zu",\n'
          "sharedMemSize, maxSharedMem-attr.sharedSizeBytes);",
          NCCL_INFO + "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856", "nccl-too-old-for-gpu",
          context=(FAILED,)),
    # --- srun refusing a step larger than the allocation; ssh given a host:slots entry ---------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 204,
          '"More processors requested than permitted",',
          "srun: error: Unable to create step for job 4512: More processors requested than permitted",
          "srun-step-exceeds-allocation"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 370,
          '"Memory required by task is not available",',
          "srun: error: Unable to create step for job 4512: Memory required by task is not available",
          "srun-step-exceeds-allocation"),
    # srun loading a plugin whose libraries are not where it runs: inside a container (CSCS: --environment given to
    # sbatch instead of srun puts the whole batch script, srun included, in the image).
    Quote("Slurm", "slurm-25-11-7-1", "src/common/plugin.c", 158,
          'error("plugin_load_from_file: dlopen(%s): %s",\nfq_path, dlerror());',
          "srun: error: plugin_load_from_file: dlopen(/usr/lib64/slurm/switch_hpe_slingshot.so): libjson-c.so.3: "
          "cannot open shared object file: No such file or directory",
          "sbatch-environment-srun-switch-plugin-unloadable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/switch.c", 205,
          'fatal("Can\'t find plugin for %s", slurm_conf.switch_type);',
          "srun: fatal: Can't find plugin for switch/hpe_slingshot", "sbatch-environment-srun-switch-plugin-unloadable",
          context=("srun: error: plugin_load_from_file: dlopen(/usr/lib64/slurm/switch_hpe_slingshot.so): "
                   "libjson-c.so.3: cannot open shared object file: No such file or directory",)),
    # Lightning's check of the Trainer against Slurm's allocation (SLURMEnvironment, 2.1.0 and later).
    Quote("Lightning", "2.6.5", "src/lightning/fabric/plugins/environments/slurm.py", 163,
          'raise ValueError(\nf"You set `devices={num_devices}` in Lightning, but the number of tasks per node '
          'configured in SLURM"\nf" `--ntasks-per-node={ntasks_per_node}` does not match. HINT: Set '
          '`devices={ntasks_per_node}`."\n)',
          "ValueError: You set `devices=4` in Lightning, but the number of tasks per node configured in SLURM "
          "`--ntasks-per-node=1` does not match. HINT: Set `devices=1`.",
          "slurm-ntasks-not-matching-trainer-devices",
          fmt="You set `devices=%d` in Lightning, but the number of tasks per node configured in SLURM "
          "`--ntasks-per-node=%d` does not match. HINT: Set `devices=%d`."),
    Quote("Lightning", "2.6.5", "src/lightning/fabric/plugins/environments/slurm.py", 221,
          'raise RuntimeError(\nf"You set `--ntasks={ntasks}` in your SLURM bash script, but this variable is not '
          'supported."\nf" HINT: Use `--ntasks-per-node={ntasks}` instead."\n)',
          "RuntimeError: You set `--ntasks=8` in your SLURM bash script, but this variable is not supported. HINT: "
          "Use `--ntasks-per-node=8` instead.", "slurm-ntasks-not-matching-trainer-devices",
          fmt="You set `--ntasks=%d` in your SLURM bash script, but this variable is not supported. HINT: Use "
          "`--ntasks-per-node=%d` instead."),
    Quote("Lightning", "2.6.5", "src/lightning/fabric/plugins/environments/slurm.py", 169,
          'raise ValueError(\nf"You set `num_nodes={num_nodes}` in Lightning, but the number of nodes configured in '
          'SLURM"\nf" `--nodes={nnodes}` does not match. HINT: Set `num_nodes={nnodes}`."\n)',
          "ValueError: You set `num_nodes=1` in Lightning, but the number of nodes configured in SLURM `--nodes=2` "
          "does not match. HINT: Set `num_nodes=2`.", "lightning-num-nodes-not-set",
          fmt="You set `num_nodes=%d` in Lightning, but the number of nodes configured in SLURM `--nodes=%d` does "
          "not match. HINT: Set `num_nodes=%d`."),
    Quote("OpenSSH", "V_9_6_P1", "ssh.c", 277,
          'do_log2(loglevel, "%s: Could not resolve hostname %.100s: %s", __progname,\n'
          "host, ssh_gai_strerror(gaierr));",
          "ssh: Could not resolve hostname localhost:4: Temporary failure in name resolution",
          "openmpi-host-slots-unsupported"),
    # --- a bind mount's missing source (pyxis, Apptainer), enroot's image reference ---------------------------------
    Quote("pyxis", "v0.24.0", "pyxis_slurmstepd.c", 984,
          'slurm_error("pyxis: --container-mounts: source path does not exist: %s", source);',
          "slurmstepd: error: pyxis: --container-mounts: source path does not exist: /local/scratch/u1234",
          "mount-source-missing"),
    Quote("Apptainer", "v1.4.5", "internal/pkg/runtime/engine/apptainer/container_linux.go", 715,
          'return fmt.Errorf("mount source %s doesn\'t exist", source)',
          "FATAL:   container creation failed: mount hook function failure: mount /scratch/u1234->/data error: while "
          "mounting /scratch/u1234: mount source /scratch/u1234 doesn't exist", "mount-source-missing"),
    Quote("enroot", "v4.1.2", "src/docker.sh", 291,
          'common::err "Invalid image reference: ${uri}"',
          "slurmstepd: error: pyxis:     [ERROR] Invalid image reference: docker://nvcr.io/nvidia/PyTorch:24.05-py3",
          "enroot-image-reference-invalid"),
    # --- Open MPI's daemon that never called back (the help text's first line, as mpirun prints it) ------------------
    Quote("Open MPI", "commit 097df599 (v4.x)", "orte/mca/errmgr/base/help-errmgr-base.txt", 55,
          "[failed-daemon]\nAn ORTE daemon has unexpectedly failed after launch and before",
          "An ORTE daemon has unexpectedly failed after launch and before", "mpirun-daemon-callback-failed",
          fmt="An ORTE daemon has unexpectedly failed after launch and before"),
    # --- Apptainer's user namespace without capabilities (AppArmor on Ubuntu 24.04) ------------------------------
    Quote("Apptainer", "v1.4.5", "cmd/starter/c/starter.c", 692,
          'fatalf("Could not write info to setgroups: %s\\n", strerror(errno));',
          "ERROR  : Could not write info to setgroups: Permission denied", "userns-restricted"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_ib/common.h", 615,
          'INFO(NCCL_NET,\n"HINT: In many cases this error occurs when ACS is enabled which would break GPU Direct '
          'RDMA protocol.");',
          NCCL_INFO + "HINT: In many cases this error occurs when ACS is enabled which would break GPU Direct RDMA "
          "protocol.", "p2p-acs-iommu"),

    # --- GPUDirect RDMA and peer-to-peer, as NCCL reports them and the kernel loads them -------------------------
    Quote("NCCL", "v2.18.5-1", "src/graph/topo.cc", 643,
          'INFO(NCCL_NET,"NET/%s : GPU Direct RDMA %s for HCA %d \'%s\'", comm->ncclNet->name, gdrSupport ? '
          '"Enabled" : "Disabled", n, props.name);',
          NCCL_INFO + "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'", "gpudirect-rdma-disabled"),
    Quote("NCCL", "v2.30.7-1", "src/graph/topo.cc", 1653,
          'INFO(NCCL_NET, "NET/%s : GPU Direct RDMA %s for HCA %d \'%s\'", netInfo->name, gdrSupport ? "Enabled" : '
          '"Disabled", n,\nprops.name);',
          NCCL_INFO + "NET/IB : GPU Direct RDMA Disabled for HCA 2 'mlx5_2'", "gpudirect-rdma-disabled"),
    Quote("NCCL", "v2.21.5-1", "src/graph/paths.cc", 244,
          'if (l >= 0) INFO(NCCL_ALL, "%s set by environment to %s", levelEnv, topoPathTypeStr[l]);',
          NCCL_INFO + "NCCL_P2P_LEVEL set by environment to LOC", "p2p-disabled-by-env"),
    Quote("NCCL", "v2.30.7-1", "src/graph/paths.cc", 252,
          'if (l >= 0) INFO(NCCL_ALL, "%s set by environment to %d", disableEnv, disable);',
          NCCL_INFO + "NCCL_P2P_DISABLE set by environment to 1", "p2p-disabled-by-env"),
    Quote("Linux", "v6.8", "kernel/module/main.c (simplify_symbols)", 0,
          'pr_warn("%s: Unknown symbol %s (err %d)\\n",\nmod->name, name, ret);',
          "[  612.334190] nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err -2)",
          "peermem-module-unloadable"),
    Quote("kmod", "a stored copy, version not recorded", "tools/modprobe.c (insmod_insert)", 0,
          'ERR("could not insert \'%s\': Unknown symbol in module, "\n"or unknown parameter (see dmesg)\\n",',
          "modprobe: ERROR: could not insert 'nv_peer_mem': Unknown symbol in module, or unknown parameter (see "
          "dmesg)", "peermem-module-unloadable"),

    # --- aws-ofi-nccl could not add the peer's address (EFA) ----------------------------------------------------
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_rdma.cpp", 2201,
          'NCCL_OFI_WARN("Unable to insert remote address into address vector "\n"for device %d. RC: %s",',
          "gpu-a-017:2741:2790 [1] NCCL WARN NET/OFI Unable to insert remote address into address vector for device "
          "1. RC: Invalid argument", "efa-unreachable"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_sendrecv.cpp", 2007,
          'NCCL_OFI_WARN("Unable to insert remote address into address vector for device %d. RC: %d",',
          "[rank1]: NET/OFI Unable to insert remote address into address vector for device 1. RC: 0",
          "efa-unreachable", context=(FAILED,)),

    # --- a topology or graph file NCCL was given -------------------------------------------------------------------
    Quote("NCCL", "v2.21.5-1", "src/graph/xml.h", 101,
          'WARN("Attribute %s of node %s not found", attrName, node->name);',
          NCCL_WARN.format(where="graph/xml.h:101") + "Attribute arch of node cpu not found", "topo-file-preset"),
    Quote("NCCL", "v2.30.7-1", "src/graph/xml.h", 107,
          'WARN("Attribute %s of node %s not found", attrName, node->name);',
          NCCL_WARN.format(where="graph/xml.h:107") + "Attribute vendor of node cpu not found", "topo-file-preset"),
    Quote("NCCL", "v2.21.5-1", "src/graph/search.cc", 880,
          'INFO(NCCL_ENV, "NCCL_GRAPH_FILE set by environment to %s", str);',
          NCCL_INFO + "NCCL_GRAPH_FILE set by environment to /opt/microsoft/ncv4/graph.xml", "topo-file-preset",
          context=("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
                   "error.",)),

    # --- DeepSpeed's pdsh launcher with --ssh_port (0.11.0 to 0.14.0) --------------------------------------------
    Quote("DeepSpeed", "v0.14.0", "deepspeed/launcher/multinode_runner.py", 77,
          'environment["PDSH_SSH_ARGS_APPEND"] += f" -p {self.args.ssh_port}"',
          "KeyError: 'PDSH_SSH_ARGS_APPEND'", "deepspeed-pdsh-ssh-args-bug",
          context=(TRACEBACK, '  File "/opt/conda/lib/python3.10/site-packages/deepspeed/launcher/'
                              'multinode_runner.py", line 77, in get_cmd'),
          fmt="PDSH_SSH_ARGS_APPEND"),

    # --- Apptainer binding a file onto a directory ---------------------------------------------------------------
    Quote("Apptainer", "v1.4.5", "internal/pkg/runtime/engine/apptainer/container_linux.go", 895,
          'return fmt.Errorf("could not mount %s: %s", mnt.Source, err)',
          "FATAL:   container creation failed: mount /etc/localtime->/etc/localtime error: while mounting "
          "/etc/localtime: could not mount /etc/localtime: not a directory", "bind-kind-mismatch"),

    # --- Slurm's PMIx plugin between the nodes' slurmstepds (a layer verdict) -----------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/mpi/pmix/pmixp_utils.c", 447,
          'PMIXP_ERROR("send failed, rc=%d, exceeded the retry limit", rc);',
          "slurmstepd: error:  mpi/pmix_v4: pmixp_p2p_send: gpu-a-018 [1]: pmixp_utils.c:447: send failed, "
          "rc=1001, exceeded the retry limit", "layer-pmix-exchange-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/mpi/pmix/pmixp_coll_ring.c", 736,
          'PMIXP_ERROR("%p: collective timeout seq=%d",',
          "slurmstepd: error:  mpi/pmix_v5: pmixp_coll_ring_check: gpu-a-017 [0]: pmixp_coll_ring.c:736: "
          "0x1550c0000c10: collective timeout seq=0", "layer-pmix-exchange-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/mpi/pmix/pmixp_server.c", 734,
          'PMIXP_ERROR("Unable to connect to %d", dconn->nodeid);',
          "slurmstepd: error:  mpi/pmix_v4: _process_server_request: gpu-a-017 [0]: pmixp_server.c:734: Unable to "
          "connect to 1", "layer-pmix-exchange-failed"),

    # --- NCCL ranks that disagree on a bootstrap message's size (a layer verdict) ------------------------------
    Quote("NCCL", "v2.21.5-1", "src/bootstrap.cc", 77,
          'WARN("Message truncated : received %d bytes instead of %d", recvSize, size);',
          "1: compute-st-p4de24xlarge-2:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : received 256 "
          "bytes instead of 4", "layer-nccl-bootstrap-mismatch"),
    Quote("NCCL", "v2.30.7-1", "src/bootstrap.cc", 249,
          'WARN("Message truncated : received %d,%d bytes instead of %d,%d", senderRecvSize1, senderRecvSize2, '
          'ops[1].size,',
          NCCL_WARN.format(where="bootstrap.cc:249") + "Message truncated : received 64,8 bytes instead of 32,8",
          "layer-nccl-bootstrap-mismatch"),

    # --- Open MPI that could not start (a layer verdict: no PMI cause named) ------------------------------------
    Quote("Open MPI", "v4.1.6", "ompi/errhandler/errhandler_predefined.c", 330,
          'out("*** An error occurred in %s\\n", arg);',
          "[hpl:21881] *** An error occurred in MPI_Init", "layer-mpi-init-failed",
          context=("[hpl:21881] *** on a NULL communicator",)),
    Quote("Open MPI", "v5.0.8", "ompi/errhandler/errhandler_predefined.c", 449,
          'out("*** An error occurred in %s\\n", arg);',
          "*** An error occurred in MPI_Init_thread", "layer-mpi-init-failed"),
    Quote("Open MPI", "v4.1.6", "ompi/runtime/ompi_mpi_init.c", 519,
          'error = "ompi_mpi_init: ompi_rte_init failed";',
          "  ompi_mpi_init: ompi_rte_init failed", "layer-mpi-init-failed",
          context=('  --> Returned "(null)" (-43) instead of "Success" (0)',)),
    Quote("Open MPI", "v4.1.6", "ompi/runtime/help-mpi-runtime.txt [mpi_init:startup:internal-failure]", 25,
          "It looks like %s failed for some reason; your parallel process is",
          "It looks like MPI_INIT failed for some reason; your parallel process is", "layer-mpi-init-failed",
          fmt="It looks like %s failed for some reason; your parallel process is"),

    # --- PMIx's security component (srun --mpi=pmix) --------------------------------------------------------------
    Quote("PMIx", "v4.2.9", "src/mca/base/help-pmix-mca-base.txt [find-available:not-valid]", 33,
          "Component: %s", "Component: munge", "pmix-munge-unavailable",
          context=("PMIx stopped checking at the first component that it did not find.", "Host:      gpu1",
                   "Framework: psec", "It looks like pmix_init failed for some reason; your parallel process is"),
          fmt="Component: %s"),

    # --- the InfiniBand card's async events (rdma-core libibverbs/enum_strs.c ibv_event_type_str()) -------------
    Quote("NCCL", "v2.18.5-1", "src/transport/net_ib.cc", 95,
          'WARN("NET/IB : Got async event : %s", str);',
          NCCL_WARN.format(where="transport/net_ib.cc:95") + "NET/IB : Got async event : port error", "ib-port-down"),
    Quote("NCCL", "v2.21.5-1", "src/transport/net_ib.cc", 101,
          'WARN("NET/IB : %s:%d Got async event : %s", dev->devName, dev->portNum, str);',
          NCCL_WARN.format(where="transport/net_ib.cc:101") + "NET/IB : mlx5_2:1 Got async event : port error",
          "ib-port-down"),
    Quote("NCCL", "v2.23.4-1", "src/transport/net_ib.cc", 171,
          'WARN("NET/IB : %s:%d Got async error event: %s", dev->devName, dev->portNum, str);',
          NCCL_WARN.format(where="transport/net_ib.cc:171") + "NET/IB : mlx5_2:1 Got async error event: port error",
          "ib-port-down"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_ib/common.cc", 179,
          'WARN("NET/IB : %s:%d Got non-fatal async event: %s(%d)", dev->devName, dev->portNum, str, '
          'event.event_type);',
          NCCL_WARN.format(where="transport/net_ib/common.cc:179") + "NET/IB : mlx5_2:1 Got non-fatal async event: "
          "port error(10)", "ib-port-down"),
    Quote("NCCL", "v2.21.5-1", "src/transport/net_ib.cc", 101,
          'WARN("NET/IB : %s:%d Got async event : %s", dev->devName, dev->portNum, str);',
          NCCL_WARN.format(where="transport/net_ib.cc:101") + "NET/IB : mlx5_0:1 Got async event : local "
          "catastrophic error", "hca-fatal-error"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_ib/common.cc", 123,
          'WARN("NET/IB : %s:%d async fatal event: %s", dev->devName, dev->portNum, str);',
          NCCL_WARN.format(where="transport/net_ib/common.cc:123") + "NET/IB : mlx5_0:1 async fatal event: local "
          "catastrophic error", "hca-fatal-error"),
    # --- Slurm ending a job for another's sake ------------------------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/req.c", 929,
          'error("*** %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***",',
          "slurmstepd: error: *** JOB 4512 ON gpu-a-017 CANCELLED AT 2026-03-02T11:04:12 DUE TO PREEMPTION ***",
          "slurm-preempted", context=(FAILED,)),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/req.c", 938,
          'error("*** %s ON %s CANCELLED AT %s DUE TO JOB REQUEUE ***",',
          "slurmstepd: error: *** STEP 4512.0 ON gpu-a-017 CANCELLED AT 2026-03-02T11:04:12 DUE TO JOB REQUEUE ***",
          "slurm-preempted"),

    # --- a process killed for memory ---------------------------------------------------------------------------
    Quote("Linux", "v6.8", "mm/oom_kill.c (__oom_kill_process)", 0,
          'pr_err("%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB, '
          'UID:%u pgtables:%lukB oom_score_adj:%hd\\n",',
          "[81234.567890] Out of memory: Killed process 41235 (python) total-vm:98765432kB, anon-rss:61234567kB, "
          "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0", "host-oom"),
    Quote("Linux", "v6.8", "mm/oom_kill.c (__oom_kill_process)", 0,
          'pr_err("%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB, '
          'UID:%u pgtables:%lukB oom_score_adj:%hd\\n",',
          "Memory cgroup out of memory: Killed process 41235 (python) total-vm:98765432kB, anon-rss:61234567kB, "
          "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0", "host-oom"),
    Quote("Slurm", "before the oom_kill count (a stored copy, version not recorded)",
          "src/plugins/task/cgroup/task_cgroup_memory.c (task_cgroup_memory_check_oom)", 0,
          'info("Exceeded step memory limit at some point.");',
          "slurmstepd: error: Exceeded step memory limit at some point.", "host-oom",
          context=("srun: error: gpu-a-017: task 0: Exited with exit code 1",)),

    # --- the locked-memory limit as the node shows it --------------------------------------------------------------
    Quote("Linux", "v6.8", "fs/proc/base.c (proc_pid_limits)", 0,
          'seq_printf(m, "%-25s %-20lu ",\nlnames[i].name, rlim[i].rlim_cur);',
          "Max locked memory         65536                65536                bytes     ", "memlock-too-low"),
    Quote("bash", "bash-5.2", "builtins/ulimit.def (printone)", 0,
          'printf ("%-20s %20s", limits[limind].description, unitstr);',
          "max locked memory           (kbytes, -l) 64", "memlock-too-low"),

    # --- a site's job_submit filter refusing the request --------------------------------------------------------
    Quote("Slurm", "25.11.7", "src/common/slurm_protocol_pack.c", 8367,
          "print_multi_line_string(err_msg, -1, LOG_LEVEL_ERROR);",
          "sbatch: error: *** Error partition 'h200_courant' is not valid for this job", "slurm-request-refused",
          fmt="%s"),
    Quote("Slurm", "25.11.7", "src/common/slurm_protocol_pack.c", 8367,
          "print_multi_line_string(err_msg, -1, LOG_LEVEL_ERROR);",
          "submitit.core.utils.FailedJobError: sbatch: error: Parameter --gres=gpu:1 no longer acceptable, please "
          "switch to --gpus=1", "slurm-request-refused", fmt="%s"),

    # --- Gloo's TCP device: the address each rank binds (gloo/common/logging.cc: "[enforce fail at F:L] COND. MSG") --
    Quote("Gloo", "commit 70dc360", "gloo/transport/tcp/device.cc", 84,
          'GLOO_ENFORCE(ifa != nullptr, "Unable to find address for: ", attr.iface);',
          "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:84] ifa != nullptr. Unable "
          "to find address for: ^lo", "gloo-socket-ifname-invalid"),
    Quote("Gloo", "commit 1d9e62a", "gloo/transport/tcp/device.cc", 85,
          'GLOO_ENFORCE(\nifa != nullptr,\n"Unable to find address for: ",\nattr.iface);',
          "RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/device.cc:88] ifa != nullptr. "
          "Unable to find address for: eth1", "gloo-socket-ifname-invalid"),
    Quote("Gloo", "commit 70dc360", "gloo/transport/tcp/device.cc", 138,
          'GLOO_ENFORCE(rp != nullptr, "Unable to find address for: ", attr.hostname);',
          "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:138] rp != nullptr. Unable "
          "to find address for: gpu-a-017.cluster", "gloo-hostname-unresolved"),
    Quote("Gloo", "commit 70dc360", "gloo/transport/tcp/device.cc", 128,
          'GLOO_ENFORCE(\nbind_rv == 0,\n"Unable to find address for ",\nattr.hostname,\n"; bind(2) for ",\n'
          'bind_addr,\n" failed with: ",\nstrerror(bind_errno));',
          "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:129] bind_rv == 0. Unable "
          "to find address for gpu-a-017; bind(2) for [10.1.0.17]:0 failed with: Cannot assign requested address",
          "gloo-hostname-unresolved", fmt="Unable to find address for %s; bind(2) for %s failed with: %s"),
    Quote("Gloo", "commit 70dc360", "gloo/transport/tcp/device.cc", 99,
          "GLOO_ENFORCE_EQ(rv, 0);",
          "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:99] rv == 0. -2 vs 0",
          "gloo-hostname-unresolved", fmt="rv%s0"),
    Quote("Gloo", "commit 70dc360", "gloo/transport/tcp/device.cc", 288,
          "GLOO_ENFORCE_EQ(ss1.ss_family, ss2.ss_family);",
          "[rank1]: RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:288] "
          "ss1.ss_family == ss2.ss_family. 10 vs 2", "gloo-address-family-mismatch",
          fmt="ss1.ss_family%sss2.ss_family"),

    # --- PMIx's rendezvous socket and contact file -----------------------------------------------------------------
    Quote("PMIx", "1.1.2 (Open MPI v2.1.6)", "opal/mca/pmix/pmix112/pmix/src/server/pmix_server.c", 238,
          'fprintf(stderr, "PMIx has detected a temporary directory name that results\\n");',
          "PMIx has detected a temporary directory name that results", "pmix-socket-path-too-long",
          context=("in a path that is too long for the Unix domain socket:", "",
                   "    Temp dir: /scratch/project/u/wd/77/openmpi-sessions-326421@cmp216_0/46869")),
    Quote("PMIx", "v4.2.9", "src/server/help-pmix-server.txt", 12,
          "The PMIx server was unable to setup a rendezvous file due to your",
          "The PMIx server was unable to setup a rendezvous file due to your", "pmix-socket-path-too-long",
          fmt="The PMIx server was unable to setup a rendezvous file due to your"),
    Quote("PMIx", "v4.2.9", "src/mca/ptl/base/ptl_base_listener.c", 217,
          'pmix_output(0, "Impossible to open the file %s in write mode\\n", filename);',
          "[gpu-a-017:10716] Impossible to open the file /tmp/pmix-contact.txt in write mode",
          "pmix-rendezvous-file-unusable"),
    Quote("PMIx", "v4.2.9", "src/server/help-pmix-server.txt", 21,
          "The PMIx server was unable to setup a rendezvous point. This is",
          "The PMIx server was unable to setup a rendezvous point. This is", "pmix-rendezvous-file-unusable",
          fmt="The PMIx server was unable to setup a rendezvous point. This is"),

    # --- Slurm's messages that name no daemon: a step it could not kill, a plugin it could not load, a peer it could
    # not talk to (Slurm 25.11.7; the errno strings from src/common/slurm_errno.c's table, as slurm_strerror prints)
    # The step's processes outlived SIGKILL by UnkillableStepTimeout: slurmstepd drains the node for it.
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/step_terminate_monitor.c", 147,
          'error("*** %s STEPD TERMINATED ON %s AT %s DUE TO JOB NOT ENDING WITH SIGNALS ***",\n'
          'entity, step->node_name, time_str);',
          "slurmstepd: error: *** STEP 338652.0 STEPD TERMINATED ON tensorcore AT 2026-03-08T07:16:35 DUE TO JOB NOT "
          "ENDING WITH SIGNALS ***", "slurm-step-unkillable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/step_terminate_monitor.c", 156,
          'xstrfmtcat(drain_reason, "%s (JobId=%u %s)",\nslurm_strerror(rc),\nstep->step_id.job_id,\nstepid_str);',
          "   Reason=Kill task failed (JobId=338652 StepId=0) [root@2026-03-08T07:16:35]", "slurm-step-unkillable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 970,
          '"Kill task failed",',
          "Node tensorcore: Reason=Kill task failed [root@2026-03-08T07:16:35]", "slurm-step-unkillable"),
    # A plugin the dynamic loader could not load, or one built for another Slurm release (plugin_version).
    Quote("Slurm", "slurm-25-11-7-1", "src/common/plugin.c", 158,
          'error("plugin_load_from_file: dlopen(%s): %s",\nfq_path, dlerror());',
          "slurmd: error: plugin_load_from_file: dlopen(/usr/lib64/slurm/gpu_nrt.so): /usr/lib64/slurm/gpu_nrt.so: "
          "undefined symbol: gpu_common_underscorify_tolower", "slurm-plugin-load-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/plugin.c", 110,
          'info("%s: Incompatible Slurm plugin %s version (%d.%02d.%d)",\n'
          'caller, fq_path, plugin_major, plugin_minor, plugin_micro);',
          "slurmstepd: plugin_load_from_file: Incompatible Slurm plugin /usr/local/lib/slurm/spank_pyxis.so version "
          "(23.02.7)", "slurm-plugin-load-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/plugrack.c", 349,
          'error("%s: %s", e->fq_path, slurm_strerror(err));',
          "slurmctld: error: /usr/lib64/slurm/select_cons_tres.so: Incompatible plugin version",
          "slurm-plugin-load-failed", fmt="%s: %s"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 1276,
          '"Incompatible plugin version",',
          "Incompatible plugin version", "slurm-plugin-load-failed"),
    # A message of a protocol version this Slurm no longer speaks (it keeps this release's and the prior ones').
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_protocol_pack.c", 14116,
          'error("%s: Invalid message version=%hu, type:%s",\n__func__, msg->protocol_version,\n'
          "rpc_num2string(msg->msg_type));",
          "slurmctld: error: pack_msg: Invalid message version=9472, type:REQUEST_BATCH_JOB_LAUNCH",
          "slurm-protocol-version-unsupported"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_protocol_pack.c", 220,
          'error("%s: protocol_version %hu not supported",\n__func__, header->version);',
          "slurmctld: error: unpack_header: protocol_version 9472 not supported", "slurm-protocol-version-unsupported"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 99,
          '"Incompatible versions of client and server code",',
          "sbatch: error: Batch job submission failed: Incompatible versions of client and server code",
          "slurm-protocol-version-unsupported"),
    # A message that got no answer in MessageTimeout (the errno string after whatever sent it), and the reply of
    # another type that Slurm before 23.11.9 reported for many such timeouts.
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 1069,
          '"Socket timed out on send/recv operation",',
          "srun: error: slurm_receive_msgs: [[tensorcore]:6818] failed: Socket timed out on send/recv operation",
          "slurm-message-timed-out"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 79,
          '"Unexpected message received",',
          "srun: error: Unable to allocate resources: Unexpected message received", "slurm-message-timed-out"),

    # --- a Slurm command's own configuration on the host it runs on ------------------------------------------------
    # No slurm.conf here (SLURM_CONF, the default path, configless mode's /run/slurm/conf) and none fetched.
    Quote("Slurm", "slurm-25-11-7-1", "src/common/read_config.c", 3227,
          'fatal("Could not establish a configuration source");',
          "srun: fatal: Could not establish a configuration source", "slurm-conf-not-found"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/read_config.c", 3098,
          'error("%s: failed to fetch config", __func__);',
          "srun: error: _establish_config_source: failed to fetch config", "slurm-conf-not-found"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/fetch_config.c", 285,
          'error("%s: DNS SRV lookup failed", __func__);',
          "sinfo: error: fetch_config: DNS SRV lookup failed", "slurm-conf-not-found"),
    # A node name this host's slurm.conf does not give an address for (srun's and slurmd's message forwarding).
    Quote("Slurm", "slurm-25-11-7-1", "src/common/forward.c", 406,
          'error("%s: can\'t find address for host %s, check slurm.conf",\n__func__, name);',
          "srun: error: _fwd_tree_get_addr: can't find address for host queue1-dy-p5-12, check slurm.conf",
          "slurm-node-address-unknown"),
    Quote("Slurm", "slurm-23-02-7-1", "src/common/forward.c", 368,
          'error("fwd_tree_thread: can\'t find address for host "\n"%s, check slurm.conf", name);',
          "srun: error: fwd_tree_thread: can't find address for host queue1-dy-p5-12, check slurm.conf",
          "slurm-node-address-unknown"),

    # slurmd making its cgroup where the cgroup filesystem is read-only (an unprivileged container or pod).
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/cgroup/common/cgroup_common.c", 371,
          'error("%s: unable to create cgroup \'%s\' : %m",\n__func__, file_path);',
          "slurmd: error: common_cgroup_instantiate: unable to create cgroup '/sys/fs/cgroup/system.slice/"
          "slurmstepd.scope' : Read-only file system", "slurmd-cgroup-fs-read-only"),

    # --- Slurm's munge authentication (the strings from munge's libmunge) ------------------------------------------
    # slurmd refusing the controller's own RPCs: their sender's uid is neither root nor this node's SlurmUser.
    Quote("Slurm", "slurm-25-05-5-1", "src/slurmd/slurmd/req.c", 3418,
          'error("Security violation, ping RPC from uid %u",\nmsg->auth_uid);',
          "slurmd[8046]: [2025-11-18T17:50:18.003] error: Security violation, ping RPC from uid 11100",
          "slurm-user-uid-differs-across-nodes"),
    Quote("Slurm", "slurm-25-05-5-1", "src/slurmd/slurmd/req.c", 3469,
          'error("Security violation, health check RPC from uid %u",\nmsg->auth_uid);',
          "[2025-11-18T17:50:26.011] error: Security violation, health check RPC from uid 11100",
          "slurm-user-uid-differs-across-nodes"),
    Quote("Slurm", "slurm-25-05-5-1", "src/slurmd/slurmd/req.c", 5333,
          'error("Security violation: kill_job(%u) from uid %u",\nreq->step_id.job_id, msg->auth_uid);',
          "[2025-11-18T17:51:32.767] error: Security violation: kill_job(2) from uid 11100",
          "slurm-user-uid-differs-across-nodes"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmd/req.c", 5203,
          'error("Security violation: %s req from uid %u",\nrpc_num2string(msg->msg_type), msg->auth_uid);',
          "slurmd: error: Security violation: REQUEST_PING req from uid 11100",
          "slurm-user-uid-differs-across-nodes"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/auth/munge/auth_munge.c", 552,
          'error("Munge decode failed: %s",\nmunge_ctx_strerror(ctx));',
          "[2026-11-28T08:50:15.259] error: Munge decode failed: Invalid credential", "munge-credential-invalid"),
    Quote("munge", "munge-0.5.18", "src/libmunge/strerror.c", 72,
          'return ("Rewound credential");',
          "[2026-11-28T08:50:15.259] error: Munge decode failed: Rewound credential", "munge-clock-skew"),
    Quote("munge", "munge-0.5.18", "src/libmunge/strerror.c", 70,
          'return ("Expired credential");',
          "[2026-11-28T08:50:15.259] error: Munge decode failed: Expired credential", "munge-clock-skew"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/auth/munge/auth_munge.c", 246,
          'error("Munge encode failed: %s", munge_ctx_strerror(ctx));',
          'sinfo: error: Munge encode failed: Failed to access "/run/munge/munge.socket.2": No such file or directory '
          "(Did you start munged?)", "munged-unreachable"),
    Quote("munge", "munge-0.5.18", "src/libmunge/m_msg_client.c", 183,
          'strdupf ("Failed to access \\"%s\\": %s (%s)",\npath, strerror (errno), "Did you start munged?"));',
          'srun: error: Munge encode failed: Failed to access "/var/run/munge/munge.socket.2": No such file or '
          "directory (Did you start munged?)", "munged-unreachable", fmt="Failed to access %s: %s (%s)"),

    # --- Slurm's gres.conf cores ------------------------------------------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/gres.c", 3881,
          'error("%s: %s: invalid GRES core specification (%s) on node %s",\n__func__, gres_ctx->gres_type,\n'
          "gres_slurmd_conf->cpus,\nrebuild_topo->node_name);",
          "[2026-11-28T09:46:22.044] error: _node_config_validate: gres/gpu: invalid GRES core specification "
          "(48-63,176-191) on node gpu-a-017", "gres-conf-invalid-cores-spec"),

    # --- libfabric's EFA provider out of locked memory ---------------------------------------------------------------
    Quote("libfabric", "v1.22.0", "prov/efa/src/efa_base_ep.c", 439,
          '"Libfabric EFA provider has encountered an internal error:\\n\\n"\n"Libfabric error: (%zd) %s\\n"',
          "Libfabric error: (-12) Cannot allocate memory", "memlock-too-low",
          context=("Libfabric EFA provider has encountered an internal error:", "",
                   "EFA internal error: (4112) Failure to post internal receive buffers"),
          fmt="Libfabric error: (%zd) %s"),
    # --- Open MPI's slots, the help text's second line ---------------------------------------------------------------
    Quote("Open MPI", "v4.1.8", "orte/mca/rmaps/base/help-orte-rmaps-base.txt", 27,
          "slots that were requested by the application:",
          "slots that were requested by the application:", "mpirun-not-enough-slots",
          fmt="slots that were requested by the application:"),

    # --- Torque's qsub and the site's submit filter ---------------------------------------------------------------
    Quote("Torque", "v5.1.1", "src/cmds/qsub_functions.c", 1122,
          'fprintf(stderr, "qsub: submit filter returned an error code, aborting job submission.\\n");',
          "qsub: submit filter returned an error code, aborting job submission.", "pbs-request-refused",
          context=('Must request at least one GPU to use the "gpu" queue!',)),
    Quote("Torque", "v5.1.1", "src/cmds/qsub_functions.c", 1112,
          'fprintf(stderr, "qsub: Your job has been administratively rejected by the queueing system.\\n");',
          "qsub: Your job has been administratively rejected by the queueing system.", "pbs-request-refused"),
    # --- coreutils' mkdir under enroot, in a UTF-8 locale (gnulib quotearg) ------------------------------------------
    Quote("enroot", "v4.1.2", "enroot.in", 106,
          '(umask 077 && mkdir -p "${ENROOT_CACHE_PATH}" "${ENROOT_DATA_PATH}" "${ENROOT_RUNTIME_PATH}")',
          "mkdir: cannot create directory \u2018/run/user/140196\u2019: Permission denied", "enroot-path-not-writable",
          fmt="${ENROOT_RUNTIME_PATH}"),

    # --- rdma-core's symbol versions, as the loader reports one missing ---------------------------------------------
    Quote("rdma-core", "v59.0", "providers/efa/libefa.map", 27,
          "EFA_1.4 {",
          "/usr/lib/x86_64-linux-gnu/libefa.so.1: version `EFA_1.4' not found (required by "
          "/opt/amazon/efa/lib/libfabric.so.1)", "rdma-core-abi", fmt="EFA_1.4"),
    Quote("rdma-core", "v59.0", "libibverbs/libibverbs.map.in", 177,
          "IBVERBS_PRIVATE_@IBVERBS_PABI_VERSION@ {",
          "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav34.so': /lib64/libmlx5.so.1: version "
          "`IBVERBS_PRIVATE_34' not found (required by /usr/lib/libibverbs/libmlx5-rdmav34.so)", "rdma-core-abi",
          context=(FAILED,), fmt="IBVERBS_PRIVATE_%s"),

    # --- nccl-tests that listed its ranks and printed no result (a layer verdict; NCCL too old for the GPU) -------
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 566,
          'len += snprintf(line+len, MAX_LINE-len, "#  Rank %2d Group %2d Pid %6d on %10s device %2d '
          '[%04x:%02x:%02x] %s\\n",',
          "#  Rank  1 Group  0 Pid   2741 on  gpu-a-017 device  1 [0000:41:00] NVIDIA RTX A6000",
          "layer-nccl-tests-hang-in-node",
          context=("#  Rank  0 Group  0 Pid   2741 on  gpu-a-017 device  0 [0000:01:00] NVIDIA RTX A6000",
                   NCCL_INFO + "Using network Socket")),
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 566,
          'len += snprintf(line+len, MAX_LINE-len, "#  Rank %2d Group %2d Pid %6d on %10s device %2d '
          '[%04x:%02x:%02x] %s\\n",',
          "#  Rank  8 Group  0 Pid   3120 on  gpu-a-018 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",
          "layer-nccl-tests-hang",
          context=("#  Rank  0 Group  0 Pid   2741 on  gpu-a-017 device  0 [0000:1b:00] NVIDIA H100 80GB HBM3",)),
    Quote("NCCL", "v2.25.1-1", "src/enqueue.cc", 52,
          'INFO(NCCL_INIT, "ncclMaxSharedMem %d exceeds device/fn maxSharedMem %zu",\n'
          "sharedMemSize, maxSharedMem-attr.sharedSizeBytes);",
          NCCL_INFO + "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856", "nccl-too-old-for-gpu",
          context=("#  Rank  0 Group  0 Pid   4766 on   GENOA-06 device  0 [0000:01:00] NVIDIA GeForce RTX 5090",)),

    # --- NCCL's graph checks and nccl-tests' report of NCCL's error (a layer verdict: NCCL's own check) -----------
    Quote("NCCL", "v2.18.5-1", "src/graph/rings.cc", 38,
          'WARN("Error : ring %d does not loop back to start (%d != %d)", r, current, rank);',
          "gpu-a-017:2741:2790 [7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (13 != 15).",
          "layer-nccl-internal"),
    Quote("NCCL", "v2.30.7-1", "src/graph/paths.cc", 192,
          'WARN("Error : could not find CPU close to GPU %d", gpu);',
          NCCL_WARN.format(where="graph/paths.cc:192") + "Error : could not find CPU close to GPU 3",
          "layer-nccl-internal"),
    Quote("nccl-tests", "v2.17.6", "src/common.h", 46,
          'printf("%s: Test NCCL failure %s:%d "           \\\n"\'%s / %s\'\\n",',
          "gpu-a-017: Test NCCL failure common.cu:1012 'internal error - please report this issue to the NCCL "
          "developers / '", "layer-nccl-internal", fmt="%s: Test NCCL failure %s:%d '%s / %s'"),

    # --- Slurm draining a node whose GRES count is below slurm.conf's ---------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/gres.c", 4071,
          'xstrfmtcat(*reason_down,\n"%s count reported lower than configured "\n"(%"PRIu64" < %"PRIu64")",',
          "   Reason=gpu count reported lower than configured (2 < 4) [slurm@2026-11-28T08:50:15]",
          "gres-count-below-config", fmt="%s count reported lower than configured (%d < %d)"),
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/gres.c", 3774,
          'xstrfmtcat(*reason_down,\n"%s:%s count too low (%"PRIu64" < %"PRIu64")",',
          "gpu-a-017     1   gpu*  drained  gpu:h100 count too low (3 < 4)", "gres-count-below-config",
          fmt="%s:%s count too low (%d < %d)"),

    # --- Open MPI's mpirun that could not start the program on a node (its help texts, as printed) ----------------
    Quote("Open MPI", "v4.1.6", "orte/tools/orterun/help-orterun.txt", 268,
          "%s was unable to find the specified executable file, and therefore\ndid not launch the job.",
          "mpirun was unable to find the specified executable file, and therefore", "mpirun-executable-not-found",
          context=("Node:       gpu-a-018", "Executable: ./train.py"),
          fmt="%s was unable to find the specified executable file, and therefore"),
    Quote("Open MPI", "v4.1.6", "orte/tools/orterun/help-orterun.txt", 280,
          "%s was unable to launch the specified application as it could not access\nor execute an executable:",
          "mpirun was unable to launch the specified application as it could not access",
          "mpirun-executable-not-found",
          fmt="%s was unable to launch the specified application as it could not access"),
    Quote("Open MPI", "v4.1.6", "orte/tools/orterun/help-orterun.txt", 259,
          "%s was unable to launch the specified application as it could not\nchange to the specified working "
          "directory:",
          "mpirun was unable to launch the specified application as it could not", "mpirun-workdir-missing",
          context=("change to the specified working directory:", "", "Working directory: /local/u/run",
                   "Node: gpu-a-018"),
          fmt="%s was unable to launch the specified application as it could not"),

    Quote("PMIx", "v4.2.9", "src/mca/ptl/base/ptl_base_listener.c", 205,
          'pmix_output(0, "System tmpdir %s could not be created\\n", dirname);',
          "[gpu-a-017:10716] System tmpdir /tmp/pmix-system could not be created", "pmix-rendezvous-file-unusable"),

    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 986,
          '"Job credential expired",',
          "srun: error: Task launch for StepId=4512.0 failed on node gpu-a-018: Job credential expired",
          "slurm-job-credential-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 978,
          '"Invalid job credential",',
          "srun: error: Task launch for StepId=4512.0 failed on node gpu-a-018: Invalid job credential",
          "slurm-job-credential-refused"),

    # --- the NVIDIA kernel module's status codes of a GPU that needs a reset or left the bus --------------------------
    Quote("NVIDIA kernel module", "open-gpu-kernel-modules commit 307159f", "src/common/sdk/nvidia/inc/nvstatuscodes.h",
          127, 'NV_STATUS_CODE(NV_ERR_RESET_REQUIRED,                  0x00000062, "Reset required")',
          "[Tue Mar  3 04:12:55 2026] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required "
          "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:2874", "gpu-hardware-fault",
          context=("'CUDA-capable device(s) is/are busy or unavailable'",)),
    Quote("NVIDIA kernel module", "open-gpu-kernel-modules commit 307159f", "src/common/sdk/nvidia/inc/nvstatuscodes.h",
          44, 'NV_STATUS_CODE(NV_ERR_GPU_IS_LOST,                     0x0000000F, "GPU lost from the bus")',
          "[ 9021.114310] NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] "
          "(0x0000000F) returned from status @ gpu_mgr.c:412", "gpu-hardware-fault"),

    # --- a job over its locked-memory or memory limit, in the words of closed schedulers and MPIs -------------------
    Quote("Intel MPI", "4.x and 5.x (closed source)", "its DAPL fabric's start-up check, as firemodels/fds#6023 quotes",
          0, '"DAPL startup: RLIMIT_MEMLOCK too small"', "[3] DAPL startup: RLIMIT_MEMLOCK too small",
          "memlock-too-low"),
    Quote("Moab", "under Torque (closed source)", "its resource-limit policy's job deletion, as DCCN's Torque guide "
          "quotes the mail", 0, '"job %s exceeded MEM usage hard limit (%d > %d)"',
          "job 3132467 exceeded MEM usage hard limit (2528 > 1126)", "host-oom"),

    # --- Open MPI 5's runtime (PRRTE) on a daemon that never called back, Slurm on a task it could not start --------
    Quote("Open MPI", "PRRTE commit 0f79f3a (Open MPI 5)", "src/mca/errmgr/base/help-errmgr-base.txt [failed-daemon]",
          54, '"An PRTE daemon has unexpectedly failed after launch and before"',
          "An PRTE daemon has unexpectedly failed after launch and before", "mpirun-daemon-callback-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/api/step_launch.c", 1071,
          'error("task %u launch failed: %s",\nmsg->task_ids[i],\nslurm_strerror(msg->return_code));',
          "srun: error: task 7 launch failed: Slurmd could not execve job", "slurm-task-launch-failed"),

    # --- torch's watchdog names the collective and the group's timeout -------------------------------------------
    Quote("torch", "2.x (a stored copy whose tag is not recorded)",
          "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp operator<<(WorkNCCL)", 0,
          'workInfo = c10::str(\n"WorkNCCL(",\n"SeqNum=",\nworkNCCL.seq_,\n", OpType=",\n'
          'opTypeToString(workNCCL.opType_),\n", NumelIn=",\nworkNCCL.numelIn_,\n", NumelOut=",\n'
          'workNCCL.numelOut_,\n", Timeout(ms)=",\nworkNCCL.opTimeout_.count(),\n")");',
          "[rank3]:[E ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=1207, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=120000) ran for 120041 "
          "milliseconds before timing out.", "pg-timeout-too-short", fmt=", Timeout(ms)="),

    # --- HDF5's file lock on a file system without locks ---------------------------------------------------------
    Quote("HDF5", "1.14 (a stored copy whose tag is not recorded)", "src/H5FDsec2.c H5FD__sec2_lock()", 0,
          'HSYS_GOTO_ERROR(H5E_VFL, H5E_CANTLOCKFILE, FAIL, "unable to lock file")',
          "OSError: Unable to open file (unable to lock file, errno = 38, error message = 'Function not implemented')",
          "hdf5-file-locking-unsupported"),
    Quote("HDF5", "1.14 (a stored copy whose tag is not recorded)", "src/H5Eprivate.h HSYS_GOTO_ERROR", 0,
          'HGOTO_ERROR(majorcode, minorcode, retcode, "%s, errno = %d, error message = \'%s\'", str, myerrno,',
          "  #008: H5FDsec2.c line 1002 in H5FD__sec2_lock(): unable to lock file, errno = 524, error message = "
          "'Unknown error 524'", "hdf5-file-locking-unsupported"),

    # --- pyxis on a container enroot could not start (a layer verdict when the enroot log names no cause) ----------
    Quote("pyxis", "a stored copy whose tag is not recorded", "src/pyxis_slurmstepd.c enroot_container_start()", 0,
          'slurm_error("pyxis: container start failed with error code: %d", ret);',
          "slurmstepd: error: pyxis: container start failed with error code: 1", "layer-container-start-failed",
          context=("slurmstepd: error: pyxis: printing enroot log file:",)),

    # --- Slurm's MPI plugin that would not load --------------------------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/common/plugin.c", 374,
          'error("Couldn\'t load specified plugin name for %s: %s",\nc->type, slurm_strerror(errno));',
          "srun: error: Couldn't load specified plugin name for mpi/pmix: Plugin init() callback failed",
          "slurm-mpi-plugin-missing"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/mpi/pmix/mpi_pmix.c", 199,
          'PMIXP_ERROR("pmi/pmix: can not load PMIx library");',
          "srun: error:  mpi/pmix_v4: init: (null) [0]: mpi_pmix.c:199: pmi/pmix: can not load PMIx library",
          "slurm-mpi-plugin-missing"),

    # --- torch's shared memory full, a rank killed under mpirun, Torque's queue limits ----------------------------
    Quote("torch", "v2.13.0", "aten/src/ATen/MapAllocator.cpp (the string in the wheel's libtorch_cpu.so)", 0,
          '"unable to write to file <"',
          "RuntimeError: unable to write to file </torch_2731_1829433570_1>: No space left on device (28)",
          "shm-too-small"),
    Quote("Open MPI", "PRRTE (a stored copy whose tag is not recorded)",
          "src/tools/prun/help-prun.txt [prun:proc-aborted-strsignal]", 0,
          '"%s noticed that process rank %lu with PID %lu on node %s exited on signal %d (%s)."',
          "mpirun noticed that process rank 5 with PID 31337 on node gpu-a-018 exited on signal 9 (Killed).",
          "rank-sigkill"),
    Quote("Torque", "a stored copy whose tag is not recorded", "src/include/pbs_error_db.h (PBSE_EXCQRESC)", 0,
          'PbsErrClient(PBSE_EXCQRESC,          "Job exceeds queue resource limits")',
          "qsub: Job exceeds queue resource limits MSG=cannot satisfy queue max ngpus requirement",
          "pbs-request-refused"),

    # --- torch without a driver; ranks that never all reached the store (a layer verdict) -------------------------
    Quote("torch", "2.x", "c10/cuda/CUDAFunctions.cpp (device_count_impl, case cudaErrorInsufficientDriver)", 0,
          'TORCH_CHECK(\nfalse,\n"Found no NVIDIA driver on your system. Please check that you "\n'
          '"have an NVIDIA GPU and installed a driver from "\n"http://www.nvidia.com/Download/index.aspx");',
          "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
          "a driver from http://www.nvidia.com/Download/index.aspx", "apptainer-no-nv"),
    Quote("torch", "v2.13.0", "torch/distributed/distributed_c10d.py", 1082,
          '"Timed out initializing process group in store based barrier on "\nf"rank {rank}, for key: {store_key} '
          '(world_size={world_size}, "',
          "torch.distributed.DistStoreError: Timed out initializing process group in store based barrier on rank 3, "
          "for key: store_based_barrier_key:1 (world_size=8, num_workers_joined=4, timeout=0:30:00 error=...)",
          "layer-rendezvous-timeout", fmt="Timed out initializing process group in store based barrier on "),
    Quote("torch", "2.x (a stored copy whose tag is not recorded)",
          "torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp broadcastUniqueNCCLID()", 0,
          'std::string exceptionMsg = c10::str(\n"[",\nrank_,\n"] is setting up NCCL communicator and "\n'
          '"retrieving ncclUniqueId from [0] via c10d key-value store by key \'",',
          "torch.distributed.DistBackendError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from "
          "[0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 300000ms",
          "layer-rendezvous-timeout", fmt="retrieving ncclUniqueId from [0] via c10d key-value store by key "),

    # --- NCCL refusing how it was called, and MPICH's MPI_Init that could not start (layer verdicts) ---------------
    Quote("NCCL", "v2.21.5-1", "src/init.cc", 2264,
          'case ncclInvalidUsage           : return "invalid usage (run with NCCL_DEBUG=WARN for details)";',
          "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:"
          "268, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5",
          "layer-nccl-invalid-usage"),
    Quote("NCCL", "v2.14.3-1", "src/init.cc", 1522,
          'case ncclInvalidUsage           : return "invalid usage";',
          "[NCCL ERROR]: invalid usage", "layer-nccl-invalid-usage",
          context=("terminate called after throwing an instance of 'std::runtime_error'",)),
    Quote("Cray MPICH", "MPICH (a stored copy whose tag is not recorded)", "src/mpi/errhan/errutil.c "
          "MPIR_Handle_fatal_error()", 0, 'MPL_snprintf(error_msg, MAX_ERRMSG_STRING, "Fatal error in %s: ", fcname);',
          "Fatal error in PMPI_Init: Other MPI error, error stack:", "layer-mpi-init-failed"),
    Quote("Cray MPICH", "MPICH (a stored copy whose tag is not recorded)", "src/mpi/errhan/errnames.txt (defmsg.h)",
          0, 'static const char long_spc102[]  = "PMI_Init returned %d";', "MPIR_pmi_init(110)...: PMI_Init returned 1",
          "layer-mpi-init-failed"),

    # --- Lightning's processes joining, each under its global rank (a layer verdict when one rank joins twice) ------
    Quote("Lightning", "1.x (a stored copy whose tag is not recorded)", "pytorch_lightning DDP plugin "
          "init_ddp_connection()", 0,
          'log.info(f"initializing ddp: GLOBAL_RANK: {global_rank}, MEMBER: {global_rank + 1}/{world_size}")',
          "initializing ddp: GLOBAL_RANK: 3, MEMBER: 4/8", "layer-rank-started-twice",
          context=("initializing ddp: GLOBAL_RANK: 3, MEMBER: 4/8", "Traceback (most recent call last):")),
    Quote("Lightning", "2.x (a stored copy whose tag is not recorded)", "Lightning's DDP strategy setup_distributed()",
          0, '_logger.info(f"Initializing distributed: GLOBAL_RANK: {global_rank}, MEMBER: {global_rank + '
          '1}/{world_size}")',
          "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/16", "layer-rank-started-twice",
          context=("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/16", "Traceback (most recent call last):")),
    # Rank 0 began joining and never logged that every rank had registered (Lightning 2.6.5 rank_zero_info(...
    # "All distributed processes registered. Starting with {world_size} processes\n" ...), line 293): a verdict.
    Quote("Lightning", "2.6.5", "src/lightning/fabric/utilities/distributed.py", 282,
          'log.info(f"Initializing distributed: GLOBAL_RANK: {global_rank}, MEMBER: {global_rank + 1}/{world_size}")',
          "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4", "layer-lightning-ranks-never-registered"),

    # --- torchrun's rendezvous closed by another node's agent (a layer verdict) -------------------------------------
    Quote("torch", "v2.13.0", "torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", 677,
          "raise RendezvousClosedError",
          "torch.distributed.elastic.rendezvous.api.RendezvousClosedError", "layer-rendezvous-closed",
          context=(TRACEBACK,), fmt="RendezvousClosedError"),

    # --- NCCL's socket connects as its last error (torch prints it bare after "Last error:") and its retries --------
    Quote("NCCL", "v2.18.5-1", "src/misc/socket.cc", 483,
          'WARN("socketStartConnect: Connect to %s failed : %s", ncclSocketToString(&sock->addr, line), '
          "strerror(errno));",
          "socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host", "nccl-connect",
          context=("ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device "
                   "error. ", "Last error:")),
    Quote("NCCL", "v2.30.7-1", "src/os/linux.cc", 288,
          'WARN("%s: connect to %s returned %s, exceeded error retry count after %d attempts", funcName,\n'
          "ncclSocketToString(&sock->addr, line), strerror(errCode), sock->errorRetries);",
          NCCL_WARN.format(where="os/linux.cc:288") + "socketPollConnect: connect to 10.1.0.18<43117> returned "
          "Connection refused, exceeded error retry count after 35 attempts", "nccl-connect"),
    Quote("NCCL", "v2.30.7-1", "src/os/linux.cc", 293,
          'INFO(NCCL_NET | NCCL_INIT, "%s: connect to %s returned %s, retrying (%d/%ld) after sleep for %u msec", '
          "funcName,",
          NCCL_INFO + "socketPollConnect: connect to 169.254.170.23<40125> returned Connection refused, retrying "
          "(13/34) after sleep for 1300 msec", "nccl-connect",
          context=("RuntimeError: NCCL error: remote process exited or there was a network error",)),

    # --- Apptainer's starter when clone() of the container process with a user namespace fails ------------------------
    # --fakeroot or an unprivileged install: clone(2) gives EINVAL (no user namespaces for this user), ENOSPC
    # (user.max_user_namespaces 0), EPERM (kernel.unprivileged_userns_clone=0).
    Quote("Apptainer", "v1.4.5", "cmd/starter/c/starter.c", 1711,
          'fatalf("Failed to create container process: %s\\n", strerror(errno));',
          "ERROR  : Failed to create container process: Invalid argument", "userns-restricted"),
    Quote("Apptainer", "v1.1.9", "cmd/starter/c/starter.c", 1704,
          'fatalf("Failed to create container process: %s\\n", strerror(errno));',
          "ERROR  : Failed to create container process: No space left on device", "userns-restricted"),
    Quote("Apptainer", "v1.4.5", "cmd/starter/c/starter.c", 1709,
          'infof("Unprivileged user namespaces may not be enabled\\n");',
          "INFO:    Unprivileged user namespaces may not be enabled", "userns-restricted"),

    # --- NCCL's NVLS multicast bind, which the NVSwitches and Fabric Manager serve ----------------------------------
    Quote("NCCL", "v2.27.3-1", "src/transport/nvls.cc", 284,
          'WARN("Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error %d \'%s\'.\\nThis is '
          'usually caused by a system or configuration error in the Fabric Manager or NVSwitches.\\nDo not '
          'force-enable NVLS (NCCL_NVLS_ENABLE=1) if you wish to avoid this error in the future.", ucsize, err, '
          'errStr );',
          NCCL_WARN.format(where="transport/nvls.cc:284") + "Failed to bind NVLink SHARP (NVLS) Multicast memory of "
          "size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.",
          "fabric-manager-down", fmt="Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error "
          "%d '%s'."),
    Quote("NCCL", "v2.30.7-1", "src/transport/nvls.cc", 376,
          'WARN("Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error %d \'%s\'.\\nThis is '
          'usually "\n"caused by a system or configuration error in the Fabric Manager or NVSwitches.\\nDisable NVLS '
          '"\n"(NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future.",',
          "This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.",
          "fabric-manager-down", fmt="This is usually caused by a system or configuration error in the Fabric "
          "Manager or NVSwitches."),

    # --- NCCL 2.3's socket connect, through its SYSCHECK macros -----------------------------------------------------
    Quote("NCCL", "v2.3.5-5", "src/include/core.h", 297,
          'WARN("Call to " name " timeout : %s", strerror(errno)); \\',
          "gpu-a-017:2741:2790 [0] include/socket.h:361 NCCL WARN Call to connect timeout : Connection refused",
          "nccl-connect", fmt=" timeout : %s"),
    Quote("NCCL", "v2.3.5-5", "src/include/core.h", 305,
          'WARN("Call to " name " failed : %s", strerror(errno)); \\',
          "gpu-a-017:2741:2790 [0] include/socket.h:361 NCCL WARN Call to connect failed : No route to host",
          "nccl-connect", fmt=" failed : %s"),

    # --- kernels missing for the GPU's architecture, in NCCL's CUDA checks -----------------------------------------
    Quote("NCCL", "v2.18.5-1", "src/include/checks.h", 16,
          'WARN("Cuda failure \'%s\'", cudaGetErrorString(err)); \\',
          NCCL_WARN.format(where="enqueue.cc:58") + "Cuda failure 'named symbol not found'", "cuda-arch-unsupported"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorSymbolNotFound = 500)", 0,
          '"named symbol not found"',
          NCCL_WARN.format(where="enqueue.cc:115") + "Cuda failure 'named symbol not found'", "cuda-arch-unsupported"),
    Quote("CUDA", "12.x", "cudaGetErrorString(cudaErrorInvalidDeviceFunction = 98)", 0,
          '"invalid device function"',
          "RuntimeError: CUDA error: invalid device function", "cuda-arch-unsupported"),

    # --- Open MPI's own PMI clients under srun -----------------------------------------------------------------------
    Quote("Open MPI", "v4.1.6", "opal/util/error.h", 30,
          'opal_output(0, "OPAL ERROR: %s in file %s at line %d", \\\nopal_strerror((r)), __FILE__, __LINE__);',
          "[gpu-a-017:12345] OPAL ERROR: Error in file pmix_s1.c at line 578", "mpi-without-pmi"),
    # PMIx's own client failing in PMIx_Init's runtime set-up (pmix_rte_init: the components the environment srun
    # gave the task name, security and data store, that this client cannot select), logged by PMIX_ERROR_LOG:
    # v3.2.3 src/client/pmix_client.c line 562, the macro in src/util/error.h line 45.
    Quote("PMIx", "v3.2.3", "src/util/error.h", 45,
          'pmix_output(0, "PMIX ERROR: %s in file %s at line %d",\nPMIx_Error_string((r)), __FILE__, __LINE__);',
          "[node140.pri.stanage.alces.network:12429] PMIX ERROR: NOT-FOUND in file client/pmix_client.c at line 562",
          "mpi-without-pmi"),
    # v4.2.9: PMIX_ERROR_LOG(rc) at src/client/pmix_client.c line 622, the macro in src/util/pmix_error.h.
    Quote("PMIx", "v4.2.9", "src/util/pmix_error.h", 48,
          'pmix_output(0, "PMIX ERROR: %s in file %s at line %d", PMIx_Error_string((r)),\n__FILE__, __LINE__);',
          "[gpu-a-017:12345] PMIX ERROR: PMIX_ERR_NOT_FOUND in file client/pmix_client.c at line 622",
          "mpi-without-pmi"),
    # The same macro from opal/mca/pmix/pmix3x/pmix3x_client.c line 111 (OPAL_ERROR_LOG(dbg) after PMIx_Init failed).
    Quote("Open MPI", "v4.1.6", "opal/util/error.h", 30,
          'opal_output(0, "OPAL ERROR: %s in file %s at line %d", \\\nopal_strerror((r)), __FILE__, __LINE__);',
          "[gpu-a-017:12345] OPAL ERROR: Not initialized in file pmix3x_client.c at line 111", "mpi-without-pmi"),

    # --- Slurm's SPANK plugin stack ----------------------------------------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/common/spank.c", 570,
          'error("spank: Failed to open %s: %m", path);',
          "srun: error: spank: Failed to open /etc/slurm/plugstack.conf.d/sedX1b2c3: Permission denied",
          "slurm-spank-plugin-failed"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/spank.c", 342,
          'error("spank: %s: %s", path, slurm_strerror(e));',
          "slurmstepd: error: spank: /usr/lib64/slurm/spank_pyxis.so: Incompatible plugin version",
          "slurm-spank-plugin-failed", context=("slurmstepd: error: Failed to invoke spank plugin stack",)),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/spank.c", 349,
          'error("spank: \\"%s\\" exports 0 symbols", path);',
          'srun: error: spank: "/usr/lib64/slurm/site_spank.so" exports 0 symbols', "slurm-spank-plugin-failed",
          context=("srun: error: Plug-in initialization failed",)),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/srun_job.c", 699,
          'error("Plug-in initialization failed");',
          "srun: error: Plug-in initialization failed", "slurm-spank-plugin-failed"),

    # --- squashfs tools that lack the image's compression, and FUSE 2 tools under enroot ------------------------------
    Quote("squashfs-tools", "4.6.1", "squashfs-tools/mksquashfs.c", 6881,
          'ERROR("%s: Compressor \\"%s\\" is not supported!"\n"\\n", argv[0], argv[i]);',
          'enroot-mksquashovlfs: Compressor "lzo" is not supported!', "squashfs-compression-unsupported"),
    Quote("squashfuse", "v0.5.1", "util.c", 103,
          'fprintf(stderr, "Squashfs image uses %s compression, this version "\n"supports only ", '
          "sqfs_compression_name(comp));",
          "[WARN] Squashfs image uses lzo compression, this version supports only xz, zlib, lz4, zstd.",
          "squashfs-compression-unsupported"),
    Quote("libfuse", "fuse-2.9.9", "lib/fuse_lowlevel.c", 2545,
          'fprintf(stderr, "fuse: unknown option `%s\'\\n", arg);',
          "[WARN] fuse: unknown option `uid=2039'", "enroot-fuse-tools-unsupported",
          context=("[ERROR] Failed to mount: /home/u/ubuntu.sqsh",)),

    # --- container images and the node's memory paths (round C) ---------------------------------------------------
    # unsquashfs unpacking a SIF into a sandbox (Apptainer's --fakeroot, an unprivileged run's temporary sandbox,
    # build --sandbox): squashfs-tools 4.3 printed the same xattr lines and went on; 4.4 and later exit non-zero,
    # which Apptainer wraps as "root filesystem extraction failed: extract command failed: OUTPUT: exit status 1".
    Quote("squashfs-tools", "4.4", "squashfs-tools/unsquashfs_xattr.c", 127,
          'ERROR("write_xattr: could not write xattr %s "\n"for file %s because you\'re not "\n"superuser!\\n",\n'
          "xattr_list[i].full_name, pathname);",
          "write_xattr: could not write xattr security.capability for file /tmp/rootfs-817/usr/bin/ping because "
          "you're not superuser!", "unsquashfs-xattr-write-failed",
          context=("FATAL:   while extracting /scratch/u1/app.sif: root filesystem extraction failed: extract command "
                   "failed: ",)),
    Quote("squashfs-tools", "4.4", "squashfs-tools/unsquashfs_xattr.c", 131,
          'EXIT_UNSQUASH_STRICT("write_xattr: to avoid this error message, either"\n'
          '" specify -user-xattrs, -no-xattrs, or run as "\n"superuser!\\n");',
          "write_xattr: to avoid this error message, either specify -user-xattrs, -no-xattrs, or run as superuser!",
          "unsquashfs-xattr-write-failed",
          context=("FATAL:   while extracting app.sif: root filesystem extraction failed: extract command failed: ",)),
    Quote("squashfs-tools", "4.6.1", "squashfs-tools/unsquashfs_xattr.c", 263,
          'ERROR("write_xattr: could not write xattr %s "\n"for file %s because you\'re not "\n"superuser!\\n",\n'
          "xattr_list[i].full_name, pathname);",
          "write_xattr: could not write xattr security.capability for file /tmp/build-temp-55/rootfs/usr/bin/ping "
          "because you're not superuser!", "unsquashfs-xattr-write-failed",
          context=("FATAL:   While performing build: packer failed to pack: while unpacking local image: root "
                   "filesystem extraction failed: extract command failed: ",)),
    Quote("squashfs-tools", "4.6.1", "squashfs-tools/unsquashfs_xattr.c", 267,
          'EXIT_UNSQUASH_STRICT("write_xattr: to avoid this error message, either"\n'
          '" specify -xattrs-include \'^user.\', -no-xattrs, or run as "\n"superuser!\\n");',
          "write_xattr: to avoid this error message, either specify -xattrs-include '^user.', -no-xattrs, or run as "
          "superuser!", "unsquashfs-xattr-write-failed",
          context=("FATAL:   while extracting app.sif: root filesystem extraction failed: extract command failed: ",)),
    # The target holds no such xattrs (ENOTSUP: tmpfs without user xattrs, many NFS mounts); 4.4 counts it failed.
    Quote("squashfs-tools", "4.4", "squashfs-tools/unsquashfs_xattr.c", 75,
          'ERROR("write_xattr: failed to write "\n"xattr %s for file %s because " \n"extended attributes are not "\n'
          '"supported by the destination "\n"filesystem\\n",\nxattr_list[i].full_name,\npathname);',
          "write_xattr: failed to write xattr user.mime_type for file /dev/shm/rootfs-4242/etc/magic because extended "
          "attributes are not supported by the destination filesystem", "unsquashfs-xattr-write-failed",
          context=("FATAL:   while extracting alpine.sif: root filesystem extraction failed: extract command "
                   "failed: ",)),
    Quote("squashfs-tools", "4.6.1", "squashfs-tools/unsquashfs_xattr.c", 211,
          'ERROR("write_xattr: failed to write "\n"xattr %s for file %s because " \n"extended attributes are not "\n'
          '"supported by the destination "\n"filesystem\\n",\nxattr_list[i].full_name,\npathname);',
          "write_xattr: failed to write xattr security.capability for file /nfs/u1/sandbox/usr/bin/ping because "
          "extended attributes are not supported by the destination filesystem", "unsquashfs-xattr-write-failed",
          context=("FATAL:   While performing build: packer failed to pack: while unpacking local image: root "
                   "filesystem extraction failed: extract command failed: ",)),
    # Singularity 3.6.4 ran unsquashfs through its own `singularity exec` (commit 4fe1720): the wrapped output
    # begins with that container's warnings, and unsquashfs' own lines may never reach the log. With no other
    # unsquashfs failure in sight, 4.4's xattr exit is the reading (Singularity 3.7.0 checked the target first).
    Quote("Apptainer", "commit 4fe1720 (Singularity 3.6.4)", "pkg/image/unpacker/squashfs.go", 123,
          'return fmt.Errorf("extract command failed: %s: %s", string(o), err)',
          "FATAL:   while extracting alpine.sif: root filesystem extraction failed: extract command failed: "
          "WARNING: passwd file doesn't exist in container, not updating", "unsquashfs-xattr-write-failed",
          context=("INFO:    Converting SIF file to temporary sandbox...",)),
    Quote("Apptainer", "v1.4.5", "internal/pkg/image/unpacker/squashfs.go", 178,
          'return fmt.Errorf("extract command failed: %s: %s", string(o), err)',
          "ERROR:   unpackSIF failed: root filesystem extraction failed: extract command failed: write_xattr: failed "
          "to write xattr security.selinux for file /nfs/u1/sandbox/etc because extended attributes are not "
          "supported by the destination filesystem", "unsquashfs-xattr-write-failed"),
    Quote("Apptainer", "v1.4.5", "internal/pkg/runtime/launch/launcher_linux.go", 1382,
          'return "", "", fmt.Errorf("root filesystem extraction failed: %s", err)',
          "FATAL:   while extracting app.sif: root filesystem extraction failed: extract command failed: ",
          "unsquashfs-xattr-write-failed",
          context=("write_xattr: could not write xattr security.capability for file /tmp/rootfs-9/usr/bin/ping "
                   "because you're not superuser!",)),
    # UCX's InfiniBand transports refused access to the buffer they send from (IBV_WC_LOC_PROT_ERR, rdma-core's
    # ibv_wc_status_str "local protection error"): on GPU buffers (OSU's "Send Buffer on DEVICE (D)", UCX's CUDA
    # transports, GPUDirect) PCIe ACS or the IOMMU between the card and the GPU (openucx/ucx#3564).
    Quote("UCX", "v1.5.0", "src/uct/ib/rc/verbs/rc_verbs_iface.c", 62,
          'ucs_log(log_lvl, "send completion with error: %s",\nibv_wc_status_str(wc->status));',
          "[1556107200.123456] [gpu-a-017:2741:0]     rc_verbs_iface.c:62   UCX  ERROR send completion with error: "
          "local protection error", "p2p-acs-iommu",
          context=("# Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)",)),
    Quote("UCX", "v1.18.1", "src/uct/ib/rc/verbs/rc_verbs_iface.c", 124,
          'ucs_log(log_lvl,\n"send completion with error: %s [qpn 0x%x wrid 0x%lx "\n"vendor_err 0x%x]\\n%s",\n'
          "ibv_wc_status_str(wc->status), wc->qp_num, wc->wr_id,\nwc->vendor_err, peer_info);",
          "[1700000000.123456] [gpu-a-017:2741:0]     rc_verbs_iface.c:124  UCX  ERROR send completion with error: "
          "local protection error [qpn 0x1a2 wrid 0x5 vendor_err 0x51]", "p2p-acs-iommu",
          context=("UCX_TLS=rc_v,cuda_copy,cuda_ipc",),
          fmt="send completion with error: %s [qpn 0x%x wrid 0x%lx vendor_err 0x%x]"),
    Quote("UCX", "v1.15.0", "src/uct/ib/mlx5/ib_mlx5_log.c", 100,
          'snprintf(err_info, sizeof(err_info), "Local protection");',
          "[1700000000.123456] [gpu-a-017:2741:0]       ib_mlx5_log.c:171  UCX  ERROR Local protection on mlx5_0:1/IB "
          "(synd 0x4 vend 0x51 hw_synd 0/0)", "p2p-acs-iommu",
          context=("# Send Buffer on HOST (H) and Receive Buffer on DEVICE (D)",)),
    Quote("UCX", "v1.18.1", "src/uct/ib/mlx5/ib_mlx5_log.c", 103,
          'snprintf(err_info, sizeof(err_info), "Local protection error");',
          "[1700000000.123456] [gpu-a-017:2741:0]       ib_mlx5_log.c:179  UCX  ERROR Local protection error on "
          "mlx5_0:1/IB (synd 0x4 vend 0x51 hw_synd 0/0)", "p2p-acs-iommu",
          context=("[1700000000.100000] [gpu-a-017:2741:0] ucp_context.c:2190 UCX  INFO  UCP version is 1.18 (release "
                   "1)", "+ export UCX_TLS=rc_x,cuda_copy,gdr_copy")),
    Quote("UCX", "v1.18.1", "src/uct/ib/mlx5/ib_mlx5_log.c", 179,
          'ucs_log(log_level,\n"%s on " UCT_IB_IFACE_FMT " (synd 0x%x vend 0x%x hw_synd %d/%d)\\n"\n'
          '"%s QP 0x%x wqe[%d]: %s %s",\nerr_info, UCT_IB_IFACE_ARG(iface), ecqe->syndrome,\n'
          "ecqe->vendor_err_synd, ecqe->hw_synd_type >> 4, ecqe->hw_err_synd,\nqp_type_str, qp_num, pi, wqe_info, "
          "peer_info);",
          "[1700000000.123456] [gpu-a-017:2741:0]       ib_mlx5_log.c:179  UCX  ERROR Local protection error on "
          "mlx5_1:1/RoCE (synd 0x4 vend 0x51 hw_synd 0/0)", "p2p-acs-iommu",
          context=("#      Transport: gdr_copy",),
          fmt="%s on %s (synd 0x%x vend 0x%x hw_synd %d/%d)"),
    # ROMIO (MPI-IO in MPICH, Cray MPICH, Intel MPI, Open MPI's romio component) takes fcntl locks for data sieving
    # and aborts the job when the file system refuses one (MPI_Abort after these lines); perror(s) writes s, ": " and
    # strerror(errno).
    Quote("MPICH", "v3.3", "src/mpi/romio/adio/common/lock.c", 180,
          "FPRINTF(stderr,\n"
          '"This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH Message: File locking '
          'failed in ADIOI_Set_lock(fd %X,cmd %s/%X,type %s/%X,whence %X) with return value %X and errno %X.\\n"\n'
          '"- If the file system is NFS, you need to use NFS version 3, ensure that the lockd daemon is running on all '
          "the machines, and mount the directory with the 'noac' option (no attribute caching).\\n\"\n"
          "\"- If the file system is LUSTRE, ensure that the directory is mounted with the 'flock' option.\\n\",\n"
          "fd, flock_cmd_to_string(cmd), cmd, flock_type_to_string(type), type, whence, err,\nerrno);",
          "This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH Message: File locking "
          "failed in ADIOI_Set_lock(fd 12,cmd F_SETLKW/7,type F_WRLCK/1,whence 0) with return value FFFFFFFF and "
          "errno 26.", "file-locks-unsupported",
          fmt="This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH Message: File "
              "locking failed in ADIOI_Set_lock(fd %X,cmd %s/%X,type %s/%X,whence %X) with return value %X and errno "
              "%X."),
    Quote("MPICH", "v3.3", "src/mpi/romio/adio/common/lock.c", 186,
          'perror("ADIOI_Set_lock:");',
          "ADIOI_Set_lock:: Function not implemented", "file-locks-unsupported", fmt="ADIOI_Set_lock:"),
    Quote("MPICH", "v4.2.0", "src/mpi/romio/adio/common/lock.c", 141,
          "FPRINTF(stderr,\n"
          '"This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH Message: File locking '
          'failed in ADIOI_GEN_SetLock(fd %X,cmd %s/%X,type %s/%X,whence %X) with return value %X and errno %X.\\n"\n'
          '"- If the file system is NFS, you need to use NFS version 3, ensure that the lockd daemon is running on all '
          "the machines, and mount the directory with the 'noac' option (no attribute caching).\\n\"\n"
          "\"- If the file system is LUSTRE, ensure that the directory is mounted with the 'flock' option.\\n\",\n"
          "fd_sys, ADIOI_GEN_flock_cmd_to_string(cmd), cmd,\n"
          "ADIOI_GEN_flock_type_to_string(type), type, whence, err, errno);",
          "This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH Message: File locking "
          "failed in ADIOI_GEN_SetLock(fd 9,cmd F_SETLKW/7,type F_WRLCK/1,whence 0) with return value FFFFFFFF and "
          "errno 25.", "file-locks-unsupported",
          fmt="This requires fcntl(2) to be implemented. As of 8/25/2011 it is not. Generic MPICH Message: File "
              "locking failed in ADIOI_GEN_SetLock(fd %X,cmd %s/%X,type %s/%X,whence %X) with return value %X and "
              "errno %X."),
    Quote("MPICH", "v4.2.0", "src/mpi/romio/adio/common/lock.c", 147,
          'perror("ADIOI_GEN_SetLock:");',
          "ADIOI_GEN_SetLock:: No locks available", "file-locks-unsupported", fmt="ADIOI_GEN_SetLock:"),
    # --- file systems without POSIX locks, through CPython's fcntl -------------------------------------------------
    Quote("glibc", "commit 3d7d5c1", "sysdeps/gnu/errlist.h (ENOSYS)", 0,
          '_S(ENOSYS, N_("Function not implemented"))',
          "OSError: [Errno 38] Function not implemented", "file-locks-unsupported",
          context=(TRACEBACK, "    fcntl.lockf(dump, fcntl.LOCK_EX)")),
    Quote("glibc", "commit 3d7d5c1", "sysdeps/gnu/errlist.h (ENOLCK)", 0,
          '_S(ENOLCK, N_("No locks available"))',
          "OSError: [Errno 37] No locks available", "file-locks-unsupported",
          context=(TRACEBACK, '  File "/usr/lib/python3/site-packages/filelock/_unix.py", line 44, in _acquire',
                   "    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)")),

    # --- UCX's errors and filelock's waits, layer verdicts ------------------------------------------------------------
    Quote("UCX", "v1.18.0", "src/tools/perf/lib/libperf.c", 1910,
          'ucs_error("Failed to setup endpoints: %s", ucs_status_string(status));',
          "[1619044902.015607] [gpu-a-017:33810:0]       libperf.c:1910 UCX  ERROR Failed to setup endpoints: "
          "Destination is unreachable", "layer-ucx-error"),
    Quote("filelock", "3.13.1", "src/filelock/_api.py", 254,
          '_LOGGER.debug("Attempting to acquire lock %s on %s", lock_id, lock_filename)',
          "2024-02-27 15:56:22,427 - filelock - DEBUG: Attempting to acquire lock 140592852660912 on "
          "/home/u/.triton/autotune/Fp16Matmul_2d_kernel.pickle.lock", "layer-file-lock-wait",
          context=tuple(f"2024-02-27 15:56:22,42{i} - filelock - DEBUG: Attempting to acquire lock 1401920099252{i} on "
                        "/home/u/.triton/autotune/Fp16Matmul_2d_kernel.pickle.lock" for i in (4, 5))),
    Quote("filelock", "3.13.1", "src/filelock/_error.py", 17,
          """return f"The file lock '{self._lock_file}' could not be acquired.\"""",
          "filelock._error.Timeout: The file lock '/home/u/.cache/huggingface/hub/.locks/models--gpt2/x.lock' could "
          "not be acquired.", "layer-file-lock-wait", fmt="The file lock '{self._lock_file}' could not be acquired."),

    # --- a Slingshot NIC that gives the process no VNI, as fi_domain's caller sees it --------------------------------
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_rdma.cpp", 6803,
          'NCCL_OFI_WARN("Couldn\'t open a fabric access domain. RC: %d, ERROR: %s",\n'
          "domain_result.error_code, fi_strerror(-domain_result.error_code));",
          "nid001234:88123:88190 [0] NCCL WARN NET/OFI Couldn't open a fabric access domain. RC: -38, ERROR: "
          "Function not implemented", "cxi-vni-not-granted",
          context=("nid001234:88123:88190 [0] NCCL INFO NET/OFI Selected provider is cxi, fabric is cxi (found 4 "
                   "nics)",)),

    # --- bash reporting a child it lost to SIGKILL (strsignal(9): "Killed") -------------------------------------------
    Quote("bash", "bash-5.2", "jobs.c", 4310,
          'fprintf (stderr, _("%s: line %d: "), get_name_for_error (), (line_number == 0) ? 1 : line_number);',
          "/var/spool/slurmd/job4512/slurm_script: line 12: 81234 Killed                  python train.py",
          "rank-sigkill"),
    Quote("bash", "bash-5.2", "jobs.c", 4321,
          'fprintf (stderr, "%s", j_strsignal (termsig));',
          "Killed", "rank-sigkill", context=("[2021-02-12 03:31:37,319] [train] [INFO] Training Started.",),
          fmt="%s"),

    # --- a torch without CUDA asked for the nccl backend -------------------------------------------------------------
    Quote("torch", "v2.13.0", "torch/distributed/distributed_c10d.py", 2181,
          'raise RuntimeError("Distributed package doesn\'t have NCCL built in")',
          "RuntimeError: Distributed package doesn't have NCCL built in", "cuda-unavailable", context=(TRACEBACK,)),

    # --- torch's rendezvous endpoint it cannot read --------------------------------------------------------------
    Quote("torch", "v2.13.0", "torch/distributed/elastic/rendezvous/utils.py", 102,
          'f"The port number of the rendezvous endpoint \'{endpoint}\' must be an integer "\n"between 0 and 65536."',
          "ValueError: The port number of the rendezvous endpoint 'gpu-a-017:' must be an integer between 0 and "
          "65536.", "rendezvous-endpoint-malformed", context=(TRACEBACK,)),
    Quote("torch", "v2.13.0", "torch/distributed/elastic/rendezvous/utils.py", 110,
          'f"The hostname of the rendezvous endpoint \'{endpoint}\' must be a dot-separated list of "\n'
          '"labels, an IPv4 address, or an IPv6 address."',
          "ValueError: The hostname of the rendezvous endpoint ' :29500' must be a dot-separated list of labels, an "
          "IPv4 address, or an IPv6 address.", "rendezvous-endpoint-malformed", context=(TRACEBACK,)),
    Quote("torch", "v2.13.0", "torch/distributed/rendezvous.py", 218,
          'raise _error("port number missing")',
          "ValueError: Error initializing torch.distributed using tcp:// rendezvous: port number missing",
          "rendezvous-endpoint-malformed", context=(TRACEBACK,), fmt="port number missing"),

    # --- srun's launch of the whole step failed --------------------------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/launch.c", 1510,
          'error("Application launch failed: %m");',
          "srun: error: Application launch failed: Socket timed out on send/recv operation",
          "slurm-task-launch-failed"),
    # --- Slurm's option parsing and step I/O (round B) ---
    # sbatch, srun and salloc refuse an option (a value they cannot read, two options that exclude each other)
    # while parsing, before any request reaches the controller; slurm_process_option_or_exit() exits on an error.
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5027,
          'fatal("SLURM_GPUS_PER_TASK is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "srun: fatal: SLURM_GPUS_PER_TASK is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5024,
          'fatal("--gpus-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "sbatch: fatal: --gpus-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5012,
          'fatal("--tres-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "srun: fatal: --tres-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5020,
          'fatal("SLURM_TRES_PER_TASK is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "srun: fatal: SLURM_TRES_PER_TASK is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5030,
          'fatal("--gpus-per-socket is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "salloc: fatal: --gpus-per-socket is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5033,
          'fatal("SLURM_GPUS_PER_SOCKET is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "srun: fatal: SLURM_GPUS_PER_SOCKET is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5036,
          'fatal("--ntasks-per-node is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "sbatch: fatal: --ntasks-per-node is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5039,
          'fatal("SLURM_NTASKS_PER_NODE is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU");',
          "srun: fatal: SLURM_NTASKS_PER_NODE is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 4993,
          'fatal("Inconsistent values set to --ntasks-per-gpu=%d and --ntasks-per-tres=%d ",\n'
          "opt->ntasks_per_gpu,\nopt->ntasks_per_tres);",
          "srun: fatal: Inconsistent values set to --ntasks-per-gpu=2 and --ntasks-per-tres=1 ",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 4867,
          'fatal("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");',
          "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 4880,
          'fatal("SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.");',
          "srun: fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5050,
          'fatal("-S/--core-spec and --thred-spec options are mutually exclusive");',
          "sbatch: fatal: -S/--core-spec and --thred-spec options are mutually exclusive", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5070,
          'fatal("--exclusive and --oversubscribe options are mutually exclusive");',
          "sbatch: fatal: --exclusive and --oversubscribe options are mutually exclusive", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5492,
          'fatal("--cpus-per-task, --tres-per-task=cpu:#, and --cpus-per-gpu are mutually exclusive");',
          "srun: fatal: --cpus-per-task, --tres-per-task=cpu:#, and --cpus-per-gpu are mutually exclusive",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 1794,
          'error("Invalid --gres-flags combo: disable-binding and enforce-binding are mutually exclusive.");',
          "sbatch: error: Invalid --gres-flags combo: disable-binding and enforce-binding are mutually exclusive.",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5271,
          'fatal("You can not have --tres-per-task=%s= and --%s please use one or the other",\n'
          "str, common_options[opt_index]->name);",
          "srun: fatal: You can not have --tres-per-task=cpu= and --cpus-per-task please use one or the other",
          "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/opt.c", 999,
          'error("--exact and --whole are mutually exclusive.");',
          "srun: error: --exact and --whole are mutually exclusive.", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/opt.c", 1064,
          'error("--exclusive and --overlap are mutually exclusive");',
          "srun: error: --exclusive and --overlap are mutually exclusive", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 3743,
          'error("Invalid --time specification");',
          "sbatch: error: Invalid --time specification", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 2299,
          'error("Invalid --mem specification");',
          "salloc: error: Invalid --mem specification", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 1243,
          'error("Invalid --distribution specification");',
          "srun: error: Invalid --distribution specification", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 1569,
          'error("Invalid --gpu-bind argument: %s", opt->gpu_bind);',
          "srun: error: Invalid --gpu-bind argument: closest,verbose", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 1047,
          'error("Invalid --cpu-freq argument");',
          "srun: error: Invalid --cpu-freq argument", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_opt.c", 5607,
          'error("--nodes is incompatible with --distribution=arbitrary");',
          "srun: error: --nodes is incompatible with --distribution=arbitrary", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/proc_args.c", 526,
          'error("\\"%s\\" is not a valid node count", tok);',
          "sbatch: error: \"ppn=1\" is not a valid node count", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/proc_args.c", 582,
          'error("Maximum node count %d is less than minimum node count %d",\n*max_nodes, *min_nodes);',
          "sbatch: error: Maximum node count 2 is less than minimum node count 4", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/common/proc_args.c", 1397,
          'error ("Invalid numeric value \\"%s\\" for %s.", val, name);',
          "srun: error: Invalid numeric value \"4:ppn=8\" for --ntasks.", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/sbatch/opt.c", 779,
          'error("invalid number of nodes (-N %d-%d)",\nopt.min_nodes, opt.max_nodes);',
          "sbatch: error: invalid number of nodes (-N 4-2)", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/opt.c", 1106,
          'error("invalid number of tasks (-n %d)", opt.ntasks);',
          "srun: error: invalid number of tasks (-n 0)", "slurm-request-refused"),
    Quote("Slurm", "slurm-25-11-7-1", "src/sbatch/opt.c", 894,
          'error("--ntasks-per-core (%d) can not be bigger than --threads-per-core (%d)",\n'
          "opt.ntasks_per_core, opt.threads_per_core);",
          "sbatch: error: --ntasks-per-core (2) can not be bigger than --threads-per-core (1)",
          "slurm-request-refused"),
    # Slurm 17.11 and 18.08: verify_node_count() printed the value it could not read, then sbatch's own line (a
    # PBS `nodes=1:ppn=1` node spec handed to sbatch -N; here from a wrapper installed as sbatch.exe).
    Quote("Slurm", "slurm-18-08-9-1", "src/common/proc_args.c", 598,
          'error("\\"%s\\" is not a valid node count", arg);',
          "sbatch.exe: error: \"1:ppn=1\" is not a valid node count", "slurm-request-refused"),
    Quote("Slurm", "slurm-18-08-9-1", "src/sbatch/opt.c", 1525,
          'error("invalid node count `%s\'",\noptarg);',
          "sbatch: error: invalid node count `1:ppn=1'", "slurm-request-refused"),
    # slurmd answers a task launch whose prolog failed with ESLURMD_PROLOG_FAILED (src/slurmd/slurmd/req.c line 1419),
    # which srun prints with src/api/step_launch.c line 1590 "Task launch for %ps failed on node %s: %m".
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 1014,
          '"Job prolog failed",',
          "srun: error: Task launch for StepId=4512.0 failed on node gpu-a-017: Job prolog failed",
          "slurm-prolog-failure"),
    # slurmstepd opens the tasks' --output/--error files as the job's user (src/slurmd/slurmstepd/io.c
    # _init_task_stdio_fds); a batch step that cannot ends with ESLURMD_IO_ERROR (4021) before its script runs.
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/io.c", 1117,
          'error("Could not open stdout file %s: %m",\ntask->ofname);',
          "[2025-10-02T18:10:53.634] [80.batch] error: Could not open stdout file /data/slurm-80.out: Permission "
          "denied", "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/io.c", 1249,
          'error("Could not open stderr file %s: %m",\ntask->efname);',
          "slurmstepd: error: Could not open stderr file /scratch/logs/train-4512.err: Read-only file system",
          "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/io.c", 1103,
          'error("%s: Could not open stdout file \'%s\': \'%s\'. Recursive path creation failed: \'%s\'.",\n'
          "__func__,\ntask->ofname,\nstrerror(ENOENT),\nstrerror(mkdir_rc));",
          "[4512.batch] error: _init_task_stdio_fds: Could not open stdout file '/home/u/logs/train-4512.out': 'No "
          "such file or directory'. Recursive path creation failed: 'Permission denied'.",
          "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/io.c", 1235,
          'error("%s: Could not open stderr file \'%s\': \'%s\'. Recursive path creation failed: \'%s\'.",\n'
          "__func__,\ntask->efname,\nstrerror(ENOENT),\nstrerror(mkdir_rc));",
          "[4512.batch] error: _init_task_stdio_fds: Could not open stderr file '/home/u/logs/train-4512.err': 'No "
          "such file or directory'. Recursive path creation failed: 'Permission denied'.",
          "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/mgr.c", 497,
          'error("Could not open output file %s: %m",\nstep->task[0]->ofname);',
          "[4512.0] error: Could not open output file /scratch/out/train.log: Permission denied",
          "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/mgr.c", 531,
          'error("Could not open error file %s: %m",\nstep->task[0]->efname);',
          "[4512.0] error: Could not open error file /scratch/out/train.err: Permission denied",
          "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/mgr.c", 2134,
          'error("%s: IO setup failed: %s", __func__, slurm_strerror(rc));',
          "[80.batch] error: _fork_all_tasks: IO setup failed: Slurmd could not connect IO",
          "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmd/slurmstepd/mgr.c", 358,
          'verbose("%pI completed with slurm_rc = %d, job_rc = %d",\n&step->step_id, rc, step_complete.step_rc);',
          "[18:10:53.635] [80.batch] JobId=80 completed with slurm_rc = 0, job_rc = 4021",
          "slurm-output-file-not-writable", fmt="%s completed with slurm_rc = %d, job_rc = %d"),
    Quote("Slurm", "slurm-24-05-8-1", "src/slurmd/slurmstepd/mgr.c", 380,
          'verbose("job %u completed with slurm_rc = %d, job_rc = %d",\n'
          "step->step_id.job_id, rc, step_complete.step_rc);",
          "[4512.batch] job 4512 completed with slurm_rc = 0, job_rc = 4021", "slurm-output-file-not-writable"),
    Quote("Slurm", "slurm-25-11-7-1", "src/slurmctld/job_mgr.c", 6254,
          'xstrfmtcat(job_ptr->state_desc,\n"RaisedSignal:%d(%s)",\nWTERMSIG(job_return_code),\n'
          "strsignal(WTERMSIG(job_return_code)));",
          "   JobState=FAILED Reason=RaisedSignal:53(Real-time_signal_19) Dependency=(null)",
          "slurm-output-file-not-writable"),
    # --- Open MPI's TCP BTL reached another process than the one it dialled (interfaces the nodes do not share) ---
    # BTL_ERROR (opal/mca/btl/base/btl_base_error.h) prefixes "[%s]%s[%s:%d:%s] ": node, process name, file, line,
    # function.
    Quote("Open MPI", "v4.1.6", "opal/mca/btl/tcp/btl_tcp_endpoint.c", 625,
          'BTL_ERROR(("received unexpected process identifier %s",\nOPAL_NAME_PRINT(guid)));',
          "[second-node][[22157,1],4][btl_tcp_endpoint.c:626:mca_btl_tcp_endpoint_recv_connect_ack] received "
          "unexpected process identifier [[22157,1],7]", "openmpi-tcp-btl-wrong-interfaces"),
    Quote("Open MPI", "v5.0.10", "opal/mca/btl/tcp/btl_tcp_endpoint.c", 667,
          'BTL_ERROR(("received unexpected process identifier: got %s expected %s",\n'
          "OPAL_NAME_PRINT(guid), OPAL_NAME_PRINT(btl_proc->proc_opal->proc_name)));",
          "[node02][[4117,1],2][../../../../../opal/mca/btl/tcp/btl_tcp_endpoint.c:667:"
          "mca_btl_tcp_endpoint_recv_connect_ack] received unexpected process identifier: got [[4117,1],5] "
          "expected [[4117,1],3]", "openmpi-tcp-btl-wrong-interfaces"),
    # --- NCCL 2.18.6 to 2.19.4: a network device outside PCI (a USB NIC) under the CPU breaks the topology ---------
    # xmlGetAttrStr(parent->subs[s], "busid", ...) (src/graph/xml.cc line 585 at v2.18.6-1, 590 at v2.19.4-1) met
    # the NIC NCCL attached to the first CPU without a busid; v2.20.3-1 reads it with xmlGetAttr and skips it.
    Quote("NCCL", "v2.19.3-1", "src/graph/xml.h", 85,
          'WARN("Attribute %s of node %s not found", attrName, node->name);',
          "clima:810632:810657 [0] graph/xml.h:85 NCCL WARN Attribute busid of node nic not found",
          "nccl-usb-nic-topology-bug",
          context=("clima:810632:810657 [0] NCCL INFO Topology detection: network path /sys/devices/pci0000:2b/"
                   "0000:2b:08.1/0000:2e:00.3/usb1/1-1/1-1.2/1-1.2:2.0 is not a PCI device (usb). Attaching to "
                   "first CPU",)),
    Quote("NCCL", "v2.19.3-1", "src/graph/xml.cc", 793,
          'INFO(NCCL_GRAPH, "Topology detection: network path %s is not a PCI device (%s). Attaching to first CPU", '
          "pciSysPath, subSystem);",
          "node7:4410:4466 [0] NCCL INFO Topology detection: network path /sys/devices/pci0000:00/0000:00:14.0/"
          "usb2/2-3/2-3:1.0 is not a PCI device (usb). Attaching to first CPU", "nccl-usb-nic-topology-bug",
          context=("node7:4410:4466 [0] graph/xml.h:85 NCCL WARN Attribute busid of node nic not found",)),

    # --- an MPI library built against a newer libfabric than the one the job loads -------------------------------
    # glibc's loader, elf/dl-version.c match_symbol (a stored copy, Copyright 1997-2021; the same statement in 2.3x);
    # libfabric v1.20.0 libfabric.map.in line 57 "FABRIC_1.7 {" (fi_getinfo, fi_freeinfo, fi_dupinfo; 1.19.0's map
    # ends at FABRIC_1.6).
    Quote("glibc", "2.3x", "elf/dl-version.c (match_symbol)", 0,
          '_dl_exception_create_format\n(&exception, DSO_FILENAME (map->l_name),\n'
          '"version `%s\' not found (required by %s)", string, name);',
          "/fsx/imb/IMB-RMA: /fsx/libfabric/lib/libfabric.so.1: version `FABRIC_1.7' not found (required by "
          "/opt/amazon/openmpi5/lib64/libmpi.so.40)", "mpi-libfabric-older-than-build"),
    Quote("glibc", "2.3x", "elf/dl-version.c (match_symbol)", 0,
          '_dl_exception_create_format\n(&exception, DSO_FILENAME (map->l_name),\n'
          '"version `%s\' not found (required by %s)", string, name);',
          "./osu_bw: /usr/lib64/libfabric.so.1: version `FABRIC_1.8' not found (required by "
          "/opt/openmpi/lib/libopen-pal.so.80)", "mpi-libfabric-older-than-build"),

    # --- an address on Docker's default bridge (172.17.0.0/16) given to ranks on other nodes ------------------------
    # torch's store client (torch/csrc/distributed/c10d/socket.cpp, read at commit 056b6f38c0c2: SocketConnectOp::
    # throwTimeoutError() and run(); the same statements in 2.x releases since socket.cpp's introduction, 1.11).
    Quote("torch", "commit 056b6f38c0c2", "torch/csrc/distributed/c10d/socket.cpp (SocketConnectOp)", 0,
          'auto msg = fmt::format(\n"The client socket has timed out after {} while trying to connect to ({}, {}).",\n'
          "opts_->connect_timeout(),\nhost_,\nport_);",
          "(RayWorkerVllm pid=207931, ip=10.0.1.75) [E socket.cpp:922] [c10d] The client socket has timed out after "
          "1800s while trying to connect to (172.17.0.2, 44737).", "store-address-docker-bridge-ip",
          fmt="The client socket has timed out after {} while trying to connect to ({}, {})."),
    Quote("torch", "commit 056b6f38c0c2", "torch/csrc/distributed/c10d/socket.cpp (SocketConnectOp)", 0,
          'auto msg = fmt::format(\n"The client socket has failed to connect to any network address of ({}, {}).",'
          "\nhost_,\nport_);",
          "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of "
          "(172.17.0.3, 29500).", "store-address-docker-bridge-ip",
          fmt="The client socket has failed to connect to any network address of ({}, {})."),
    # NCCL's own connection to a peer that advertised its container's bridge address (NCCL picks the container's
    # eth0, 172.17.0.x under Docker's default bridge network).
    Quote("NCCL", "v2.18.5-1", "src/misc/socket.cc", 483,
          'WARN("socketStartConnect: Connect to %s failed : %s", ncclSocketToString(&sock->addr, line), '
          "strerror(errno));",
          NCCL_WARN.format(where="misc/socket.cc:483") + "socketStartConnect: Connect to 172.17.0.3<43117> failed : "
          "No route to host", "store-address-docker-bridge-ip", fmt="socketStartConnect: Connect to %s failed : %s"),

    # --- NCCL's socket transport striping over container bridges and veth pairs ------------------------------------
    # NCCL's default interface choice excludes only "docker" and "lo" prefixes (v2.12.10-1 src/misc/socket.cc line
    # 304 findInterfaces("^docker,lo", ...); v2.30.7-1 line 220 "^docker,lo,virbr"): Docker's user-defined bridges
    # (br-<12 hex>), veth pairs and Calico's cali* interfaces are listed and used, and their addresses (the same
    # 172.x on every node) do not reach the other node.
    Quote("NCCL", "v2.12.10-1", "src/transport/net_socket.cc", 62,
          'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);',
          NCCL_INFO + "NET/Socket : Using [0]bond0:192.168.1.161<0> [1]br-05ab815fa14e:172.19.0.1<0> "
          "[2]veth6163fba:fe80::b878:6cff:fe52:abe2%veth6163fba<0>", "nccl-connect",
          context=("ncclSystemError: System call (socket, malloc, munmap, etc) failed.",),
          fmt="NET/Socket : Using%s"),
    Quote("NCCL", "v2.30.7-1", "src/transport/net_socket.cc", 77,
          'INFO(NCCL_INIT | NCCL_NET, "NET/Socket : Using%s", line);',
          NCCL_INFO + "NET/Socket : Using [0]eth0:10.47.14.218<0> [1]docker0:172.17.0.1<0>", "nccl-connect",
          context=("RuntimeError: NCCL error: remote process exited or there was a network error",),
          fmt="NET/Socket : Using%s"),

    # --- GKE GPUDirect-TCPXO: the receive-datapath manager's GPU/NIC count check ------------------------------------
    # RxDM (fastrak_gpumem_manager in us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev) publishes no
    # source; the wording as it printed it in NVIDIA/aicr#1662, and the shorter one of that project's TCPXO
    # troubleshooting docs. It exits, and every rank's NET/FasTrak connection is then refused.
    Quote("GPUDirect-TCPXO RxDM", "tcpgpudmarxd-dev", "fastrak_gpumem_manager (closed source, NVIDIA/aicr#1662)", 0,
          '"Number of GPUs detected in the PCI tree %d is not equal to the actual number of GPUs reported by CUDA %d"',
          "Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs reported by CUDA 8",
          "gke-tcpxo-rxdm-gvnic-displaced-gpu-nic",
          fmt="Number of GPUs detected in the PCI tree %d is not equal to the actual number of GPUs reported by "
              "CUDA %d"),
    Quote("GPUDirect-TCPXO RxDM", "tcpgpudmarxd-dev", "fastrak_gpumem_manager (closed source, NVIDIA/aicr docs)", 0,
          '"Number of GPUs detected %d is not equal to the actual number of GPUs %d"',
          "Number of GPUs detected 7 is not equal to the actual number of GPUs 8",
          "gke-tcpxo-rxdm-gvnic-displaced-gpu-nic",
          fmt="Number of GPUs detected %d is not equal to the actual number of GPUs %d"),

    # --- nccl-tests' result summary printed once per process: every process was its own rank 0 ---------------------
    # PRINT is `if (is_main_thread) printf` and is_main_thread is set for proc 0 only (v2.19.6 src/common.cu line
    # 1527): an MPI build prints the summary once per run; two in a row with no header between them are two runs
    # side by side, each process its own one-rank job.
    Quote("nccl-tests", "v2.17.6", "src/util.cu", 644,
          'PRINT("# Avg bus bandwidth    : %g %s\\n", bw[0], check_avg_bw == -1 ? "" : (bw[0] < check_avg_bw*(0.9) ? '
          '"FAILED" : "OK"));',
          "# Avg bus bandwidth    : 3.94156 ", "nccl-tests-without-mpi",
          context=("mpirun -H 10.0.0.1,10.0.0.2 -np 2 ./all_reduce_perf -b 8 -e 128M -f 2 -g 2",
                   "# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 3.94145 ", "#",
                   "# Out of bounds values : 0 OK")),
    Quote("nccl-tests", "v2.19.6", "src/util.cu", 778,
          'PRINT("# %-20s : %g %s\\n", "Avg bus bandwidth", bw[0], check_avg_bw == -1 ? "" : (bw[0] < '
          'check_avg_bw*(0.9) ? "FAILED" : "OK"));',
          "# Avg bus bandwidth    : 187.2 ", "nccl-tests-without-mpi",
          context=("srun -N 2 --ntasks-per-node=1 ./build/all_reduce_perf -b 1G -e 1G -g 4",
                   "# nThread 1 nGpus 4 minBytes 1073741824 maxBytes 1073741824 step: 1048576(factor) warmup iters: 1 "
                   "iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0",
                   "# nThread 1 nGpus 4 minBytes 1073741824 maxBytes 1073741824 step: 1048576(factor) warmup iters: 1 "
                   "iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0",
                   "# Avg bus bandwidth    : 187.4 ")),

    # --- NCCL refusing an argument (a layer verdict, beside invalid usage) ------------------------------------------
    Quote("NCCL", "v2.4.8-1", "src/init.cc", 1229,
          'case ncclInvalidArgument        : return "invalid argument";',
          "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1595629403081/work/torch/lib/c10d/../c10d/"
          "NCCLUtils.hpp:82, invalid argument, NCCL version 2.4.8", "layer-nccl-invalid-usage"),
    Quote("NCCL", "v2.21.5-1", "src/init.cc", 2263,
          'case ncclInvalidArgument        : return "invalid argument (run with NCCL_DEBUG=WARN for details)";',
          "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:"
          "268, invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5",
          "layer-nccl-invalid-usage"),

    # --- Slurm's PMIx plugin loading the libpmix an MPI install put on LD_LIBRARY_PATH (glibc's LD_DEBUG=libs,files) -
    Quote("glibc", "glibc-2.28", "elf/dl-load.c", 1822,
          '_dl_debug_printf ("  trying file=%s\\n", buf);',
          "     96302:       trying file=/apps/OPENMPI/4.0.2/INTEL_2019.5/lib/libpmix.so",
          "slurm-pmix-library-mismatch",
          context=("     96302:     file=libpmix.so [0];  dynamically loaded by /usr/lib64/slurm/mpi_pmix_v1.so [0]",
                   "     96302:     find library=libpmix.so [0]; searching",
                   "     96302:      search path=/apps/OPENMPI/4.0.2/INTEL_2019.5/lib:/apps/INTEL/lib  "
                   "(LD_LIBRARY_PATH)")),
    Quote("glibc", "glibc-2.39", "elf/dl-load.c", 1047,
          '_dl_debug_printf ("file=%s [%lu];  generating link map\\n", name, nsid);',
          "   4711:     file=libpmix.so.2 [0];  generating link map", "slurm-pmix-library-mismatch",
          context=("   4711:     file=libpmix.so.2 [0];  dynamically loaded by /usr/lib/x86_64-linux-gnu/slurm/"
                   "mpi_pmix_v5.so [0]",
                   "   4711:       trying file=/opt/hpcx/ompi/lib/libpmix.so.2")),

    # --- a container whose GPUs worked, then NVML could not open them (systemd re-applied the device cgroup) --------
    Quote("NVML", "driver 510 to 580", "nvmlErrorString(NVML_ERROR_UNKNOWN = 999)", 0,
          '"Unknown Error"',
          "Failed to initialize NVML: Unknown Error", "container-gpu-access-lost-systemd-cgroup-reload",
          context=("docker run --gpus all --rm -it nvidia/cuda:11.4.2-base-ubuntu18.04 bash",
                   "| NVIDIA-SMI 510.68.02    Driver Version: 510.68.02    CUDA Version: 11.6     |")),
    # --- Slurm's GPU core affinity that does not fall on the node's socket boundaries ---------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/gres.c", 3838,
          'tmp = xstrdup_printf(\n"%s GRES autodetected core affinity %s on node %s doesn\'t match socket boundaries. '
          '(Socket %d is cores %d-%d). "\n"Consider setting Parameters=l3cache_as_socket as part of the Node '
          'configuration.",\ngres_ctx->gres_type, gres_cores_str,\nrebuild_topo->node_name, i, first, (last - 1));',
          "[2026-11-30T04:30:11.402] error: _check_core_range_matches_sock: gres/gpu GRES autodetected core affinity "
          "0-7 on node gpu-a-017 doesn't match socket boundaries. (Socket 0 is cores 0-1). Consider setting "
          "Parameters=l3cache_as_socket as part of the Node configuration.",
          "gres-autodetect-affinity-not-socket-aligned"),
    Quote("Slurm", "slurm-25-11-7-1", "src/interfaces/gres.c", 3844,
          'tmp = xstrdup_printf(\n"%s GRES core specification %s for node %s doesn\'t match socket boundaries. '
          '(Socket %d is cores %d-%d)",\ngres_ctx->gres_type, gres_cores_str,\nrebuild_topo->node_name, i, first, '
          '(last - 1));',
          "slurmd: error: _check_core_range_matches_sock: gres/gpu GRES core specification 0-11 for node gpu-a-017 "
          "doesn't match socket boundaries. (Socket 0 is cores 0-7)",
          "gres-autodetect-affinity-not-socket-aligned"),
    Quote("Slurm", "slurm-24-11-0-1", "src/interfaces/gres.c", 3720,
          'char *tmp = xstrdup_printf("%s GRES core specification %s doesn\'t match socket boundaries. (Socket %d is '
          'cores %d-%d)",\ngres_ctx->gres_type,\nnode_list, i,\ni * rebuild_topo->cores_per_sock,\n(i + 1) * '
          'rebuild_topo->cores_per_sock);',
          "slurmd: error: _foreach_rebuild_topo: gres/gpu GRES core specification 0-7 doesn't match socket "
          "boundaries. (Socket 0 is cores 0-2)", "gres-autodetect-affinity-not-socket-aligned"),

    # --- Slurm's auth/slurm plugin without its key (slurm.key) ----------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/auth/slurm/internal.c", 76,
          "fatal(\"%s: cannot stat '%s': %m\", plugin_type, path);",
          "slurmctld: fatal: auth/slurm: cannot stat '/etc/slurm/slurm.key': No such file or directory",
          "slurm-auth-key-missing"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/auth/slurm/internal.c", 228,
          'fatal("%s: Could not load key file (%s)",\nplugin_type, key_file);',
          "[2026-11-30T04:30:11.402] fatal: auth/slurm: Could not load key file (/etc/slurm/slurm.key)",
          "slurm-auth-key-missing"),

    # --- slurmd's cgroup/v2 plugin in a cgroup without the controllers it needs -----------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/cgroup/v2/cgroup_v2.c", 551,
          'error("Controller %s is not enabled!", ctl_names[i]);',
          "slurmd: error: Controller cpuset is not enabled!", "slurmd-manual-start-cgroup-controllers-disabled",
          context=("slurmd: fatal: Unable to initialize jobacct_gather",)),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/cgroup/v2/cgroup_v2.c", 1838,
          'error("%s cgroup controller is not available.",\nctl_names[ctl]);',
          "slurmd: error: cpu cgroup controller is not available.", "slurmd-manual-start-cgroup-controllers-disabled",
          context=("slurmd: error: Controller cpu is not enabled!",)),

    # --- Slurm's topology that cannot place the job --------------------------------------------------------------
    Quote("Slurm", "slurm-25-11-7-1", "src/common/slurm_errno.c", 882,
          '"Requested topology configuration is not available",',
          "sbatch: error: Batch job submission failed: Requested topology configuration is not available",
          "slurm-topology-missing-node"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/topology/tree/switch_record.c", 552,
          'warning("switches lack access to %d nodes: %s",\ni, child);',
          "[2026-11-30T04:30:11.402] warning: switches lack access to 2 nodes: gpu-b-[001-002]",
          "slurm-topology-missing-node"),
    Quote("Slurm", "slurm-25-11-7-1", "src/plugins/topology/block/block_record.c", 338,
          'warning("Blocks lack access to %d nodes: %s",\ni, tmp_nodes);',
          "[2026-11-30T04:30:11.402] warning: Blocks lack access to 1 nodes: gpu-b-017",
          "slurm-topology-missing-node"),

    # --- srun's step refusal, its message wrapped over two lines (a terminal's or a page's width) -----------------
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/launch.c", 1258,
          'error("Unable to create step for job %u: %m",\nstep_req->step_id.job_id);',
          "srun: error: Unable to create step for job 234123: More processors requested",
          "srun-step-exceeds-allocation", context=("than permitted",)),

    # --- the NVIDIA device plugin refusing more than one shared (time-sliced, MPS) GPU ----------------------------
    Quote("k8s-device-plugin", "v0.12.2", "cmd/nvidia-device-plugin/server.go", 256,
          "return nil, fmt.Errorf(\"request for '%v: %v' too large: maximum request size for shared resources is 1\", "
          "plugin.rm.Resource(), len(req.DevicesIDs))",
          "  Warning  UnexpectedAdmissionError  13s   kubelet            Allocate failed due to rpc error: code = "
          "Unknown desc = request for 'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1, "
          "which is unexpected", "k8s-shared-gpu-request-over-one-refused"),
    Quote("k8s-device-plugin", "v0.20.0", "internal/rm/rm.go", 99,
          'return fmt.Errorf("%w: maximum request size for shared resources is 1; found %d", errInvalidRequest, '
          "numRequestedDevices)",
          "  Warning  UnexpectedAdmissionError  4s    kubelet            Allocate failed due to rpc error: code = "
          "Unknown desc = invalid request: maximum request size for shared resources is 1; found 4, which is "
          "unexpected", "k8s-shared-gpu-request-over-one-refused",
          fmt="%s: maximum request size for shared resources is 1; found %d"),

    # --- DeepSpeed's batch sizes: a micro batch of 0 per GPU -----------------------------------------------------
    Quote("DeepSpeed", "v0.16.4", "deepspeed/runtime/config.py", 927,
          'assert (micro_batch > 0), f"Micro batch size per gpu: {micro_batch} has to be greater than 0"',
          "x3202c0s31b0n0: AssertionError: Micro batch size per gpu: 0 has to be greater than 0",
          "deepspeed-train-batch-below-gpu-count"),

    # --- Open MPI's TCP transport finding no route to a peer over the interface it took ----------------------------
    # BTL_ERROR (ompi/mca/btl/base/btl_base_error.h at v1.2.9) prefixes "[%s][%lu,%lu,%lu][%s:%d:%s] ".
    Quote("Open MPI", "v1.2.9", "ompi/mca/btl/tcp/btl_tcp_endpoint.c", 572,
          'BTL_ERROR(("connect() failed with errno=%d", so_error));',
          "[node1][0,1,0][btl_tcp_endpoint.c:572:mca_btl_tcp_endpoint_complete_connect] connect() failed with "
          "errno=113", "openmpi-tcp-btl-wrong-interfaces"),
    Quote("Open MPI", "v2.1.6", "opal/mca/btl/tcp/btl_tcp_endpoint.c", 801,
          'BTL_ERROR(("connect() to %s failed: %s (%d)",\nopal_net_get_hostname((struct sockaddr*) &endpoint_addr),\n'
          "strerror(so_error), so_error));",
          "[node1][[4117,1],0][btl_tcp_endpoint.c:801:mca_btl_tcp_endpoint_complete_connect] connect() to "
          "192.168.122.1 failed: No route to host (113)", "openmpi-tcp-btl-wrong-interfaces"),
    # v4.1.6 (line 34) and v5.0.6 (line 160) opal/mca/btl/tcp/help-mpi-btl-tcp.txt [client connect fail], shown
    # from btl_tcp_endpoint.c's mca_btl_tcp_endpoint_complete_connect with strerror(so_error), so_error.
    Quote("Open MPI", "v5.0.6", "opal/mca/btl/tcp/help-mpi-btl-tcp.txt", 169,
          "  Error:      %s (%d)",
          "  Error:      No route to host (113)", "openmpi-tcp-btl-wrong-interfaces",
          context=("WARNING: Open MPI failed to TCP connect to a peer MPI process via",
                   "  Message:    connect() to 192.168.122.1:1024 failed"),
          fmt="  Error:      %s (%d)"),

    # --- Open MPI's daemon that the remote node's loader could not start (its non-interactive environment) -------
    Quote("glibc", "glibc-2.39", "elf/dl-catch.c", 83,
          '_dl_fatal_printf ("%s: %s: %s%s%s%s%s\\n",\nRTLD_PROGNAME,\n'
          'occasion ?: N_("error while loading shared libraries"),',
          "prted: error while loading shared libraries: libimf.so: cannot open shared object file: No such file or "
          "directory", "mpi-daemon-compiler-runtime-missing-noninteractive"),
    Quote("glibc", "glibc-2.39", "elf/dl-catch.c", 83,
          '_dl_fatal_printf ("%s: %s: %s%s%s%s%s\\n",\nRTLD_PROGNAME,\n'
          'occasion ?: N_("error while loading shared libraries"),',
          "orted: error while loading shared libraries: libopen-rte.so.40: cannot open shared object file: No such "
          "file or directory", "mpi-daemon-compiler-runtime-missing-noninteractive"),

    # --- MPI and GPU memory: torch's mpi backend, Cray MPICH's NIC policy, Spectrum MPI's CUDA hook, libnbc -------
    Quote("torch", "commit 05083ee", "torch/csrc/distributed/c10d/ProcessGroupMPI.cpp", 73,
          'TORCH_CHECK(\nfalse,\n"CUDA tensor detected and the MPI used doesn\'t "\n"have CUDA-aware MPI support");',
          "RuntimeError: CUDA tensor detected and the MPI used doesn't have CUDA-aware MPI support",
          "torch-mpi-backend-cuda-aware-openmpi-only"),
    Quote("Cray MPICH", "8.1 (Frontier, as OLCF quotes it)", "libmpi_cray (closed source; the string "
          "MPIDI_CRAY_ofi_nic_assign_policy prints, quoted in olcf/olcf-user-docs systems/frontier_user_guide.rst)", 0,
          '"MPICH ERROR: Unable to use a NIC_POLICY of \'%s\'. Rank %d is not confined to a single NUMA node."',
          "MPICH ERROR: Unable to use a NIC_POLICY of 'NUMA'. Rank 0 is not confined to a single NUMA node.",
          "cray-mpich-nic-policy-numa-rank-spans-numa"),
    Quote("Cray MPICH", "8.1 (Frontier, as OLCF quotes it)", "libmpi_cray (closed source; quoted in "
          "olcf/olcf-user-docs software/analytics/pytorch_frontier.rst)", 0,
          '"MPICH ERROR: Unable to use a NIC_POLICY of \'%s\'. Rank %d is not confined to a single NUMA node.  '
          'There are %d numa_nodes detected (rc=%d)."',
          "MPICH ERROR: Unable to use a NIC_POLICY of 'NUMA'. Rank 4 is not confined to a single NUMA node.  There "
          "are 4 numa_nodes detected (rc=0).", "cray-mpich-nic-policy-numa-rank-spans-numa",
          context=("MPICH ERROR [Rank 0] [job id 2853270.0] [Fri Dec 13 13:41:36 2024] [frontier05084] - "
                   "Abort(2665871) (rank 0 in comm 0): Fatal error in PMPI_Init_thread: Other MPI error, error stack:",
                   "MPIDI_CRAY_ofi_get_nic_index(1801)....: OFI invalid value for environment variable")),
    Quote("Spectrum MPI", "10.3 (Summit, as OLCF quotes it)", "PAMI's CUDA hook library (closed source; quoted in "
          "olcf/olcf-user-docs systems/summit_user_guide.rst)", 0,
          '"CUDA Hook Library: Failed to find symbol %s, %s"',
          "CUDA Hook Library: Failed to find symbol mem_find_dreg_entries, ./a.out: undefined symbol: "
          "__PAMI_Invalidate_region", "spectrum-mpi-cuda-hook-before-mpi-init"),
    # Open MPI's signal handler prints the backtrace with glibc's backtrace_symbols_fd ("%s(%s+0x%x)[%p]").
    Quote("glibc", "glibc-2.39", "debug/backtracesymsfd.c", 81,
          'iov[last].iov_base = (void *) "+0x";',
          "[nid006549:31808] [ 3] /user-environment/linux-neoverse_v2/openmpi-5.0.9/lib/libmpi.so.40"
          "(NBC_Progress+0x164)[0x400029a97bd4]", "openmpi-nonblocking-collectives-gpu-buffers-unsupported",
          context=("[nid006549:31808] *** Process received signal ***",
                   "[nid006549:31808] Signal: Segmentation fault (11)",
                   "[nid006549:31808] Signal code: Invalid permissions (2)")),
    Quote("Open MPI", "v5.0.9", "opal/util/stacktrace.c", 420,
          'ret = snprintf(tmp, size, HOSTFORMAT "Signal code: %s (%d)\\n", stacktrace_hostname,\n'
          "getpid(), si_code_str, info->si_code);",
          "[nid006550:188198] Signal code: Invalid permissions (2)",
          "openmpi-nonblocking-collectives-gpu-buffers-unsupported",
          context=("[nid006550:188198] Signal: Segmentation fault (11)",
                   "[nid006550:188198] [ 4] /opt/openmpi/lib/libmpi.so.40(ompi_coll_libnbc_progress+0x8c)"
                   "[0x400004456a0c]")),

    # --- containers: the tools an image build needs, the image's own ldconfig, the GPUs a container was given -----
    Quote("Apptainer", "v1.4.5", "internal/pkg/build/build.go", 196,
          'return nil, fmt.Errorf("while searching for mksquashfs: %v", err)',
          'FATAL:   While making image from oci registry: while building SIF from layers: unable to create new build: '
          'while searching for mksquashfs: exec: "mksquashfs": executable file not found in $PATH',
          "mksquashfs-not-on-batch-path"),
    Quote("enroot", "v3.5.0", "conf/hooks/99-mellanox.sh", 156,
          'common::err "Failed to refresh the dynamic linker cache"',
          "0: slurmstepd: error: pyxis:     [ERROR] Failed to refresh the dynamic linker cache",
          "image-musl-ldconfig-breaks-enroot-hooks",
          context=("0: slurmstepd: error: pyxis: container start failed with error code: 1",)),
    Quote("NVML", "driver 510 to 580", "nvmlErrorString(NVML_ERROR_UNKNOWN = 999)", 0,
          '"Unknown Error"',
          "Failed to initialize NVML: Unknown Error", "container-gpu-access-lost-systemd-cgroup-reload"),
    Quote("torch", "2.x", "c10/cuda/CUDAFunctions.cpp (device_count_impl, case cudaErrorInsufficientDriver)", 0,
          'TORCH_CHECK(\nfalse,\n"Found no NVIDIA driver on your system. Please check that you "\n'
          '"have an NVIDIA GPU and installed a driver from "\n"http://www.nvidia.com/Download/index.aspx");',
          "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
          "a driver from http://www.nvidia.com/Download/index.aspx", "enroot-nvidia-visible-devices-unset",
          context=("pyxis: importing docker image: docker://ubuntu:22.04",)),

    # --- gdrcopy's driver refusing a task other than the one that opened it (NVIDIA/gdrcopy#120) -------------------
    # gdrcopy v2.0 src/gdrdrv/gdrdrv.c line 770: `if (info->pid != task_pid(current)) { ... return -EACCES; }` (the
    # same check in release and mmap); v2.1 compares the thread group (gdrdrv_check_same_process, task_tgid).
    Quote("gdrcopy", "v2.0", "src/gdrapi.c", 226,
          'gdr_err("ioctl error (errno=%d)\\n", ret);',
          "ERR:  ioctl error (errno=13)", "gdrdrv-same-process-check-rejects-threads"),
    Quote("UCX", "v1.18.0", "src/uct/cuda/gdr_copy/gdr_copy_md.c", 139,
          'ucs_log(log_level, "gdr_pin_buffer failed. length :%lu ret:%d",\nlength, ret);',
          "[1589473761.717189] [node7:34848:1]    gdr_copy_md.c:122  UCX  ERROR gdr_pin_buffer failed. "
          "length :65536 ret:13", "gdrdrv-same-process-check-rejects-threads"),

    # --- cloud-init refusing two interfaces with one MAC (an IPoIB interface beside an Ethernet one) --------------
    Quote("cloud-init", "24.1", "cloudinit/net/__init__.py", 987,
          'msg = "duplicate mac found! both \'%s\' and \'%s\' have mac \'%s\'." % (\nname,\nret[mac],\nmac,\n)',
          "RuntimeError: duplicate mac found! both 'eth1' and 'ib0' have mac '00:15:5d:33:ff:0a'.",
          "cloud-init-duplicate-mac-ib-interface"),
    Quote("cloud-init", "24.1", "cloudinit/net/__init__.py", 1145,
          'raise RuntimeError(\n"duplicate mac found! both \'%s\' and \'%s\' have mac \'%s\'"\n% (name, ret[ib_mac], '
          'ib_mac)\n)',
          "RuntimeError: duplicate mac found! both 'ib1' and 'ib0' have mac '00:15:5d:33:ff:0a'",
          "cloud-init-duplicate-mac-ib-interface"),

    # --- NVSHMEM's IBGDA transport failing to create an address handle (llm-d/llm-d#407, NVIDIA/nvshmem#21) ---------
    # v3.4.5-0 src/modules/transport/ibgda/ibgda.cpp line 2157 declares `struct ibv_ah_attr ah_attr;` and fills it
    # field by field without a memset before ftable.create_ah (the RoCE branch at line 1388 zeroes its own); the
    # macro (src/include/non_abi/nvshmemx_error.h line 80) prints "%s:%d: NULL value " then the message.
    Quote("NVSHMEM", "v3.4.5-0", "src/modules/transport/ibgda/ibgda.cpp", 2234,
          'NVSHMEMI_NULL_ERROR_JMP(ah, status, NVSHMEMX_ERROR_INTERNAL, out, "Unable to create ah.\\n");',
          "/dvs/p4/build/sw/nvshmem/src/modules/transport/ibgda/ibgda.cpp:2234: NULL value Unable to create ah.",
          "nvshmem-ibgda-uninitialized-ah-attr"),

    # --- NCCL_NET_PLUGIN naming a plugin library that is not there (2.21 to 2.30: tests/diagnose/test_nccl_messages.py)
    Quote("NCCL", "v2.19.3-1", "src/net.cc", 231,
          'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation", '
          'dlerror(), ncclNetPluginName);',
          "nid006365:180142:180163 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net-ofi.so: cannot open shared object "
          "file: No such file or directory No plugin found (libnccl-net-ofi.so), using internal implementation",
          "nccl-net-plugin-env-names-missing-library",
          context=("nid006365:180142:180163 [0] net.cc:626 NCCL WARN Error: network AWS Libfabric not found.",)),

    # --- UCCL's RDMA proxy reporting a failed work completion (uccl-project/uccl#799: a GID nodes cannot route) ----
    Quote("UCCL", "v0.1.1", "ep/src/rdma.cpp", 2073,
          'fprintf(stderr,\n"CQE ERROR wr_id=%llu status=%d(%s) opcode=%d byte_len=%u "\n'
          '"vendor_err=0x%x qp_num=0x%x\\n",\n'
          '(unsigned long long)wc[i].wr_id, wc[i].status,\nibv_wc_status_str(wc[i].status), wc[i].opcode, '
          'wc[i].byte_len,\nwc[i].vendor_err, wc[i].qp_num);',
          "CQE ERROR wr_id=3 status=12(transport retry counter exceeded) opcode=1 byte_len=0 vendor_err=0xa "
          "qp_num=0x2c10", "roce-gid-index"),

    # --- the GPU and its driver, as CUDA's error names and the Kubernetes device plugin say them -------------------
    # cudaGetErrorName() gives the enum's name where a program prints it instead of cudaGetErrorString()'s words.
    Quote("CUDA", "12.x", "cudaGetErrorName(cudaErrorUnsupportedPtxVersion = 222)", 0,
          '"cudaErrorUnsupportedPtxVersion"',
          "CUDA RUNTIME API error: Free failed with error cudaErrorUnsupportedPtxVersion", "driver-too-old"),
    Quote("CUDA", "12.x", "cuGetErrorName(CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222)", 0,
          '"CUDA_ERROR_UNSUPPORTED_PTX_VERSION"',
          "RuntimeError: CUDA driver error: CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "driver-too-old"),
    # NVIDIA k8s-device-plugin v0.14.5 to v0.20.0: the health check marks a GPU unhealthy on an Xid it does not
    # skip (the application Xids 13, 31, 43, 45, 68, 109 are skipped), then the server logs the device.
    Quote("k8s-device-plugin", "v0.20.0", "internal/rm/health.go", 169,
          'klog.Infof("XidCriticalError: Xid=%d on Device=%s; marking device as unhealthy.", e.EventData, d.ID)',
          "I0624 22:58:05.486697       1 health.go:185] XidCriticalError: Xid=79 on "
          "Device=GPU-adb24b25-1db1-436e-d958-ddee5da83d07; marking device as unhealthy.", "gpu-hardware-fault"),
    Quote("k8s-device-plugin", "v0.20.0", "internal/plugin/server.go", 279,
          'klog.Infof("\'%s\' device marked unhealthy: %s", plugin.rm.Resource(), d.ID)',
          "I0624 22:58:05.486727       1 server.go:276] 'nvidia.com/gpu' device marked unhealthy: "
          "GPU-adb24b25-1db1-436e-d958-ddee5da83d07", "gpu-hardware-fault"),

    # --- a rank killed, a host name NCCL's bootstrap could not resolve ------------------------------------------------
    Quote("torch", "v2.13.0", "torch/distributed/elastic/multiprocessing/api.py", 836,
          'logger.exception(\n"failed (exitcode: %s)"\n" local_rank: %s (pid: %s)"\n" of fn: %s (start_method: %s)",',
          "E1128 10:02:11.482000 2741 torch/distributed/elastic/multiprocessing/api.py:837] failed (exitcode: -9) "
          "local_rank: 0 (pid: 2741) of fn: main (start_method: spawn)", "rank-sigkill",
          fmt="failed (exitcode: %s) local_rank: %s (pid: %s) of fn: %s (start_method: %s)"),
    # The same exit code as users quote it from the failure table (errors/__init__.py line 188), columns closed up.
    Quote("torch", "v2.13.0", "torch/distributed/elastic/multiprocessing/errors/__init__.py", 188,
          '"  exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}"',
          "exitcode: -9", "rank-sigkill", fmt="exitcode"),
    # NCCL_COMM_ID's host did not resolve: ncclSocketGetAddrFromString's getaddrinfo WARN (socket.cc), then the
    # bootstrap's refusal of the whole address (v2.18.5-1 to v2.28.9-1 the same words; a vendor build prints the
    # value in brackets after "NCCL_COMM_ID").
    Quote("NCCL", "v2.21.5-1", "src/bootstrap.cc", 36,
          'WARN("Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>");',
          NCCL_WARN.format(where="bootstrap.cc:36") + "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or "
          "[<ipv6>]:<port> or <hostname>:<port>", "rendezvous-name-not-resolvable",
          context=(NCCL_WARN.format(where="misc/socket.cc:267") + "Net : error encountered when getting address info : "
                   "Name or service not known",)),

    # --- torch.load's weights-only unpickler (the default since torch 2.6) refusing a checkpoint's global -----------
    Quote("torch", "v2.13.0", "torch/_weights_only_unpickler.py", 378,
          'raise UnpicklingError(\nf"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "',
          "WeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default.",
          "torch-load-weights-only-default",
          fmt="Unsupported global: GLOBAL {} was not an allowed global by default."),
    Quote("torch", "v2.13.0", "torch/serialization.py", 1465,
          'updated_message = f"Weights only load failed. {UNSAFE_MESSAGE}\\n"',
          "_pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default value of the "
          "`weights_only` argument in `torch.load` from `False` to `True`.", "torch-load-weights-only-default",
          fmt="Weights only load failed. {}"),

    # --- DeepSpeed's fp16 dynamic loss scaler at its floor --------------------------------------------------------
    Quote("DeepSpeed", "v0.16.4", "deepspeed/runtime/fp16/loss_scaler.py", 175,
          'raise Exception(\n"Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.")',
          "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
          "deepspeed-fp16-loss-scale-exhausted"),
    Quote("DeepSpeed", "v0.16.4", "deepspeed/runtime/fp16/loss_scaler.py", 182,
          'overflow_msg += f" Attempted loss scale: {int(self.cur_scale)}, reducing to {int(next_scale)}"',
          "[2025-02-21 12:05:41,118] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping "
          "step. Attempted loss scale: 1, reducing to 1", "deepspeed-fp16-loss-scale-exhausted"),
    Quote("DeepSpeed", "v0.5.10", "deepspeed/runtime/zero/stage_1_and_2.py", 1644,
          'logger.info(\n"[deepscale] OVERFLOW! Rank {} Skipping step. Attempted loss scale: {}, "\n'
          '"reducing to {}".format(',
          " [deepscale] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1, reducing to 1",
          "deepspeed-fp16-loss-scale-exhausted"),

    # --- NCCL finding no network plugin under its default name on a fabric that needs one (EFA, Slingshot) ----------
    Quote("NCCL", "v2.18.5-1", "src/net.cc", 180,
          'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin : No plugin found, using internal implementation");',
          NCCL_INFO + "NET/Plugin : No plugin found, using internal implementation",
          "ofi-nccl-plugin-not-on-library-path",
          context=(EFA_NODE, NCCL_INFO + "Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0")),
    Quote("NCCL", "v2.19.3-1", "src/net.cc", 231,
          'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation", '
          'dlerror(), ncclNetPluginName);',
          NCCL_INFO + "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory "
          "No plugin found (libnccl-net.so), using internal implementation", "ofi-nccl-plugin-not-on-library-path",
          context=(EFA_NODE, NCCL_INFO + "Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0")),
    Quote("NCCL", "v2.21.5-1", "src/net.cc", 349,
          'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin: No plugin found (%s)", name);',
          NCCL_INFO + "NET/Plugin: No plugin found (libnccl-net.so)", "ofi-nccl-plugin-not-on-library-path",
          context=("nid001234:2741:2790 [0] NCCL INFO NET/Socket : Using [0]hsn0:10.100.0.12<0>",
                   NCCL_INFO + "Channel 00/0 : 0[0] -> 4[0] [send] via NET/Socket/0")),
    Quote("NCCL", "v2.23.4-1", "src/net.cc", 439,
          'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin: Could not find:%s. Using internal network plugin.", '
          'couldNotFindNames);',
          NCCL_INFO + "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.",
          "ofi-nccl-plugin-not-on-library-path",
          context=(EFA_NODE, NCCL_INFO + "Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0")),
    Quote("NCCL", "v2.28.9-1", "src/plugin/plugin_open.cc", 107,
          'INFO(subsys[type], "%s/Plugin: Could not find:%s%s%s", pluginNames[type], eNoEntNameList,',
          NCCL_INFO + "NET/Plugin: Could not find: libnccl-net.so", "ofi-nccl-plugin-not-on-library-path",
          context=(EFA_NODE, NCCL_INFO + "Channel 00/0 : 0[0] -> 8[0] [send] via NET/Socket/0")),

    # --- Apptainer's nvidia-container-cli GPU setup under --contain -------------------------------------------------
    Quote("Apptainer", "v1.5.3", "internal/pkg/runtime/launch/launcher_linux.go", 879,
          'sylog.Warningf("When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no '
          'GPUs will be available in container.")',
          "WARNING: When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no GPUs will "
          "be available in container.", "nvccli-contain-without-nvidia-visible-devices"),
    # As a terminal wraps it (the apptainer user guide quotes it so): the first part alone names it.
    Quote("Apptainer", "v1.1.0", "cmd/internal/cli/actions_linux.go", 972,
          'sylog.Warningf("When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must be set or no '
          'GPUs will be available in container.")',
          "WARNING: When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES",
          "nvccli-contain-without-nvidia-visible-devices", fmt="When using nvidia-container-cli with --contain "
          "NVIDIA_VISIBLE_DEVICES"),

    # --- Slurm's select/cons_tres finding a GRES core bitmap of another size than the node's cores -----------------
    Quote("Slurm", "25.11.7", "src/plugins/select/cons_tres/gres_sock_list.c", 333,
          'error("%s: Core bitmaps size mismatch on node %s",\n__func__, node_name);',
          "slurmctld: error: gres_sock_list_create: Core bitmaps size mismatch on node gpu-a-017",
          "slurm-gres-core-bitmap-stale-at-startup",
          context=("sbatch: error: Batch job submission failed: Requested node configuration is not available",)),

    # --- torch's TCPStore: a client connection reset while the store starts (pytorch/pytorch#129985) ---------------
    Quote("torch", "v2.13.0", "torch/csrc/distributed/c10d/TCPStore.cpp (libtorch_cpu.so)", 0,
          'C10D_WARNING("recvValue failed on {}: {}", socket_.repr(), e.what());',
          "[trainer85612|12]:W0701 13:41:43.421574  4776 TCPStore.cpp:182] [c10d] recvValue failed on "
          "SocketImpl(fd=24, addr=[trainer85612]:51880, remote=[trainer0]:29500): Connection reset by peer",
          "tcpstore-connection-reset-after-connect",
          context=("[trainer85612|12]:#10 c10d::TCPStore::waitForWorkers() from /opt/conda/lib/python3.10/"
                   "site-packages/torch/lib/libtorch_cpu.so:84812868",)),
    Quote("torch", "v2.13.0", "torch/csrc/distributed/c10d/TCPStore.cpp (libtorch_cpu.so)", 0,
          'C10D_WARNING(\n"Starting store with {} workers but somaxconn is {}."\n'
          '"This might cause instability during bootstrap, consider increasing it.",',
          "[W1128 10:02:11.482 TCPStore.cpp:312] [c10d] Starting store with 8192 workers but somaxconn is 4096.This "
          "might cause instability during bootstrap, consider increasing it.",
          "tcpstore-connection-reset-after-connect",
          context=("[W1128 10:02:11.611 TCPStore.cpp:182] [c10d] recvValue failed on SocketImpl(fd=24, ...): "
                   "Connection reset by peer", "#9 c10d::TCPStore::incrementValueBy(std::string const&, long)"),
          fmt="Starting store with {} workers but somaxconn is {}.This might cause instability during bootstrap, "
          "consider increasing it."),

    # --- coreutils' id and whoami on a node whose user database does not know the job's user ----------------------
    Quote("coreutils", "v9.4", "src/id.c", 340,
          'error (0, 0, _("cannot find name for user ID %s"),\nuidtostr (uid));',
          "slurmstepd: error: pyxis:     id: cannot find name for user ID 42", "user-unknown-on-node",
          context=("slurmstepd: error: pyxis: container start failed with error code: 1",)),
    Quote("coreutils", "v9.4", "src/whoami.c", 84,
          'error (EXIT_FAILURE, errno, _("cannot find name for user ID %lu"),\n(unsigned long int) uid);',
          "whoami: cannot find name for user ID 23017", "user-unknown-on-node",
          context=("srun: error: gpu-a-017: task 0: Exited with exit code 1",)),

    # --- NVIDIA Container Toolkit 1.12.0's chmod hook on device folders the GPU does not have ------------------------
    # v1.12.0 cmd/nvidia-ctk/hook/chmod/chmod.go line 129 execs the system chmod on the paths as given (v1.12.1 skips
    # those that do not exist); coreutils' chmod then reports the missing one, and runc the hook's failure.
    Quote("coreutils", "v9.4", "src/chmod.c", 231,
          'error (0, ent->fts_errno, _("cannot access %s"),\nquoteaf (file_full_name));',
          "docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create "
          "failed: unable to start container process: error during container init: error running hook #1: error "
          "running hook: exit status 1, stdout: , stderr: chmod: cannot access '/var/lib/docker/overlay2/9069fafc/"
          "merged/dev/dri': No such file or directory: unknown.",
          "nvidia-container-toolkit-1-12-0-cdi-missing-dev-nodes",
          fmt="cannot access %s"),

    # --- a CUDA program in an Apptainer/Singularity container started without --nv on a GPU allocation -------------
    # The shell reports the program's SIGSEGV by strsignal()'s name; the container had no libcuda to load.
    Quote("glibc", "glibc-2.39", "sysdeps/generic/siglist.h", 39,
          'init_sig (SIGSEGV, "SEGV", N_("Segmentation fault"))',
          "Segmentation fault", "apptainer-no-nv", fmt="Segmentation fault",
          context=("[me@login]$ salloc --nodes=1 --gpus=1 --time=0:10:00 --partition=accel",
                   "[me@c7-8]$ singularity exec --bind $PWD cuda_11.4.0-devel-ubuntu20.04.sif ./vec_add_cuda")),

    # The image carries no nvidia-smi: --nv binds the host's. Apptainer v1.5.3 looks the command up with mvdan's
    # shell interpreter (internal/pkg/runtime/engine/apptainer/process_linux.go line 883 shell.LookPath) and prints
    # its error as FATAL.
    Quote("mvdan.cc/sh", "v3.13.1", "interp/handler.go", 280,
          'return "", fmt.Errorf("%q: executable file not found in $PATH", file)',
          'FATAL:   "nvidia-smi": executable file not found in $PATH', "apptainer-no-nv",
          context=("[me@gpu-f-3 pytorch]$ apptainer exec  ./pytorch_latest.sif nvidia-smi -L",)),

    # --- an InfiniBand send never acknowledged within the transport timeout (completion status 12) -------------
    # MVAPICH2's channel manager aborts on a failed work completion with the verbs status (12, IBV_WC_RETRY_EXC_ERR);
    # no official repository publishes MVAPICH2's source, so a stored copy of the file is quoted.
    Quote("MVAPICH2", "a stored copy (commit not recorded)",
          "src/mpid/ch3/channels/mrail/src/gen2/ibv_channel_manager.c handle_cqe()", 0,
          'ibv_va_error_abort(IBV_STATUS_ERR,\n"[] Got completion with error %d, vendor code=0x%x, dest rank=%d\\n",\n'
          "wc.status, wc.vendor_err, ((MPIDI_VC_t *)v->vc)->pg_rank);",
          "[gcn-4-11.sdsc.edu:mpi_rank_10][MPIDI_CH3I_MRAILI_Cq_poll] src/mpid/ch3/channels/mrail/src/gen2/"
          "ibv_channel_manager.c:586: [] Got completion with error 12, vendor code=0x81, dest rank=17",
          "ib-transport-retry-timeout-under-congestion"),
    # UCX's mlx5 transports name the CQE's syndrome (MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, line 132).
    Quote("UCX", "v1.22.0", "src/uct/ib/mlx5/ib_mlx5_log.c", 179,
          'ucs_log(log_level,\n"%s on " UCT_IB_IFACE_FMT " (synd 0x%x vend 0x%x hw_synd %d/%d)\\n"',
          "[1732961234.123456] [gpu-a-017:2741:0]    ib_mlx5_log.c:179  UCX  ERROR Transport retry count exceeded on "
          "mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)", "ib-transport-retry-timeout-under-congestion",
          fmt="%s on %s (synd 0x%x vend 0x%x hw_synd %d/%d)"),

    # --- GPU memory with a fabric handle refused: no IMEX channel for the process (GB200/GH200 NVLink domains) ----
    # mscclpp v0.6.0 asks cuMemCreate for a FABRIC handle on every GPU (include/mscclpp/gpu_utils.hpp line 99);
    # its CuError is the macro's text and src/errors.cc line 59's " (Cu failure: %s)".
    Quote("mscclpp", "v0.6.0", "include/mscclpp/gpu_utils.hpp", 31,
          'throw mscclpp::CuError(std::string("Call to " #cmd " failed.") + __FILE__ + ":" + '
          "std::to_string(__LINE__), \\",
          "mscclpp._mscclpp.CuError: (800, 'Call to cuMemCreate(&memHandle, nbytes, &prop, 0 ) failed./root/mscclpp/"
          "src/gpu_utils.cc:113 (Cu failure: operation not permitted)')",
          "imex-channel-missing-fabric-memory-refused", fmt="Call to %s failed.%s:%s"),

    # --- mpirun from a conda environment (conda-forge's Open MPI, pulled in by mpi4py) instead of the site's -------
    # PRRTE's (Open MPI 5's prterun) executable-not-found help text, whose Executable row is the environment's Python.
    Quote("PRRTE", "v3.0.6", "src/docs/show-help-files/help-prun.rst", 678,
          "%s was unable to find the specified executable file, and therefore",
          "prterun was unable to find the specified executable file, and therefore",
          "conda-env-mpi-shadows-site-mpi", fmt="%s was unable to find the specified executable file, and therefore",
          context=("   Node:       cx3-13-26", "   Executable: /rds/general/user/ab123/home/miniforge3/envs/sim/bin/"
                   "python")),

    # --- a registry with no manifest for the tag asked for (an image named without a tag asks for `latest`) ------
    # Apptainer's OCI build fetches through go-containerregistry, whose transport error is "METHOD URL: " and the
    # registry's diagnostic "$Code: $Message[; $Detail]"; the build wraps it and the CLI prints it as FATAL.
    Quote("go-containerregistry", "v0.21.6", "pkg/v1/remote/transport/error.go", 104,
          'msg := fmt.Sprintf("%s: %s", d.Code, d.Message)',
          "FATAL:   While performing build: conveyor failed to get: GET https://index.docker.io/v2/lindenb/jvarkit/"
          "manifests/latest: MANIFEST_UNKNOWN: manifest unknown; unknown tag=latest",
          "image-tag-not-found-no-latest"),
    # containers/image (SingularityCE 4.5, Podman, skopeo) names the tag and repository, the registry's default
    # message alone since v5.x's docker/errors.go registryHTTPResponseToError ("manifest unknown").
    Quote("containers/image", "v5.36.1", "docker/docker_client.go", 967,
          'return nil, "", fmt.Errorf("reading manifest %s in %s: %w", tagOrDigest, ref.ref.Name(), '
          "registryHTTPResponseToError(res))",
          "Error: initializing source docker://lindenb/jvarkit:latest: reading manifest latest in "
          "docker.io/lindenb/jvarkit: manifest unknown", "image-tag-not-found-no-latest"),
    Quote("Apptainer", "v1.5.3", "internal/pkg/build/build.go", 308,
          'return fmt.Errorf("conveyor failed to get: %v", err)',
          "FATAL:   While performing build: conveyor failed to get: GET https://ghcr.io/v2/acme/trainer/manifests/"
          "v2.1: MANIFEST_UNKNOWN: manifest unknown", "image-tag-not-found-no-latest"),

    # --- a program killed by SIGILL: an instruction the node's CPU lacks (a build for a newer CPU) ---------------
    # srun names the task's signal by strsignal(); glibc's name for SIGILL; bash's job report uses the same name.
    Quote("Slurm", "slurm-25-11-7-1", "src/srun/launch.c", 450,
          'error("%s: %s %s: %s%s",\nhosts, task_str, tasks, signal_str, core_str);',
          "srun: error: compute030: tasks 0-7: Illegal instruction (core dumped)", "binary-built-for-newer-cpu-isa"),
    Quote("glibc", "glibc-2.39", "sysdeps/generic/siglist.h", 32,
          'init_sig (SIGILL, "ILL", N_("Illegal instruction"))',
          "/var/spool/slurmd/job4512/slurm_script: line 12: 31808 Illegal instruction     (core dumped) ./a.out",
          "binary-built-for-newer-cpu-isa", fmt="Illegal instruction"),
    Quote("torch", "v2.13.0", "torch/distributed/elastic/multiprocessing/errors/__init__.py", 188,
          '"  exitcode  : ${exitcode} (pid: ${pid}) ${signal_name}"',
          "  exitcode  : -4 (pid: 2741)  (SIGILL)", "binary-built-for-newer-cpu-isa"),

    # --- UCX's own messages for its memory registration, shared memory and verbs completions (v1.12 to v1.19) -----
    # ibv_reg_mr's ENOMEM: UCX appends the locked-memory advice whenever getrlimit(RLIMIT_MEMLOCK) is finite (v1.5
    # to v1.12 in ib_md.c, v1.19 through uct_ib_memlock_limit_msg in ib_log.c), so the line without it was printed
    # under an unlimited limit: the registration path (rcache, ODP) or the card's tables, not ulimit -l.
    Quote("UCX", "v1.12.0", "src/uct/ib/base/ib_md.c", 324,
          'ucs_string_buffer_appendf(&msg,\n"%s(address=%p, length=%zu, access=0x%lx) failed: %m",\n'
          "ibv_reg_mr_func_name, address, length, access_flags);",
          "[1613401128.440695] [nid001192:11838:0]          ib_md.c:349  UCX  ERROR ibv_reg_mr(address=0xabcf12c0, "
          "length=26400, access=0xf) failed: Cannot allocate memory", "ucx-ib-memory-registration-enomem-reg-methods",
          context=("[1613401128.440773] [nid001192:11838:0]    ucp_request.c:269  UCX  ERROR failed to register user "
                   "buffer datatype 0x8 address 0xabcf12c0 len 26400: Input/output error",)),
    Quote("UCX", "v1.12.0", "src/uct/ib/base/ib_md.c", 332,
          'ucs_string_buffer_appendf(&msg,\n". Please set max locked memory "\n"(ulimit -l) to \'unlimited\' "\n'
          '"(current: %llu kbytes)",\nlimit_info.rlim_cur / UCS_KBYTE);',
          "[1652739463.054681] [gpu-a-017:2741:0]          ib_md.c:349  UCX  ERROR ibv_reg_mr(address=0x7f3c00000, "
          "length=4194304, access=0xf) failed: Cannot allocate memory. Please set max locked memory (ulimit -l) to "
          "'unlimited' (current: 64 kbytes)", "memlock-too-low", context=(MPI_FAILED,)),
    Quote("UCX", "v1.19.0", "src/uct/ib/base/ib_log.c", 247,
          "ucs_string_buffer_appendf(\nmessage,\n\" : Please set max locked memory (ulimit -l) to 'unlimited'\"\n"
          '" (current: %llu kbytes)",\nmemlock_limit / UCS_KBYTE);',
          "[1700000000.123456] [gpu-a-017:2741:0]          ib_md.c:288  UCX  ERROR ibv_reg_mr(address=0x7f3c00000, "
          "length=4194304, access=0xf) failed: Cannot allocate memory : Please set max locked memory (ulimit -l) to "
          "'unlimited' (current: 8192 kbytes)", "memlock-too-low", context=(MPI_FAILED,)),
    Quote("UCX", "v1.19.0", "src/uct/ib/base/ib_md.c", 270,
          'ucs_string_buffer_appendf(\n&msg, "%s(address=%p, length=%zu, access=0x%lx) failed: %s", title,\n'
          "address, length, access_flags, strerror(err));",
          "[1700000000.123456] [gpu-a-017:2741:0]          ib_md.c:288  UCX  ERROR ibv_reg_mr(address=0x7f3c00000, "
          "length=4194304, access=0xf) failed: Cannot allocate memory",
          "ucx-ib-memory-registration-enomem-reg-methods", context=(MPI_FAILED,)),
    # The posix transport's peers open a rank's segment through /proc/<pid>/fd/<fd> (UCX_POSIX_USE_PROC_LINK=y,
    # the default): an open the kernel refuses (ptrace access mode, another user, a container's /proc).
    Quote("UCX", "v1.12.0", "src/uct/sm/mm/posix/mm_posix.c", 218,
          'ucs_error("%s(file_name=%s flags=0x%x) failed: %m", func, file_name,\nopen_flags);',
          "[1650000000.123456] [node01:211770:0]       mm_posix.c:195  UCX  ERROR open(file_name=/proc/211766/fd/28 "
          "flags=0x0) failed: Permission denied", "ucx-posix-shm-proc-link-permission-denied"),
    Quote("UCX", "v1.19.0", "src/uct/sm/mm/posix/mm_posix.c", 238,
          'ucs_error("%s(file_name=%s flags=0x%x) failed: %m", func, file_name,\nopen_flags);',
          "[1700000000.123456] [gpu-a-017:2741:0]       mm_posix.c:238  UCX  ERROR open(file_name=/proc/2740/fd/31 "
          "flags=0x2) failed: Operation not permitted", "ucx-posix-shm-proc-link-permission-denied"),
    # rc_verbs' failed send completion with rdma-core's "remote access error" (IBV_WC_REM_ACCESS_ERR): HPC-X 2.23
    # and 2.24 list it for large sends on rc_v (NVIDIA's known issue 4422894).
    Quote("UCX", "v1.19.0", "src/uct/ib/rc/verbs/rc_verbs_iface.c", 124,
          'ucs_log(log_lvl,\n"send completion with error: %s [qpn 0x%x wrid 0x%lx "\n"vendor_err 0x%x]\\n%s",\n'
          "ibv_wc_status_str(wc->status), wc->qp_num, wc->wr_id,\nwc->vendor_err, peer_info);",
          "[1700000000.123456] [gpu-a-017:2741:0]     rc_verbs_iface.c:128  UCX  ERROR send completion with error: "
          "remote access error [qpn 0x1a2 wrid 0x5 vendor_err 0x88]",
          "hpcx-ucx-rc-verbs-remote-access-error-large-sends",
          fmt="send completion with error: %s [qpn 0x%x wrid 0x%lx vendor_err 0x%x]"),
    # ucs_assert (a build with assertions, as HPC-X's debug UCX) in cuda_ipc_ep.c (v1.16.0 line 98:
    # ucs_assert(offset <= key->b_len)), printed by ucs_fatal_error_message as "%13s:%-4u %s".
    Quote("UCX", "v1.16.0", "src/ucs/debug/assert.h", 27,
          'ucs_fatal_error_format(__FILE__, __LINE__, __FUNCTION__, \\\n"Assertion `%s\' failed", #_expression); \\',
          "[1700000000.123456] [gpu-a-017:2741:0]    cuda_ipc_ep.c:98   Assertion `offset <= key->b_len' failed",
          "ucx-cuda-ipc-gdrcopy-same-buffer-registration-conflict"),

    # --- RCCL's and NCCL's own words for the node under them (RCCL rocm-5.4.0 to rocm-6.2.0, NCCL 2.21 to 2.27) ----
    # RCCL warns at init when /proc/cmdline lacks iommu=pt (except Cray kernels and Hyper-V); its p2p transport's
    # cudaIpcGetMemHandle, renamed hipIpcGetMemHandle by the build's hipify step, then fails with invalid argument.
    Quote("RCCL", "rocm-6.2.0", "src/transport/p2p.cc", 235,
          'WARN("cudaIpcGetMemHandle failed : %s", cudaGetErrorString(res));',
          "gpu-a-017:2741:2790 [0] NCCL WARN hipIpcGetMemHandle failed : invalid argument",
          "amd-iommu-not-passthrough", fmt="IpcGetMemHandle failed : %s",
          context=('gpu-a-017:2741:2741 [0] NCCL WARN Missing "iommu=pt" from kernel command line which can lead to '
                   "system instablity or hang!",)),
    Quote("RCCL", "rocm-6.2.0", "src/init.cc", 136,
          'WARN("Missing \\"iommu=pt\\" from kernel command line which can lead to system instablity or hang!");',
          'gpu-a-017:2741:2741 [0] NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system '
          "instablity or hang!", "amd-iommu-not-passthrough",
          context=("gpu-a-017:2741:2790 [0] NCCL WARN hipIpcGetMemHandle failed : invalid argument",)),
    # NCCL's and RCCL's sockets bind to any port ("addr port should be 0 (Any port)", v2.21.5-1 src/misc/socket.cc
    # line 379; a port NCCL_COMM_ID pins is bound with SO_REUSEADDR | SO_REUSEPORT): EADDRINUSE there is a node
    # out of local ports. RCCL 2.12.10 to rocm-6.1 also bind a reused client port (src/misc/socket.cc,
    # "bind_client_port").
    Quote("NCCL", "v2.21.5-1", "src/include/checks.h", 49,
          'WARN("Call to " name " failed : %s", strerror(errno));',
          "gpu-a-017:2741:2790 [0] misc/socket.cc:380 NCCL WARN Call to bind failed : Address already in use",
          "rccl-ib-socket-port-exhaustion-large-alltoall", fmt="Call to %s failed : %s"),
    Quote("NCCL", "v2.27.3-1", "src/include/checks.h", 45,
          'WARN("Call to " name " failed: %s", strerror(errno));',
          "gpu-a-017:2741:2790 [0] misc/socket.cc:409 NCCL WARN Call to bind failed: Address already in use",
          "rccl-ib-socket-port-exhaustion-large-alltoall", fmt="Call to %s failed: %s"),
    Quote("RCCL", "rocm-5.4.0", "src/include/checks.h", 49,
          'WARN("Call to " name " failed : %s", strerror(errno));',
          "gpu-a-017:2741:2790 [0] NCCL WARN Call to bind_client_port failed : Address already in use",
          "rccl-ib-socket-port-exhaustion-large-alltoall", fmt="Call to %s failed : %s"),
    # HIP's name for hipErrorNoDevice (ROCm/clr hipamd/src/hip_error.cpp, ihipGetErrorName; its string in
    # ihipGetErrorString), as a program's own check prints it.
    Quote("HIP", "commit bb3a2f0 (ROCm/clr)", "hipamd/src/hip_error.cpp", 83,
          'return "hipErrorNoDevice";',
          "HIP Error - hello_jobstep.cpp:54: 'hipErrorNoDevice'", "cuda-unavailable"),
    Quote("HIP", "commit bb3a2f0 (ROCm/clr)", "hipamd/src/hip_error.cpp ihipGetErrorString()", 0,
          'return "no ROCm-capable device is detected";',
          "RuntimeError: HIP error: no ROCm-capable device is detected", "cuda-unavailable"),

    # --- CUDA IPC between the ranks of a node under Slurm's per-task GPU binding; Fabric Manager's start ----------
    # Cray MPICH's GPU transport (GTL) opening a peer rank's CUDA IPC handle, as its ranks print it with
    # MPICH_GPU_IPC debug output (E3SM-Project/E3SM#4834, Perlmutter, --gpus-per-task=1 --gpu-bind=map_gpu).
    Quote("Cray MPICH", "8.1", "libmpi_gtl_cuda (closed source; the line its ranks print)", 0,
          '"(GTL DEBUG: %d) cuIpcOpenMemHandle: %s, %s, line no %d"',
          "1: (GTL DEBUG: 1) cuIpcOpenMemHandle: invalid argument, CUDA_ERROR_INVALID_VALUE, line no 272",
          "cray-mpich-gpu-ipc-broken-by-slurm-gpu-binding"),
    # Fabric Manager on NVLink 5 systems waits for the GPUs' local Fabric Manager instances (closed source; its
    # log, pytorch/ci-infra#552).
    Quote("NVIDIA Fabric Manager", "driver 570", "nv-fabricmanager's log (closed source)", 0,
          '"not all local fabric manager instances finished their configuration"',
          "[Mar 12 2025 09:14:03] [ERROR] [tid 2318] not all local fabric manager instances finished their "
          "configuration", "fabric-manager-started-before-local-fm-ready"),
    # Chef's resource error (lib/chef/resource.rb custom_exception_message), AWS ParallelCluster's cookbook
    # starting the nvidia-fabricmanager service during a compute node's bootstrap (aws/aws-parallelcluster#6571).
    Quote("Chef", "a stored copy (commit not recorded)", "lib/chef/resource.rb custom_exception_message()", 0,
          '"#{self} (#{defined_at}) had an error: #{e.class.name}: #{e.message}"',
          "service[nvidia-fabricmanager] (aws-parallelcluster-platform::nvidia_config line 35) had an error: "
          "Mixlib::ShellOut::CommandTimeout: Command timed out after 900s:",
          "fabric-manager-start-timeout-node-bootstrap",
          fmt="%s (%s) had an error: %s: %s"),

    # aws-ofi-nccl's GPU memory registration refused with EINVAL on a Cray EX node (Slingshot, nidNNNNNN hosts):
    # not the EFA installer's cause (prontolab/GB25#152: the CUDA forward-compatibility driver loaded).
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_sendrecv.cpp", 606,
          'NCCL_OFI_WARN("Unable to register memory (type = %d) for device %d. RC: %d, Error: %s",',
          "nid001264:1291155:1293014 [1] register_mr_buffers:647 NCCL WARN NET/OFI Unable to register memory (type = "
          "2) for device 5. RC: -22, Error: Invalid argument",
          "cuda-forward-compat-driver-breaks-nic-memory-registration"),
    Quote("aws-ofi-nccl", "v1.18.0", "src/nccl_ofi_sendrecv.cpp", 606,
          'NCCL_OFI_WARN("Unable to register memory (type = %d) for device %d. RC: %d, Error: %s",',
          "ip-10-0-1-17:2741:2790 [0] nccl_ofi_sendrecv.cpp:606 NCCL WARN NET/OFI Unable to register memory "
          "(type = 2) for device 0. RC: -22, Error: Invalid argument", "efa-installer-too-old",
          context=(EFA_NODE,)),

    # Accelerate refuses an accelerate config that sets DeepSpeed fields beside deepspeed_config_file.
    Quote("Accelerate", "v1.10.0", "src/accelerate/utils/dataclasses.py", 1475,
          'raise ValueError(\nf"When using `deepspeed_config_file`, the following accelerate config variables will be '
          'ignored: {env_variable_names_to_ignore}.\\n"',
          "ValueError: When using `deepspeed_config_file`, the following accelerate config variables will be ignored: "
          "['gradient_accumulation_steps', 'gradient_clipping', 'zero_stage', 'offload_optimizer_device', "
          "'offload_param_device', 'zero3_save_16bit_model', 'mixed_precision'].",
          "accelerate-config-conflicts-with-deepspeed-config-file",
          fmt="When using `deepspeed_config_file`, the following accelerate config variables will be ignored: %s."),
)
