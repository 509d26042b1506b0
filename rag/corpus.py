"""Read abstracts from seed lists (.txt), JSON Lines, JSON and CSV into `Paper`s.

Pure: reads files, touches no index. Every problem becomes an `IngestError` with its path
(and line), and the rest of the input is still read, so one bad line never costs a corpus.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from rag.labels import make_label
from rag.records import IngestError, LoadResult, Paper

log = logging.getLogger(__name__)

SUPPORTED_SUFFIXES = (".txt", ".jsonl", ".json", ".csv")

# Field aliases, most specific first. They cover the exports users bring: OpenReview and
# Paper Copilot (`abstract`), BEIR (`_id`, `text`), Semantic Scholar (`paperId`,
# `abstractText`), arXiv dumps (`summary`), Zotero/Scholar CSVs (`Abstract Note`, `Title`).
ABSTRACT_KEYS = ("abstract", "abstracttext", "abstract_text", "abstractnote", "abstract_note", "summary", "text")
ID_KEYS = ("id", "paper_id", "paperid", "_id", "openreview_id", "forum", "arxiv_id", "doi")
TITLE_KEYS = ("title", "paper_title", "papertitle")
AUTHOR_KEYS = ("authors", "author", "author_names")
URL_KEYS = ("url", "link", "pdf_url", "paper_url", "html_url")
KEYWORD_KEYS = ("keywords", "keyword", "tags", "manual_tags")
VENUE_KEYS = ("venue", "conference", "journal", "publication_title")
YEAR_KEYS = ("year", "publication_year", "pub_year")
KNOWN_KEYS = frozenset(ABSTRACT_KEYS + ID_KEYS + TITLE_KEYS + AUTHOR_KEYS + URL_KEYS + KEYWORD_KEYS + VENUE_KEYS + YEAR_KEYS)

# A real abstract is ~1,400 characters; under 40 it is a stray line, not a paper.
MIN_ABSTRACT_CHARS = 40
# A seed list's first paragraph is its header ("ICLR 2026 Papers", "ICLR 2026 论文列表")
# when it is one short line; an abstract is a long paragraph.
MAX_HEADER_CHARS = 200
# Extra scalar fields longer than this are prose, not filterable metadata.
MAX_EXTRA_VALUE_CHARS = 200
# Past these a title, id or address is some other text (the longest ICLR 2026 title has 157
# characters): refused, not stored and sent to every page that lists the paper.
MAX_FIELD_CHARS = {"title": 1_000, "id": 200, "url": 2_000}
# Python's csv module refuses fields over 128 KiB with an opaque error; raise the limit so a
# 200 KB "abstract" reaches our own length check and gets a message that says what to do.
CSV_FIELD_LIMIT_CHARS = 64 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192

_WHITESPACE = re.compile(r"\s+")


def normalize_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def abstract_key(abstract: str) -> str:
    """The de-duplication key: the same abstract, whitespace aside, is the same paper."""
    return hashlib.sha256(normalize_whitespace(abstract).encode("utf-8")).hexdigest()[:16]


def hashed_paper_id(abstract: str) -> str:
    # 12 hex digits = 48 bits: a collision among a million abstracts has odds ~2e-3,
    # and the id stays short enough to read in a URL or a log line.
    return abstract_key(abstract)[:12]


@dataclass
class _Record:
    """One parsed record before de-duplication (mutable while merging)."""

    abstract: str
    path: str
    line: int
    record_id: str = ""
    title: str = ""
    authors: tuple[str, ...] = ()
    url: str = ""
    keywords: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


def load_papers(paths: Sequence[str | Path], max_abstract_chars: int = 20_000, label: Callable[[str], str] | None = make_label) -> LoadResult:
    """Read every supported file under `paths`; de-duplicate by abstract; `label` titles a paper no
    copy of which has a title (None: left empty, for `LoadResult.titled` once the ingest has its stores)."""
    errors: list[IngestError] = []
    records: list[_Record] = []
    files: list[str] = []
    for path in _expand(paths, errors):
        text = _read_text(path, errors)
        if text is None:
            continue
        errors_before = len(errors)
        for item in _parse(path, text):
            if isinstance(item, IngestError):
                errors.append(item)
            elif (problem := _check_record(item, max_abstract_chars)) is not None:
                errors.append(IngestError(item.path, problem, item.line))
            else:
                records.append(item)
        # Only a file read without a single error may later remove papers that are no longer
        # in it: a broken edit to line 5 must not delete paper 5 from the index.
        if len(errors) == errors_before:
            files.append(str(path))
    loaded = LoadResult(papers=tuple(merge_records(records, errors)), errors=tuple(errors), files=tuple(files))
    return loaded.titled(label) if label else loaded


def _expand(paths: Sequence[str | Path], errors: list[IngestError]) -> Iterator[Path]:
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw).expanduser()
        if not path.exists():
            errors.append(IngestError(str(raw), "path does not exist; check the spelling or run from the project folder"))
            continue
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES)
            if not found:
                errors.append(IngestError(str(raw), f"folder has no supported files ({', '.join(SUPPORTED_SUFFIXES)})"))
            candidates = found
        elif path.suffix.lower() not in SUPPORTED_SUFFIXES:
            errors.append(
                IngestError(str(raw), f"unsupported file type {path.suffix or '(none)'}; use {', '.join(SUPPORTED_SUFFIXES)}")
            )
            continue
        else:
            candidates = [path]
        for candidate in candidates:
            resolved = candidate.resolve()
            if resolved not in seen:
                seen.add(resolved)
                yield resolved


def _read_text(path: Path, errors: list[IngestError]) -> str | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        errors.append(IngestError(str(path), f"cannot read file: {exc.strerror or exc}"))
        return None
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        errors.append(IngestError(str(path), "binary file, not text; give a .txt, .jsonl, .json or .csv file"))
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        errors.append(
            IngestError(
                str(path),
                f"not UTF-8 text (byte {exc.start}); convert it, e.g. `iconv -f latin1 -t utf-8 in > out`",
                line,
            )
        )
        return None
    if not text.strip():
        errors.append(IngestError(str(path), "file is empty"))
        return None
    return text


def _parse(path: Path, text: str) -> Iterable[_Record | IngestError]:
    suffix = path.suffix.lower()
    if suffix == ".txt":
        return _parse_seed_list(path, text)
    if suffix == ".jsonl":
        return _parse_jsonl(path, text)
    if suffix == ".json":
        return _parse_json(path, text)
    return _parse_csv(path, text)


def _parse_seed_list(path: Path, text: str) -> Iterator[_Record | IngestError]:
    """Header line, blank line, then one abstract per blank-line separated paragraph."""
    found = False
    for position, (line, paragraph) in enumerate(_paragraphs(text)):
        if position == 0 and "\n" not in paragraph and len(paragraph) <= MAX_HEADER_CHARS:
            continue  # the list's header
        found = True
        yield _Record(abstract=normalize_whitespace(paragraph), path=str(path), line=line)
    if not found:
        yield IngestError(str(path), "no abstracts found: a seed list is a header line, a blank line, then abstracts separated by blank lines")


def _paragraphs(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each blank-line separated paragraph."""
    lines: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
        elif lines:
            yield start, "\n".join(lines)
            lines = []
    if lines:
        yield start, "\n".join(lines)


def _parse_jsonl(path: Path, text: str) -> Iterator[_Record | IngestError]:
    # Not str.splitlines(): it also splits on U+2028, U+2029 and \x85, which JSON allows raw
    # inside strings, and would cut a valid record in two.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield IngestError(str(path), f"not valid JSON ({exc.msg}); each line must be one JSON object", number)
            continue
        yield _from_mapping(obj, path, number)


def _parse_json(path: Path, text: str) -> Iterator[_Record | IngestError]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        yield IngestError(str(path), f"not valid JSON ({exc.msg})", exc.lineno)
        return
    items = obj.get("papers") if isinstance(obj, dict) else obj
    if not isinstance(items, list):
        yield IngestError(str(path), 'expected a JSON list of paper objects (or {"papers": [...]})')
        return
    for number, item in enumerate(items, start=1):
        # JSON arrays have no meaningful line numbers; report the record's 1-based position.
        yield _from_mapping(item, path, number)


def _parse_csv(path: Path, text: str) -> Iterator[_Record | IngestError]:
    csv.field_size_limit(CSV_FIELD_LIMIT_CHARS)
    try:
        dialect = csv.Sniffer().sniff("\n".join(text.split("\n")[:20]), delimiters=",;\t")
    except csv.Error as exc:  # one column, or an unusual layout: read it as plain comma-separated
        log.debug("%s: no CSV dialect recognised (%s); reading it as comma-separated", path, exc)
        dialect = csv.excel  # type: ignore[assignment]
    reader = csv.DictReader(io.StringIO(text, newline=""), dialect=dialect)
    columns = [_key(c) for c in (reader.fieldnames or [])]
    if not any(k in columns for k in ABSTRACT_KEYS):
        yield IngestError(
            str(path),
            f"CSV has no abstract column (looked for {', '.join(ABSTRACT_KEYS)}; found {', '.join(columns) or 'none'})",
            1,
        )
        return
    try:
        for row in reader:
            yield _from_mapping({k: v for k, v in row.items() if k is not None}, path, reader.line_num)
    except csv.Error as exc:
        yield IngestError(str(path), f"malformed CSV: {exc}", reader.line_num)


def _key(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def _from_mapping(obj: object, path: Path, line: int) -> _Record | IngestError:
    if not isinstance(obj, Mapping):
        return IngestError(str(path), "expected a JSON object with an 'abstract' field", line)
    fields = {_key(str(k)): v for k, v in obj.items()}
    abstract = _first_text(fields, ABSTRACT_KEYS)
    if not abstract:
        return IngestError(str(path), f"record has no abstract (looked for {', '.join(ABSTRACT_KEYS)})", line)
    year_text = _first_text(fields, YEAR_KEYS)
    extra = {
        k: normalize_whitespace(str(v))
        for k, v in fields.items()
        if k not in KNOWN_KEYS
        and isinstance(v, str | int | float | bool)
        and 0 < len(str(v).strip()) <= MAX_EXTRA_VALUE_CHARS
    }
    return _Record(
        abstract=normalize_whitespace(abstract),
        path=str(path),
        line=line,
        record_id=_first_text(fields, ID_KEYS),
        title=normalize_whitespace(_first_text(fields, TITLE_KEYS)),
        authors=_as_list(_first(fields, AUTHOR_KEYS), split_and=True),
        url=_first_text(fields, URL_KEYS),
        keywords=_as_list(_first(fields, KEYWORD_KEYS)),
        venue=_first_text(fields, VENUE_KEYS),
        year=int(year_text[:4]) if year_text[:4].isdigit() else None,
        extra=extra,
    )


def _first(fields: Mapping[str, object], keys: Sequence[str]) -> object:
    for key in keys:
        value = fields.get(key)
        if value not in (None, "", [], {}):
            return value
    return None


def _first_text(fields: Mapping[str, object], keys: Sequence[str]) -> str:
    value = _first(fields, keys)
    if value is None or isinstance(value, dict | list):
        return ""
    return str(value).strip()


def _as_list(value: object, split_and: bool = False) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, list):
        items = [v.get("name", "") if isinstance(v, dict) else str(v) for v in value]
    elif ";" in str(value):
        # "Doe, John; Smith, Jane" (Zotero, BibTeX exports): the commas are inside names.
        items = str(value).split(";")
    else:
        items = re.split(r",| and " if split_and else ",", str(value))
    return tuple(s for s in (normalize_whitespace(i) for i in items) if s)


def _check_record(item: _Record, max_chars: int) -> str | None:
    abstract = item.abstract
    if len(abstract) > max_chars:
        return (
            f"abstract is {len(abstract):,} characters, over the {max_chars:,} limit; is this a full paper? "
            "Give only the abstract, or raise PAPERCHAT_MAX_ABSTRACT_CHARS"
        )
    if len(abstract) < MIN_ABSTRACT_CHARS:
        return f"abstract is only {len(abstract)} characters; too short to be an abstract"
    for name, value in (("title", item.title), ("id", item.record_id), ("url", item.url)):
        if len(value) > MAX_FIELD_CHARS[name]:
            return f"{name} is {len(value):,} characters, over the {MAX_FIELD_CHARS[name]:,} limit; the field should hold the {name} alone (check the columns)"
    return None


def merge_records(records: Iterable[_Record], errors: list[IngestError]) -> list[Paper]:
    """One paper per distinct abstract; sources unioned; a real title wins over none."""
    by_key: dict[str, Paper] = {}
    id_owner: dict[str, tuple[str, _Record]] = {}
    for record in records:
        key = abstract_key(record.abstract)
        if record.record_id:
            owner = id_owner.get(record.record_id)
            if owner is not None and owner[0] != key:
                errors.append(
                    IngestError(
                        record.path,
                        f"id {record.record_id!r} is already used by a different abstract "
                        f"({owner[1].path} line {owner[1].line}); skipped this copy",
                        record.line,
                    )
                )
                continue
            id_owner[record.record_id] = (key, record)
        paper = _to_paper(record, key)
        by_key[key] = merge_papers(by_key[key], paper) if key in by_key else paper
    return list(by_key.values())


def _to_paper(record: _Record, key: str) -> Paper:
    return Paper(
        paper_id=record.record_id or hashed_paper_id(record.abstract),
        abstract=record.abstract,
        title=record.title,  # a paper no copy of which has a title gets one after merging (LoadResult.titled)
        title_is_generated=not record.title,
        sources=(record.path,),
        authors=record.authors,
        url=record.url,
        keywords=record.keywords,
        venue=record.venue,
        year=record.year,
        extra=tuple(sorted(record.extra.items())),
        abstract_key=key,
    )


def _has_record_id(paper: Paper) -> bool:
    return paper.paper_id != paper.abstract_key[: len(paper.paper_id)]


def merge_papers(first: Paper, second: Paper) -> Paper:
    """Merge two copies of one abstract. A record id beats a hash id, a real title beats a
    generated label, and otherwise the first non-empty value is kept."""
    primary, other = (first, second) if _has_record_id(first) or not _has_record_id(second) else (second, first)
    title_from = first if not first.title_is_generated or second.title_is_generated else second
    extra = dict(other.extra)
    extra.update(dict(primary.extra))
    return replace(
        primary,
        title=title_from.title,
        title_is_generated=title_from.title_is_generated,
        sources=tuple(dict.fromkeys(first.sources + second.sources)),
        authors=primary.authors or other.authors,
        url=primary.url or other.url,
        keywords=primary.keywords or other.keywords,
        venue=primary.venue or other.venue,
        year=primary.year if primary.year is not None else other.year,
        extra=tuple(sorted(extra.items())),
    )
