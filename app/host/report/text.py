"""The run in a few lines: where it stands, what it learned, how fast, what interrupted it."""

import statistics
import time
from typing import List, Optional

from app.host.common.rates import format_rate
from app.host.report.run_record import RunRecord


def summary_lines(run: RunRecord, now: Optional[float] = None) -> List[str]:
    steps, total = run.steps, run.total_steps
    last, recent = steps.last, list(steps.recent)
    of_total = f" of {total}" if total else ""
    lines = []
    if run.finished and run.summary is not None:
        state = run.summary["status"]
        lines.append(f"{run.run_dir}: {state} at step {run.summary.get('step')}{of_total}")
    elif last is None:
        lines.append(f"{run.run_dir}: started, no step recorded yet")
    else:
        ago = (now or time.time()) - last["time"] if "time" in last else None
        line = f"{run.run_dir}: in progress at step {last['step']}{of_total}"
        if ago is not None:
            line += f" (last step {ago:.0f}s ago)"
        remaining_s = (total - last["step"]) * statistics.median(r["step_time_s"] for r in recent) if total else None
        if remaining_s is not None and 0 <= remaining_s < 1e9:  # beyond that (32 years) a figure means nothing
            line += f", about {_duration(remaining_s)} to go"
        lines.append(line)
    if last is None:
        return lines
    first = steps.first or last
    line = f"loss {first['loss']:.4f} at step {first['step']} -> {last['loss']:.4f} at step {last['step']}"
    latest, best = steps.last_validation, steps.best_validation
    if latest is not None and best is not None:
        line += (f"; validation {latest['val_loss']:.4f} at step {latest['step']} "
                 f"(best {best['val_loss']:.4f} at step {best['step']})")
    lines.append(line)
    speed = [f"{statistics.median(r['step_time_s'] for r in recent) * 1e3:.1f} ms/step"]
    for key, unit in (("tokens_per_s", "tokens/s"), ("samples_per_s", "samples/s")):
        if all(key in r for r in recent):
            speed.append(f"{format_rate(statistics.median(r[key] for r in recent))} {unit}")
    lines.append(f"speed (median of the last {len(recent)} steps): " + ", ".join(speed))
    seen = [f"{format_rate(last[key])} {key}" for key in ("tokens", "samples") if key in last][:1]
    if "peak_memory_gib" in last:
        seen.append(f"peak memory {steps.peak_memory_gib or 0:.2f} GiB on rank 0")
    if seen:
        lines.append("seen: " + ", ".join(seen))
    attempts = len(run.attempts)
    if attempts > 1 or run.gave_up:
        parts = [f"{attempts} attempts"]
        plain = [r.step for r in run.restarts if not r.requeued_without]
        if plain:
            parts.append(f"restarted from step {', '.join(map(str, plain))}")
        for restart in run.restarts:
            if restart.requeued_without:
                parts.append(f"requeued without {', '.join(restart.requeued_without)} from step {restart.step}")
        if run.gave_up:
            parts.append(f"the job script gave up: {run.gave_up}")
        lines.append("; ".join(parts))
    return lines


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else (f"{minutes}m{secs:02d}s" if minutes else f"{secs}s")
