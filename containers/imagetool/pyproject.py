"""pyproject.toml as a dict, on the build node's own python3: 3.6 has no tomllib (3.11+), and the build job runs on
the standard library alone (jobscripts/build-image.sh).

The TOML a pyproject.toml is written in: tables, dotted and quoted keys, strings (basic, literal, multi-line),
integers, booleans, arrays and inline tables. Anything else (dates, floats, arrays of tables) stops with its line
and a way round; tests/containers/test_appwheel.py keeps the result equal to tomllib's for this project's file.
"""

import re
from pathlib import Path
from typing import Any, Dict, List, Match

from app.host.common.errors import UsageError

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# An integer ends where a date (1979-05-27), a time (07:32) or a float (3.14, 1e6) would go on
_INTEGER = re.compile(r"[+-]?(0|[1-9](_?[0-9])*)(?![0-9.eE:_-])")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}
# An escape: \uXXXX, \UXXXXXXXX, a backslash that ends a line of a multi-line string (it and the blanks after it go),
# or one character
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[ \t]*\n[ \t\n]*|.)", re.DOTALL)


def read_pyproject(root: Path) -> Dict[str, Any]:
    """ROOT/pyproject.toml as tomllib reads it, or a UsageError naming the line it cannot read."""
    path = root / "pyproject.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None
    return loads(text, str(path))


def loads(text: str, name: str = "pyproject.toml") -> Dict[str, Any]:
    return _Reader(text.replace("\r\n", "\n"), name).document()


class _Reader:
    """One pass over the text: `pos` is where reading goes on."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.pos = 0

    def fail(self, what: str) -> UsageError:
        line = self.text.count("\n", 0, self.pos) + 1
        return UsageError(f"{self.name} line {line}: {what}; the image tooling (containers/imagetool/pyproject.py) "
                          "reads TOML without dates, floats or arrays of tables: write it without them")

    def document(self) -> Dict[str, Any]:
        root: Dict[str, Any] = {}
        table = root
        while True:
            self.skip(newlines=True)
            if self.pos == len(self.text):
                return root
            if self.text.startswith("[[", self.pos):
                raise self.fail("an array of tables ([[...]])")
            if self.text[self.pos] == "[":
                self.pos += 1
                table = self.table_at(root, self.keys("]"))
            else:
                keys = self.keys("=")
                self.assign(table, keys, self.value())
            self.end_of_line()

    def table_at(self, root: Dict[str, Any], keys: List[str]) -> Dict[str, Any]:
        table = root
        for key in keys:
            table = table.setdefault(key, {})
            if not isinstance(table, dict):
                raise self.fail(f"[{'.'.join(keys)}] names a key that holds a value")
        return table

    def assign(self, table: Dict[str, Any], keys: List[str], value: Any) -> None:
        table = self.table_at(table, keys[:-1])
        if keys[-1] in table:
            raise self.fail(f"{'.'.join(keys)} is set twice")
        table[keys[-1]] = value

    def skip(self, *, newlines: bool) -> None:
        """Past spaces, tabs and comments, and newlines too where the grammar allows them."""
        blanks = " \t\n" if newlines else " \t"
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in blanks:
                self.pos += 1
            elif char == "#":
                end = self.text.find("\n", self.pos)
                self.pos = len(self.text) if end < 0 else end
            else:
                return

    def end_of_line(self) -> None:
        self.skip(newlines=False)
        if self.pos < len(self.text) and self.text[self.pos] != "\n":
            raise self.fail(f"unexpected {self.text[self.pos]!r}")

    def expect(self, char: str) -> None:
        if not self.text.startswith(char, self.pos):
            raise self.fail(f"expected {char!r}")
        self.pos += 1

    def keys(self, closing: str) -> List[str]:
        """A dotted key up to CLOSING (`=` of a pair, `]` of a table header), which it reads past."""
        keys = []
        while True:
            self.skip(newlines=False)
            if self.text.startswith('"', self.pos) or self.text.startswith("'", self.pos):
                keys.append(self.string())
            else:
                match = _BARE_KEY.match(self.text, self.pos)
                if match is None:
                    raise self.fail("expected a key")
                keys.append(match.group())
                self.pos = match.end()
            self.skip(newlines=False)
            if not self.text.startswith(".", self.pos):
                self.expect(closing)
                return keys
            self.pos += 1

    def value(self) -> Any:
        self.skip(newlines=False)
        char = self.text[self.pos:self.pos + 1]
        if char in ('"', "'"):
            return self.string()
        if char == "[":
            return self.array()
        if char == "{":
            return self.inline_table()
        for word, value in (("true", True), ("false", False)):
            if re.match(word + r"\b", self.text[self.pos:self.pos + 6]):
                self.pos += len(word)
                return value
        match = _INTEGER.match(self.text, self.pos)
        if match is None:
            raise self.fail("a value this reader does not take (a date, a float, or none)")
        self.pos = match.end()
        return int(match.group().replace("_", ""))

    def string(self) -> str:
        for quotes, basic in (('"""', True), ("'''", False), ('"', True), ("'", False)):
            if self.text.startswith(quotes, self.pos):
                self.pos += len(quotes)
                return self.multi_line(quotes, basic) if len(quotes) == 3 else self.single_line(quotes, basic)
        raise self.fail("expected a string")

    def single_line(self, quote: str, basic: bool) -> str:
        start = self.pos
        while True:
            end = self.text.find(quote, self.pos)
            newline = self.text.find("\n", self.pos)
            if end < 0 or 0 <= newline < end:
                raise self.fail("a string that does not end on its line")
            if basic and _ends_in_escape(self.text, start, end):
                self.pos = end + 1
                continue
            self.pos = end + 1
            raw = self.text[start:end]
            return _unescape(raw, self) if basic else raw

    def multi_line(self, quotes: str, basic: bool) -> str:
        if self.text.startswith("\n", self.pos):  # a newline right after the opening quotes is not part of it
            self.pos += 1
        start = self.pos
        while True:
            end = self.text.find(quotes, self.pos)
            if end < 0:
                raise self.fail("a multi-line string that never ends")
            if basic and _ends_in_escape(self.text, start, end):
                self.pos = end + 1
                continue
            # Up to two quotes may end the string right before its closing three: '"""a""""' is 'a"'
            extra = 0
            while extra < 2 and self.text.startswith(quotes[0], end + 3 + extra):
                extra += 1
            end += extra
            self.pos = end + 3
            raw = self.text[start:end]
            return _unescape(raw, self) if basic else raw

    def array(self) -> List[Any]:
        self.expect("[")
        items = []
        while True:
            self.skip(newlines=True)
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return items
            items.append(self.value())
            self.skip(newlines=True)
            if self.text.startswith(",", self.pos):
                self.pos += 1
            elif not self.text.startswith("]", self.pos):
                raise self.fail("expected ',' or ']' in an array")

    def inline_table(self) -> Dict[str, Any]:
        self.expect("{")
        table: Dict[str, Any] = {}
        self.skip(newlines=False)
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return table
        while True:
            keys = self.keys("=")
            self.assign(table, keys, self.value())
            self.skip(newlines=False)
            if self.text.startswith("}", self.pos):
                self.pos += 1
                return table
            self.expect(",")


def _ends_in_escape(text: str, start: int, end: int) -> bool:
    """Is the quote at END escaped: an odd number of backslashes before it (within the string)?"""
    count = 0
    while end - count - 1 >= start and text[end - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _unescape(raw: str, reader: _Reader) -> str:
    def one(match: Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "uU":
            return chr(int(escape[1:], 16))
        if escape.lstrip(" \t").startswith("\n"):
            return ""
        if escape in _ESCAPES:
            return _ESCAPES[escape]
        raise reader.fail(f"an unknown escape \\{escape}")

    return _ESCAPE.sub(one, raw)
