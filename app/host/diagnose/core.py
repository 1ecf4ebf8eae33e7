"""Reading logs and matching them against the table in app/host/diagnose/causes.py: pure functions, no output.

`diagnose(paths)` reads files and run directories; `diagnose_lines(lines)` judges lines already in memory
(tests, and job-script tests that hold a failed job's output). Both return findings, most likely first.

Bounded for any input: lines are read one at a time and forgotten (a finding keeps its first MAX_KEPT lines
and a count); a line longer than `Limits.max_line_bytes` is cut there; of a file longer than
`Limits.max_file_bytes`, the first quarter of that and the last three quarters are read (the job's setup
and its end), the middle is skipped and said so; only regular files are read (a FIFO or a device is
refused, never waited on). Every pattern is searched only on lines that hold one of its words
(app/host/diagnose/prefilter.py), and no pattern rescans a line from each of its occurrences (linear time).
"""

import re
from bisect import bisect_right
from itertools import accumulate
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Match, NamedTuple, Optional, Pattern, Sequence, Set, Tuple, Union

from app.host.diagnose import layers
from app.host.diagnose.causes import CAUSES, FACTS, Cause
from app.host.diagnose.logview import LogView
from app.host.diagnose.prefilter import alternatives, compiled, required_literals, scan_keys
from app.host.diagnose.reading import Limits, Line, Reading

#: Lines a finding quotes; the rest are counted.
MAX_EVIDENCE = 3
#: Lines a finding keeps (for its fields: the ranks that reported it); the rest are counted.
MAX_KEPT = 50
#: Ranks a finding names (from `[Rank N]` in its lines); the rest are counted.
MAX_RANKS = 32
#: Supporting lines a finding quotes.
MAX_SUPPORT = 2
#: Lines claimed by the generic "job script stopped" rule that are kept until the other rules are judged.
MAX_SCRIPT_ERRORS = 200
_GENERIC = "job-script-error"


class Finding(NamedTuple):  # NamedTuple, not a frozen dataclass: dataclasses are 3.7+, the login nodes run 3.6
    key: str
    cause: str
    fix: str
    evidence: Tuple[Line, ...]
    """The lines that show the cause (the first MAX_KEPT of them)."""
    weight: int
    support: Tuple[Line, ...] = ()
    """Lines that support the reading (the job's node count, the fabric), quoted after the evidence."""
    count: int = 0
    """How many lines show the cause (0: as many as `evidence` holds)."""
    layer: str = ""
    """The layer of the stack it sits in (app/host/diagnose/layers.py)."""
    confidence: str = ""
    """How sure the reading is: "high", "medium", or "layer only" for a verdict that names no cause."""

    @property
    def is_verdict(self) -> bool:
        """A layer verdict (a symptom's layer and what to run next), given only when no cause fits."""
        return self.confidence == "layer only"

    @property
    def lines_shown(self) -> int:
        return max(self.count, len(self.evidence))


def diagnose(paths: Sequence[Union[str, Path]], limits: Optional[Limits] = None) -> List[Finding]:
    """The causes the logs at `paths` show, most likely first (UnreadableInput for a path that cannot be read)."""
    return diagnose_reading(Reading(limits or Limits()), paths)


def diagnose_reading(reading: Reading, paths: Sequence[Union[str, Path]],
                     causes: Sequence[Cause] = CAUSES) -> List[Finding]:
    """`diagnose`, with the Reading that says how much was read and what was left out."""
    engine = _Engine(causes)
    for source, block in reading.blocks_of(paths):
        engine.feed_block(source, block)
    return engine.findings()


def diagnose_lines(lines: Iterable[Union[Line, str]], causes: Sequence[Cause] = CAUSES) -> List[Finding]:
    """The causes `lines` show, most likely first: by the cause's weight, then by where it first shows."""
    engine = _Engine(causes)
    for number, line in enumerate(lines, start=1):
        line = line if isinstance(line, Line) else Line("<log>", number, line)
        engine.feed(line._replace(text=as_printed(line.text)))
    return engine.findings()


class _Matcher:
    """Every cause's patterns and context patterns, indexed by the words a line must hold for each
    (app/host/diagnose/prefilter.py); the facts the whole-log conditions ask about bring their words too."""

    def __init__(self, causes: Sequence[Cause], facts: LogView) -> None:
        # (cause index, is context, compiled) per pattern; a word -> the patterns it may start.
        self.patterns: List[Tuple[int, bool, Pattern[str]]] = []
        self.by_word: Dict[str, List[int]] = {}
        self.always: List[int] = []
        for index, cause in enumerate(causes):
            for is_context, sources, flags in ((False, cause.patterns, 0), (True, cause.context, re.IGNORECASE)):
                # A context pattern only says yes or no: its `a|b` branches are searched apart, each on the
                # lines that hold its own words. A cause's own patterns keep their named groups whole.
                for source in (b for p in sources for b in (alternatives(p) if is_context else [p])):
                    pattern_id = len(self.patterns)
                    self.patterns.append((index, is_context, compiled(source, flags)))
                    words = required_literals(source, flags)
                    if words is None:
                        self.always.append(pattern_id)
                    for word in words or ():
                        self.by_word.setdefault(word, []).append(pattern_id)
        # Every word any pattern or fact needs, as fewer keys: a line with none of them can change nothing.
        fact_words = facts.words()
        self.any_word = None if self.always or fact_words is None else scan_keys(set(self.by_word) | fact_words)
        keys = scan_keys(set(self.by_word))
        self.keys = tuple((key, tuple(w for w in self.by_word if key in w)) for key in keys)

    def candidates(self, lowered: str) -> List[int]:
        found = {pattern_id for key, words in self.keys if key in lowered
                 for word in words if word in lowered for pattern_id in self.by_word[word]}
        return sorted(found.union(self.always))

    def lines_with_words(self, lowered_block: str, starts: List[int]) -> Set[int]:
        """Indexes of the block's lines that hold a word (`starts`: where each line begins in the block)."""
        found: Set[int] = set()
        for word in self.any_word or ():
            at = lowered_block.find(word)
            while at != -1:
                line = bisect_right(starts, at) - 1
                found.add(line)
                if line + 1 >= len(starts):
                    break
                at = lowered_block.find(word, starts[line + 1])
        return found


class _Hits:
    """What one cause's patterns matched so far."""

    def __init__(self) -> None:
        self.kept: List[Tuple[Line, Match[str]]] = []
        self.count = 0
        self.first = -1
        self.ranks: Set[int] = set()
        self.more_ranks = 0
        """Mentions of ranks other than the MAX_RANKS named (a rank seen twice counts twice: memory stays
        bounded)."""
        self.support: List[Line] = []


_RANK = re.compile(r"\[Rank (\d+)\]")
#: A terminal's colour and cursor codes (ECMA-48 CSI: ESC [ parameters final byte): Apptainer's sylog colours its
#: "FATAL:" and "ERROR:" on a terminal, Python's rich and tqdm write them, and a log saved from a terminal (`script`,
#: tmux) keeps them; the programs' words are what is between them.
_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]")


def without_colours(text: str) -> str:
    """`text` without terminal colour codes (unchanged, and not copied, when it has none)."""
    return _ANSI.sub("", text) if "\x1b" in text else text


#: Typographic quotes read as the ASCII ones the programs print: a log pasted through a chat, a wiki or a word
#: processor comes back with "doesn't" as "doesn’t" and 'x' as ‘x’, and every pattern is written with the
#: program's own ASCII quotes. One character for one, so positions and lengths stay as read.
_TYPOGRAPHIC = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_QUOTES = ("\u2018", "\u2019", "\u201c", "\u201d")


def as_printed(text: str) -> str:
    """`text` as its program printed it: without colour codes, with ASCII quotes for typographic ones."""
    text = without_colours(text)
    # str.isascii() is 3.7+: the login nodes run 3.6; most lines hold no quote at all and are not copied.
    return text.translate(_TYPOGRAPHIC) if any(quote in text for quote in _QUOTES) else text


class _Engine:
    """One pass over the lines: each cause's hits (bounded), its supporting lines and the whole-log facts."""

    def __init__(self, causes: Sequence[Cause]) -> None:
        # The layer verdicts ride along after the causes; findings() keeps them only when no cause was found.
        self.causes = (*causes, *layers.VERDICTS)
        self.log = LogView((*FACTS, *layers.FACTS))
        self.matcher = _Matcher(self.causes, self.log)
        self.hits = [_Hits() for _ in self.causes]
        self.position = 0
        # The generic "job script stopped" rule skips lines a specific rule explains; which rules apply is
        # known only at the end, so its lines wait here with the rules that also matched them.
        self.script_errors: List[Tuple[int, Line, Match[str], FrozenSet[int]]] = []
        self.generic = next((i for i, c in enumerate(self.causes) if c.key == _GENERIC), -1)

    def feed_block(self, source: str, block: List[Tuple[int, str]]) -> None:
        """Lines of one file: only those that hold a word some pattern or fact needs are looked at."""
        block = [(number, as_printed(text)) for number, text in block]
        joined = "\n".join(text for _, text in block)
        lowered = joined.lower()
        if self.matcher.any_word is None or len(lowered) != len(joined):  # a letter whose lower case is longer
            for number, text in block:
                self.feed(Line(source, number, text))
            return
        starts = [0, *accumulate(len(text) + 1 for _, text in block)][:-1]
        first = self.position
        for index in sorted(self.matcher.lines_with_words(lowered, starts)):
            number, text = block[index]
            self.position = first + index
            self.feed(Line(source, number, text))
        self.position = first + len(block)

    def feed(self, line: Line) -> None:
        text = line.text
        lowered = text.lower()
        self.log.feed(text, lowered)
        matched: Dict[int, Match[str]] = {}
        context: Set[int] = set()
        for pattern_id in self.matcher.candidates(lowered):
            index, is_context, pattern = self.matcher.patterns[pattern_id]
            if is_context and (index in context or len(self.hits[index].support) >= MAX_SUPPORT):
                continue
            if not is_context and index in matched:
                continue
            found = pattern.search(text)
            if found and is_context:
                context.add(index)
            elif found:
                matched[index] = found
        for index, found in matched.items():
            if index == self.generic:
                if len(self.script_errors) < MAX_SCRIPT_ERRORS:
                    self.script_errors.append((self.position, line, found, frozenset(matched) - {index}))
                continue
            self._record(index, line, found, self.position)
        for index in context - set(matched):
            if len(self.hits[index].support) < MAX_SUPPORT:
                self.hits[index].support.append(line)
        self.position += 1

    def _record(self, index: int, line: Line, found: Match[str], position: int) -> None:
        hit = self.hits[index]
        hit.count += 1
        if hit.first < 0:
            hit.first = position
        if len(hit.kept) < MAX_KEPT:
            hit.kept.append((line, found))
        if "[Rank " in line.text:
            for rank in map(int, _RANK.findall(line.text)):
                if len(hit.ranks) < MAX_RANKS:
                    hit.ranks.add(rank)
                elif rank not in hit.ranks:
                    hit.more_ranks += 1

    def findings(self) -> List[Finding]:
        causes, hits = self.causes, self.hits
        applying = {i for i, cause in enumerate(causes) if cause.applies is None or cause.applies(self.log)}
        for position, line, found, others in self.script_errors:
            if not others & {i for i in applying if hits[i].count}:
                self._record(self.generic, line, found, position)
        ranked: List[Tuple[int, int, Finding]] = []
        for index in sorted(applying):
            cause, hit = causes[index], hits[index]
            if not hit.count:
                continue
            if cause.hits_show is not None and not cause.hits_show([found for _, found in hit.kept]):
                continue
            evidence = tuple(line for line, _ in hit.kept)
            fields = _fields(hit.kept[0][1], hit.ranks, hit.more_ranks)
            layer, confidence = layers.place(cause.key)
            finding = Finding(cause.key, _fill(cause.cause, fields), _fill(cause.fix, fields), evidence,
                              cause.weight, tuple(hit.support), hit.count, layer, confidence)
            ranked.append((-cause.weight, hit.first, finding))
        found = [finding for *_, finding in sorted(ranked, key=lambda item: (item[0], item[1]))]
        causes_found = [finding for finding in found if not finding.is_verdict]
        return causes_found or found


def _fields(match: Match[str], ranks: Set[int], more: int) -> Dict[str, str]:
    fields = {name: value for name, value in match.groupdict().items() if value is not None}
    fields["ranks"] = ", ".join(map(str, sorted(ranks))) if ranks else "not named in the log"
    if more:
        fields["ranks"] += f" and others ({more} more mention(s))"
    return fields


def _fill(template: str, fields: Dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: fields.get(m.group(1), m.group(0)), template)


def format_findings(findings: Sequence[Finding], lines_read: int, sources: Sequence[str]) -> str:
    """The report for people: each cause, the lines that show it, and the fix."""
    if not findings:
        return (f"nothing recognised in {lines_read} line(s) of {', '.join(sources)}.\n"
                "`python -m app.diagnose --list` shows what it knows; a rerun with NCCL_DEBUG=INFO (and "
                "TORCH_DISTRIBUTED_DEBUG=DETAIL) logs more of what NCCL and torch saw.")
    out = []
    for rank, finding in enumerate(findings, start=1):
        out.append(f"{rank}. {finding.cause} [{finding.key}]")
        if finding.layer:
            out.append(f"   layer: {finding.layer}; confidence: {finding.confidence}")
        for line in finding.evidence[:MAX_EVIDENCE]:
            out.append(f"   {line.where()}: {_clip(line.text.strip())}")
        if finding.lines_shown > MAX_EVIDENCE:
            out.append(f"   ... and {finding.lines_shown - MAX_EVIDENCE} more line(s)")
        for line in finding.support:
            out.append(f"   {line.where()}: {_clip(line.text.strip())}  (context)")
        out.append(f"   fix: {finding.fix}")
    return "\n".join(out)


def _clip(text: str, width: int = 200) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
