"""The control plane in a simulated world of N ranks against one real TCPStore (libuv, as torchrun serves it).

Every simulated rank is a thread with its own TCPStore client socket; the ranks live in a few processes
(`--ranks-per-process`), and each faulty rank or node in a process of its own, so that a fault is a signal
to a real process: SIGSTOP (a rank frozen: its socket stays open, nothing answers), SIGKILL (a node gone: its
4 ranks' sockets close), SIGSTOP/SIGCONT cycles (a slow node: its ranks beat late). The ranks call the
project's own functions, phase by phase:

- agreement: `app.common.attempts.agree_on_attempt` (what `open_store` does under torchrun's agent store);
- check: `app.check.runner.Session.stages`, the check's store exchanges: node reports -> rank 0's gather and
  judgement of every rank's node checks -> plan -> every rank's `RankResults` -> rank 0's gather -> verdict
  and acks; each rank's `StageWatchdog` beats meanwhile, as in `python -m app.check`;
- steady: the trainer's `app.common.watchdog.Watchdog` beating while the ranks make progress;
- one phase per fault: every rank waits in one collective (its mark stops moving) and the watchdogs'
  verdict must name the faulty rank(s), and not the slow node.

Store requests and payload bytes are counted by a thin wrapper around each rank's client (bench.counting_store:
keys and values as the code passes them, plus the attempt prefix; TCP framing is not counted), also by method and
key family (each phase's `families`, and a log line); the store's latency under that load by a probe client in
the main process (`get` of one small key every 20 ms). In the check's phase each rank's hang watch has a
connection of its own, as in `app.check`. `--profile 0,1:DIR` runs ranks 0 and 1's agreement and check under
cProfile (DIR/check-rank0.prof, ...).

    python -m bench.control_plane --ranks 256 1024 4096 [--markdown BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import ctypes
import dataclasses
import functools
import io
import json
import multiprocessing
import os
import platform
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from app.check import collectives as coll
from app.check import localise, protocol, runner
from app.check.deadline import StageWatchdog
from app.check.options import CheckSettings
from app.check.protocol import Measurement
from app.check.report import OK, Check, Report
from app.common.attempts import agree_on_attempt
from app.common.signed_store import SignedStore, prefixed
from app.common.watchdog import Verdict, Watchdog
from bench import markdown
from bench.counting_store import CountingStore, Tally

RANKS_PER_NODE = 4
FAULTS = ("frozen", "slow-node", "node-gone")  # node-gone last: its ranks stay gone


# -- one process's ranks --------------------------------------------------------------------------------
class _Environment:
    """What `Session` asks of its cluster environment."""

    def __init__(self, rank: int, world_size: int) -> None:
        self._rank, self._world_size, self.env = rank, world_size, {}

    def rank(self) -> int:
        return self._rank

    def world_size(self) -> int:
        return self._world_size


def host(rank: int) -> str:
    return f"nid{rank // RANKS_PER_NODE:05d}"


#: The simulated job's secret: its ranks seal and open every value as a real job's do
BENCH_SECRET = "b" * 32


class Ranks:
    """The ranks of one worker process and the phases they run on command."""

    def __init__(self, port: int, ranks: list[int], world_size: int, node_report: dict[str, Any],
                 check: bool) -> None:
        self.ranks, self.world_size, self.node_report = ranks, world_size, node_report
        self.tally = Tally()
        first = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=300))
        started = time.monotonic()
        with ThreadPoolExecutor(min(len(ranks), 64)) as pool:
            # A socket per rank, and (the check's phase) one more for its hang watch, as `app.check` has
            connections = list(pool.map(lambda _: first.clone(), ranks * (2 if check else 1)))
        # Sealed as a rank's store is (app/common/distributed.py): every value's HMAC made and checked in the rank
        sealed = [SignedStore(client, BENCH_SECRET) for client in connections]
        self.clients, self.watch_clients = sealed[:len(ranks)], sealed[len(ranks):]
        self.connect_s = time.monotonic() - started
        self.attempt = 1

    def _each(self, work: Callable[[int, Any], Any], timeout_s: float, phase: str = "") -> list[Any]:
        """`work(rank, client)` on every rank at once, one thread each (they block in store calls); the ranks
        `--profile` names run under cProfile."""
        results: list[Any] = [None] * len(self.ranks)
        profiled = _profiled_ranks()

        def run(i: int) -> None:
            try:
                if self.ranks[i] in profiled:
                    results[i] = _profile(work, self.ranks[i], self.clients[i], phase)
                else:
                    results[i] = work(self.ranks[i], self.clients[i])
            except Exception as err:
                results[i] = err
        threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(self.ranks))]
        for thread in threads:
            thread.start()
        end = time.monotonic() + timeout_s
        for thread in threads:
            thread.join(max(0.0, end - time.monotonic()))
        return results

    # -- phases -----------------------------------------------------------------------------------------
    def agree(self, timeout_s: float) -> dict[str, Any]:
        results = self._each(lambda rank, client: agree_on_attempt(
            CountingStore(client, rank, self.tally), rank, self.world_size, timeout_s), timeout_s + 30, "agreement")
        errors = [str(r) for r in results if not isinstance(r, int)]
        self.attempt = next((r for r in results if isinstance(r, int)), 1)
        return {"errors": errors[:3], "attempts": sorted({r for r in results if isinstance(r, int)})}

    def check(self, deadline_s: float, timeout_s: float) -> dict[str, Any]:
        prefix = f"app/attempt-{self.attempt}/{protocol.PREFIX}"
        options = CheckSettings(deadline_s=deadline_s, preflight=True)
        hangs: list[str] = []

        watch_clients = dict(zip(self.ranks, self.watch_clients, strict=True))

        def one(rank: int, client: dist.Store) -> int:
            facts = {**copy.deepcopy(self.node_report["facts"]), "rank": rank, "local_rank": rank % RANKS_PER_NODE,
                     "hostname": host(rank), "world_size": self.world_size}
            checks = [Check.from_dict(c) for c in self.node_report["checks"]]
            session = runner.Session(options, _Environment(rank, self.world_size),
                                     Report(checks=[Check("launch", OK, "simulated"), *checks]), facts)
            store = CountingStore(prefixed(client, prefix), rank, self.tally, prefix)
            watch_store = CountingStore(prefixed(watch_clients[rank], prefix), rank, self.tally, prefix)
            watchdog = StageWatchdog(watch_store, rank, self.world_size, host(rank), deadline_s,
                                     lambda verdict, _: hangs.append(verdict.sentence),
                                     end_process=lambda _: None).start()
            return session.stages(store, watchdog, join=lambda: True, measure=lambda: _results(session, rank),
                                  judge=functools.partial(_all_gathered, self.world_size))

        with contextlib.redirect_stdout(io.StringIO()):  # rank 0's report
            results = self._each(one, timeout_s, "check")
        errors = [repr(r) for r in results if not isinstance(r, int)]
        return {"errors": errors[:3], "codes": dict(Counter(r for r in results if isinstance(r, int))),
                "hangs": hangs[:3]}

    def watch(self, scenario: str, deadline_s: float, interval_s: float, steady_s: float, timeout_s: float,
              control: Any) -> dict[str, Any]:
        """Trainer watchdogs on every rank: progress for `steady_s` (0: none), then every rank waits in step
        10's all_reduce until the verdict (or `timeout_s`)."""
        prefix = f"sim/{scenario}/"
        lock, heard, ended = threading.Lock(), [], []

        def on_hang(rank: int) -> Callable[[Verdict, bool], None]:
            def heard_it(verdict: Verdict, reporter: bool) -> None:
                with lock:
                    heard.append((time.monotonic(), ",".join(map(str, verdict.culprits)) or "nobody", rank))
            return heard_it

        def end(_code: int) -> None:
            with lock:
                ended.append(time.monotonic())

        dogs = [Watchdog(CountingStore(prefixed(client, prefix), rank, self.tally, prefix), rank,
                         self.world_size, host(rank), deadline_s, on_hang(rank), end_process=end,
                         interval_s=interval_s)
                for rank, client in zip(self.ranks, self.clients, strict=True)]
        step = 0
        for dog in dogs:
            dog.mark(step, "step 0")
            dog.start()
        control.put(("started", len(dogs)))
        stop_progress = time.monotonic() + steady_s
        while time.monotonic() < stop_progress:  # every rank takes a step a second, as a trainer would
            time.sleep(1.0)
            step += 1
            for dog in dogs:
                dog.mark(step * 6 + 2, f"step {step}, phase forward/backward")
        stalled = time.monotonic()
        end_at = stalled + timeout_s
        while time.monotonic() < end_at and len(ended) < len(dogs):
            time.sleep(0.2)
        for dog in dogs:
            dog.stop()
        return {"stalled": stalled, "heard": heard, "ended": ended}


#: Set by `--profile DIR`: the ranks whose phases run under cProfile, and where their statistics go
_PROFILE = "BENCH_CONTROL_PLANE_PROFILE"


def _profiled_ranks() -> set[int]:
    ranks, _, _ = os.environ.get(_PROFILE, "").partition(":")
    return {int(rank) for rank in ranks.split(",") if rank}


def _profile(work: Callable[[int, Any], Any], rank: int, client: Any, phase: str) -> Any:
    """`work(rank, client)` under cProfile; its statistics to <DIR>/<phase>-rank<rank>.prof (`pstats` reads them)."""
    import cProfile
    profile = cProfile.Profile()
    try:
        return profile.runcall(work, rank, client)
    finally:
        profile.dump_stats(Path(os.environ[_PROFILE].partition(":")[2]) / f"{phase}-rank{rank}.prof")


_PLANNING = threading.Lock()


def _planned(nodes: tuple[str, ...]) -> tuple[list[coll.Scope], dict[int, list[coll.Scope]]]:
    """The real planners' scopes (every rank plans the same: planned once a process here, where 512 ranks
    share two cores) and each rank's own. One thread plans while the others wait: the ranks hear the plan at
    once, and a cache alone let each of 512 threads plan (24 ms each at 1024 ranks, 12 s of a process's CPU)."""
    with _PLANNING:
        return _plan_once(nodes)


@functools.lru_cache(maxsize=1)
def _plan_once(nodes: tuple[str, ...]) -> tuple[list[coll.Scope], dict[int, list[coll.Scope]]]:
    scopes = coll.plan_scopes(nodes) + localise.pair_scopes(nodes)
    own: dict[int, list[coll.Scope]] = {}
    for scope in scopes:
        for rank in scope.ranks:
            own.setdefault(rank, []).append(scope)
    return scopes, own


def _results(session: runner.Session, rank: int) -> protocol.RankResults:
    """What the check measures on this rank with --preflight (all_reduce and all_gather at two sizes), with
    made-up timings: the scopes from the real planners for the plan's nodes, packaged by the runner."""
    scopes, own = _planned(tuple(session.nodes))
    rows: dict[str, list[Measurement]] = {}
    for scope in own.get(rank, []):
        if scope.key.startswith("pair:"):
            rows[scope.key] = [Measurement("all_reduce", 64 << 20, 16 << 20, 1e-2, 0)]
        else:
            rows[scope.key] = [Measurement(name, size, size // 4, 1e-3, 0)
                               for name in ("all_reduce", "all_gather") for size in (32 << 10, 64 << 20)]
    return session.package(list(scopes), rows, {})


def _all_gathered(world_size: int, gathered: list[protocol.RankResults]) -> None:
    """Rank 0's judgement, in the simulation: only that every rank's results came."""
    if len(gathered) != world_size:
        raise RuntimeError(f"rank 0 gathered {len(gathered)} results")


def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent ends (a killed benchmark leaves no worker behind)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _worker(port: int, ranks: list[int], world_size: int, node_report: dict[str, Any], check: bool, commands: Any,
            replies: Any) -> None:
    _die_with_parent()
    world = Ranks(port, ranks, world_size, node_report, check)
    replies.put(("connected", world.connect_s))
    while True:
        command, kwargs = commands.get()
        if command == "quit":
            return
        world.tally.reset()
        started = time.monotonic()
        out = getattr(world, command)(**kwargs, **({"control": replies} if command == "watch" else {}))
        out["seconds"] = time.monotonic() - started
        out["tally"] = world.tally.snapshot()
        replies.put(("done", out))


# -- the world ------------------------------------------------------------------------------------------
class Probe:
    """A client of its own that `get`s one small key every 20 ms; latencies by phase."""

    def __init__(self, port: int) -> None:
        self.store = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=60))
        self.store.set("sim/probe", "x" * 64)
        self.phase, self.samples = "", {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            phase, start = self.phase, time.perf_counter()
            self.store.get("sim/probe")
            if phase:
                self.samples.setdefault(phase, []).append(time.perf_counter() - start)
            time.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Phase:
    name: str
    seconds: float
    requests: int
    beats: int
    payload_bytes: int
    busiest_rank: int
    p50_ms: float
    p99_ms: float
    named: str = ""  # watch phases: the culprits every live rank heard, with how many heard them
    expected: str = ""
    verdict_s: float = float("nan")  # from the stall: the last live rank heard the verdict
    first_verdict_s: float = float("nan")
    ok: bool = True
    note: str = ""
    families: dict[str, int] = field(default_factory=dict)  # requests by method and key family (bench.counting_store)


@dataclass
class World:
    ranks: int
    deadline_s: float
    interval_s: float
    processes: int
    connect_s: float = 0.0
    phases: list[Phase] = field(default_factory=list)


def layout(ranks: int, per_process: int) -> tuple[list[list[int]], dict[str, list[int]]]:
    """The processes' ranks: every fault's rank(s) in a process of their own, the rest in chunks."""
    frozen = [ranks * 3 // 4 + 1]
    gone_node = ranks // 2 // RANKS_PER_NODE
    slow_node = ranks // 4 // RANKS_PER_NODE + 1
    special = {"frozen": frozen,
               "node-gone": list(range(gone_node * RANKS_PER_NODE, (gone_node + 1) * RANKS_PER_NODE)),
               "slow-node": list(range(slow_node * RANKS_PER_NODE, (slow_node + 1) * RANKS_PER_NODE))}
    taken = {r for group in special.values() for r in group}
    rest = [r for r in range(ranks) if r not in taken]
    shares = [rest[i:i + per_process] for i in range(0, len(rest), per_process)]
    return shares + list(special.values()), special


def _node_report() -> dict[str, Any]:
    """This machine's own node checks and facts (the real `collect`), sent by every simulated rank."""
    from app.check.node.collect import Placement, collect
    from app.check.node.probe import Probe as NodeProbe
    result = collect(dict(os.environ), Placement(0, 0, 4, ("127.0.0.1", 29500)), NodeProbe())
    return protocol.NodeReport(result.facts, result.checks).to_json()


def simulate(ranks: int, deadline_s: float, interval_s: float, per_process: int = 512,
             faults: tuple[str, ...] = FAULTS, steady_s: float = 10.0, slow_stop_s: float | None = None,
             check_deadline_s: float = 60.0, check: bool = True, log: Callable[[str], None] = print) -> World:
    """One world of `ranks` ranks: connect, agree, check, steady heartbeats, then each fault in turn."""
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False,
                           timeout=timedelta(seconds=300), use_libuv=True)
    shares, special = layout(ranks, per_process)
    spawn = multiprocessing.get_context("spawn")
    replies = [spawn.Queue() for _ in shares]
    commands = [spawn.Queue() for _ in shares]
    report = _node_report()
    workers = [spawn.Process(target=_worker, args=(server.port, share, ranks, report, check, commands[i], replies[i]),
                             daemon=True) for i, share in enumerate(shares)]
    for worker in workers:
        worker.start()
    world = World(ranks, deadline_s, interval_s, len(workers))
    begun = time.monotonic()
    world.connect_s = max(reply.get(timeout=600)[1] for reply in replies)
    log(f"  {ranks} ranks: {len(workers)} processes started and connected in {time.monotonic() - begun:.1f}s "
        f"(the slowest process's connections: {world.connect_s:.1f}s)")
    probe = Probe(server.port)
    pid = {name: workers[shares.index(group)].pid for name, group in special.items()}
    alive = list(range(len(workers)))

    def run(name: str, command: str, during: Callable[[], None] | None = None, held: str = "",
            thaw: Callable[[], None] | None = None, **kwargs: Any) -> list[dict]:
        """Every live worker runs `command`; `during` once they have started (a fault); the `held` group's
        worker answers last, after `thaw` (a stopped process cannot answer)."""
        probe.phase = name
        for i in alive:
            commands[i].put((command, kwargs))
        if during is not None:
            for i in alive:
                assert replies[i].get(timeout=600)[0] == "started"
            during()
        outs = []
        last = [i for i in alive if held and workers[i].pid == pid[held]]
        for i in [i for i in alive if i not in last] + last:
            if i in last and thaw is not None:
                thaw()
            end = time.monotonic() + kwargs.get("timeout_s", 300) + 120
            while True:
                try:
                    outs.append(replies[i].get(timeout=1.0)[1])
                    break
                except queue.Empty:
                    if not workers[i].is_alive():  # a killed process answers nothing
                        alive.remove(i)
                        break
                    if time.monotonic() > end:
                        raise
        probe.phase = ""
        return outs

    def phase(name: str, outs: list[dict], **extra: Any) -> Phase:
        requests: Counter[str] = Counter()
        by_rank: Counter[int] = Counter()
        families: Counter[str] = Counter()
        for out in outs:
            requests.update(out["tally"]["requests"])
            by_rank.update(out["tally"]["by_rank"])
            families.update(out["tally"]["families"])
        samples = probe.samples.get(name, [])
        result = Phase(name, max(out["seconds"] for out in outs), sum(requests.values()) - requests["beat"],
                       requests["beat"], sum(out["tally"]["bytes"] for out in outs),
                       max(by_rank.values(), default=0), 1e3 * _percentile(samples, 0.5),
                       1e3 * _percentile(samples, 0.99), families=dict(families.most_common()), **extra)
        world.phases.append(result)
        log(f"  {ranks} ranks, {name}: {dataclasses.replace(result, families={})}")
        log("    requests by method and key: " + ", ".join(f"{k} {n}" for k, n in families.most_common()))
        return result

    try:
        outs = run("agreement", "agree", timeout_s=300.0)
        errors = [e for out in outs for e in out["errors"]]
        phase("agreement", outs, ok=not errors, note="; ".join(errors[:2]))
        if check:
            outs = run("check", "check", deadline_s=check_deadline_s, timeout_s=600.0)
            errors = [e for out in outs for e in out["errors"] + out["hangs"]]
            codes: Counter[int] = Counter()
            for out in outs:
                codes.update(out["codes"])
            phase("check", outs, ok=not errors and set(codes) == {0}, note="; ".join(errors[:2]))
        if steady_s:
            outs = run("steady", "watch", during=lambda: None, scenario="steady", deadline_s=1e6,
                       interval_s=interval_s, steady_s=steady_s, timeout_s=0.0)
            phase("steady", outs)
        for fault in faults:
            _fault_phase(fault, run, phase, special, pid, ranks, deadline_s, interval_s,
                         slow_stop_s if slow_stop_s is not None else 3 * interval_s)
    finally:
        probe.stop()
        for i in alive:
            commands[i].put(("quit", {}))
        for worker in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGCONT)
            worker.join(10)
            if worker.is_alive():
                worker.kill()
    return world


def _fault_phase(fault: str, run: Callable, phase: Callable, special: dict[str, list[int]],
                 pid: dict[str, int], ranks: int, deadline_s: float, interval_s: float, slow_stop_s: float) -> None:
    expected = special["node-gone"] if fault == "node-gone" else special["frozen"]
    silent = set(special["frozen"] if fault in ("frozen", "slow-node") else special["node-gone"])
    stalled: list[float] = []
    stop_cycling = threading.Event()

    def cycle_slow_node() -> None:
        """Stopped `slow_stop_s`, running one beat interval: its ranks beat late, never later than that."""
        while not stop_cycling.is_set():
            os.kill(pid["slow-node"], signal.SIGSTOP)
            stop_cycling.wait(slow_stop_s)
            os.kill(pid["slow-node"], signal.SIGCONT)
            stop_cycling.wait(interval_s)

    def inject() -> None:
        stalled.append(time.monotonic())
        if fault == "node-gone":
            os.kill(pid["node-gone"], signal.SIGKILL)
        else:
            os.kill(pid["frozen"], signal.SIGSTOP)
        if fault == "slow-node":
            threading.Thread(target=cycle_slow_node, daemon=True).start()

    def thaw() -> None:
        stop_cycling.set()
        time.sleep(0.1)
        for name in ("frozen", "slow-node"):
            os.kill(pid[name], signal.SIGCONT)

    timeout_s = deadline_s + 60
    try:
        outs = run(fault, "watch", during=inject, held="" if fault == "node-gone" else "frozen", thaw=thaw,
                   scenario=fault, deadline_s=deadline_s, interval_s=interval_s, steady_s=0.0, timeout_s=timeout_s)
    finally:
        if fault != "node-gone":
            thaw()
    live = ranks - len(silent)
    # the frozen rank, thawed at the end, may still hear a verdict: count the live ranks' only
    heard = [(t, named, rank) for out in outs for t, named, rank in out["heard"] if rank not in silent]
    named = Counter(n for _, n, _ in heard)
    want = ",".join(map(str, expected))
    # the slow node's own ranks hear the verdict when they next run: timed apart
    slow = set(special["slow-node"]) if fault == "slow-node" else set()
    times = [t - stalled[0] for t, _, rank in heard if rank not in slow]
    slow_times = [t - stalled[0] for t, _, rank in heard if rank in slow]
    ok = named == Counter({want: live}) and bool(times) and max(times) <= deadline_s + 10
    phase(fault, outs, named=", ".join(f"{n} ({k})" for n, k in named.most_common()), expected=want,
          verdict_s=max(times, default=float("nan")), first_verdict_s=min(times, default=float("nan")), ok=ok,
          note=f"the slow node's own ranks heard it {max(slow_times):.1f}s after the stall" if slow_times else "")


# -- the report -----------------------------------------------------------------------------------------
def _rows(world: World) -> list[str]:
    rows = []
    for p in world.phases:
        verdict = (f"{p.first_verdict_s:.1f} / {p.verdict_s:.1f}" if p.expected else "")
        named = f"{p.named} (want {p.expected})" if p.expected else ""
        rows.append(f"| {world.ranks} | {p.name} | {'yes' if p.ok else '**no**'} | {p.seconds:.1f} | {p.requests} | "
                    f"{p.requests / world.ranks:.1f} | {p.busiest_rank} | {p.beats} | {p.payload_bytes / 1e6:.1f} | "
                    f"{p.p50_ms:.1f} / {p.p99_ms:.1f} | {verdict} | {named} |")
    return rows


HEADER = ["| ranks | phase | ok | seconds | requests (beats apart) | per rank | busiest rank | beats | payload MB | "
          "probe get p50 / p99 (ms) | verdict: first / last rank (s after stall) | named (by how many ranks) |",
          "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]


#: Set in the re-run below: this process already has its private resolver.
_PRIVATE_RESOLVER = "BENCH_CONTROL_PLANE_PRIVATE_RESOLVER"


def _rerun_without_dns(argv: list[str]) -> int | None:
    """Re-run this command in a private mount namespace whose /etc/resolv.conf names no reachable server;
    None where that cannot be done (not root, no unshare), and the command runs as it is.

    Every TCPStore connection looks up the peer's name (torch logs it). A slow resolver, one that answers a
    handful of lookups a second and drops some (BENCHMARKS.md names this machine's), would time the connections,
    not the control plane; a cluster's resolver (or nscd) answers in microseconds, and this stands in for that."""
    if os.environ.get(_PRIVATE_RESOLVER) or os.geteuid() != 0 or not shutil.which("unshare"):
        return None
    if subprocess.run(["unshare", "--mount", "true"], capture_output=True, check=False).returncode != 0:
        return None
    with tempfile.NamedTemporaryFile("w", prefix="control-plane-resolv-", suffix=".conf", delete=False) as conf:
        conf.write("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
    try:
        script = 'mount --bind "$0" /etc/resolv.conf && exec "$@"'
        return subprocess.call(["unshare", "--mount", "sh", "-c", script, conf.name, sys.executable, "-m",
                                "bench.control_plane", *argv],
                               env={**os.environ, _PRIVATE_RESOLVER: "1", "TORCH_CPP_LOG_LEVEL": "ERROR"},
                               preexec_fn=_die_with_parent)
    finally:
        os.unlink(conf.name)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--system-dns" not in argv and (code := _rerun_without_dns(argv)) is not None:
        return code
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[256, 1024, 4096])
    parser.add_argument("--deadline", type=float, default=20.0, help="the trainer watchdog's deadline (s)")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between heartbeats")
    parser.add_argument("--ranks-per-process", type=int, default=512)
    parser.add_argument("--steady", type=float, default=10.0, help="seconds of steady heartbeats")
    parser.add_argument("--faults", nargs="*", default=list(FAULTS), choices=FAULTS)
    parser.add_argument("--no-check", action="store_true", help="leave out the check's phase")
    parser.add_argument("--markdown", help="rewrite this benchmark's section of this file")
    parser.add_argument("--section", default="bench.control_plane", help="the section's name in that file")
    parser.add_argument("--json", help="write every phase's figures here")
    parser.add_argument("--profile", metavar="RANKS:DIR",
                        help="run these ranks' agreement and check under cProfile, statistics into DIR (0,1:/tmp/prof)")
    parser.add_argument("--system-dns", action="store_true",
                        help="keep the machine's resolver (by default a private one where possible, see below)")
    args = parser.parse_args(argv)
    if args.profile:
        os.environ[_PROFILE] = args.profile  # the workers inherit it
    worlds = [simulate(n, args.deadline, args.interval, args.ranks_per_process, tuple(args.faults), args.steady,
                       check=not args.no_check) for n in args.ranks]
    rows = [row for world in worlds for row in _rows(world)]
    print("\n".join(HEADER + rows))
    if args.json:
        Path(args.json).write_text(json.dumps([{**world.__dict__, "phases": [p.__dict__ for p in world.phases]}
                                               for world in worlds], indent=1))
    command = (f"python -m bench.control_plane --ranks {' '.join(map(str, args.ranks))} --deadline {args.deadline:g} "
               f"--interval {args.interval:g} --ranks-per-process {args.ranks_per_process}")
    # Every choice that shaped the table, so the command reproduces it
    if args.steady != parser.get_default("steady"):
        command += f" --steady {args.steady:g}"
    if args.faults != parser.get_default("faults"):
        command += f" --faults {' '.join(args.faults)}"
    if args.no_check:
        command += " --no-check"
    body = "\n".join([
        f"## Control plane at {' and '.join(map(str, args.ranks))} ranks (simulated world, one real TCPStore)",
        "",
        f"Command: `{command}` ({platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}; "
        "`bench/control_plane.py` says what each phase runs).",
        "",
        *HEADER, *rows,
        "",
        "Each simulated rank is a thread with its own TCPStore client socket (and in the check a second one for "
        "its hang watch, as `app.check` has) to one libuv TCPStore server, "
        f"{args.ranks_per_process} ranks a process; each fault's rank(s) in a process of their own. Requests and "
        "payload bytes (keys and values as the code passes them, plus the key prefix; TCP framing not counted) are "
        "counted by a wrapper around each rank's client; heartbeat `set`s are counted apart as beats. Probe: a "
        "client of its own `get`s one 64-byte key every 20 ms during the phase. Phases: *agreement* "
        "`agree_on_attempt` on every rank; *check* the check's exchanges, `app.check.runner.Session.stages` "
        "(node reports, rank 0's real judgement of every rank's node checks, plan, `RankResults`, verdict, acks) "
        "with each rank's `StageWatchdog` beating; *steady* the trainer's `Watchdog` on every rank while the ranks "
        "make a step a second; then every rank waits in one collective and: *frozen* one rank's process gets "
        "SIGSTOP; *node-gone* a process of 4 ranks (a node) gets SIGKILL (its sockets close); *slow-node* as "
        "frozen, and a node's process is stopped 3 beats out of every 4 (its ranks beat late, within the "
        "deadline: it must not be named). Verdict times count from the stall, so they include the deadline; "
        "`ok` needs every live rank to name exactly the faulty rank(s), the last within the deadline + 10 s (the "
        "slow node's own ranks, stopped most of the time, hear it later: the note says when).",
        "",
        "Simplified: the collectives, the process group and rank 0's judging of the bandwidth tables are not "
        "run (each rank's `RankResults` has made-up timings for the scopes the real planners give it); the "
        "node report is this machine's real one, sent by every rank under its own rank and host name. "
        "The beat interval is the watchdog's default for the deadline (a tenth). 4096 ranks (12,000 Python "
        "threads) fit these 2 cores only without the check's phase (its last ranks reached the verdict wait "
        "after others' 60 s deadline, from CPU starvation; at 128 ranks a process it ran 785 s and the probe's "
        "`get` went unanswered for 100 s), with a 3 s beat (at 2 s a worker starved past the harness's timeout), "
        "and at 128 ranks a process: at 256, store calls waited 2-6 s in the clients (a call passes between a "
        "rank's thread and its store-call thread, and 500 threads queue for a process's GIL) while the probe had "
        "its answers within a second, and the last rank heard a verdict up to 15 s after the first (2.5-5.6 s at "
        "128, in 14 of 15 phases). TCPStore looks up each peer's name on "
        "connect; this machine's resolver answers 5-10 a second, so the command runs in a private mount "
        "namespace whose resolv.conf names no server (`--system-dns` keeps the machine's).",
    ])
    if args.markdown:
        markdown.replace_section(Path(args.markdown), args.section, body)
    return 0 if all(p.ok for world in worlds for p in world.phases) else 1


if __name__ == "__main__":
    raise SystemExit(main())
