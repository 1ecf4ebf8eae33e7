"""The sealed store: every value the job reads is one it wrote (app/common/signed_store.py). In-process, on a real
TCPStore whose raw side plays the other user: it can list, read and rewrite every key, but not seal a value."""

from __future__ import annotations

import pickle
from datetime import timedelta

import pytest
import torch.distributed as dist

from app.common.signed_store import MAX_VALUE_BYTES, TAMPERED_MARK, SignedStore, StoreTampered, marked_tampered
from app.host.common import exitcodes

SECRET = "0123456789abcdef0123456789abcdef"


class Exploit:
    def __reduce__(self):
        return (print, ("attacker code ran",))


@pytest.fixture
def server() -> dist.TCPStore:
    """A TCPStore server. It is a client of its own port too: the other user, who can do whatever any client does,
    reads and writes through it. A test opens as few connections as it can: each costs two DNS lookups, which
    stall a connect 5 s past the resolver's rate (tests/common/test_store_prefixes.py's `serve`). 60 s: a connect
    that meets such a stall still succeeds; no test waits on the server for a missing key."""
    return dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))


def client(server: dist.TCPStore) -> dist.TCPStore:
    """A connection of the job's own."""
    return dist.TCPStore("127.0.0.1", server.port, is_master=False, timeout=timedelta(seconds=60))


def test_what_the_job_writes_it_reads_back_through_every_call(server: dist.TCPStore) -> None:
    job = dist.PrefixStore("app/", SignedStore(client(server), SECRET))
    job.set("plan", '{"go": true}')
    job.multi_set(["node/0", "node/1"], ["a", b"b"])
    assert job.get("plan") == b'{"go": true}'
    assert job.multi_get(["node/0", "node/1"]) == [b"a", b"b"]
    assert job.compare_set("verdict", "", "mine") == b"mine"  # absent: set
    assert job.compare_set("verdict", "", "theirs") == b"mine"  # present: kept
    assert job.compare_set("verdict", "mine", "next") == b"next"
    assert job.add("counter", 2) == 2 and job.check(["plan"]) and job.num_keys() >= 5
    assert job.delete_key("counter") and not job.check(["counter"])
    job.wait(["plan"], timedelta(seconds=1))


def test_the_secret_is_in_no_key_name_and_no_value_in_the_clear_of_a_sealed_key_reveals_it(
        server: dist.TCPStore) -> None:
    job = dist.PrefixStore("app/", SignedStore(client(server), SECRET))
    job.set("plan", "x")
    listed = server.list_keys()  # what any client of the port sees
    assert listed and not [key for key in listed if SECRET in key]
    assert SECRET.encode() not in server.get("app//plan")


@pytest.mark.parametrize("forged", [
    pickle.dumps(Exploit()),  # a crafted pickle
    b"\x00garbage",  # garbage
    b'{"go": false, "code": 3, "nodes": ["node1", "node2"]}',  # a well-formed forged plan, unsealed
    b"ddp-hmac1:" + b"\x00" * 32 + b'{"go": false}',  # the format, without the secret
], ids=["pickle", "garbage", "forged-json", "forged-tag"])
def test_a_value_another_user_wrote_is_refused_with_the_store_exit_code(server: dist.TCPStore, forged: bytes,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    job = dist.PrefixStore("app/", SignedStore(client(server), SECRET))
    job.set("plan", '{"go": true}')
    server.set("app//plan", forged)  # the name listed: PrefixStore joins with "/"
    with pytest.raises(StoreTampered) as caught:
        job.get("plan")
    assert caught.value.exit_code == exitcodes.STORE == 10
    assert "tampered with or is unreachable (key 'app//plan'" in str(caught.value)
    assert "attacker code ran" not in capsys.readouterr().out


def test_a_sealed_value_replayed_under_another_key_or_sealed_by_another_job_is_refused(server: dist.TCPStore) -> None:
    job = SignedStore(client(server), SECRET)
    job.set("app/node/0", '{"status": "FAIL"}')
    server.set("app/node/1", server.get("app/node/0"))  # replayed under another key
    with pytest.raises(StoreTampered):
        job.get("app/node/1")
    SignedStore(server, "another job's secret, 32 chars").set("app/node/2", "x")
    with pytest.raises(StoreTampered):
        job.get("app/node/2")
    with pytest.raises(StoreTampered):
        job.multi_get(["app/node/0", "app/node/1"])


def test_an_oversized_value_is_refused_before_its_mac_is_computed(server: dist.TCPStore) -> None:
    server.set("app/result/1", b"x" * (MAX_VALUE_BYTES + 100))
    with pytest.raises(StoreTampered, match="more than the job ever writes"):
        SignedStore(client(server), SECRET).get("app/result/1")


def test_a_connection_closed_under_the_job_is_named_as_the_store_gone() -> None:
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=timedelta(seconds=60))
    job = SignedStore(client(server), SECRET)
    job.set("k", "v")
    del server  # the store's host goes away (or another user's flood resets the connection)
    with pytest.raises(StoreTampered, match="tampered with or is unreachable"):
        for _ in range(50):
            job.set("k", "v")


def test_no_secret_no_signed_store() -> None:
    with pytest.raises(ValueError):
        SignedStore(dist.HashStore(), "")


USER_SCRIPT = r"""
import os
from datetime import timedelta
import torch, torch.distributed as dist
from app.common.signed_store import init_process_group
INIT
total = torch.ones(1) * (dist.get_rank() + 1)
dist.all_reduce(total)
dist.barrier()
if dist.get_rank() == 0:  # what any client of the port reads: every value of the process group's keys sealed
    raw = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                        timeout=timedelta(seconds=10))
    values = [raw.get(key) for key in raw.list_keys() if key.startswith("user/")]
    print("sealed", len(values) > 0 and all(v.startswith(b"ddp-hmac1:") for v in values), flush=True)
dist.barrier()
print("sum", int(total.item()), flush=True)
dist.destroy_process_group()
"""


@pytest.mark.slow  # two interpreters importing torch (about 15 s each)
@pytest.mark.parametrize("call", [
    'init_process_group("gloo")',
    # How scripts write torch's own call: each failed under the job scripts alone (a second store, or rank twice)
    'init_process_group(backend="gloo", init_method="env://")',
    'init_process_group("gloo", "env://", rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))',
])
def test_a_users_own_script_that_calls_the_named_helper_gets_its_process_group_keys_sealed(tmp_path, call) -> None:
    import subprocess
    import sys

    from tests.trainer_runs import REPO, clean_env, free_port

    port = str(free_port())
    ranks = [subprocess.Popen([sys.executable, "-c", USER_SCRIPT.replace("INIT", call)], cwd=REPO, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=clean_env(RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=port,
                                            DDP_STORE_SECRET=SECRET))
             for rank in (0, 1)]
    outputs = [rank.communicate(timeout=120)[0] for rank in ranks]
    assert [rank.returncode for rank in ranks] == [0, 0], outputs
    assert "sealed True" in outputs[0] and all("sum 3" in output for output in outputs), outputs


LAUNCHED = {"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}


@pytest.mark.parametrize(("arguments", "refused"), [
    ({"init_method": "tcp://10.0.0.1:29500"}, "init_method='tcp://10.0.0.1:29500': the sealed store meets through "
                                              "env:// (MASTER_ADDR, MASTER_PORT)"),
    ({"store": dist.HashStore()}, "store= given: the call makes the job's sealed store itself"),
    ({"rank": 0}, "rank=0, but the launcher made this process RANK=1; drop rank (env:// reads RANK)"),
    ({"world_size": 4}, "world_size=4, but the launcher made this process WORLD_SIZE=2"),
])
def test_the_named_helper_refuses_in_one_line_what_would_meet_elsewhere_than_the_sealed_store(
        monkeypatch, arguments, refused) -> None:
    from app.common import signed_store

    for name, value in {**LAUNCHED, "DDP_STORE_SECRET": SECRET}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError) as error:
        signed_store.init_process_group("gloo", **arguments)
    assert str(error.value).startswith(f"app.common.signed_store.init_process_group: {refused}"), str(error.value)
    assert str(error.value).endswith('e.g. init_process_group("nccl")') and "\n" not in str(error.value)


def test_without_the_secret_the_named_helper_is_torchs_own_call_in_torchs_order(monkeypatch) -> None:
    from app.common import signed_store

    monkeypatch.delenv("DDP_STORE_SECRET", raising=False)
    calls = []
    monkeypatch.setattr(signed_store.dist, "init_process_group", lambda *args, **kwargs: calls.append((args, kwargs)))
    signed_store.init_process_group("gloo", "env://", timedelta(seconds=5), 2, 1, group_name="g")
    assert calls == [(("gloo", "env://", timedelta(seconds=5), 2, 1, None), {"group_name": "g"})]


@pytest.mark.slow  # two interpreters importing torch (about 15 s)
def test_the_example_your_script_md_holds_up_meets_through_the_sealed_store(tmp_path) -> None:
    """examples/ddp_checkpoint.py as torchrun starts it under the job scripts: its agent serves the store
    (TORCHELASTIC_USE_AGENT_STORE), the job's secret in the environment. Every value the example's process group
    leaves there is sealed: another user on the port can neither read a rank's address nor give it theirs."""
    import subprocess
    import sys

    from tests.trainer_runs import REPO, clean_env

    agent_store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    launched = dict(WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(agent_store.port),
                    TORCHELASTIC_USE_AGENT_STORE="True", TORCHELASTIC_RESTART_COUNT="0",
                    TORCHELASTIC_RUN_ID="4242", DDP_STORE_SECRET=SECRET, RUN_DIR=str(tmp_path / "run"))
    ranks = [subprocess.Popen([sys.executable, "examples/ddp_checkpoint.py", "--steps", "4", "--save-every", "2"],
                              cwd=REPO, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=clean_env(RANK=str(rank), LOCAL_RANK=str(rank), **launched))
             for rank in (0, 1)]
    outputs = [rank.communicate(timeout=120)[0] for rank in ranks]
    assert [rank.returncode for rank in ranks] == [0, 0], outputs
    assert "done: 4 steps on 2 ranks" in outputs[0], outputs
    values = [agent_store.get(key) for key in agent_store.list_keys() if key.startswith("user/")]
    assert values and all(value.startswith(b"ddp-hmac1:") for value in values), agent_store.list_keys()


def test_a_rank_that_stops_on_a_forged_value_leaves_a_mark_the_others_trust_and_no_one_else_can_forge(
        server: dist.TCPStore) -> None:
    """The mark keeps the other ranks' hang watch from taking the stopped rank for a dead node (and blaming it)."""
    job = client(server)
    other_rank = dist.PrefixStore("app/", SignedStore(job, SECRET))
    assert not marked_tampered(other_rank)
    server.set(TAMPERED_MARK, b"1")  # another user's mark
    assert not marked_tampered(other_rank)
    server.set("app//plan", b'{"go": false}')
    with pytest.raises(StoreTampered):
        dist.PrefixStore("app/", SignedStore(job, SECRET)).get("plan")
    assert marked_tampered(other_rank)
    assert not marked_tampered(job)  # a store that is not sealed has no mark


def test_a_value_sealed_in_one_step_of_the_job_does_not_open_in_the_next(server: dist.TCPStore) -> None:
    """The preflight's step and the workload's meet on one port with one secret, one after the other: a value
    recorded from the preflight's store (a node's FAIL report, a verdict) and written into the workload's opened
    there while the seal was keyed by the secret alone. Each step's rendezvous id is in the seal's key."""
    from app.common.cluster import detect_environment
    from app.common.distributed import open_store

    def step(run_id: str) -> dist.Store:
        env = {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1",
               "MASTER_PORT": str(server.port), "TORCHELASTIC_RUN_ID": run_id, "DDP_STORE_SECRET": SECRET}
        return open_store(detect_environment(env), timeout_s=10)

    preflight = step("4242-preflight")
    preflight.set("check/report/1", b'{"status": "FAIL"}')
    recorded = server.get("app//check/report/1")  # JOB_SCOPE "app/", joined with "/"
    server.delete_key("app//check/report/1")  # the next step's store starts empty
    server.set("app//check/report/1", recorded)  # another user writes the recording back
    with pytest.raises(StoreTampered):
        step("4242").get("check/report/1")
    assert preflight.get("check/report/1") == b'{"status": "FAIL"}'
