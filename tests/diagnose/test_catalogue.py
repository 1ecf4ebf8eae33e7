"""docs/diagnose.md is what `python -m app.host.diagnose.catalogue` renders from the tables, and every cause has a
layer and a confidence (app/host/diagnose/layers.py)."""

from __future__ import annotations

from pathlib import Path

from app.host.diagnose.catalogue import main, render
from app.host.diagnose.causes import CAUSES
from app.host.diagnose.layers import BY_LAYER, HIGH, MEDIUM, PLACES, VERDICT_LAYER, VERDICTS

REPO = Path(__file__).resolve().parents[2]


def test_the_committed_catalogue_is_the_generated_one() -> None:
    committed = (REPO / "docs/diagnose.md").read_text()
    assert committed == render(), "regenerate it: python -m app.host.diagnose.catalogue --write docs/diagnose.md"


def test_every_cause_and_verdict_is_listed_once() -> None:
    text = render()
    for entry in (*CAUSES, *VERDICTS):
        assert text.count(f"| `{entry.key}` |") == 1, entry.key


def test_every_cause_has_a_layer_and_a_confidence_and_no_other_key_does() -> None:
    assert set(PLACES) == {cause.key for cause in CAUSES}
    for key, (layer, confidence) in PLACES.items():
        assert layer in BY_LAYER and confidence in (HIGH, MEDIUM), key


def test_verdicts_are_named_as_such_and_sit_in_a_layer() -> None:
    assert set(VERDICT_LAYER) == {verdict.key for verdict in VERDICTS}
    assert not set(VERDICT_LAYER) & set(PLACES)
    for key, layer in VERDICT_LAYER.items():
        assert key.startswith("layer-") and layer in BY_LAYER, key


def test_write_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "diagnose.md"
    target.write_text("stale")
    assert main(["--write", str(target)]) == 0
    assert target.read_text() == render() and [p.name for p in tmp_path.iterdir()] == ["diagnose.md"]
