"""busbw against message size, for `--plot PATH`: a matplotlib PNG, or a CSV where matplotlib is missing.

matplotlib is an optional extra (pip install 'app[plot]'); the images do not ship it, so inside one the
check writes the numbers as CSV beside the path asked for and says how to get the picture. One line per
scope and collective on a log-scale size axis; each scope's all_reduce threshold drawn where one is set.
"""

from __future__ import annotations

import csv
from pathlib import Path

from app.check.report import Report
from app.host.common.replace_file import replacing


def write_plot(path: str, report: Report) -> str:
    """Write the plot (or its CSV) and return the line that tells the user what was written."""
    if report.info.get("mode") == "node-only":
        return f"no plot written to {path}: --node-only runs no collectives, so there is nothing to plot"
    if not report.tables:
        return f"no plot written to {path}: the check stopped before measuring any collective (see the verdict)"
    try:
        import matplotlib
    except ImportError:
        table = Path(path).with_suffix(".csv")
        _write_csv(table, report)
        return (f"plot: matplotlib is not installed, so the numbers went to {table} instead of {path} "
                f"(pip install matplotlib, or plot the CSV elsewhere)")
    matplotlib.use("Agg")  # files only: compute nodes have no display
    _draw(path, report)
    return f"plot: {path}"


def _write_csv(path: Path, report: Report) -> None:
    with replacing(str(path)) as new, open(new, "w", newline="") as file:  # a planted link replaced, not followed
        writer = csv.writer(file)
        writer.writerow(["scope", "title", "collective", "size_bytes", "time_us", "algbw_gbps", "busbw_gbps",
                         "wrong", "min_busbw_gbps"])
        for key, rows in report.tables.items():
            for r in rows:
                writer.writerow([key, report.title(key), r.collective, r.size, f"{r.time_us:.3f}", f"{r.algbw:.6f}",
                                 f"{r.busbw:.6f}", r.wrong, report.threshold(key)])


def _draw(path: str, report: Report) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    figure, axes = plt.subplots(figsize=(10, 6))
    colours = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4)
    styles = {"all_reduce": "o-", "all_gather": "s--", "reduce_scatter": "^--", "broadcast": "v:", "sendrecv": "d:"}
    for key, rows in report.tables.items():
        colour = next(colours)
        for collective in dict.fromkeys(r.collective for r in rows):
            points = sorted((r.size, r.busbw) for r in rows if r.collective == collective)
            axes.plot(*zip(*points, strict=True), styles.get(collective, "o-"), color=colour,
                      label=f"{report.title(key)}: {collective}")
        threshold = report.threshold(key)
        if threshold:
            axes.axhline(threshold, color=colour, ls="-.", lw=1, label=f"{report.title(key)}: threshold {threshold:g}")
    axes.set_xscale("log", base=2)
    axes.xaxis.set_major_formatter(FuncFormatter(lambda size, _: _human(size)))
    axes.set_xlabel("message size (bytes)")
    axes.set_ylabel("bus bandwidth (GB/s)")
    # Log-log as nccl-tests results are usually drawn: small messages are decades below the plateau
    if all(r.busbw > 0 for rows in report.tables.values() for r in rows):
        axes.set_yscale("log")
    axes.grid(alpha=0.3, which="both")
    axes.set_title("app.check: busbw per scope (nccl-tests definitions)")
    axes.legend(fontsize="small", loc="upper left")
    figure.tight_layout()
    with replacing(str(path)) as new:  # a link planted at the path is replaced, not written through
        figure.savefig(new, dpi=100)
    plt.close(figure)


def _human(size: float) -> str:
    for unit, factor in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size >= factor:
            return f"{size / factor:g}{unit}"
    return f"{size:g}"
