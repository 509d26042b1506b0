from __future__ import annotations

from pathlib import Path

from rag.corpus import abstract_key, hashed_paper_id, load_papers, normalize_whitespace
from tests.conftest import SEEDS, write_jsonl

ABSTRACT_A = "We propose FooNet, a network that counts sheep. On three farms FooNet reaches 97.5% accuracy with half the compute."
ABSTRACT_B = "Large language models forget. We study forgetting across 12 benchmarks and find that replay of 1% of data suffices."


def test_seed_lists_give_51_papers_from_57_paragraphs() -> None:
    result = load_papers([SEEDS])
    assert not result.errors
    assert len(result.files) == 3
    assert len(result.papers) == 51
    sources = [len(p.sources) for p in result.papers]
    # Lists 000 and 001 share six abstracts: 57 paragraphs, 51 papers.
    assert sum(sources) == 57
    assert sources.count(2) == 6


def test_seed_headers_in_any_language_are_not_papers() -> None:
    result = load_papers([SEEDS])
    texts = {p.abstract for p in result.papers}
    assert "ICLR 2026 Papers" not in texts and "ICLR 2026 论文列表" not in texts
    assert all(len(p.abstract) > 300 for p in result.papers)


def test_seed_papers_get_generated_flagged_titles_and_hash_ids() -> None:
    for paper in load_papers([SEEDS]).papers:
        assert paper.title and paper.title_is_generated
        assert paper.paper_id == hashed_paper_id(paper.abstract)
        assert "\n" not in paper.abstract and "  " not in paper.abstract


def test_ids_are_stable_and_whitespace_insensitive() -> None:
    assert hashed_paper_id("a  b\n c") == hashed_paper_id("a b c")
    assert abstract_key(" x y ") == abstract_key("x\ty")
    first = [p.paper_id for p in load_papers([SEEDS]).papers]
    assert first == [p.paper_id for p in load_papers([SEEDS]).papers]


def test_jsonl_aliases_and_optional_fields(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "p.jsonl",
        [
            {"_id": "X1", "title": "FooNet", "text": ABSTRACT_A, "authors": "Ann Lee and Bo Chen", "year": "2024", "primary_area": "vision"},
            {"paper_id": "X2", "summary": ABSTRACT_B, "keywords": "forgetting; replay", "url": "https://example.org/x2"},
        ],
    )
    result = load_papers([path])
    assert not result.errors
    a, b = result.papers
    assert (a.paper_id, a.title, a.title_is_generated, a.authors, a.year) == ("X1", "FooNet", False, ("Ann Lee", "Bo Chen"), 2024)
    assert dict(a.extra) == {"primary_area": "vision"}
    assert a.metadata() == {"primary_area": "vision", "year": 2024}
    assert (b.paper_id, b.keywords, b.url, b.title_is_generated) == ("X2", ("forgetting", "replay"), "https://example.org/x2", True)


def test_csv_with_aliases_and_semicolons(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(f'Title;Abstract Note;Year\n"FooNet";"{ABSTRACT_A}";2023\n;"{ABSTRACT_B}";\n', encoding="utf-8")
    result = load_papers([path])
    assert not result.errors, result.errors
    assert next(p.title for p in result.papers) == "FooNet"
    assert result.papers[0].year == 2023
    assert result.papers[1].title_is_generated


def test_same_abstract_in_two_files_is_one_paper_with_the_real_title(tmp_path: Path) -> None:
    seed = tmp_path / "list.txt"
    seed.write_text(f"My list\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n", encoding="utf-8")
    record = write_jsonl(tmp_path / "r.jsonl", [{"id": "OR1", "title": "FooNet: Counting Sheep", "abstract": "  " + ABSTRACT_A.replace(" ", "\n", 3)}])
    result = load_papers([seed, record])
    assert len(result.papers) == 2
    merged = next(p for p in result.papers if p.paper_id == "OR1")
    assert merged.title == "FooNet: Counting Sheep" and not merged.title_is_generated
    assert merged.sources == (str(seed.resolve()), str(record.resolve()))
    assert merged.abstract == normalize_whitespace(ABSTRACT_A)


def test_duplicate_id_with_a_different_abstract_is_reported(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [{"id": "Z", "abstract": ABSTRACT_A}, {"id": "Z", "abstract": ABSTRACT_B}])
    result = load_papers([path])
    assert len(result.papers) == 1
    assert len(result.errors) == 1 and result.errors[0].line == 2 and "already used" in result.errors[0].message


def test_seed_list_line_numbers_point_at_the_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text(f"Header\n\n{ABSTRACT_A}\n\n\nshort\n", encoding="utf-8")
    result = load_papers([path])
    assert len(result.papers) == 1
    assert [(e.line, "too short" in e.message) for e in result.errors] == [(6, True)]


def test_jsonl_keeps_records_with_raw_line_separators_in_strings(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "U", "abstract": "' + ABSTRACT_A.replace(". ", ".\u2028 ", 1) + '"}\n', encoding="utf-8")
    result = load_papers([path])
    assert not result.errors and len(result.papers) == 1


def test_json_list_and_papers_object(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(f'[{{"id": "J1", "abstract": "{ABSTRACT_A}"}}]', encoding="utf-8")
    (tmp_path / "b.json").write_text(f'{{"papers": [{{"id": "J2", "abstract": "{ABSTRACT_B}"}}]}}', encoding="utf-8")
    (tmp_path / "c.json").write_text('{"title": "not a list"}', encoding="utf-8")
    result = load_papers([tmp_path])
    assert sorted(p.paper_id for p in result.papers) == ["J1", "J2"]
    assert [Path(e.path).name for e in result.errors] == ["c.json"]


def test_authors_in_last_first_form_split_on_semicolons(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"abstract": ABSTRACT_A, "authors": "Doe, John; Smith, Jane"}])
    assert load_papers([path]).papers[0].authors == ("Doe, John", "Smith, Jane")


def test_a_seed_list_with_only_a_header_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text("ICLR 2026 Papers\n", encoding="utf-8")
    result = load_papers([path])
    assert not result.papers and "no abstracts" in result.errors[0].message and not result.files


def test_a_title_id_or_address_as_long_as_a_file_is_refused_with_the_limit(tmp_path: Path) -> None:
    # Seen while writing tests/test_browser_hostile.py: a 1 MB title, id or url was kept without a word,
    # stored, and sent to every page listing the paper (the explorer's table sends every row).
    abstract = "We propose a method for testing very long fields in the records of a corpus. It works."
    huge = "word " * 200_000
    records = [{"abstract": f"{abstract} {field}", field: huge} for field in ("title", "id", "url")]
    records.append({"id": "ok", "title": "T" * 1_000, "url": "https://x.org/" + "a" * 1_900, "abstract": abstract})
    result = load_papers([write_jsonl(tmp_path / "long.jsonl", records)])
    assert [p.paper_id for p in result.papers] == ["ok"]
    assert [(e.line, e.message.split(" is ")[0]) for e in result.errors] == [(1, "title"), (2, "id"), (3, "url")]
    assert all("over the" in e.message and "limit" in e.message for e in result.errors)
