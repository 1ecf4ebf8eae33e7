"""Which words a line must contain before a pattern can match it, so most lines of a long log cost a few
substring tests instead of a regular-expression search per pattern.

`required_literals(pattern)` reads the pattern's syntax tree (Python's own parser, the one `re.compile` uses)
and returns lower-case strings of which every match contains at least one; None where it cannot say (then
the pattern is searched on every line). Lower case on both sides keeps the test valid for patterns that
ignore case: a line that matches contains the literal, and lowering the line lowers it with it.
"""

import re
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Pattern, Set, Tuple

try:  # Python 3.11+: the parser behind re.compile
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10 and older
    import sre_parse  # type: ignore[no-redef]

_c = sre_parse  # the opcode names live on the parser module's constants
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
#: A group's item is (group, add flags, del flags, body); an atomic group's is its body alone.
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)
#: Zero-width items: the literal before and after them are still side by side in the text.
_ZERO_WIDTH = {_c.AT}


# Every diagnosis compiles the same patterns, more than re's own cache keeps (512): without this, a corpus scored
# case by case, or a test suite, compiled all of them again for each log (about 0.2 s a diagnosis on 2 cores).
@lru_cache(maxsize=None)
def compiled(pattern: str, flags: int = 0) -> Pattern[str]:
    """re.compile(PATTERN, FLAGS), once per process."""
    return re.compile(pattern, flags)


@lru_cache(maxsize=None)  # functools.cache is 3.9+: the login nodes run 3.6
def required_literals(pattern: str, flags: int = 0) -> Optional[Tuple[str, ...]]:
    """Lower-case strings of which any match of `pattern` contains one, or None when not known."""
    try:
        tree = sre_parse.parse(pattern, flags)
    except (re.error, TypeError, ValueError):
        return None
    found = _sequence(list(tree))
    return tuple(sorted(found)) if found else None


def _few_chars(op, av) -> List[str]:
    """The characters a one-character item (`\\d`, `[abc]`) may match, when they are ten or fewer; else []."""
    if op == _c.IN and all(kind in (_c.LITERAL, _c.CATEGORY) for kind, _ in av):
        chars: List[str] = []
        for kind, value in av:
            if kind == _c.LITERAL:
                chars.append(chr(value))
            elif value == _c.CATEGORY_DIGIT:
                chars.extend("0123456789")
            else:
                return []
        return chars if len(chars) <= 10 else []
    return []


def _best(candidates: List[FrozenSet[str]]) -> Optional[FrozenSet[str]]:
    """The most selective set: the one whose shortest member is longest."""
    usable = [c for c in candidates if c and all(c)]
    return max(usable, key=lambda c: (min(map(len, c)), -len(c))) if usable else None


def _sequence(items: list) -> Optional[FrozenSet[str]]:
    candidates: List[FrozenSet[str]] = []
    run: List[str] = []

    def close_run() -> None:
        if run:
            candidates.append(frozenset({"".join(run).lower()}))
            run.clear()

    for op, av in items:
        if op == _c.LITERAL:
            run.append(chr(av))
            continue
        if op in _ZERO_WIDTH:
            continue
        chars = _few_chars(op, av)
        if run and chars:  # `ib\d`: the words ib0 ... ib9, not the two letters alone (they are in "Libfabric")
            candidates.append(frozenset("".join(run).lower() + c.lower() for c in chars))
        close_run()
        if op == _c.SUBPATTERN or op == _ATOMIC:
            inner = _sequence(list(av[-1] if op == _c.SUBPATTERN else av))
            if inner:
                candidates.append(inner)
        elif op == _c.BRANCH:
            branches = [_sequence(list(b)) for b in av[1]]
            if all(branches):
                candidates.append(frozenset().union(*branches))
        elif op in _REPEATS and av[0] >= 1:
            inner = _sequence(list(av[2]))
            if inner:
                candidates.append(inner)
    close_run()
    return _best(candidates)


def alternatives(pattern: str) -> List[str]:
    """The top-level `a|b|c` branches of a pattern, each a pattern of its own (a line matches the whole iff it
    matches one of them). Searched one by one, each branch needs only its own words: a line that holds the
    short word of one branch (`ib` of `\\bib\\d`) costs that branch's search, not the whole alternation's.
    A pattern with global inline flags (`(?i)...`) is not split."""
    if pattern.startswith("(?") and re.match(r"\(\?[aiLmsux]+\)", pattern):
        return [pattern]
    branches, depth, in_class, start, i = [], 0, False, 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            i += 1 + (pattern[i + 1:i + 2] == "^")
            i += pattern[i:i + 1] == "]"  # `[]...]` and `[^]...]`: a literal ] first
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            branches.append(pattern[start:i])
            start = i + 1
        i += 1
    branches.append(pattern[start:])
    return branches


def scan_keys(words: Set[str]) -> Tuple[str, ...]:
    """Fewer strings to look for in a whole block of lines, such that every word contains one of them: words
    that differ only in their last character (ib0 ... ib9) are looked for by what they share, and a word that
    contains another is dropped. A line that holds a key is then checked for the words themselves."""
    return _scan_keys(frozenset(words))


# Every diagnosis builds its matcher from the same causes, and the containment check is quadratic in the words
# (about 0.25 s on 2 cores): a corpus scored case by case, or a test suite, asks for the same few sets again.
@lru_cache(maxsize=16)
def _scan_keys(words: FrozenSet[str]) -> Tuple[str, ...]:
    by_stem: Dict[str, List[str]] = {}
    for word in words:
        by_stem.setdefault(word[:-1], []).append(word)
    keys = set()
    for stem, group in by_stem.items():
        keys.update([stem] if len(group) >= 3 and len(stem) >= 2 else group)
    return tuple(sorted(k for k in keys if not any(other != k and other in k for other in keys)))
