"""NCCL's own source lines for every message this project matches, at each NCCL version it supports (2.21 to
2.30): quoted from NVIDIA/nccl at the release tag named (`git show TAG:PATH`, the statement starting at LINE),
not retyped from memory. tests/diagnose/test_nccl_messages.py renders each into the log line NCCL prints and
checks that app.diagnose, app.check's NCCL log reader and the job scripts' quotes recognise it.

Tags: the last release of each minor version, the first 2.27 (the first without "network %s not found"), and
2.30.4 beside 2.30.7 (each words a shared GPU its own way). To refresh for a new NCCL: `git grep -n` the message
at the new tag and add its row; a message the project matches must have a row at every tag in TAGS.
A statement inside a macro is quoted as the macro has it (modify-qp-failed to 2.23: IBV_INT_CHECK_RET_ERRNO, whose
`name` wrap_ibv_modify_qp passes as "ibv_modify_qp", src/misc/ibvwrap.cc line 206).
"""

from __future__ import annotations

from typing import NamedTuple


class NcclSource(NamedTuple):
    message: str
    """What the project calls the message (a row per message, tag and statement)."""
    tag: str
    path: str
    line: int
    source: str
    """The C statement as it stands in the file at that tag (continuation lines dedented)."""


TAGS = ("v2.21.5-1", "v2.22.3-1", "v2.23.4-1", "v2.24.3-1", "v2.25.1-1", "v2.26.6-1", "v2.27.3-1", "v2.27.7-1",
        "v2.28.9-1", "v2.29.7-1", "v2.30.4-1", "v2.30.7-1")

SOURCES = (
    NcclSource("net-not-found", "v2.21.5-1", "src/net.cc", 579,
               'WARN("Error: network %s not found.", netName ? netName : "");'),
    NcclSource("duplicate-gpu", "v2.21.5-1", "src/init.cc", 943,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.21.5-1", "src/init.cc", 322,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.21.5-1", "src/transport/net.cc", 195,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s", cha'
               "nnelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, comm-"
               '>ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.21.5-1", "src/transport/net.cc", 235,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s", '
               "channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, co"
               'mm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.21.5-1", "src/transport/net_socket.cc", 62,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.21.5-1", "src/transport/net_ib.cc", 511,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.21.5-1", "src/net.cc", 349,
               'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin: No plugin found (%s)", name);'),
    NcclSource("connect-failed", "v2.21.5-1", "src/misc/socket.cc", 484,
               'WARN("socketStartConnect: Connect to %s failed : %s", ncclSocketToString(&sock->addr, line'
               "), strerror(errno));"),
    NcclSource("nnodes", "v2.21.5-1", "src/init.cc", 1160,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.21.5-1", "src/transport/nvls.cc", 258,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", comm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.21.5-1", "src/debug.cc", 179,
               'len = snprintf(buffer, sizeof(buffer), "\\n%s:%d:%d [%d] %s:%d NCCL WARN ",\nhostname, pid, '
               "tid, cudaDev, filefunc, line);"),
    NcclSource("info-header", "v2.21.5-1", "src/debug.cc", 183,
               'len = snprintf(buffer, sizeof(buffer), "%s:%d:%d [%d] NCCL INFO ", hostname, pid, tid, cud'
               "aDev);"),
    NcclSource("nvls-connected", "v2.21.5-1", "src/init.cc", 1286,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("net-not-found", "v2.22.3-1", "src/net.cc", 626,
               'WARN("Error: network %s not found.", netName ? netName : "");'),
    NcclSource("duplicate-gpu", "v2.22.3-1", "src/init.cc", 738,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.22.3-1", "src/init.cc", 331,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.22.3-1", "src/transport/net.cc", 196,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s", cha'
               "nnelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, comm-"
               '>ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.22.3-1", "src/transport/net.cc", 236,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s", '
               "channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, co"
               'mm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.22.3-1", "src/transport/net_socket.cc", 62,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.22.3-1", "src/transport/net_ib.cc", 563,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.22.3-1", "src/net.cc", 438,
               'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin: Could not find:%s. Using internal network plugin.", '
               "couldNotFindNames);"),
    NcclSource("connect-failed", "v2.22.3-1", "src/misc/socket.cc", 484,
               'WARN("socketStartConnect: Connect to %s failed : %s", ncclSocketToString(&sock->addr, line'
               "), strerror(errno));"),
    NcclSource("nnodes", "v2.22.3-1", "src/init.cc", 999,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.22.3-1", "src/transport/nvls.cc", 164,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", comm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.22.3-1", "src/debug.cc", 192,
               'len = snprintf(buffer, sizeof(buffer), "\\n%s:%d:%d [%d] %s:%d NCCL WARN ",\nhostname, pid, '
               "tid, cudaDev, filefunc, line);"),
    NcclSource("info-header", "v2.22.3-1", "src/debug.cc", 196,
               'len = snprintf(buffer, sizeof(buffer), "%s:%d:%d [%d] NCCL INFO ", hostname, pid, tid, cud'
               "aDev);"),
    NcclSource("nvls-connected", "v2.22.3-1", "src/transport/nvls.cc", 178,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("net-not-found", "v2.23.4-1", "src/net.cc", 627,
               'WARN("Error: network %s not found.", netName ? netName : "");'),
    NcclSource("duplicate-gpu", "v2.23.4-1", "src/init.cc", 783,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.23.4-1", "src/init.cc", 342,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.23.4-1", "src/transport/net.cc", 194,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s", cha'
               "nnelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, comm-"
               '>ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.23.4-1", "src/transport/net.cc", 233,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s", '
               "channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, co"
               'mm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.23.4-1", "src/transport/net_socket.cc", 62,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.23.4-1", "src/transport/net_ib.cc", 642,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.23.4-1", "src/net.cc", 439,
               'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin: Could not find:%s. Using internal network plugin.", '
               "couldNotFindNames);"),
    NcclSource("connect-failed", "v2.23.4-1", "src/misc/socket.cc", 485,
               'WARN("socketStartConnect: Connect to %s failed : %s", ncclSocketToString(&sock->addr, line'
               "), strerror(errno));"),
    NcclSource("nnodes", "v2.23.4-1", "src/init.cc", 1044,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.23.4-1", "src/transport/nvls.cc", 171,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", comm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.23.4-1", "src/debug.cc", 200,
               'len = snprintf(buffer, sizeof(buffer), "\\n%s:%d:%d [%d] %s:%d NCCL WARN ",\nhostname, pid, '
               "tid, cudaDev, filefunc, line);"),
    NcclSource("info-header", "v2.23.4-1", "src/debug.cc", 204,
               'len = snprintf(buffer, sizeof(buffer), "%s:%d:%d [%d] NCCL INFO ", hostname, pid, tid, cud'
               "aDev);"),
    NcclSource("nvls-connected", "v2.23.4-1", "src/transport/nvls.cc", 185,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("net-not-found", "v2.24.3-1", "src/net.cc", 937,
               'WARN("Error: network %s not found.", netName ? netName : "");'),
    NcclSource("duplicate-gpu", "v2.24.3-1", "src/init.cc", 777,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.24.3-1", "src/init.cc", 345,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.24.3-1", "src/transport/net.cc", 207,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s", cha'
               "nnelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, comm-"
               '>ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.24.3-1", "src/transport/net.cc", 250,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s", '
               "channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, co"
               'mm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.24.3-1", "src/transport/net_socket.cc", 63,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.24.3-1", "src/transport/net_ib.cc", 659,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.24.3-1", "src/net.cc", 726,
               'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin: Could not find:%s. Using internal network plugin.", '
               "couldNotFindNames);"),
    NcclSource("connect-failed", "v2.24.3-1", "src/misc/socket.cc", 555,
               'WARN("%s: Connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("nnodes", "v2.24.3-1", "src/init.cc", 1046,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.24.3-1", "src/transport/nvls.cc", 172,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", comm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.24.3-1", "src/debug.cc", 203,
               'len = snprintf(buffer, sizeof(buffer), "\\n%s:%d:%d [%d] %s:%d NCCL WARN ",\nhostname, pid, '
               "tid, cudaDev, filefunc, line);"),
    NcclSource("info-header", "v2.24.3-1", "src/debug.cc", 207,
               'len = snprintf(buffer, sizeof(buffer), "%s:%d:%d [%d] NCCL INFO ", hostname, pid, tid, cud'
               "aDev);"),
    NcclSource("nvls-connected", "v2.24.3-1", "src/transport/nvls.cc", 186,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("net-not-found", "v2.25.1-1", "src/net.cc", 937,
               'WARN("Error: network %s not found.", netName ? netName : "");'),
    NcclSource("duplicate-gpu", "v2.25.1-1", "src/init.cc", 720,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.25.1-1", "src/init.cc", 348,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.25.1-1", "src/transport/net.cc", 207,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s", cha'
               "nnelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, comm-"
               '>ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.25.1-1", "src/transport/net.cc", 250,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s", '
               "channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, co"
               'mm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.25.1-1", "src/transport/net_socket.cc", 63,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.25.1-1", "src/transport/net_ib.cc", 659,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.25.1-1", "src/net.cc", 726,
               'INFO(NCCL_INIT|NCCL_NET, "NET/Plugin: Could not find:%s. Using internal network plugin.", '
               "couldNotFindNames);"),
    NcclSource("connect-failed", "v2.25.1-1", "src/misc/socket.cc", 555,
               'WARN("%s: Connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("nnodes", "v2.25.1-1", "src/init.cc", 986,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.25.1-1", "src/transport/nvls.cc", 174,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", comm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.25.1-1", "src/debug.cc", 203,
               'len = snprintf(buffer, sizeof(buffer), "\\n%s:%d:%d [%d] %s:%d NCCL WARN ",\nhostname, pid, '
               "tid, cudaDev, filefunc, line);"),
    NcclSource("info-header", "v2.25.1-1", "src/debug.cc", 207,
               'len = snprintf(buffer, sizeof(buffer), "%s:%d:%d [%d] NCCL INFO ", hostname, pid, tid, cud'
               "aDev);"),
    NcclSource("nvls-connected", "v2.25.1-1", "src/transport/nvls.cc", 192,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("net-not-found", "v2.26.6-1", "src/plugin/net.cc", 232,
               'WARN("Error: network %s not found.", netName ? netName : "");'),
    NcclSource("duplicate-gpu", "v2.26.6-1", "src/init.cc", 732,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.26.6-1", "src/init.cc", 337,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.26.6-1", "src/transport/net.cc", 217,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", c'
               "hannelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, com"
               'm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModePci '
               '? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.26.6-1", "src/transport/net.cc", 263,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s%s"'
               ", channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, "
               'comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModeP'
               'ci ? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.26.6-1", "src/transport/net_socket.cc", 67,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.26.6-1", "src/transport/net_ib.cc", 671,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.26.6-1", "src/plugin/plugin_open.cc", 102,
               'INFO(subsys[type], "%s/Plugin: Could not find:%s. %s", pluginNames[type], eNoEntNameList, '
               "pluginFallback[type]);"),
    NcclSource("connect-failed", "v2.26.6-1", "src/misc/socket.cc", 556,
               'WARN("%s: Connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("nnodes", "v2.26.6-1", "src/init.cc", 998,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.26.6-1", "src/transport/nvls.cc", 174,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", comm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.26.6-1", "src/debug.cc", 337,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] %s:%d NCCL WARN ", cudaDev, filefunc'
               ", line);"),
    NcclSource("info-header", "v2.26.6-1", "src/debug.cc", 340,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] NCCL INFO ", cudaDev);'),
    NcclSource("nvls-connected", "v2.26.6-1", "src/transport/nvls.cc", 192,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("no-net-plugin", "v2.27.3-1", "src/plugin/net.cc", 277,
               'WARN("Failed to initialize any NET plugin");'),
    NcclSource("duplicate-gpu", "v2.27.3-1", "src/init.cc", 737,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.27.3-1", "src/init.cc", 346,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.27.3-1", "src/transport/net.cc", 218,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", c'
               "hannelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, com"
               'm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModePci '
               '? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.27.3-1", "src/transport/net.cc", 264,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s%s"'
               ", channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, "
               'comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModeP'
               'ci ? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.27.3-1", "src/transport/net_socket.cc", 67,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.27.3-1", "src/transport/net_ib.cc", 740,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.27.3-1", "src/plugin/plugin_open.cc", 104,
               'INFO(subsys[type], "%s/Plugin: Could not find:%s. %s", pluginNames[type], eNoEntNameList, '
               "pluginFallback[type]);"),
    NcclSource("connect-failed", "v2.27.3-1", "src/misc/socket.cc", 591,
               'WARN("%s: connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("connect-failed", "v2.27.3-1", "src/misc/socket.cc", 617,
               'WARN("socketPollConnect to %s failed with error %s", ncclSocketToString(&sock->addr, line)'
               ", strerror(errno));"),
    NcclSource("nnodes", "v2.27.3-1", "src/init.cc", 998,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.27.3-1", "src/transport/nvls.cc", 200,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d (NVLS_NCHANNELS %d)",\ncom'
               'm->nvlsSupport ? "" : "not ", dev, comm->nvlsChannels);'),
    NcclSource("warn-header", "v2.27.3-1", "src/debug.cc", 363,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] %s:%d NCCL WARN ", cudaDev, filefunc'
               ", line);"),
    NcclSource("info-header", "v2.27.3-1", "src/debug.cc", 366,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] NCCL INFO ", cudaDev);'),
    NcclSource("nvls-connected", "v2.27.3-1", "src/transport/nvls.cc", 214,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("no-net-plugin", "v2.27.7-1", "src/plugin/net.cc", 278,
               'WARN("Failed to initialize any NET plugin");'),
    NcclSource("duplicate-gpu", "v2.27.7-1", "src/init.cc", 737,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.27.7-1", "src/init.cc", 346,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.27.7-1", "src/transport/net.cc", 218,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", c'
               "hannelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, com"
               'm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModePci '
               '? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.27.7-1", "src/transport/net.cc", 264,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s%s"'
               ", channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, "
               'comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModeP'
               'ci ? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.27.7-1", "src/transport/net_socket.cc", 67,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.27.7-1", "src/transport/net_ib.cc", 749,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.27.7-1", "src/plugin/plugin_open.cc", 103,
               'INFO(subsys[type], "%s/Plugin: Could not find:%s. %s", pluginNames[type], eNoEntNameList, '
               "pluginFallback[type]);"),
    NcclSource("connect-failed", "v2.27.7-1", "src/misc/socket.cc", 592,
               'WARN("%s: connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("connect-failed", "v2.27.7-1", "src/misc/socket.cc", 618,
               'WARN("socketPollConnect to %s failed with error %s", ncclSocketToString(&sock->addr, line)'
               ", strerror(errno));"),
    NcclSource("nnodes", "v2.27.7-1", "src/init.cc", 998,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.27.7-1", "src/transport/nvls.cc", 200,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d (NVLS_NCHANNELS %d)",\ncom'
               'm->nvlsSupport ? "" : "not ", dev, comm->nvlsChannels);'),
    NcclSource("warn-header", "v2.27.7-1", "src/debug.cc", 363,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] %s:%d NCCL WARN ", cudaDev, filefunc'
               ", line);"),
    NcclSource("info-header", "v2.27.7-1", "src/debug.cc", 366,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] NCCL INFO ", cudaDev);'),
    NcclSource("nvls-connected", "v2.27.7-1", "src/transport/nvls.cc", 214,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("no-net-plugin", "v2.28.9-1", "src/plugin/net.cc", 379,
               'WARN("Failed to initialize any NET plugin");'),
    NcclSource("duplicate-gpu", "v2.28.9-1", "src/init.cc", 904,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.28.9-1", "src/init.cc", 428,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.28.9-1", "src/transport/net.cc", 313,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", c'
               "hannelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, com"
               'm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModePci '
               '? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.28.9-1", "src/transport/net.cc", 359,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s%s"'
               ", channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, "
               'comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModeP'
               'ci ? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.28.9-1", "src/transport/net_socket.cc", 76,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.28.9-1", "src/transport/net_ib.cc", 826,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.28.9-1", "src/plugin/plugin_open.cc", 107,
               'INFO(subsys[type], "%s/Plugin: Could not find:%s%s%s", pluginNames[type], eNoEntNameList,\n'
               '(strlen(pluginFallback[type]) > 0 ? ". " : ""), pluginFallback[type]);'),
    NcclSource("connect-failed", "v2.28.9-1", "src/misc/socket.cc", 596,
               'WARN("%s: connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("connect-failed", "v2.28.9-1", "src/misc/socket.cc", 622,
               'WARN("socketPollConnect to %s failed with error %s", ncclSocketToString(&sock->addr, line)'
               ", strerror(errno));"),
    NcclSource("nnodes", "v2.28.9-1", "src/init.cc", 1170,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.28.9-1", "src/transport/nvls.cc", 201,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d (NVLS_NCHANNELS %d)",\ncom'
               'm->nvlsSupport ? "" : "not ", dev, comm->nvlsChannels);'),
    NcclSource("warn-header", "v2.28.9-1", "src/debug.cc", 360,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] %s:%d NCCL WARN ", cudaDev, filefunc'
               ", line);"),
    NcclSource("info-header", "v2.28.9-1", "src/debug.cc", 363,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] NCCL INFO ", cudaDev);'),
    NcclSource("nvls-connected", "v2.28.9-1", "src/transport/nvls.cc", 215,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("no-net-plugin", "v2.29.7-1", "src/plugin/net.cc", 326,
               'WARN("Failed to initialize any NET plugin");'),
    NcclSource("duplicate-gpu", "v2.29.7-1", "src/init.cc", 974,
               'WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", rank, i, comm'
               "->peerInfo[rank].busId);"),
    NcclSource("using-network", "v2.29.7-1", "src/init.cc", 457,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.29.7-1", "src/transport/net.cc", 317,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", c'
               "hannelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, com"
               'm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModePci '
               '? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.29.7-1", "src/transport/net.cc", 363,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s%s"'
               ", channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, "
               'comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModeP'
               'ci ? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.29.7-1", "src/transport/net_socket.cc", 78,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.29.7-1", "src/transport/net_ib/init.cc", 364,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.29.7-1", "src/plugin/plugin_open.cc", 108,
               'INFO(subsys[type], "%s/Plugin: Could not find:%s%s%s", pluginNames[type], eNoEntNameList,\n'
               '(strlen(pluginFallback[type]) > 0 ? ". " : ""), pluginFallback[type]);'),
    NcclSource("connect-failed", "v2.29.7-1", "src/os/linux.cc", 235,
               'WARN("%s: connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("connect-failed", "v2.29.7-1", "src/os/linux.cc", 261,
               'WARN("ncclOsSocketPollConnect to %s failed with error %s", ncclSocketToString(&sock->addr,'
               " line), strerror(errno));"),
    NcclSource("nnodes", "v2.29.7-1", "src/init.cc", 1252,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.29.7-1", "src/transport/nvls.cc", 202,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d (NVLS_NCHANNELS %d)",\ncom'
               'm->nvlsSupport ? "" : "not ", dev, comm->nvlsChannels);'),
    NcclSource("warn-header", "v2.29.7-1", "src/debug.cc", 383,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] %s:%d NCCL WARN %s\\n", cudaDev, file'
               "func, line, fmt);"),
    NcclSource("info-header", "v2.29.7-1", "src/debug.cc", 386,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] NCCL INFO %s\\n", cudaDev, fmt);'),
    NcclSource("nvls-connected", "v2.29.7-1", "src/transport/nvls.cc", 216,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("no-net-plugin", "v2.30.4-1", "src/plugin/net.cc", 334,
               'WARN("Failed to initialize any NET plugin");'),
    NcclSource("duplicate-gpu", "v2.30.4-1", "src/graph/topo.cc", 1977,
               'WARN("Multiple ranks detected using the same GPU on this node."\n" Set NCCL_MULTI_RANK_GPU_'
               'ENABLE=1 to enable this"\n" configuration.");'),
    NcclSource("using-network", "v2.30.4-1", "src/init.cc", 481,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.30.4-1", "src/transport/net.cc", 321,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s", c'
               "hannelId, connIndex, myInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, com"
               'm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModePci '
               '? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.30.4-1", "src/transport/net.cc", 368,
               'INFO(NCCL_INIT|NCCL_NET,"Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s%s"'
               ", channelId, connIndex, peerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDev, "
               'comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr==ncclTopoGdrModeP'
               'ci ? "(PCI)" : "",\nreq.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.30.4-1", "src/transport/net_socket.cc", 76,
               'INFO(NCCL_INIT|NCCL_NET,"NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.30.4-1", "src/transport/net_ib/init.cc", 407,
               'INFO(NCCL_INIT|NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.30.4-1", "src/plugin/plugin_open.cc", 122,
               'INFO(subsys[type], "%s/Plugin: Could not find:%s%s%s", pluginNames[type], eNoEntNameList,\n'
               '(strlen(pluginFallback[type]) > 0 ? ". " : ""), pluginFallback[type]);'),
    NcclSource("connect-failed", "v2.30.4-1", "src/os/linux.cc", 289,
               'WARN("%s: connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("connect-failed", "v2.30.4-1", "src/os/linux.cc", 315,
               'WARN("ncclOsSocketPollConnect to %s failed with error %s", ncclSocketToString(&sock->addr,'
               " line), strerror(errno));"),
    NcclSource("nnodes", "v2.30.4-1", "src/init.cc", 1375,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               "\ncomm, rank, comm->nRanks, comm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.30.4-1", "src/transport/nvls.cc", 264,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d",\ncomm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.30.4-1", "src/debug.cc", 388,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] %s:%d NCCL WARN %s\\n", cudaDev, file'
               "func, line, fmt);"),
    NcclSource("info-header", "v2.30.4-1", "src/debug.cc", 391,
               'len += snprintf(buffer+len, sizeof(buffer)-len, "[%d] NCCL INFO %s\\n", cudaDev, fmt);'),
    NcclSource("nvls-connected", "v2.30.4-1", "src/transport/nvls.cc", 278,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("no-net-plugin", "v2.30.7-1", "src/plugin/net.cc", 349,
               'WARN("Failed to initialize any NET plugin");'),
    NcclSource("duplicate-gpu", "v2.30.7-1", "src/init.cc", 1057,
               'WARN("Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to'
               ' enable this "\n"configuration.");'),
    NcclSource("using-network", "v2.30.7-1", "src/init.cc", 486,
               'INFO(NCCL_INIT, "Using network %s", comm->ncclNet->name);'),
    NcclSource("channel-via-net", "v2.30.7-1", "src/transport/net.cc", 324,
               'INFO(NCCL_INIT | NCCL_NET, "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s"'
               ", channelId, connIndex,\nmyInfo->rank, myInfo->nvmlDev, peerInfo->rank, peerInfo->nvmlDev, "
               'comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr == ncclTopoGdrMod'
               'ePci ? "(PCI)" : "", req.shared ? "/Shared" : "");'),
    NcclSource("channel-via-net", "v2.30.7-1", "src/transport/net.cc", 377,
               'INFO(NCCL_INIT | NCCL_NET, "Channel %02d/%d : %d[%d] -> %d[%d] [receive] via NET/%s/%d%s%s'
               '%s", channelId, connIndex,\npeerInfo->rank, peerInfo->nvmlDev, myInfo->rank, myInfo->nvmlDe'
               'v, comm->ncclNet->name, req.netDev,\nreq.useGdr ? "/GDRDMA" : "", req.useGdr == ncclTopoGdr'
               'ModePci ? "(PCI)" : "", req.shared ? "/Shared" : "");'),
    NcclSource("net-socket-using", "v2.30.7-1", "src/transport/net_socket.cc", 77,
               'INFO(NCCL_INIT | NCCL_NET, "NET/Socket : Using%s", line);'),
    NcclSource("ib-no-device", "v2.30.7-1", "src/transport/net_ib/init.cc", 470,
               'INFO(NCCL_INIT | NCCL_NET, "NET/IB : No device found.");'),
    NcclSource("plugin-not-found", "v2.30.7-1", "src/plugin/plugin_open.cc", 124,
               'INFO(subsys[type], "%s/Plugin: Could not find:%s%s%s", pluginNames[type], eNoEntNameList,\n'
               '(strlen(pluginFallback[type]) > 0 ? ". " : ""), pluginFallback[type]);'),
    NcclSource("connect-failed", "v2.30.7-1", "src/os/linux.cc", 302,
               'WARN("%s: connect to %s failed : %s", funcName, ncclSocketToString(&sock->addr, line), str'
               "error(errCode));"),
    NcclSource("connect-failed", "v2.30.7-1", "src/os/linux.cc", 328,
               'WARN("ncclOsSocketPollConnect to %s failed with error %s", ncclSocketToString(&sock->addr,'
               " line), strerror(errno));"),
    NcclSource("nnodes", "v2.30.7-1", "src/init.cc", 1422,
               'INFO(NCCL_INIT, "comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d",'
               " comm, rank, comm->nRanks,\ncomm->nNodes, comm->localRanks, comm->localRank, comm->MNNVL);"),
    NcclSource("nvls-available", "v2.30.7-1", "src/transport/nvls.cc", 279,
               'INFO(NCCL_INIT, "NVLS multicast support is %savailable on dev %d", comm->nvlsSupport ? "" '
               ': "not ", dev);'),
    NcclSource("warn-header", "v2.30.7-1", "src/debug.cc", 345,
               'len += snprintf(buffer + len, sizeof(buffer) - len, "[%d] %s:%d (%s) NCCL WARN %s\\n", cuda'
               "Dev, fileStr, line,\nfuncStr, fmt);"),
    NcclSource("warn-header", "v2.30.7-1", "src/debug.cc", 348,
               'len += snprintf(buffer + len, sizeof(buffer) - len, "[%d] %s:%d NCCL WARN %s\\n", cudaDev, '
               "fileStr, line, fmt);"),
    NcclSource("info-header", "v2.30.7-1", "src/debug.cc", 354,
               'len += snprintf(buffer + len, sizeof(buffer) - len, "[%d] NCCL INFO %s\\n", cudaDev, fmt);'),
    NcclSource("nvls-connected", "v2.30.7-1", "src/transport/nvls.cc", 296,
               'INFO(NCCL_INIT, "Connected NVLS tree");'),
    NcclSource("modify-qp-failed", "v2.21.5-1", "src/misc/ibvwrap.cc", 71,
               'WARN("Call to " name " failed with error %s errno %d", strerror(ret), ret);'),
    NcclSource("modify-qp-failed", "v2.22.3-1", "src/misc/ibvwrap.cc", 71,
               'WARN("Call to " name " failed with error %s errno %d", strerror(ret), ret);'),
    NcclSource("modify-qp-failed", "v2.23.4-1", "src/misc/ibvwrap.cc", 71,
               'WARN("Call to " name " failed with error %s errno %d", strerror(ret), ret);'),
    NcclSource("modify-qp-failed", "v2.24.3-1", "src/misc/ibvwrap.cc", 291,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.25.1-1", "src/misc/ibvwrap.cc", 291,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.26.6-1", "src/misc/ibvwrap.cc", 291,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.27.3-1", "src/misc/ibvwrap.cc", 295,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.27.7-1", "src/misc/ibvwrap.cc", 301,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.28.9-1", "src/misc/ibvwrap.cc", 307,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.29.7-1", "src/misc/ibvwrap.cc", 309,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.30.4-1", "src/misc/ibvwrap.cc", 309,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("modify-qp-failed", "v2.30.7-1", "src/misc/ibvwrap.cc", 376,
               'WARN("Call to ibv_modify_qp failed with %d %s, %s", ret, strerror(ret), qpMsg);'),
    NcclSource("ib-completion-error", "v2.21.5-1", "src/transport/net_ib.cc", 1909,
               'WARN("NET/IB : Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d (%'
               's)%s%s%s%s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, wc->ven'
               'dor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteGidStr '
               '? " remoteGids":"", remoteGidString);'),
    NcclSource("ib-completion-error", "v2.22.3-1", "src/transport/net_ib.cc", 1984,
               'WARN("NET/IB: Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d (%s'
               ')%s%s%s%s hca %s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, w'
               'c->vendor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteG'
               'idStr ? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.23.4-1", "src/transport/net_ib.cc", 2121,
               'WARN("NET/IB: Got completion from peer %s with status=%d opcode=%d len=%d vendor err %d (%s'
               ')%s%s%s%s hca %s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, w'
               'c->vendor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteG'
               'idStr ? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.24.3-1", "src/transport/net_ib.cc", 2244,
               'WARN("NET/IB: Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u (%s'
               ')%s%s%s%s hca %s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, w'
               'c->vendor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteG'
               'idStr ? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.25.1-1", "src/transport/net_ib.cc", 2244,
               'WARN("NET/IB: Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u (%s'
               ')%s%s%s%s hca %s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, w'
               'c->vendor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteG'
               'idStr ? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.26.6-1", "src/transport/net_ib.cc", 2359,
               'WARN("NET/IB: Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u (%s'
               ')%s%s%s%s hca %s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, w'
               'c->vendor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteG'
               'idStr ? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.27.3-1", "src/transport/net_ib.cc", 2449,
               'WARN("NET/IB: Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u (%s'
               ')%s%s%s%s hca %s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, w'
               'c->vendor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteG'
               'idStr ? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.27.7-1", "src/transport/net_ib.cc", 2458,
               'WARN("NET/IB: Got completion from peer %s with status=%d opcode=%d len=%u vendor err %u (%s'
               ')%s%s%s%s hca %s",\nncclSocketToString(&addr, line), wc->status, wc->opcode, wc->byte_len, w'
               'c->vendor_err, reqTypeStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteG'
               'idStr ? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.28.9-1", "src/transport/net_ib.cc", 2543,
               'WARN("NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) reqSize=%d vendo'
               'r_err=%u req_type=%s%s%s%s%s hca %s",\nncclSocketToString(&addr, line), ibvWcStatusStr(wc->s'
               'tatus), wc->status,\nibvWcOpcodeStr(wc->opcode), wc->opcode, reqSize, wc->vendor_err, reqTyp'
               'eStr[r->type],\nlocalGidStr ?  " localGid ":"", localGidString, remoteGidStr ? " remoteGids"'
               ':"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.29.7-1", "src/transport/net_ib/p2p.cc", 651,
               'WARN("NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u %s'
               '%s%s%s hca %s",\nsockStr, ibvWcStatusStr(wc->status), wc->status,\nibvWcOpcodeStr(wc->opcode)'
               ', wc->opcode, wc->vendor_err,\nlocalGidStr ?  " localGid ":"", localGidString, remoteGidStr '
               '? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.30.4-1", "src/transport/net_ib/p2p.cc", 648,
               'WARN("NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u %s'
               '%s%s%s hca %s",\nsockStr, ibvWcStatusStr(wc->status), wc->status,\nibvWcOpcodeStr(wc->opcode)'
               ', wc->opcode, wc->vendor_err,\nlocalGidStr ?  " localGid ":"", localGidString, remoteGidStr '
               '? " remoteGids":"", remoteGidString, hcaName);'),
    NcclSource("ib-completion-error", "v2.30.7-1", "src/transport/net_ib/p2p.cc", 688,
               'WARN("NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u %s'
               '%s%s%s hca %s", sockStr,\nibvWcStatusStr(wc->status), wc->status, ibvWcOpcodeStr(wc->opcode)'
               ', wc->opcode, wc->vendor_err,\nlocalGidStr ? " localGid " : "", localGidString, remoteGidStr'
               ' ? " remoteGids" : "", remoteGidString, hcaName);'),
    NcclSource("shm-create-failed", "v2.22.3-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %p, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.23.4-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %p, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.24.3-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.25.1-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.26.6-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.27.3-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.27.7-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.28.9-1", "src/misc/shmutils.cc", 73,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.29.7-1", "src/misc/shmutils.cc", 74,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.30.4-1", "src/os/linux.cc", 656,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
    NcclSource("shm-create-failed", "v2.30.7-1", "src/os/linux.cc", 780,
               'WARN("Error: failed to create shared memory file %s, error %s (%d)", shmPath, strerror(errn'
               'o), errno);'),
)
