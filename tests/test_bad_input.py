"""Every kind of bad input is reported with its path (and line), the rest is ingested, and
nothing already in the index is lost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rag.api import Paperchat
from rag.records import IngestReport
from tests.conftest import SEEDS, write_jsonl

GOOD_ABSTRACT = "We introduce QuillNet, a model that writes poems about graphs. QuillNet beats three baselines on 40 graph datasets."
OTHER_ABSTRACT = "We study how transformers count. Counting emerges after 10,000 steps in models with at least two layers of attention."


def good_file(folder: Path) -> Path:
    return write_jsonl(folder / "good.jsonl", [{"id": "GOOD1", "title": "QuillNet", "abstract": GOOD_ABSTRACT}])


def _empty(folder: Path) -> tuple[Path, int | None, str]:
    path = folder / "empty.txt"
    path.write_text("", encoding="utf-8")
    return path, None, "empty"


def _binary(folder: Path) -> tuple[Path, int | None, str]:
    path = folder / "blob.jsonl"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    return path, None, "binary"


def _latin1(folder: Path) -> tuple[Path, int | None, str]:
    path = folder / "latin1.txt"
    path.write_bytes(("Liste\n\n" + GOOD_ABSTRACT.replace("poems", "poèmes")).encode("latin-1"))
    return path, 3, "not UTF-8"


def _bad_json_line(folder: Path) -> tuple[Path, int | None, str]:
    path = folder / "lines.jsonl"
    path.write_text(f'{{"id": "OK2", "abstract": "{OTHER_ABSTRACT}"}}\n{{"id": "broken", "abstract": \n', encoding="utf-8")
    return path, 2, "not valid JSON"


def _no_abstract_line(folder: Path) -> tuple[Path, int | None, str]:
    path = write_jsonl(folder / "noabs.jsonl", [{"id": "OK2", "abstract": OTHER_ABSTRACT}, {"id": "N", "title": "Only a title"}])
    return path, 2, "no abstract"


def _csv_without_abstract(folder: Path) -> tuple[Path, int | None, str]:
    path = folder / "table.csv"
    path.write_text("title,year\nA paper,2024\n", encoding="utf-8")
    return path, 1, "no abstract column"


def _huge_abstract(folder: Path) -> tuple[Path, int | None, str]:
    path = write_jsonl(folder / "huge.jsonl", [{"id": "OK2", "abstract": OTHER_ABSTRACT}, {"id": "H", "abstract": "word " * 40_000}])
    return path, 2, "over the"


def _folder_without_files(folder: Path) -> tuple[Path, int | None, str]:
    path = folder / "nothing_here"
    path.mkdir()
    (path / "notes.pdf").write_bytes(b"%PDF-1.4")
    return path, None, "no supported files"


def _missing(folder: Path) -> tuple[Path, int | None, str]:
    return folder / "does_not_exist.jsonl", None, "does not exist"


BAD_INPUTS: dict[str, Callable[[Path], tuple[Path, int | None, str]]] = {
    "empty file": _empty,
    "binary file": _binary,
    "not UTF-8": _latin1,
    "JSONL line not JSON": _bad_json_line,
    "JSONL line without abstract": _no_abstract_line,
    "CSV without abstract column": _csv_without_abstract,
    "200 KB abstract": _huge_abstract,
    "folder with no supported files": _folder_without_files,
    "path that does not exist": _missing,
}


@pytest.mark.parametrize("make_bad", BAD_INPUTS.values(), ids=BAD_INPUTS.keys())
def test_bad_input_is_reported_and_loses_nothing(seeded: Paperchat, tmp_path: Path, make_bad) -> None:
    before = {p.paper_id: p for p in seeded.papers()}
    store_before = seeded.seams.store().chunk_ids()
    bad, line, words = make_bad(tmp_path)

    report: IngestReport = seeded.ingest([bad, good_file(tmp_path)])

    assert len(report.errors) == 1, report.errors
    error = report.errors[0]
    assert Path(error.path).name == bad.name
    assert error.line == line
    assert words in error.message
    after = {p.paper_id: p for p in seeded.papers()}
    # The good file beside the bad one was ingested...
    assert "GOOD1" in after
    # ...and every paper already indexed is still there, unchanged, with all its chunks.
    assert all(after[pid] == paper for pid, paper in before.items())
    assert store_before <= seeded.seams.store().chunk_ids()
    assert seeded.search("poems about graphs", k=1).hits[0].paper.paper_id == "GOOD1"


def test_reingesting_a_file_that_turned_bad_removes_nothing(api: Paperchat, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": "A", "abstract": GOOD_ABSTRACT}, {"id": "B", "abstract": OTHER_ABSTRACT}])
    api.ingest([path])
    # A broken edit: line 2 is no longer JSON. Paper B must not vanish from the index.
    path.write_text(f'{{"id": "A", "abstract": "{GOOD_ABSTRACT}"}}\n{{"id": "B", "abstr\n', encoding="utf-8")
    report = api.ingest([path])
    assert report.removed == 0 and len(report.errors) == 1
    assert {p.paper_id for p in api.papers()} == {"A", "B"}


def _good_txt(path: Path) -> None:
    path.write_text(f"My list\n\n{OTHER_ABSTRACT}\n", encoding="utf-8")


def _good_jsonl(path: Path) -> None:
    write_jsonl(path, [{"id": "KEEP", "abstract": OTHER_ABSTRACT}, {"id": "KEEP2", "abstract": GOOD_ABSTRACT}])


def _good_csv(path: Path) -> None:
    path.write_text(f'id,abstract\nKEEP,"{OTHER_ABSTRACT}"\n', encoding="utf-8")


# (file name, writes the good version, turns it bad): a file that was ingested fine and then
# went bad must keep its papers in the index.
TURNED_BAD = {
    "emptied": ("list.txt", _good_txt, lambda p: p.write_text("", encoding="utf-8")),
    "overwritten with binary": ("p.jsonl", _good_jsonl, lambda p: p.write_bytes(b"\x00\x01\x02" * 100)),
    "re-saved as Latin-1": ("list.txt", _good_txt, lambda p: p.write_bytes(("Liste\n\nCafé " + OTHER_ABSTRACT).encode("latin-1"))),
    "a line broken": ("p.jsonl", _good_jsonl, lambda p: p.write_text(f'{{"id": "KEEP", "abstract": "{OTHER_ABSTRACT}"}}\n{{"id": "KEEP2",\n')),
    "abstract column renamed": ("p.csv", _good_csv, lambda p: p.write_text(f'id,summary_text\nKEEP,"{OTHER_ABSTRACT}"\n')),
    "a 200 KB abstract": (
        "p.jsonl",
        _good_jsonl,
        lambda p: write_jsonl(p, [{"id": "KEEP", "abstract": OTHER_ABSTRACT}, {"id": "KEEP2", "abstract": "x " * 100_000}]),
    ),
    "deleted": ("p.jsonl", _good_jsonl, lambda p: p.unlink()),
}


@pytest.mark.parametrize("case", TURNED_BAD.values(), ids=TURNED_BAD.keys())
def test_a_file_that_turned_bad_keeps_its_papers(api: Paperchat, tmp_path: Path, case) -> None:
    name, write_good, make_bad = case
    path = tmp_path / name
    write_good(path)
    api.ingest([SEEDS, path])
    before = {p.paper_id: p for p in api.papers()}
    chunks_before = api.seams.store().chunk_ids()

    make_bad(path)
    report = api.ingest([path])

    assert report.errors and all(Path(e.path).name == name for e in report.errors)
    assert report.removed == 0
    assert {p.paper_id: p for p in api.papers()} == before
    assert api.seams.store().chunk_ids() == chunks_before


def test_an_upload_reusing_an_indexed_id_with_another_abstract_changes_nothing(seeded: Paperchat, tmp_path: Path) -> None:
    from rag.errors import IdClashError

    taken = seeded.papers()[0]
    clash = write_jsonl(tmp_path / "clash.jsonl", [{"id": taken.paper_id, "title": "Not that paper", "abstract": OTHER_ABSTRACT}, {"abstract": GOOD_ABSTRACT}])
    papers_before, chunks_before = seeded.papers(), seeded.seams.store().chunk_ids()
    with pytest.raises(IdClashError, match=rf"1 record\(s\) reuse the id of a paper.*{taken.paper_id}.*Nothing was added"):
        seeded.ingest([clash], add_only=True)
    assert seeded.papers() == papers_before and seeded.seams.store().chunk_ids() == chunks_before
    # The command line may change a paper by its id: that is how an edited abstract is re-indexed.
    assert seeded.ingest([clash]).updated == 1
