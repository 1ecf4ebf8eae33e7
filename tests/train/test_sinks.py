"""The dashboard sinks' packages (run.tensorboard, run.wandb_project): missing ones are named before the run starts,
with the remedy that works where the trainer runs: pip outside an image, the image extension inside one."""

from __future__ import annotations

import sys
import types

import pytest

from app.common.typedconfig import load_config
from app.train.config import Config
from app.train.sinks import missing_libraries

IN_IMAGE = {"APPTAINER_CONTAINER": "/scratch/me/app.sif"}
SINKS = [
    # (override, module, text the problem names)
    ("run.tensorboard=true", "tensorboard", "run.tensorboard=true needs the tensorboard package"),
    ("run.wandb_project=mine", "wandb", "run.wandb_project='mine' needs the wandb package"),
]


@pytest.fixture
def hidden(monkeypatch: pytest.MonkeyPatch):
    """hidden(module): importing it fails, as where it is not installed."""
    return lambda module: monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.parametrize(("override", "module", "named"), SINKS)
def test_outside_an_image_a_missing_sink_package_says_pip_install(hidden, override, module, named) -> None:
    hidden(module)
    (problem,) = missing_libraries(load_config(Config, None, [override]), environ={})
    assert named in problem and f"pip install {module}" in problem


@pytest.mark.parametrize(("override", "module", "named"), SINKS)
def test_inside_an_image_a_missing_sink_package_says_how_to_extend_the_image(hidden, override, module, named) -> None:
    hidden(module)
    (problem,) = missing_libraries(load_config(Config, None, [override]), environ=IN_IMAGE)
    assert named in problem
    assert (f"make image-extend IMAGE=/scratch/me/app.sif WHEELS=DIR OUT=my.sif PACKAGES={module}" in problem
            and "docs/packages.md" in problem), problem
    assert "pip install" not in problem, "pip cannot install into the read-only image"
    assert "\n" not in problem


@pytest.mark.parametrize(("override", "module", "named"), SINKS)
def test_an_importable_sink_package_is_no_problem(monkeypatch, override, module, named) -> None:
    monkeypatch.setitem(sys.modules, module, types.ModuleType(module))
    assert missing_libraries(load_config(Config, None, [override]), environ=IN_IMAGE) == []
