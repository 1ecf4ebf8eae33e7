"""app.report on run directories it did not expect: lines another writer left, bytes that are not UTF-8.
In this process, on files written by hand (tests/report/test_report.py runs real trainings)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from app.host.common.access import READ_REMEDY
from app.host.report.cli import main
from tests.bounded import within
from tests.fixtures.other_user import login_tool_as_other_user, needs_other_user_and_python, reachable_tmp

STEPS = [{"step": s, "loss": 1.0 / s, "step_time_s": 0.01, "samples_per_s": 3200.0, "time": 1e9 + s}
         for s in range(1, 6)]


def write_run(run_dir, history: bytes, metrics: bytes = b"") -> None:
    run_dir.mkdir()
    (run_dir / "metrics.jsonl").write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in STEPS) + metrics)
    (run_dir / "history.jsonl").write_bytes(history)


def test_a_history_with_bytes_that_are_not_utf8_is_reported(tmp_path, capsys):
    write_run(tmp_path / "run", b'{"attempt": 1, "start_step": 0, "total_steps": 5}\n'
                                b'{"event": "requeue", "reason": "node caf\xe9 slow", "excluded": ["n2"]}\n'
                                b'{"attempt": 2, "start_step": 3, "total_steps": 5}\n', metrics=b'{"step": 6, "\xff')
    assert main([str(tmp_path / "run"), "--png", str(tmp_path / "r.png")]) == 0
    out = capsys.readouterr().out
    assert "in progress at step 5 of 5" in out and "2 attempts; restarted from step 3" in out


def test_an_attempt_number_written_as_a_string_is_not_fatal(tmp_path, capsys):
    write_run(tmp_path / "run", b'{"attempt": 1, "start_step": 0}\n{"attempt": "2", "start_step": "3"}\n')
    assert main([str(tmp_path / "run"), "--png", str(tmp_path / "r.png")]) == 0
    assert "in progress at step 5" in capsys.readouterr().out


def test_a_reason_or_node_name_with_control_characters_stays_on_its_report_line(tmp_path, capsys):
    """history.jsonl is written by the job scripts from what nodes and checks said: a newline or a terminal
    escape in it is shown escaped, not acted on."""
    write_run(tmp_path / "run", b'{"attempt": 1}\n'
                                b'{"event": "requeue", "reason": "slow", "excluded": ["n2\\u001b[2J"]}\n'
                                b'{"attempt": 2, "start_step": 3}\n'
                                b'{"event": "gave-up", "reason": "one\\nVERDICT: PASS"}\n')
    assert main([str(tmp_path / "run"), "--png", str(tmp_path / "r.png")]) == 0
    out = capsys.readouterr().out
    assert "requeued without n2\\x1b[2J from step 3" in out and "gave up: one\\nVERDICT: PASS" in out
    assert "\x1b" not in out and not any(line.startswith("VERDICT") for line in out.splitlines())


def test_a_run_file_that_is_a_fifo_is_refused_in_one_line_not_waited_on(tmp_path, capsys):
    write_run(tmp_path / "run", b'{"attempt": 1}\n')
    os.mkfifo(tmp_path / "run" / "summary.json")
    with within(5):
        assert main([str(tmp_path / "run")]) == 2
    assert "summary.json" in capsys.readouterr().err


def test_step_times_too_large_to_add_up_leave_out_the_time_to_go(tmp_path, capsys):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "metrics.jsonl").write_text('{"step": 1, "loss": 1.0, "step_time_s": 1e308, "samples_per_s": 0.0}\n')
    (run_dir / "history.jsonl").write_text('{"attempt": 1, "total_steps": 1000000}\n')
    assert main([str(run_dir), "--png", str(tmp_path / "r.png")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("in progress at step 1 of 1000000"), first


def test_a_metrics_line_without_the_speed_the_trainer_writes_is_skipped_not_drawn(tmp_path, capsys):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "metrics.jsonl").write_text(json.dumps(STEPS[0]) + '\n{"step": 2, "loss": 1.0, "step_time_s": 0.1}\n')
    assert main([str(run_dir), "--png", str(tmp_path / "r.png")]) == 0
    assert "in progress at step 1" in capsys.readouterr().out


def test_a_line_that_is_both_an_attempt_and_an_event_is_checked_as_both(tmp_path, capsys):
    write_run(tmp_path / "run", b'{"attempt": 1, "event": "gave-up", "reason": null}\n')
    assert main([str(tmp_path / "run"), "--png", str(tmp_path / "r.png")]) == 0
    assert "gave up" not in capsys.readouterr().out


def test_a_long_run_is_read_in_memory_that_does_not_grow_with_it(tmp_path, capsys):
    import tracemalloc

    from app.host.report.run_record import MAX_POINTS, read_run
    from app.host.report.text import summary_lines

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    steps = 3 * MAX_POINTS + 7
    with open(run_dir / "metrics.jsonl", "w") as out:
        for step in range(1, steps + 1):
            record = {"step": step, "loss": 2.0 + 1.0 / step, "step_time_s": 0.42, "samples_per_s": 152.1,
                      "tokens_per_s": 1.5e5, "peak_memory_gib": step % 97, "time": 1e9 + step, "pad": "x" * 2000}
            if step % 1000 == 0:
                record["val_loss"] = 3.0 - step / steps
            out.write(json.dumps(record) + "\n")
    (run_dir / "history.jsonl").write_text(json.dumps({"attempt": 1, "total_steps": steps}) + "\n")
    size = (run_dir / "metrics.jsonl").stat().st_size
    tracemalloc.start()
    try:
        run = read_run(run_dir)
        lines = summary_lines(run, now=1e9 + steps)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size / 2, f"peak {peak} bytes reading a {size}-byte metrics.jsonl: not streamed"
    assert len(run.steps) == steps and len(run.steps.curve.points) <= MAX_POINTS
    assert run.steps.curve.points[0]["step"] == 1 and run.steps.curve.points[-1]["step"] > steps - steps // 4
    assert lines[0].endswith(f"in progress at step {steps} of {steps} (last step 0s ago), about 0s to go")
    assert f"validation {3.0 - 12000 / steps:.4f} at step 12000 (best {3.0 - 12000 / steps:.4f} at step 12000)" \
        in lines[1]
    assert lines[3] == "seen: peak memory 96.00 GiB on rank 0"


def test_a_line_longer_than_any_record_is_skipped_a_piece_at_a_time(tmp_path, capsys):
    import tracemalloc

    write_run(tmp_path / "run", b"", metrics=b'{"step": 6, "loss": ' + b"1" * (8 << 20) + b"}\n"
              + json.dumps({**STEPS[-1], "step": 7}).encode() + b"\n")
    tracemalloc.start()
    try:
        assert main([str(tmp_path / "run")]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20
    assert "at step 7" in capsys.readouterr().out


def has_matplotlib() -> bool:
    from app.host.report.figure import have_matplotlib

    return have_matplotlib()


@needs_other_user_and_python
def test_another_users_private_run_is_refused_in_one_line_that_says_permission_denied_exit_2():
    """A colleague's run directory at the job scripts' default mode (700): python3 -m app.report as another user
    says it cannot be read and what the owner can do, not a traceback."""
    top = reachable_tmp()
    try:
        write_run(top / "run1", b'{"attempt": 1}\n')
        (top / "run1").chmod(0o700)
        result = login_tool_as_other_user("app.report", str(top / "run1"))
    finally:
        shutil.rmtree(top)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.splitlines() == [
        f"error: cannot read the run directory {top / 'run1'}: permission denied (owner root, mode 700); "
        f"{READ_REMEDY}"], result.stderr
    assert result.stdout == ""


@pytest.mark.skipif(not has_matplotlib(), reason="the picture needs matplotlib")
def test_a_run_where_the_picture_cannot_be_written_gets_its_text_and_one_line_why_not_exit_0(tmp_path, capsys):
    """The default picture, RUN_DIR/report.png, where it cannot be written (a colleague's run shared read-only;
    here a directory in its place, which stops root as well): the text report is the product, the picture's
    absence one line with the option that puts it elsewhere."""
    write_run(tmp_path / "run", b'{"attempt": 1}\n')
    (tmp_path / "run" / "report.png").mkdir()
    assert main([str(tmp_path / "run")]) == 0
    captured = capsys.readouterr()
    assert "in progress at step 5" in captured.out
    assert captured.err.splitlines() == [
        f"no picture: cannot write {tmp_path / 'run' / 'report.png'}: it is a directory; give a file's path; to draw "
        f"it, give --png PATH in a directory you can write, e.g. --png ~/report.png"], captured.err


def test_a_png_path_in_a_directory_that_does_not_exist_is_refused_before_the_run_is_read(tmp_path, capsys):
    write_run(tmp_path / "run", b'{"attempt": 1}\n')
    png = tmp_path / "nonexist" / "x.png"
    assert main([str(tmp_path / "run"), "--png", str(png)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"error: --png {png}: cannot write it: its directory {png.parent} does not exist; give a --png path in a "
        f"directory you can write, e.g. --png report.png"], captured.err


@pytest.mark.skipif(not has_matplotlib(), reason="the picture needs matplotlib")
def test_a_link_planted_as_the_runs_picture_is_replaced_and_the_file_it_names_is_left_alone(tmp_path, capsys):
    """A colleague's run directory whose `report.png` is a link to a file of yours: the default picture replaces
    the link (before, matplotlib wrote through it and overwrote the file)."""
    write_run(tmp_path / "run", b'{"attempt": 1}\n')
    yours = tmp_path / "thesis.tex"
    yours.write_text("months of work\n")
    (tmp_path / "run" / "report.png").symlink_to(yours)
    assert main([str(tmp_path / "run")]) == 0
    assert yours.read_text() == "months of work\n"
    picture = tmp_path / "run" / "report.png"
    assert not picture.is_symlink() and picture.read_bytes().startswith(b"\x89PNG")
    assert [p.name for p in (tmp_path / "run").iterdir() if p.name.startswith(".")] == []
