"""The config loader (app/common/typedconfig.py) on any file and any override: a config or a UsageError."""

from __future__ import annotations

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from app.check.options import CheckSettings
from app.common.typedconfig import load_config
from app.host.common.errors import UsageError
from app.train.config import Config
from tests.bounded import within
from tests.properties.strategies import SECONDS_PER_EXAMPLE, fresh_directory, json_values

#: Pieces of YAML that reach the loader's corners: sections, aliases and anchors, merge keys, tags (a
#: Python tag is what a safe loader must refuse), complex keys, flow collections, quoting, special numbers.
FRAGMENTS = ["train:", "optim:", "run:", "data:", "\n", "\n  ", "batch_size:", "lr:", "dir:", "max_steps:", " ",
             "&a ", "*a", "&b ", "*b", "<<: *a", "[", "]", "{", "}", ": ", "- ", "? ", ",", "'", '"', "#",
             "!!python/object/apply:os.system ['true']", "!!binary aGk=", "0x1f", "1e3", ".nan", ".inf", "~", "null",
             "yes", "2024-01-01", "\t", "\ufeff", "\x85", "%YAML 1.1\n---\n", "---\n", "...\n"]
yamlish = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=40).map("".join)
sections = st.dictionaries(st.sampled_from(["train", "optim", "run", "data", "snapshot", "dist", "x"]),
                           st.dictionaries(st.sampled_from(["batch_size", "lr", "dir", "max_steps", "every", "name",
                                                            "epochs", "y"]), json_values, max_size=4) | json_values,
                           max_size=4).map(lambda data: yaml.safe_dump(data, allow_unicode=True))


def nested_document(depth: int, opener: str) -> str:
    """`train:` holding `depth` levels of flow lists, flow mappings or block lists."""
    if opener == "- ":
        return "train:" + "".join("\n" + "  " * level + "- " for level in range(min(depth, 300))) + "1\n"
    closer = "]" if opener == "[" else "}"
    return "train: " + opener * depth + "1" + closer * depth + "\n"


#: Nesting of any depth (the loader's bound is 32; PyYAML recursed until RecursionError at about 1000), in flow
#: and block style, and numbers of any length (Python refuses to convert more than 4300 digits), inf among them.
depths = st.sampled_from([31, 32, 33, 1500, 3000]) | st.integers(min_value=0, max_value=3000)
nested = st.builds(nested_document, depths, st.sampled_from(["[", "{a: ", "- "]))
numbers = st.builds(lambda key, sign, digits, tail: f"{key}{sign}{'9' * digits}{tail}}}\n",
                    st.sampled_from(["train: {batch_size: ", "dist: {timeout_s: ", "optim: {lr: "]),
                    st.sampled_from(["", "-", "."]), st.integers(min_value=1, max_value=6000),
                    st.sampled_from(["", ".5", "e+400", ".0e+400"]))
documents = (nested.map(str.encode) | numbers.map(str.encode) | yamlish.map(str.encode) | sections.map(str.encode)
             | st.text().map(str.encode) | st.binary())


def load(settings_class: type, data: bytes, overrides: list[str]) -> None:
    with fresh_directory() as directory:
        path = directory / "config.yaml"
        path.write_bytes(data)
        try:
            with within(SECONDS_PER_EXAMPLE):
                load_config(settings_class, str(path), overrides)
        except UsageError as err:
            assert "\n" not in str(err).strip(), "one line"
            assert len(str(err)) < 2000, "a message quotes a value cut short"


#: The hostile files the loader once failed on, tried first every run (the draw reaches them only by chance)
HOSTILE = [nested_document(3000, "[").encode(), nested_document(3000, "{a: ").encode(),
           b"train: {batch_size: " + b"7" * 5001 + b"}\n", b"dist: {timeout_s: .inf}\n"]


def hostile_examples(test):
    for data in HOSTILE:
        test = example(data)(test)
    return test


@given(documents)
@hostile_examples
def test_any_file_gives_the_trainer_a_config_or_a_usage_error(data):
    load(Config, data, [])


@given(documents)
@hostile_examples
def test_any_file_gives_the_check_its_settings_or_a_usage_error(data):
    load(CheckSettings, data, [])


@given(st.lists(st.text(max_size=30) | st.sampled_from(["train.batch_size=", "optim.lr=", "run.dir=", "=", "a.b.c=1",
                                                         "train=1", "train.batch_size.x=1"]), max_size=4))
def test_any_override_gives_a_config_or_a_usage_error(overrides):
    load(Config, b"", overrides)
