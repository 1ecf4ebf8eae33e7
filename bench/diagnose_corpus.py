"""`python -m app.diagnose` measured on real users' failure logs: the corpus in tests/diagnose/corpus/.

    python -m bench.diagnose_corpus [--corpus tests/diagnose/corpus] [--markdown BENCHMARKS.md]
    python -m bench.diagnose_corpus --corpus tests/diagnose/held_out [--markdown BENCHMARKS.md]

The cases and how each is judged: bench/diagnose_cases.py. Each corpus has its own section.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.host.diagnose.causes import BY_KEY
from app.host.diagnose.layers import VERDICT_LAYER
from bench.diagnose_cases import CORPUS, HELD_OUT, NEGATIVE, CorpusError, Tally, Verdict, load_cases, measure
from bench.markdown import publish

SECTION = "bench.diagnose_corpus"
#: What each corpus measures, said under its table
ABOUT = {
    CORPUS: "Most causes were written from these same logs' sources (the programs' messages, cited in "
            "app/host/diagnose/causes.py), so this is recall on the logs the rules were shaped by.",
    HELD_OUT: "Gathered apart from the tool by two gatherers who never ran it, each case's cause set from the "
              "thread's words and the vocabulary's one-line descriptions (a new id where no key fits), frozen in "
              "the repository (tests/diagnose/held_out/README.md) and then scored once: recall on failures the "
              "causes were not written from.",
}


#: held_out_N's heading names its place among the held-out corpora: BENCHMARKS.md's headings name one section each
ORDINALS = {2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth", 9: "ninth"}


def heading(corpus: str, held_out: bool) -> str:
    """The section's heading: the first held-out corpus and the development corpus by what they measure, later
    held-out corpora (held_out_N) by their place."""
    number = corpus.rpartition("_")[2]
    if corpus.startswith("held_out_") and number.isdigit() and int(number) in ORDINALS:
        return f"## app.diagnose on the {ORDINALS[int(number)]} held-out corpus"
    return "## app.diagnose on real users' failure logs" + (" it was not written from" if held_out else "")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def report(tally: Tally, command: str, where: str, about: str) -> str:
    failures, held_out = tally.failures, about == ABOUT[HELD_OUT]
    lines = [
        heading(Path(where).name, held_out),
        "",
        f"Command: `{command}`. {len(tally.verdicts)} cases from public threads ({where}/, each with "
        f"its URL and the cause the thread established): {failures} failures, {tally.negatives} negatives (healthy "
        "runs with alarming lines, errors in the user's own code). A failure whose cause app.diagnose does not "
        f"know yet counts as missed. {about}",
        "",
        "| failures | right cause first | recognised nothing | layer verdict only | wrong cause | negatives "
        "| false cause on a negative |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| {failures} | {tally.right} ({_percent(tally.right, failures)}) | {tally.nothing} | {tally.layer} "
        f"| {tally.wrong} | {tally.negatives} | {tally.false_causes} |",
        "",
        "| cause | known to app.diagnose | cases | right first | nothing | layer only | wrong |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    by_cause: dict[str, list[Verdict]] = {}
    for verdict in tally.verdicts:
        if verdict.case.cause != NEGATIVE:
            by_cause.setdefault(verdict.case.cause, []).append(verdict)
    for cause in sorted(by_cause, key=lambda c: (-len(by_cause[c]), c)):
        verdicts = by_cause[cause]
        counts = [sum(v.outcome == outcome for v in verdicts) for outcome in ("right", "nothing", "layer", "wrong")]
        known = "yes" if cause in BY_KEY or cause in VERDICT_LAYER else "no"
        lines.append(f"| {cause} | {known} | {len(verdicts)} | {' | '.join(map(str, counts))} |")
    lines += ["", "Causes still missed (cause: the cases app.diagnose did not name it first, with what it said):", ""]
    missed = {cause: [v for v in verdicts if v.outcome != "right"] for cause, verdicts in by_cause.items()}
    for cause in sorted(c for c, verdicts in missed.items() if verdicts):
        cases = ", ".join(f"{v.case.name} ({', '.join(v.said) or 'nothing'})" for v in missed[cause])
        lines.append(f"- {cause}: {cases}")
    # A layer verdict names no cause: where one is all app.diagnose said, the case counts as missed (`layer`
    # unless the case's cause is that verdict), and it is listed apart so it is not read as a wrong cause.
    layer_only = [v for v in tally.verdicts if v.said and all(key in VERDICT_LAYER for key in v.said)]
    lines += ["", "Layer verdict only (no cause fitted; app.diagnose named the layer and what to run next): "
              + (", ".join(f"{v.case.name} ({', '.join(v.said)})" for v in layer_only) or "none") + "."]
    false = [v for v in tally.verdicts if v.outcome == "false"]
    lines += ["", "False cause on a negative: " + (", ".join(f"{v.case.name} ({', '.join(v.said)})" for v in false)
                                                    or "none") + "."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="a directory of case files (*.yaml)")
    parser.add_argument("--markdown", type=Path, help="write this section into the file (e.g. BENCHMARKS.md)")
    args = parser.parse_args(argv)
    try:
        cases = load_cases(args.corpus)
    except CorpusError as error:
        print(f"bench.diagnose_corpus: error: {error}", file=sys.stderr)
        return 2
    command = "python -m bench.diagnose_corpus"
    corpus = args.corpus.resolve()
    if corpus != CORPUS:
        command += f" --corpus {args.corpus}"
    where = corpus.relative_to(CORPUS.parents[2]) if corpus.is_relative_to(CORPUS.parents[2]) else corpus
    section = SECTION if corpus == CORPUS else f"{SECTION}.{corpus.name}"
    publish(report(measure(cases), command, str(where), ABOUT.get(corpus, "")), args.markdown, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
