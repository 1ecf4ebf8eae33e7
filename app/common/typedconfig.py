"""Typed configuration from nested dataclasses: defaults < YAML file < `key=value` overrides.

Generic on purpose: the trainer and the check describe their settings as dataclasses and share this
loader, its error messages and its `--help` listing. Each field's documentation is the string literal
written under it (read from the source with `ast`, so there is one place to document a key).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import difflib
import inspect
import itertools
import math
import reprlib
import textwrap
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

from app.host.common.errors import UsageError

T = TypeVar("T")
#: The longest config file read (the shipped ones are under 2 KB): parsing takes time and memory in its size.
MAX_CONFIG_BYTES = 1 << 20
#: The deepest nesting of a config file: sections hold keys that hold lists (3 levels). PyYAML composes a file
#: by recursion, so a few thousand `[` (20 KB) end in RecursionError without this bound.
MAX_CONFIG_DEPTH = 32
#: Whole numbers a key takes: C's int64, what torch, the timers and the allocators are given.
INT_LIMIT = (1 << 63) - 1
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def load_config(cls: type[T], config_file: str | None, overrides: list[str]) -> T:
    """Build `cls` from its defaults, then the YAML file (if any), then `section.key=value` overrides.

    Precedence: command-line overrides > YAML file > dataclass defaults. Unknown keys, wrong types and
    values that a section's `validate()` rejects raise `UsageError` naming the key and a valid example.
    """
    values: dict[str, Any] = {}
    if config_file is not None:
        values = _read_yaml(config_file, example_line(cls))
        try:  # the file's own mistakes, named with the file (the overrides below name themselves)
            _build(cls, values, prefix="")
        except UsageError as err:
            raise UsageError(f"config file {config_file}: {err}") from None
    for override in overrides:
        key, sep, raw = override.partition("=")
        if not sep or not key:
            raise UsageError(
                f"argument {override!r} is not key=value; example: train.batch_size=32 (see --help for keys)"
            )
        _set_dotted(values, key.strip(), _RawString(raw))
    config = _build(cls, values, prefix="")
    validate_tree(config)
    return config


class _RawString(str):
    """A value typed on the command line: parsed by the field's type rather than by YAML."""


def _shown(value: Any) -> str:
    """`value` as an error message quotes it: its repr, cut short (YAML aliases nest a few hundred bytes of file
    into a value whose whole repr takes gigabytes)."""
    shorter = reprlib.Repr()
    shorter.maxlevel, shorter.maxstring, shorter.maxother = 2, 80, 80
    shorter.maxlist = shorter.maxtuple = shorter.maxdict = shorter.maxset = 4
    return shorter.repr(value)


def _shown_number(value: Any) -> str:
    """A number as an error message quotes it: whole when short, else its first digits and its length."""
    text = value if isinstance(value, str) else repr(value) if isinstance(value, float) else None
    if text is None:  # an int: str() of 4300+ digits is refused by Python itself
        text = str(value) if abs(value) < 10 ** 40 else f"{value.bit_length()}-bit integer"
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _example_settings(config: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """The keys of `config` (dotted) whose default is a number or text that is not empty, with that default."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value):
            yield from _example_settings(value, f"{prefix}{field.name}.")
        elif isinstance(value, (int, float, str)) and not isinstance(value, bool) and value:
            yield prefix + field.name, value


def example_line(cls: type) -> str:
    """A line of a YAML file of `cls`'s settings, as such a file takes it: its first key with a default to show
    ('run: {dir: runs/latest}' for the trainer, 'deadline_s: 60.0' for app.check's site profile, which has no
    sections)."""
    return yaml_line(*next(_example_settings(cls())))


def yaml_line(key: str, value: Any) -> str:
    """`section.key` and its value as one line of a YAML file: 'section: {key: value}'."""
    *sections, leaf = key.split(".")
    line = f"{leaf}: {value}"
    for section in reversed(sections):
        line = f"{section}: {{{line}}}"
    return line


def _example(key: str, raw: bool, value: str, in_yaml: str | None = None) -> str:
    """A valid setting of `key` in the form the wrong one was given: `key=value` for a command-line override, a
    line of the file for a value from a YAML file (whose reader may take no overrides: app.check's site profile)."""
    if raw:
        return f"example: {key}={value}"
    return f"example line: '{yaml_line(key, value if in_yaml is None else in_yaml)}'"


def _read_yaml(path: str, example: str) -> dict[str, Any]:
    import yaml

    file = Path(path)
    try:
        with file.open("rb") as opened:
            text = opened.read(MAX_CONFIG_BYTES + 1).decode()
    except FileNotFoundError:
        raise UsageError(f"config file {path!r} does not exist (relative paths start at {Path.cwd()})") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"config file {path!r} cannot be read ({type(err).__name__}); give a YAML file") from None
    if len(text.encode()) > MAX_CONFIG_BYTES:
        raise UsageError(f"config file {path!r} is larger than {MAX_CONFIG_BYTES >> 20} MiB; a config holds a few "
                         f"sections of keys (e.g. app/train/configs/demo.yaml)")
    try:
        data = yaml.load(text, Loader=_strict_loader())  # a SafeLoader subclass
    except _TooDeep as err:
        raise UsageError(f"config file {path!r} nests values more than {MAX_CONFIG_DEPTH} levels deep (line "
                         f"{err.line}); example line: '{example}'") from None
    except ValueError as err:  # a scalar YAML resolves but Python cannot convert: 5000 digits, month 13
        raise UsageError(f"config file {path!r} holds a value that cannot be read ({_first_line(err)}); example "
                         f"line: '{example}'") from None
    except _DuplicateKey as err:
        raise UsageError(
            f"config file {path!r} gives {err.key!r} twice (lines {err.first} and {err.second}) in one section; "
            "YAML would silently keep only the last: remove one (two sections of one name: merge them)"
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise UsageError(
            f"config file {path!r} is not valid YAML{where}; example line: '{example}'"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UsageError(f"config file {path!r} must hold a mapping of sections, got {type(data).__name__}")
    return data


def _first_line(err: Exception) -> str:
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    return text if len(text) <= 120 else text[:117] + "..."


class _TooDeep(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class _DuplicateKey(Exception):
    def __init__(self, key: Any, first: int, second: int) -> None:
        super().__init__(key)
        self.key, self.first, self.second = key, first, second


def _strict_loader() -> type:
    """yaml.SafeLoader that refuses a key given twice in one mapping (a section or a key repeated) and nesting
    deeper than MAX_CONFIG_DEPTH."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            try:
                if self.depth > MAX_CONFIG_DEPTH:
                    raise _TooDeep(self.peek_event().start_mark.line + 1)
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                line = key_node.start_mark.line + 1
                if not isinstance(key, typing.Hashable):
                    continue  # SafeLoader's own construct_mapping refuses it with a YAML error
                if key in seen:
                    raise _DuplicateKey(key, seen[key], line)
                seen[key] = line
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _set_dotted(values: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = values
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise UsageError(f"key {key!r}: {part!r} is a value, not a section")
        node = child
    node[parts[-1]] = value


def _build(cls: type[T], values: Any, prefix: str) -> T:
    if not isinstance(values, dict):
        raise UsageError(f"{prefix.rstrip('.') or 'config'} must be a section (a mapping), got {_shown(values)}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}  # type: ignore[arg-type]
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        if key not in fields:
            raise UsageError(_unknown_key_message(prefix + str(key), list(fields), prefix, cls))
        hint = hints[key]
        if dataclasses.is_dataclass(hint):
            kwargs[key] = _build(hint, value, prefix + key + ".")
        else:
            kwargs[key] = coerce(value, hint, prefix + key)
    return cls(**kwargs)


def _unknown_key_message(key: str, known: list[str], prefix: str, cls: type) -> str:
    leaf = key.rsplit(".", 1)[-1]
    hints = typing.get_type_hints(cls)
    # A key given without its section (max_steps=3) is meant for a section that has it: train.max_steps
    nested = {f"{prefix}{name}.{f.name}": f.name for name in known if dataclasses.is_dataclass(hints[name])
              for f in dataclasses.fields(hints[name])}
    close = difflib.get_close_matches(leaf, known, n=1)
    matches = [full for full, name in nested.items() if name == leaf] or [
        full for full, name in nested.items() if name in difflib.get_close_matches(leaf, list(nested.values()), n=1)]
    if close:
        hint = f"did you mean {prefix}{close[0]}?"
    elif matches:
        hint = f"did you mean {' or '.join(matches)}?"
    else:
        hint = f"known keys: {', '.join(prefix + k for k in known)}"
    return f"unknown config key {key!r}; {hint} (--help lists every key)"


def coerce(value: Any, hint: Any, key: str) -> Any:
    """Check or convert `value` to the annotated type; a `_RawString` from the command line is parsed."""
    origin = typing.get_origin(hint)
    raw = isinstance(value, _RawString)
    if origin in (Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if type(None) in typing.get_args(hint) and (
            value is None or (isinstance(value, _RawString) and value.lower() in ("none", "null", ""))
        ):
            return None
        return coerce(value, options[0], key)
    if origin is Literal:
        choices = typing.get_args(hint)
        text = str(value) if isinstance(value, (str, int, float)) else None
        if text not in choices:
            raise UsageError(
                f"{key}={_shown(value)} is not one of {', '.join(map(str, choices))}; {_example(key, raw, choices[0])}"
            )
        return text
    if hint is bool:
        if isinstance(value, bool):
            return value
        if raw and value.lower() in _TRUE | _FALSE:
            return value.lower() in _TRUE
        raise UsageError(f"{key}={_shown(value)} is not a boolean; {_example(key, raw, 'true')}")
    if hint is int:
        number = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif raw and len(value) <= 40:  # longer is no int64 (and Python refuses 4300 digits with a ValueError)
            with contextlib.suppress(ValueError):
                number = int(value.replace("_", ""))
        elif raw and value.strip().lstrip("+-").replace("_", "").isdigit():
            number = INT_LIMIT + 1  # a whole number too long to convert: out of range, as it is
        if number is None:
            raise UsageError(f"{key}={_shown(value)} is not an integer; {_example(key, raw, '32')}")
        if abs(number) > INT_LIMIT:
            raise UsageError(f"{key}={_shown_number(value)} is out of range (at most {INT_LIMIT:.1e} either side); "
                             f"{_example(key, raw, '32')}")
        return number
    if hint is float:
        number = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = float(value) if abs(value) <= INT_LIMIT or isinstance(value, float) else math.inf
        elif raw and len(value) <= 40:
            with contextlib.suppress(ValueError):
                number = float(value)
        if number is None:
            raise UsageError(f"{key}={_shown(value)} is not a number; {_example(key, raw, '0.001')}")
        if not math.isfinite(number):  # inf passes `> 0` checks, then overflows a timer or a timedelta
            raise UsageError(f"{key}={_shown_number(value)} is not a finite number; {_example(key, raw, '0.001')}")
        return number
    if hint is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise UsageError(f"{key}={_shown(value)} is not a string; {_example(key, raw, 'text')}")
    if origin in (list, tuple):
        (item_type, *_) = typing.get_args(hint) or (str,)
        items = [v.strip() for v in value.split(",") if v.strip()] if raw else value
        if not isinstance(items, list):
            raise UsageError(f"{key}={_shown(value)} is not a list; {_example(key, raw, '1,2,4', '[1, 2, 4]')}")
        converted = [coerce(_RawString(v) if raw else v, item_type, key) for v in items]
        return tuple(converted) if origin is tuple else converted
    raise TypeError(f"unsupported config type {hint!r} for {key}")


def validate_tree(config: Any) -> None:
    """Call `validate()` on every section that defines one (sections check their own value ranges)."""
    for field in dataclasses.fields(config):
        value = getattr(config, field.name)
        if dataclasses.is_dataclass(value):
            validate_tree(value)
    validate = getattr(config, "validate", None)
    if callable(validate):
        validate()


def to_dict(config: Any) -> dict[str, Any]:
    """Plain nested dict (YAML/JSON-safe, and loadable with `torch.load(weights_only=True)`)."""
    return dataclasses.asdict(config)


def field_docs(cls: type) -> dict[str, str]:
    """The string literal under each field of a dataclass, read from its source."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):
        return {}
    docs: dict[str, str] = {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def describe(cls: type, prefix: str = "") -> list[str]:
    """One line per key, `section.key = default  doc`, for `--help`."""
    lines: list[str] = []
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    instance = cls()
    for field in dataclasses.fields(instance):
        hint = hints[field.name]
        if dataclasses.is_dataclass(hint):
            lines.extend(describe(hint, prefix + field.name + "."))
            continue
        default = getattr(instance, field.name)
        lines.append(f"  {prefix + field.name} = {default!r}")
        if field.name in docs:
            lines.append(f"      {docs[field.name]}")
    return lines
