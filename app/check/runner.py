"""The check's stages, in order, on every rank:

1. node checks (local, nothing can hang);
2. rendezvous: open the store; rank 0 gathers every node's checks through it (JSON) and compares
   versions and settings across ranks; any FAIL so far stops every rank here (exit PREFLIGHT or
   RENDEZVOUS) with rank 0's full report;
3. process group on the same store;
4. collectives: per scope, per collective, per size: one call on known values (#wrong), then timed calls;
5. rank 0 applies thresholds and the NCCL transport check, prints the report, publishes the verdict;
   every rank exits with the verdict's code.

A watchdog (deadline.py) bounds every stage from 2 on; the report names a rank that stops answering.
"""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import torch
import torch.distributed as dist

from app.check import collectives as coll
from app.check import judge, localise, nccl_log, nccl_tests, plot, protocol
from app.check.consistency import check_consistency
from app.check.deadline import StageWatchdog
from app.check.node.collect import Placement, collect, node_names
from app.check.node.probe import Probe
from app.check.node.rendezvous import wait_until_reachable
from app.check.options import CheckSettings
from app.check.protocol import MAX_TEXT, Measurement, NodeReport, Plan, RankResults
from app.check.report import FAIL, OK, Check, Report, format_report
from app.common import exchange, injected_faults
from app.common.cluster import ClusterEnvironment, detect_environment
from app.common.distributed import DistContext, init_distributed, open_store, shutdown, store_client
from app.common.exchange import text
from app.common.signed_store import StoreTampered, prefixed
from app.common.watchdog import Verdict
from app.host.common import exitcodes, remedies
from app.host.common.errors import RendezvousError, UserFacingError
from app.host.common.replace_file import replacing

#: How long rank 0 waits for the others to read the verdict before it exits (it may host the store).
ACK_WAIT_S = 10.0
#: The hang watch's own connection gives up on a request after this long, as the trainer's (app/train/cli.py)
WATCH_STORE_TIMEOUT_S = 10.0
#: How often a rank reads a record again that it found malformed (a rank's own record, rewritten or not)
READ_AGAIN_S = 1.0

T = TypeVar("T")


def _every(records: list[T | None]) -> list[T] | None:
    """`records` when every one is well formed, else None (read as absent: the caller reads again)."""
    return None if any(record is None for record in records) else records  # type: ignore[return-value]


def run_check(options: CheckSettings, probe: Probe, env: Mapping[str, str]) -> int:
    environment = detect_environment(env)
    rank, world_size = environment.rank(), environment.world_size()
    injected_faults.arm("check", env, rank)  # test-only faults a test asked for; inert in a real run
    if torch.cuda.is_available():
        nccl_log.capture_to_files(os.environ)
    master = None if world_size == 1 or options.node_only else (environment.main_address(), environment.main_port())
    node = collect(env, Placement(rank, environment.local_rank(), world_size, master), probe, options.data_dir,
                   options.min_read_mbps)
    launch = Check("launch", OK, f"{environment.name}: world size {world_size}")
    report = Report(checks=[launch, *node.checks])
    report.info.update(launcher=environment.name, world_size=world_size, topology=node.topology)
    if options.node_only:
        report.info["mode"] = "node-only"
        for check in report.checks:
            check.where = node.facts["hostname"]
        return _finish(report, options, rank)
    return Session(options, environment, report, node.facts).run()


class Session:
    """One rank's check after its node checks: stages 2-5 of the module's docstring."""

    def __init__(
        self,
        options: CheckSettings,
        environment: ClusterEnvironment,
        report: Report,
        facts: dict[str, Any],
    ) -> None:
        self.options, self.environment, self.report = options, environment, report
        self.facts = facts
        self.rank, self.world_size = environment.rank(), environment.world_size()
        self.store: dist.Store | None = None
        self.watchdog: StageWatchdog | None = None
        self.context: DistContext | None = None
        self.nodes: list[str] = []
        self.started = time.monotonic()

    # -- stages --------------------------------------------------------------------------------
    def run(self) -> int:
        if self.report.failed("rendezvous"):
            # MASTER_ADDR does not resolve, or is not rank 0's: waiting for the store cannot succeed.
            return self._rendezvous_failed("")
        agent_store = self.environment.env.get("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"
        started = time.monotonic()
        if self.world_size > 1 and (self.rank != 0 or agent_store):
            # A plain TCP probe first, bounded by the deadline: the store's own connect retries can take
            # twice its timeout, and its errors do not say refused from unreachable.
            reach = wait_until_reachable(
                self.environment.main_address(), self.environment.main_port(), self.options.deadline_s
            )
            if reach.status != OK:
                self.report.add(reach)
                return self._rendezvous_failed("")
        try:
            remaining = max(1.0, self.options.deadline_s - (time.monotonic() - started))
            rendezvous_store = open_store(self.environment, remaining)
        except RendezvousError as err:
            return self._rendezvous_failed(str(err))
        # The check's own keys (node reports, progress, verdict) apart from the process group's.
        self.store = prefixed(rendezvous_store, protocol.PREFIX)
        try:
            # The hang watch beats on a connection of its own, as the trainer's does: a connection carries one
            # request at a time, and the exchanges (exchange.wait_for) and the process group's rendezvous block in
            # the store's `wait` on this one
            watch_connection = store_client(self.environment, WATCH_STORE_TIMEOUT_S)
        except RendezvousError as err:
            return self._rendezvous_failed(str(err))
        watch_store = self.store if watch_connection is None else prefixed(watch_connection, protocol.PREFIX)
        self.watchdog = StageWatchdog(watch_store, self.rank, self.world_size, self.facts["hostname"],
                                      self.options.deadline_s, self._timed_out).start()
        code = self.stages(self.store, self.watchdog, join=lambda: self._join(rendezvous_store),
                           measure=self._measure, judge=self._evaluate)
        shutdown()
        return code

    def stages(self, store: dist.Store, watchdog: StageWatchdog, *, join: Callable[[], bool],
               measure: Callable[[], RankResults], judge: Callable[[list[RankResults]], None]) -> int:
        """The stages once the store is open, in order, each under `watchdog`'s deadline: node reports and the
        plan (preflight); `join` the process group (False: every rank stops with rank 0's report); `measure` the
        collectives; every rank's results to rank 0, which `judge`s them; the verdict. `run` joins and measures
        for real; bench/control_plane.py runs the same exchanges with stand-ins for both. Returns this rank's
        exit code; the caller tears the process group down."""
        self.store, self.watchdog = store, watchdog
        self._enter("preflight")
        plan = self._exchange_plan()
        if not plan.go:
            return self._conclude(plan.code)

        self._enter("rendezvous", "rendezvous: process group")
        if not join():
            return self._conclude(self.report.exit_code() if self.rank == 0 else None)

        self._enter("collectives")
        results = measure()
        self.watchdog.stage("report")
        gathered = self._exchange_results(results)
        if gathered is not None:
            judge(gathered)
        return self._conclude(self.report.exit_code() if self.rank == 0 else None)

    def _join(self, rendezvous_store: dist.Store) -> bool:
        """The process group on the rendezvous store; rank 0 judges every rank's attempt, all learn its plan."""
        pg_error = ""
        try:
            self.context = init_distributed(self.environment, "auto", self.options.deadline_s,
                                            store=rendezvous_store)
        except StoreTampered:  # not a node's fault: no node may be blamed for it
            raise
        except UserFacingError as err:  # RendezvousError, or a UsageError such as too few GPUs for the ranks
            pg_error = str(err)
        exchange.put(self.store, protocol.pg_key(self.rank), pg_error)
        if self.rank == 0:
            self._gather_pg_errors()
            self._progress(f"process group: {self.report.checks[-1].detail}")
            exchange.put(self.store, protocol.PG_PLAN, self.report.exit_code())
        else:
            exchange.wait_for(self.store, [protocol.PG_PLAN], float("inf"))
        return self._valid(lambda: protocol.receive_code(self.store, protocol.PG_PLAN)) == exitcodes.OK

    def _measure(self) -> RankResults:
        assert self.context is not None and self.watchdog is not None
        try:
            return self._collectives(self.context.device)
        except (RuntimeError, dist.DistError) as err:
            # A peer vanished or gloo/NCCL timed out: let the watchdog name the rank and end the job.
            self.watchdog.fire(str(err).splitlines()[0][:160])
            while True:
                time.sleep(1)

    # -- the store exchanges (every rank; app/check/protocol.py has the keys) ----------------------
    def _exchange_plan(self) -> Plan:
        """Every rank sends its node report; rank 0 gathers them and sends the plan; all return the plan."""
        assert self.store is not None
        protocol.send(self.store, protocol.node_key(self.rank), NodeReport(self.facts, self.report.checks))
        if self.rank == 0:
            plan = self._gather_nodes()
            self._progress(f"node checks: {self.world_size} rank(s) on {len(set(plan.nodes))} node(s) reported, "
                           f"{self._counts()}")
            protocol.send(self.store, protocol.PLAN, plan)
        else:
            exchange.wait_for(self.store, [protocol.PLAN], float("inf"))  # bounded by the watchdog
            plan = self._valid(lambda: protocol.receive_plan(self.store, self.world_size))
        self.nodes = plan.nodes
        return plan

    def _exchange_results(self, results: RankResults) -> list[RankResults] | None:
        """Every rank sends what it measured; rank 0 returns every rank's (the others: None)."""
        assert self.store is not None
        protocol.send(self.store, protocol.result_key(self.rank), results)
        if self.rank != 0:
            return None
        exchange.wait_for(self.store, [protocol.result_key(r) for r in range(self.world_size)], float("inf"))
        return self._valid(lambda: _every(protocol.receive_all_results(self.store, self.world_size)))

    def _valid(self, read: Callable[[], T | None]) -> T:
        """What `read` gets from the store once it is well formed: a malformed record reads as absent (logged
        once), and the stage's watchdog bounds the wait for it as it bounds one that never comes."""
        while (value := read()) is None:
            time.sleep(READ_AGAIN_S)
        return value

    def _enter(self, stage: str, label: str = "") -> None:
        """Arm the stage's deadline, then (test-only fault) maybe hang, then tell the others we are in it."""
        assert self.watchdog is not None
        self.watchdog.arm_stage(label or stage)
        injected_faults.point("check.stage", stage=stage, rank=self.rank)
        self.watchdog.step(label or stage)

    def _gather_nodes(self) -> Plan:
        keys = [protocol.node_key(r) for r in range(self.world_size)]
        exchange.wait_for(self.store, keys, float("inf"))  # the watchdog names a rank that never reports
        records = self._valid(lambda: _every(protocol.receive_node_reports(self.store, self.world_size)))
        facts = [r.facts for r in records]
        self.nodes = node_names(facts)
        checks = [c for r in records for c in r.checks]
        owners = [self.nodes[r.facts["rank"]] for r in records for _ in r.checks]
        self.report.checks = judge.merge_by_node(checks, owners, self.nodes)
        for f, name in zip(facts, self.nodes, strict=False):
            f["node"] = name
        if self.world_size > 1:
            self.report.extend(check_consistency(facts))
        self.report.info["nodes"] = {str(r): n for r, n in enumerate(self.nodes)}
        self.report.info["facts"] = facts
        code = self.report.exit_code()
        return Plan(code == exitcodes.OK, code, self.nodes)

    def _gather_pg_errors(self) -> None:
        keys = [protocol.pg_key(r) for r in range(self.world_size)]
        exchange.wait_for(self.store, keys, float("inf"))
        backend = dist.get_backend() if dist.is_initialized() else "?"
        errors = self._valid(lambda: _every(exchange.get_many_checked(self.store, keys,
                                                                      lambda _, data: text(data, MAX_TEXT))))
        self.report.extend(judge.judge_process_group(errors, self.nodes, backend))

    def _collectives(self, device: torch.device) -> RankResults:
        assert self.watchdog is not None
        scopes = coll.plan_scopes(self.nodes)
        groups = {s.key: (None if s.key == "all" else dist.new_group(list(s.ranks))) for s in scopes}
        sizes = self.options.message_sizes(coll.DEFAULT_SIZES_GPU if device.type == "cuda" else coll.DEFAULT_SIZES_CPU)
        rows: dict[str, list[Measurement]] = defaultdict(list)
        bad_sources: dict[str, list[int]] = defaultdict(list)
        for scope in scopes:
            member = self.rank in scope.ranks
            for name in self.options.chosen_collectives:
                if not coll.supported(name, len(scope.ranks)):
                    continue
                for size in sizes:
                    self.watchdog.step(f"{scope.key} {name} {size}B", rearm=True)
                    if not member:
                        continue
                    op, count, nbytes = coll.make_op(name, scope, groups[scope.key], self.rank, device, size)
                    check = coll.check_correctness(name, scope, groups[scope.key], self.rank, device, count=count)
                    seconds = coll.time_op(op, coll.iterations(nbytes, device), device, groups[scope.key])
                    rows[scope.key].append(Measurement(name, nbytes, count, seconds, check.wrong))
                    bad_sources[f"{scope.key} {name}"] += check.bad_sources
                    del op
                    self._progress_size(scope, name, nbytes, seconds, check.wrong)
        pairs = localise.pair_scopes(self.nodes)
        self._time_pairs(pairs, max(sizes), device, rows)
        result = self.package(scopes + pairs, dict(rows), dict(bad_sources))
        if device.type == "cuda":
            torch.cuda.synchronize()
            result.nccl = nccl_log.summarize_own_log(os.environ)
        return result

    def package(self, scopes: list[coll.Scope], rows: dict[str, list[Measurement]],
                bad_sources: dict[str, list[int]]) -> RankResults:
        """This rank's results as they travel to rank 0: the scopes from rank 0 alone (the judge reads
        rank 0's; each rank's copy of every node's scopes made the results O(N) bytes a rank)."""
        return RankResults(scopes if self.rank == 0 else [], rows, bad_sources)

    def _time_pairs(self, pairs: list[coll.Scope], size: int, device: torch.device,
                    rows: dict[str, list[Measurement]]) -> None:
        """all_reduce at `size` in each ring pair of node leaders (app.check.localise), one pair at a time."""
        assert self.watchdog is not None
        groups = [dist.new_group(list(pair.ranks)) for pair in pairs]  # every rank creates every group
        for pair, group in zip(pairs, groups, strict=True):
            self.watchdog.step(f"{pair.key} all_reduce {size}B", rearm=True)
            if self.rank in pair.ranks:
                op, count, nbytes = coll.make_op("all_reduce", pair, group, self.rank, device, size)
                seconds = coll.time_op(op, coll.iterations(nbytes, device), device, group)
                rows[pair.key].append(Measurement("all_reduce", nbytes, count, seconds, 0))
                self._progress_size(pair, "all_reduce", nbytes, seconds, 0)

    # -- rank 0: progress, one line as each stage and each size completes ----------------------------
    def _progress(self, text: str) -> None:
        if self.rank == 0:
            print(f"# app.check [{time.monotonic() - self.started:6.1f}s] {text}", file=sys.stderr, flush=True)

    def _progress_size(self, scope: coll.Scope, name: str, nbytes: int, seconds: float, wrong: int) -> None:
        busbw = nbytes / seconds / 1e9 * coll.bus_factor(name, len(scope.ranks))
        self._progress(f"{scope.title}: {name:<14} {nbytes:>10} B  busbw {busbw:8.3f} GB/s  #wrong {wrong}"
                       " (rank 0's timing)")

    def _counts(self) -> str:
        fails = len(self.report.failed())
        warns = sum(c.status == "WARN" for c in self.report.checks)
        return f"{fails} FAIL, {warns} WARN"

    # -- rank 0: judge -------------------------------------------------------------------------
    def _evaluate(self, results: list[RankResults]) -> None:
        machines = {f["node"]: f.get("machine") or f["hostname"] for f in self.report.info.get("facts", [])}
        tables, checks = judge.judge_collectives(results, self.nodes, self.options.thresholds, machines)
        self.report.tables.update(tables)
        self.report.titles.update({scope.key: scope.title for scope in results[0].scopes})
        self.report.thresholds.update(self.options.thresholds)
        self.report.extend(checks)
        if self.options.nccl_tests:
            self._nccl_tests()
        nccl_summaries = [r.nccl for r in results]
        if any(nccl_summaries):
            self.report.extend(nccl_log.judge(nccl_summaries, self.nodes, self.report.info.get("facts", [])))
            self.report.info["nccl_transports"] = nccl_log.describe(nccl_summaries, self.nodes)

    def _nccl_tests(self) -> None:
        """all_reduce_perf on rank 0's node, its busbw added as a column beside ours (same sizes)."""
        sizes = sorted({row.size for rows in self.report.tables.values() for row in rows})
        gpus = int(self.report.info.get("facts", [{}])[0].get("gpu_count", 0))
        check, busbw = nccl_tests.run_all_reduce_perf(sizes, gpus, self.options.deadline_s)
        self.report.add(check)
        if busbw:
            self.report.info["nccl_tests_busbw"] = {str(size): bw for size, bw in busbw.items()}
            # Beside ours: the scope that holds rank 0's node alone (or all ranks on one node).
            key = next((k for k in self.report.tables if k.startswith("intra:")), "")
            key = key or next(iter(self.report.tables), "")
            ours = {r.size: r.busbw for r in self.report.tables.get(key, []) if r.collective == "all_reduce"}
            self.report.info["nccl_tests"] = nccl_tests.side_by_side(ours, busbw, self.report.title(key))

    # -- endings -------------------------------------------------------------------------------
    def _conclude(self, code: int | None) -> int:
        """Rank 0 prints and publishes the verdict; the others take its code."""
        assert self.store is not None
        if self.watchdog is not None:
            self.watchdog.stop()
        if self.rank == 0:
            assert code is not None
            _finish(self.report, self.options, 0)
            exchange.put(self.store, protocol.VERDICT, code)
            exchange.wait_for(self.store, self._acks(), time.monotonic() + ACK_WAIT_S)
        else:
            missing = exchange.wait_for(self.store, [protocol.VERDICT], time.monotonic() + self.options.deadline_s)
            code = None if missing else protocol.receive_code(self.store, protocol.VERDICT)
            code = exitcodes.TIMEOUT if code is None else code
            exchange.put(self.store, protocol.ack_key(self.rank), 1)
            if code:
                print(
                    f"app.check rank {self.rank}: exit {code} ({exitcodes.DESCRIPTIONS.get(code, '?')}); "
                    "rank 0's report has the details",
                    file=sys.stderr,
                    flush=True,
                )
        return int(code)

    def _acks(self) -> list[str]:
        return [protocol.ack_key(r) for r in range(1, self.world_size)]

    def _timed_out(self, verdict: Verdict, reporter: bool) -> None:
        """The watchdog's ending: the reporting rank prints the report so far plus the TIMEOUT line."""
        assert self.watchdog is not None
        stage = self.watchdog.stage_name
        if not reporter:
            print(f"app.check rank {self.rank}: stage '{stage}' passed its {self.options.deadline_s:.0f}s deadline; "
                  "the report names the rank that stopped answering",
                  file=sys.stderr, flush=True)
            return
        self.report.add(judge.judge_deadline(stage, self.options.deadline_s, verdict.culprits, verdict.sentence,
                                             self.nodes))
        _finish(self.report, self.options, 0)

    def _rendezvous_failed(self, message: str) -> int:
        if message:
            self.report.add(
                Check("rendezvous: store", FAIL, message, remedies.STORE, stage="rendezvous")
            )
        for check in self.report.checks:
            check.where = check.where or f"{self.facts['hostname']} r{self.rank}"
        return _finish(self.report, self.options, 0)


def _finish(report: Report, options: CheckSettings, rank: int) -> int:
    if rank == 0:
        text = format_report(report)
        if options.plot:  # the verdict stays the last line of the report
            body, verdict = text.rsplit("\n", 1)
            text = f"{body}\n{plot.write_plot(options.plot, report)}\n{verdict}"
        print(text, flush=True)
        if options.json:
            report.write_json(options.json)
        if options.exclude_file:
            _write_exclude_file(options.exclude_file, report)
    return report.exit_code()


def _write_exclude_file(path: str, report: Report) -> None:
    """The nodes to leave out of the next job, one hostname a line (Slurm: sbatch --exclude=$(paste -sd, PATH));
    written on every run, empty when no node is to blame, so a stale list never outlives its check."""
    nodes = report.nodes_to_exclude()
    with replacing(path) as new, open(new, "w") as file:  # a link planted at the path is replaced, not followed
        file.writelines(f"{node}\n" for node in nodes)
    print(f"nodes to exclude ({path}): {', '.join(nodes) or 'none'}", flush=True)
