"""`--plot`: a matplotlib picture (log-scale sizes, one line per scope and collective, thresholds drawn), a CSV
where matplotlib is missing, and a sentence where there is nothing to plot."""

import csv
import sys

import matplotlib.colors
import matplotlib.image
import numpy as np
import pytest

from app.check.plot import write_plot
from app.check.report import BandwidthRow, Report


def measured() -> Report:
    rows = [BandwidthRow(c, s, s // 4, "float", "sum", -1, 10.0, s / 1e4, s / 1e4 * 1.5, 0)
            for c in ("all_reduce", "broadcast") for s in (1024, 65536, 1 << 22)]
    return Report([], {"intra:gpu01": rows, "all": rows[:3]},
                  titles={"intra:gpu01": "within node gpu01 (4 ranks)", "all": "all ranks (8)"},
                  thresholds={"intra": 300.0})


def pixels_of(png, colour: str) -> int:
    image = matplotlib.image.imread(str(png))[:, :, :3]
    return int((np.abs(image - np.array(matplotlib.colors.to_rgb(colour))).sum(axis=2) < 0.05).sum())


def test_the_plot_draws_each_scope_in_its_colour_with_its_threshold(tmp_path):
    path = tmp_path / "busbw.png"
    assert write_plot(str(path), measured()) == f"plot: {path}"
    assert matplotlib.image.imread(str(path)).shape[:2] == (600, 1000)
    # One colour per scope (matplotlib's first two): the intra scope's lines and its threshold, the all scope's
    assert pixels_of(path, "#1f77b4") > 300 and pixels_of(path, "#ff7f0e") > 200


def test_without_matplotlib_the_numbers_go_to_a_csv_and_the_line_says_how_to_get_the_picture(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    line = write_plot(str(tmp_path / "busbw.png"), measured())
    assert line == (f"plot: matplotlib is not installed, so the numbers went to {tmp_path / 'busbw.csv'} instead of "
                    f"{tmp_path / 'busbw.png'} (pip install matplotlib, or plot the CSV elsewhere)")
    with (tmp_path / "busbw.csv").open() as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 9 and not (tmp_path / "busbw.png").exists()
    assert rows[0]["scope"] == "intra:gpu01" and rows[0]["min_busbw_gbps"] == "300.0"
    assert float(rows[2]["busbw_gbps"]) == pytest.approx((1 << 22) / 1e4 * 1.5)


def test_nothing_to_plot_is_said_not_silently_skipped(tmp_path):
    node_only = Report(info={"mode": "node-only"})
    assert "--node-only runs no collectives" in write_plot(str(tmp_path / "a.png"), node_only)
    assert "stopped before measuring any collective" in write_plot(str(tmp_path / "b.png"), Report())
    assert not list(tmp_path.iterdir())
