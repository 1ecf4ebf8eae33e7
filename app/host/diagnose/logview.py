"""What the whole log says, for the rules whose meaning depends on other lines (which fabric, how many nodes).

A LogView is fed each line once, in order, and keeps one bit per fact: whether any line showed it. So a
log of any length costs the same memory, and a rule asks `log.has(fact)` once the last line was read.
A fact is a pattern (searched case-insensitively in each line) or a function of one line; every fact a
rule may ask about is named when the view is made, so it is looked for while the lines go by.
"""

import re
from typing import Callable, Iterable, List, NamedTuple, Optional, Set, Tuple, Union

from app.host.diagnose.prefilter import alternatives, compiled, required_literals, scan_keys


class LineFact(NamedTuple):  # NamedTuple, not a frozen dataclass: dataclasses are 3.7+, the login nodes run 3.6
    """A fact that a function of one line tells, for what a pattern cannot say in linear time; `words`
    (lower case): one of them is in every line for which `test` is true."""

    test: Callable[[str], bool]
    words: Tuple[str, ...]


Fact = Union[str, LineFact]


class LogView:
    def __init__(self, facts: Iterable[Fact]) -> None:
        # (fact, test, words) per branch of each fact still unseen: a pattern's `a|b` branches are tested
        # apart, each only on lines with its own words (app/host/diagnose/prefilter.py).
        self._open: List[Tuple[Fact, Callable[[str], bool], Optional[Tuple[str, ...]]]] = []
        self._known: Set[Fact] = set()
        for fact in facts:
            self._known.add(fact)
            if isinstance(fact, LineFact):
                self._open.append((fact, fact.test, fact.words))
                continue
            for branch in alternatives(fact):
                search = compiled(branch, re.IGNORECASE).search
                self._open.append((fact, lambda text, s=search: s(text) is not None,
                                   required_literals(branch, re.IGNORECASE)))
        self._seen: Set[Fact] = set()
        self._keys = self._scan_keys()

    def _scan_keys(self) -> Optional[Tuple[str, ...]]:
        words = self.words()
        return None if words is None else scan_keys(words)

    @classmethod
    def of(cls, texts: Iterable[str], facts: Iterable[Fact]) -> "LogView":
        """A view of lines already in memory (tests)."""
        view = cls(facts)
        for text in texts:
            view.feed(text, text.lower())
        return view

    def words(self) -> Optional[Set[str]]:
        """Every word a fact needs (None when a fact has none: then every line must be fed)."""
        found: Set[str] = set()
        for _, _, words in self._open:
            if not words:
                return None
            found.update(words)
        return found

    def feed(self, text: str, lowered: str) -> None:
        """One more line; `lowered` is `text.lower()`, computed once per line by the caller."""
        if self._keys is not None and not any(key in lowered for key in self._keys):
            return
        shown = {fact for fact, test, words in self._open
                 if fact not in self._seen and (words is None or any(w in lowered for w in words)) and test(text)}
        if shown:
            self._seen |= shown
            self._open = [entry for entry in self._open if entry[0] not in shown]
            self._keys = self._scan_keys()

    def has(self, fact: Fact) -> bool:
        """Whether a line showed `fact` (a KeyError for a fact the view was not told to look for)."""
        if fact not in self._known:
            raise KeyError(f"the log view was not asked to look for {fact!r}; add it to app.host.diagnose.causes.FACTS")
        return fact in self._seen
