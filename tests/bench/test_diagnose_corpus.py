"""The corpus bench (bench/diagnose_corpus.py) on a small corpus written here: each case is judged by
app.diagnose's public entry and counted once as right first, recognised nothing, a layer verdict only, wrong
cause, or (a negative) clean or false cause; the table and the list of causes still missed follow from those
counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.diagnose_cases import CorpusError, load_cases, measure
from bench.diagnose_corpus import heading, main

TIME_LIMIT = "slurmstepd: error: *** JOB 18886 ON n1 CANCELLED AT 2023-11-24T10:25:54 DUE TO TIME LIMIT ***"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"
#: NCCL's generic code for a system error: a layer (the fabric), no cause
SYSTEM_ERROR = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                "NCCLUtils.hpp:268, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5")


def write_case(directory: Path, name: str, cause: str, log: str) -> None:
    body = "".join(f"  {line}\n" for line in log.splitlines())
    (directory / f"{name}.yaml").write_text(
        f"url: https://example.org/{name}\ncause: {cause}\nresolution: \"a maintainer said so\"\nlog: |\n{body}")


@pytest.fixture
def small_corpus(tmp_path: Path) -> Path:
    write_case(tmp_path, "right", "walltime", TIME_LIMIT)
    write_case(tmp_path, "missed", "a-cause-not-known", "something no rule knows went wrong")
    write_case(tmp_path, "wrong", "memlock-too-low", OOM)
    write_case(tmp_path, "layer", "mtu-mismatch", SYSTEM_ERROR)
    write_case(tmp_path, "clean", "none", "WARNING: a harmless warning")
    write_case(tmp_path, "false", "none", OOM)
    return tmp_path


def test_each_case_is_counted_once_as_right_nothing_layer_wrong_clean_or_false(small_corpus: Path) -> None:
    tally = measure(load_cases(small_corpus))
    assert (tally.right, tally.nothing, tally.layer, tally.wrong) == (1, 1, 1, 1)
    assert [v.said for v in tally.verdicts if v.case.name == "layer"] == [["layer-fabric-error"]]
    assert (tally.negatives, tally.false_causes) == (2, 1)
    assert [v.case.name for v in tally.verdicts if v.outcome == "wrong"] == ["wrong"]
    assert [v.said for v in tally.verdicts if v.case.name == "wrong"] == [["cuda-oom"]]


def test_the_report_has_a_row_per_cause_and_lists_the_causes_still_missed(small_corpus: Path, capsys) -> None:
    assert main(["--corpus", str(small_corpus)]) == 0
    out = capsys.readouterr().out
    assert "| walltime | yes | 1 | 1 | 0 | 0 | 0 |" in out
    assert "| a-cause-not-known | no | 1 | 0 | 1 | 0 | 0 |" in out
    assert "| mtu-mismatch | no | 1 | 0 | 0 | 1 | 0 |" in out
    assert "| memlock-too-low | yes | 1 | 0 | 0 | 0 | 1 |" in out
    missed = out.split("Causes still missed")[1]
    assert "a-cause-not-known" in missed and "memlock-too-low" in missed and "walltime" not in missed
    assert "false" in out.split("False cause on a negative")[1]


def test_a_case_without_its_source_is_refused_naming_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "no-url.yaml").write_text("cause: walltime\nresolution: x\nlog: |\n  line\n")
    with pytest.raises(CorpusError, match=r"no-url\.yaml.*url"):
        load_cases(tmp_path)


def test_the_markdown_section_is_written_only_when_asked(small_corpus: Path, tmp_path: Path) -> None:
    markdown = tmp_path / "BENCHMARKS.md"
    main(["--corpus", str(small_corpus)])
    assert not markdown.exists()
    main(["--corpus", str(small_corpus), "--markdown", str(markdown)])
    # each corpus its own section: the held-out corpus's score stands beside the first's, never over it
    assert f"<!-- bench.diagnose_corpus.{small_corpus.name}: begin -->" in markdown.read_text()


def test_each_held_out_corpus_gets_a_heading_of_its_own() -> None:
    """BENCHMARKS.md's headings name one section each (tests/bench/test_seams.py): the seventh corpus's section
    came out under the first one's heading."""
    titles = [heading("corpus", False), heading("held_out", True),
              *(heading(f"held_out_{n}", True) for n in range(2, 10))]
    assert len(set(titles)) == len(titles)
    assert heading("held_out_7", True) == "## app.diagnose on the seventh held-out corpus"
