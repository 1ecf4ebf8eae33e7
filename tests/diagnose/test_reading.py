"""app.diagnose on hostile or damaged input: a FIFO, very long lines, files beyond the size it reads whole."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.host.common.access import READ_REMEDY
from app.host.diagnose import diagnose, diagnose_lines
from app.host.diagnose.cli import UNREADABLE, main
from tests.fixtures.other_user import login_tool_as_other_user, needs_other_user_and_python, reachable_tmp

REPO = Path(__file__).resolve().parents[2]
RDZV_TIMEOUT = "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError"


def run_cli(*args: str, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.diagnose", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def test_a_fifo_given_as_log_is_refused_in_one_line_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "ddp-1.out"
    os.mkfifo(fifo)
    result = run_cli(str(fifo), timeout=20)
    assert result.returncode == UNREADABLE
    assert result.stderr.count("\n") == 1 and "not a regular file" in result.stderr and "Traceback" not in result.stderr


def test_a_200_kb_srun_line_is_diagnosed_in_well_under_a_second(tmp_path: Path) -> None:
    log = tmp_path / "ddp-1.out"
    log.write_text("--nnodes=2\n" + "srun " * 40_000 + "\n" + RDZV_TIMEOUT + "\n")
    started = time.monotonic()
    result = run_cli(str(log), timeout=60)
    assert time.monotonic() - started < 5, "long lines must cost linear time"
    assert result.returncode == 0 and "[rendezvous-one-node]" in result.stdout


def test_a_line_made_of_every_patterns_words_is_diagnosed_fast() -> None:
    """Each pattern's literal parts, repeated over 200 KB: a pattern that rescans the line from every
    occurrence of its first words is quadratic here."""
    from app.host.diagnose.causes import CAUSES
    from app.host.diagnose.prefilter import required_literals
    words = sorted({lit for cause in CAUSES for p in (*cause.patterns, *cause.context)
                    for lit in (required_literals(p) or ())})
    unit = " ".join(words) + " "
    line = unit * (200_000 // len(unit) + 1)
    started = time.thread_time()  # this thread's CPU time: a loaded machine does not inflate it
    diagnose_lines(["--nnodes=2", line])
    assert time.thread_time() - started < 5


def test_a_file_beyond_the_cap_is_read_at_both_ends_with_true_line_numbers(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "ddp-1.out"
    filler = "".join(f"step {i} loss 2.0\n" for i in range(20_000))
    log.write_text("srun --nnodes=2 train.py\n" + filler + RDZV_TIMEOUT + "\n")
    from app.host.diagnose import Limits
    limits = Limits(max_file_bytes=64 * 1024, max_line_bytes=4096)
    [finding] = diagnose([log], limits=limits)
    assert finding.key == "rendezvous-one-node"
    assert finding.evidence[0].number == 20_002
    main([str(log)], limits=limits)
    out = capsys.readouterr().out
    assert "not read" in out and "ddp-1.out" in out


def test_a_line_beyond_the_line_cap_is_cut_and_the_next_lines_keep_their_numbers(tmp_path: Path) -> None:
    log = tmp_path / "ddp-1.out"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory." + "x" * 100_000 + "\n" + "--nnodes=2\n"
                   + RDZV_TIMEOUT + "\n")
    from app.host.diagnose import Limits
    findings = {f.key: f for f in diagnose([log], limits=Limits(max_file_bytes=1 << 20, max_line_bytes=4096))}
    assert findings["cuda-oom"].evidence[0].number == 1 and len(findings["cuda-oom"].evidence[0].text) <= 4096
    assert findings["rendezvous-one-node"].evidence[0].number == 3


def _every_test_log_line() -> list[str]:
    roots = [REPO / "tests/diagnose/logs", REPO / "tests/data/check/nccl"]
    return [line for root in roots for path in sorted(root.rglob("*")) if path.is_file()
            for line in path.read_text(errors="replace").splitlines()]


def test_the_word_prefilter_never_hides_a_line_a_pattern_matches() -> None:
    import re

    from app.host.diagnose.causes import CAUSES, FACTS
    from app.host.diagnose.prefilter import required_literals
    patterns = [(p, 0) for c in CAUSES for p in c.patterns] + [(p, re.I) for c in CAUSES for p in c.context]
    patterns += [(f, re.I) for f in FACTS if isinstance(f, str)]
    # Compiled once: there are more patterns than re's cache holds, which would compile each one for every line
    compiled = [(re.compile(pattern, flags), pattern, flags) for pattern, flags in patterns]
    checked = 0
    for line in _every_test_log_line():
        for regex, pattern, flags in compiled:
            if regex.search(line):
                words = required_literals(pattern, flags)
                assert words is not None and any(w in line.lower() for w in words), (pattern, line)
                checked += 1
    assert checked > 50


def test_every_pattern_has_words_to_look_for() -> None:
    from app.host.diagnose.causes import CAUSES
    from app.host.diagnose.prefilter import required_literals
    assert not [p for c in CAUSES for p in c.patterns if not required_literals(p)]


@pytest.mark.parametrize("cap", [64 * 1024 + delta for delta in range(-3, 4)])
def test_the_lines_after_a_skipped_middle_keep_their_numbers_wherever_the_cut_falls(tmp_path: Path, cap: int) -> None:
    from app.host.diagnose import Limits, Reading
    log = tmp_path / "ddp-1.out"
    log.write_text("".join(f"line {i:07d}\n" for i in range(1, 30_001)))  # 13 bytes a line
    lines = list(Reading(Limits(max_file_bytes=cap, max_line_bytes=4096)).lines_of([log]))
    assert all(line.text == f"line {line.number:07d}" for line in lines)
    assert lines[0].number == 1 and lines[-1].number == 30_000
    # The tail is every line that starts in the last three quarters of the cap, none lost at the cut.
    tail_start = 30_000 * 13 - (cap - cap // 4)
    numbers = [line.number for line in lines]
    first_in_tail = -(-tail_start // 13) + 1
    assert numbers[numbers.index(first_in_tail):] == list(range(first_in_tail, 30_001))


def test_a_finding_seen_on_many_lines_keeps_a_bounded_part_of_them() -> None:
    from app.host.diagnose.core import MAX_KEPT, MAX_RANKS
    lines = [f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)" for r in range(5000)]
    [finding] = diagnose_lines(lines)
    assert len(finding.evidence) == MAX_KEPT and finding.count == 5000
    assert "ranks that reported it: 0, 1, 2, " in finding.cause
    assert f"{MAX_RANKS - 1} and others ({5000 - MAX_RANKS} more mention(s))" in finding.cause


def test_a_line_coloured_for_a_terminal_is_read_by_its_words(tmp_path) -> None:
    """Apptainer colours "FATAL:" on a terminal, and a log saved from one keeps the codes: the cause anchored at the
    line's start is still named, from a file and from lines in memory, and the evidence is quoted without them."""
    coloured = ("\x1b[31mFATAL:  \x1b[0m While making image from oci registry: error fetching image: write "
                "/tmp/build-temp-1/rootfs/usr/lib/libcudnn.so: no space left on device")
    log = tmp_path / "ddp-4512.out"
    log.write_text(coloured + "\n")
    for findings in (diagnose_lines([coloured]), diagnose([log])):
        assert findings[0].key == "apptainer-tmp-full"
        assert "\x1b" not in findings[0].evidence[0].text


@needs_other_user_and_python
def test_a_run_directory_another_user_keeps_private_is_refused_as_unreadable_not_as_empty() -> None:
    """python3 -m app.diagnose LOG RUNDIR as a colleague, RUNDIR the job scripts' default 700 of another user:
    the one line says it cannot be read and why, not that it holds no logs."""
    top = reachable_tmp()
    try:
        (top / "ddp-1.out").write_text("--nnodes=2\n" + RDZV_TIMEOUT + "\n")
        (top / "ddp-1.out").chmod(0o644)
        (top / "run1").mkdir(mode=0o700)
        (top / "run1" / "summary.json").write_text('{"status": "failed", "step": 3}\n')
        result = login_tool_as_other_user("app.diagnose", str(top / "ddp-1.out"), str(top / "run1"))
    finally:
        shutil.rmtree(top)
    assert result.returncode == UNREADABLE and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.splitlines() == [
        f"app.diagnose: error: cannot read the run directory {top / 'run1'}: permission denied (owner root, mode "
        f"700); {READ_REMEDY}, or give the job's log files you can read (ddp-<jobid>.out, ddp.o<jobid>)"], \
        result.stderr
