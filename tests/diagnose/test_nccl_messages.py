"""Every NCCL message the project matches, in the words of each NCCL version it supports (2.21 to 2.30).

The statements come from NCCL's source at each release tag (tests/diagnose/nccl_source_lines.py). Each is
rendered into the line NCCL prints (its format string, with sample values, after NCCL's `NCCL WARN ` /
`NCCL INFO ` prefix) and given to the project's readers: app.diagnose's causes and facts, app.check's NCCL log
reader (app/check/nccl_log.py), and the messages the job scripts quote (app/host/launch/fabric.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from app.check import nccl_log
from app.host.diagnose import diagnose_lines
from tests.diagnose.nccl_source_lines import SOURCES, TAGS, NcclSource

REPO = Path(__file__).resolve().parents[2]
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
_CONVERSION = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z)?([diouxXcsp])")


def format_string(source: str) -> str:
    """The format argument of a WARN/INFO call: its first run of adjacent C string literals, joined."""
    first = _LITERAL.search(source)
    assert first, source
    parts, at = [], first.start()
    while (literal := _LITERAL.match(source, at)) is not None:
        parts.append(literal.group(1).encode().decode("unicode_escape"))
        at = literal.end()
        while at < len(source) and source[at].isspace():
            at += 1
    return "".join(parts)


def render(source: str, strings: tuple[str, ...] = (), numbers: tuple[str, ...] = ()) -> str:
    """The message as printf writes it: %s from `strings` in order (then "x"), the other conversions from
    `numbers` in order (then a sample number)."""
    pending, pending_numbers = list(strings), list(numbers)

    def value(match: re.Match[str]) -> str:
        kind = match.group(1)
        if kind == "s":
            return pending.pop(0) if pending else "x"
        if pending_numbers:
            return pending_numbers.pop(0)
        return {"x": "1a", "X": "1A", "p": "0x55d0c0ffee00", "c": "c"}.get(kind, "2")

    return _CONVERSION.sub(value, format_string(source))


def log_line(row: NcclSource, *strings: str, numbers: tuple[str, ...] = ()) -> str:
    """The line NCCL prints for `row` (debug.cc: `host:pid:tid [dev] file:line NCCL WARN msg`, or
    `host:pid:tid [dev] NCCL INFO msg`)."""
    message = render(row.source, strings, numbers)
    if row.source.startswith("WARN("):
        return f"nid001:4521:4590 [0] {Path(row.path).name}:{row.line} NCCL WARN {message}"
    return f"nid001:4521:4590 [0] NCCL INFO {message}"


def rows(message: str) -> list[NcclSource]:
    return [row for row in SOURCES if row.message == message]


def ids(found: list[NcclSource]) -> list[str]:
    return [f"{row.tag}:{row.path}:{row.line}" for row in found]


def keys(lines: list[str]) -> list[str]:
    return [finding.key for finding in diagnose_lines(lines)]


NO_CONTEXT_NEEDED: dict[str, Callable[[NcclSource], None]] = {}


# --- the network NCCL was told to use is missing: "network X not found" to 2.26, then "Failed to initialize" -----

@pytest.mark.parametrize("row", rows("net-not-found"), ids=ids(rows("net-not-found")))
def test_network_not_found_up_to_2_26_names_the_missing_network(row: NcclSource) -> None:
    assert keys([log_line(row, "AWS Libfabric")])[0] == "no-ofi-plugin"
    assert keys([log_line(row, "IB")])[0] == "no-ib-network"
    assert nccl_log.parse([log_line(row, "IB")])["problems"] == ["NCCL could not find the requested network (NCCL_NET)"]


@pytest.mark.parametrize("row", rows("no-net-plugin"), ids=ids(rows("no-net-plugin")))
def test_no_net_plugin_from_2_27_is_read_with_the_network_the_job_asked_for(row: NcclSource) -> None:
    line = log_line(row)
    assert keys(["[fabric slingshot] setting NCCL_NET=AWS Libfabric (x)", line])[0] == "no-ofi-plugin"
    assert keys(["[fabric infiniband] setting NCCL_NET=IB (x)", line])[0] == "no-ib-network"
    assert nccl_log.parse([line])["problems"] == ["NCCL could not find the requested network (NCCL_NET)"]


def test_every_supported_version_has_a_net_failure_message_the_project_reads() -> None:
    for tag in TAGS:
        found = [row for row in SOURCES if row.tag == tag and row.message in ("net-not-found", "no-net-plugin")]
        assert len(found) == 1, tag


def test_the_job_scripts_quote_the_net_failure_in_each_versions_words() -> None:
    script = (REPO / "app/host/launch/fabric.py").read_text()
    for row in SOURCES:
        if row.message == "no-net-plugin":
            assert f"'{render(row.source)}'" in script, row.tag
        if row.message == "net-not-found":
            assert f"'{render(row.source, ('IB',)).removeprefix('Error: ').rstrip('.')}'" in script, row.tag


@pytest.mark.parametrize("row", rows("ib-no-device"), ids=ids(rows("ib-no-device")))
def test_no_ib_device_is_reported_and_tells_which_network_failed(row: NcclSource) -> None:
    line = log_line(row)
    assert "NCCL found no InfiniBand device" in nccl_log.parse([line])["problems"][0]
    failure = log_line(rows("no-net-plugin")[-1])
    assert keys([line, failure])[0] == "no-ib-network"


@pytest.mark.parametrize("row", rows("plugin-not-found"), ids=ids(rows("plugin-not-found")))
def test_a_missing_net_plugin_is_reported_and_points_at_the_libfabric_plugin(row: NcclSource) -> None:
    line = log_line(row, "NET", " libnccl-net.so", "Using internal net plugin.")
    assert nccl_log.parse([line])["problems"] == ["NCCL could not load a network plugin (libnccl-net*.so)"]
    failure = log_line(rows("no-net-plugin")[-1])
    finding = diagnose_lines([line, failure])[0]
    assert finding.key == "no-ofi-plugin" and line in [support.text for support in finding.support]


@pytest.mark.parametrize("row", rows("plugin-not-found"), ids=ids(rows("plugin-not-found")))
def test_a_net_plugin_named_by_nccl_net_plugin_that_is_not_there_is_the_cause(row: NcclSource) -> None:
    """NCCL_NET_PLUGIN=ofi makes NCCL look for libnccl-net-ofi.so (2.21 to 2.26 also the bare name first); a
    site whose plugin is installed as libnccl-net.so has none, and the network the job asked for is missing."""
    if "No plugin found" in row.source:
        line = log_line(row, "libnccl-net-ofi.so")
    elif "%s/Plugin" in row.source:  # 2.27 and later: the plugin kind, the names, then the fallback (none for NET)
        line = log_line(row, "NET", " libnccl-net-ofi.so", "", "")
    else:
        line = log_line(row, " ofi libnccl-net-ofi.so")
    failure = log_line(rows("no-net-plugin")[-1])
    assert keys([line, failure])[0] == "nccl-net-plugin-env-names-missing-library"
    assert keys([line, "nid001:4521:4590 [0] net.cc:626 NCCL WARN Error: network AWS Libfabric not found."])[0] == (
        "nccl-net-plugin-env-names-missing-library")
    assert keys([line, "step 10 loss 2.31"]) == []  # NCCL went on with its own transports: no failure


# --- two ranks on one GPU ------------------------------------------------------------------------------------

@pytest.mark.parametrize("row", rows("duplicate-gpu"), ids=ids(rows("duplicate-gpu")))
def test_two_ranks_on_one_gpu_is_recognised(row: NcclSource) -> None:
    assert keys([log_line(row)]) == ["duplicate-gpu"]


# --- which transport NCCL chose -------------------------------------------------------------------------------

FABRIC_NODES = ["nid001:4521:4590 [0] NCCL INFO NET/OFI Selected provider is cxi", "--nnodes=2"]


@pytest.mark.parametrize("row", rows("using-network"), ids=ids(rows("using-network")))
def test_the_network_nccl_uses_is_read(row: NcclSource) -> None:
    line = log_line(row, "Socket")
    assert nccl_log.parse([line])["networks"] == ["Socket"]
    assert "socket-not-fabric" in keys([*FABRIC_NODES, line])


@pytest.mark.parametrize("row", rows("channel-via-net"), ids=ids(rows("channel-via-net")))
def test_channels_over_tcp_are_read_as_the_inter_node_transport(row: NcclSource) -> None:
    line = log_line(row, "Socket")
    assert nccl_log.parse([line])["inter"] == ["NET/Socket"]
    assert "socket-not-fabric" in keys([FABRIC_NODES[0], line])


@pytest.mark.parametrize("row", rows("net-socket-using"), ids=ids(rows("net-socket-using")))
def test_nccls_socket_transport_on_fabric_nodes_is_recognised(row: NcclSource) -> None:
    assert "socket-not-fabric" in keys([*FABRIC_NODES, log_line(row, " [0]eth0:10.0.0.1<0>")])


@pytest.mark.parametrize("row", rows("nvls-available") + rows("nvls-connected"),
                         ids=ids(rows("nvls-available") + rows("nvls-connected")))
def test_nvlink_sharp_is_read(row: NcclSource) -> None:
    assert "NVLS" in nccl_log.parse([log_line(row, "")])["intra"]
    if row.message == "nvls-available":
        assert "NVLS" not in nccl_log.parse([log_line(row, "not ")])["intra"]


# --- connections and the job's shape -------------------------------------------------------------------------

@pytest.mark.parametrize("row", rows("connect-failed"), ids=ids(rows("connect-failed")))
def test_a_failed_connection_to_another_rank_is_recognised(row: NcclSource) -> None:
    assert keys([log_line(row, "socketStartConnect", "10.0.0.2<43210>", "Connection refused")]) == ["nccl-connect"]


@pytest.mark.parametrize("row", rows("nnodes"), ids=ids(rows("nnodes")))
def test_nccls_node_count_says_the_job_was_multi_node(row: NcclSource) -> None:
    line = log_line(row)  # every number renders as 2: nNodes 2
    assert "nNodes 2" in line
    assert keys([line, "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"]) == ["rendezvous-one-node"]


# --- a queue pair that cannot reach the other node ------------------------------------------------------------

#: What NCCL says when ibv_modify_qp to RTR times out (errno 110) and the state it asked for (ibvModifyQpLog)
QP_TIMED_OUT = ("Connection timed out", "qp_state=IBV_QPS_RTR")


@pytest.mark.parametrize("row", rows("modify-qp-failed"), ids=ids(rows("modify-qp-failed")))
def test_a_queue_pair_that_times_out_connecting_is_read_in_each_versions_words(row: NcclSource) -> None:
    """NCCL 2.21 to 2.23 word it through the IBV_INT_CHECK_RET_ERRNO macro ("... failed with error Connection
    timed out errno 110"); 2.24 and newer retry first and then say "... failed with 110 Connection timed out"."""
    source = row.source.replace('" name "', "ibv_modify_qp")  # the macro's name, as wrap_ibv_modify_qp passes it
    line = log_line(row._replace(source=source), *QP_TIMED_OUT, numbers=("110",))
    assert "ibv_modify_qp" in line and "110" in line, line
    assert keys([line]) == ["rail-only-fabric"], line


# --- the network cards could not reach each other -------------------------------------------------------------

@pytest.mark.parametrize("row", rows("ib-completion-error"), ids=ids(rows("ib-completion-error")))
def test_an_ib_retry_exceeded_completion_is_read_in_each_versions_words(row: NcclSource) -> None:
    """To 2.27 the status is a number ("status=12"); from 2.28 its name and number
    ("status=IBV_WC_RETRY_EXC_ERR(12)", ibvWcStatusStr in src/misc/ibvwrap.cc)."""
    line = log_line(row, "10.0.0.2<43210>", "IBV_WC_RETRY_EXC_ERR", numbers=("12",))
    assert "status=12" in line or "status=IBV_WC_RETRY_EXC_ERR(12)" in line, line
    assert keys([line]) == ["roce-gid-index"], line


# --- /dev/shm -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("row", rows("shm-create-failed"), ids=ids(rows("shm-create-failed")))
def test_a_dev_shm_the_user_cannot_write_is_read_as_such(row: NcclSource) -> None:
    """From 2.22 NCCL names mkstemp's error (2.22 and 2.23 print the path as a pointer, %p); 2.21 goes on to
    fallocate the failed descriptor and says only "failed to extend", which names no cause."""
    if "file %p" in row.source:
        line = log_line(row, "Permission denied", numbers=("0x7ffd5e2c1a40", "13"))
    else:
        line = log_line(row, "/dev/shm/nccl-Xr7Qa2", "Permission denied", numbers=("13",))
    assert "error Permission denied (13)" in line, line
    assert keys([line]) == ["shm-not-writable"], line


# --- the table itself --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("header", ["warn-header", "info-header"])
def test_every_version_prefixes_its_messages_as_the_patterns_expect(header: str) -> None:
    word = "NCCL WARN " if header == "warn-header" else "NCCL INFO "
    for tag in TAGS:
        formats = [format_string(row.source) for row in rows(header) if row.tag == tag]
        assert formats and all(f.rstrip("\n").endswith((word, word + "%s")) for f in formats), (tag, formats)


@pytest.mark.parametrize("message", ["duplicate-gpu", "using-network", "channel-via-net", "net-socket-using",
                                     "ib-no-device", "plugin-not-found", "connect-failed", "nnodes",
                                     "nvls-available", "nvls-connected", "modify-qp-failed",
                                     "ib-completion-error"])
def test_each_message_is_quoted_at_every_supported_tag(message: str) -> None:
    assert [tag for tag in TAGS if not [row for row in rows(message) if row.tag == tag]] == []
