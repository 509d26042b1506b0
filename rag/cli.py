"""The `paperchat` command. Thin: parse, call `rag.api`, print.

With `--json` every command prints exactly one JSON document on stdout; logs and progress go
to stderr. Exit codes: 0 success, 1 a user error (the message says what to do), 2 usage.
Heavy libraries are imported inside commands so that `paperchat --help` stays instant.
`paperchat serve` is added by the app (ui/serve.py, the `paperchat` entry point): rag never imports ui.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from rag.errors import NoIndexError, PaperchatError
from rag.records import Answer
from rag.routing import Mode
from rag.text import readable

app = typer.Typer(
    help="Ask questions about research-paper abstracts, offline. Data lives in $PAPERCHAT_DATA_DIR (default ./data).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

log = logging.getLogger(__name__)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]


def _api() -> Any:
    from rag.api import Paperchat

    return Paperchat()


def _emit(document: object) -> None:
    sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")


def fail(message: str, as_json: bool) -> NoReturn:
    if as_json:
        _emit({"error": message})
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _display_path(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError as exc:  # another drive (Windows): the absolute path is the one to show
        log.debug("%s shown absolute: %s", path, exc)
        return path


def paper_json(paper: Any) -> dict[str, object]:
    # Record fields first, so that a record's own "source" or "title_is_generated" can never
    # overwrite the contract's fields.
    return {
        **dict(paper.extra),
        "paper_id": paper.paper_id,
        "title": paper.title,
        "title_is_generated": paper.title_is_generated,
        "abstract": paper.abstract,
        "source": _display_path(paper.source),
        "sources": [_display_path(s) for s in paper.sources],
        "authors": list(paper.authors),
        "url": paper.url,
        "keywords": list(paper.keywords),
        "venue": paper.venue,
        "year": paper.year,
    }


@app.command()
def ingest(
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or folders (.txt seed lists, .jsonl, .json, .csv). Default: seeds/")] = None,
    prune: Annotated[bool, typer.Option(help="Also drop papers whose source files no longer exist.")] = False,
    rebuild: Annotated[
        bool, typer.Option(help="Delete this data directory's index first (a damaged catalogue), then embed every paper of PATHS again; uploads are kept.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Add papers to the index, or bring it up to date; unchanged papers are not embedded again."""
    # `--prune` alone only prunes; with no paths and no --prune the seed lists are ingested.
    targets = paths if paths else ([] if prune else [Path("seeds")])
    try:
        api = _api()
        if rebuild:
            api.seams.wipe_index()
        report = api.ingest(targets, prune=prune, progress=True)
    except PaperchatError as exc:
        fail(str(exc), as_json)
    document = report.to_json()
    for error in document["errors"]:
        error["path"] = _display_path(error["path"])
    if as_json:
        _emit(document)
    else:
        typer.echo(
            f"{report.added} added, {report.updated} updated, {report.unchanged} unchanged, {report.removed} removed; "
            f"{report.papers} papers, {report.chunks} chunks in the index ({report.embedded} texts embedded)."
        )
    for error in document["errors"]:
        where = f"{error['path']}:{error['line']}" if error["line"] else error["path"]
        typer.echo(f"skipped {where}: {error['message']}", err=True)
    if report.errors:
        raise typer.Exit(1)


@app.command()
def papers(as_json: JsonFlag = False) -> None:
    """List the indexed papers."""
    try:
        listed = _api().papers()
    except PaperchatError as exc:
        fail(str(exc), as_json)
    if as_json:
        _emit([paper_json(p) for p in listed])
        return
    for paper in listed:
        marker = " (generated title)" if paper.title_is_generated else ""
        typer.echo(f"{paper.paper_id}  {readable(paper.title)}{marker}")
    typer.echo(f"{len(listed)} papers", err=True)


@app.command()
def search(
    query: Annotated[str | None, typer.Argument(help="What to look for.")] = None,
    k: Annotated[int | None, typer.Option("-k", "--top-k", min=1, help="Papers to return (default PAPERCHAT_TOP_K).")] = None,
    queries: Annotated[Path | None, typer.Option("--queries", help='Batch: a file of JSON lines {"q": ...}; prints a JSON list.')] = None,
    mode: Annotated[str | None, typer.Option(help="hybrid, dense or bm25 (default PAPERCHAT_SEARCH_MODE, hybrid).")] = None,
    fusion: Annotated[str | None, typer.Option(help="rrf or weighted (default PAPERCHAT_FUSION).")] = None,
    where: Annotated[list[str] | None, typer.Option("--where", help="Filter FIELD=VALUE (repeatable): source, venue, year, primary_area, status, ...")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Find the papers most relevant to a query, best first."""
    if (query is None) == (queries is None):
        typer.echo("error: give a QUERY or --queries FILE (not both).", err=True)
        raise typer.Exit(2)
    try:
        api = _api()
        options = {"mode": mode, "fusion": fusion, "where": _parse_where(where or [])}
        if queries is not None:
            _emit([_row_or_error("query", q, partial(_search_json, api, q, k, options)) for q in _read_batch(queries)])
            return
        result = _search_json(api, query or "", k, options)
    except PaperchatError as exc:
        fail(str(exc), as_json)
    if as_json:
        _emit(result)
        return
    rows: list[dict[str, Any]] = result["results"]  # type: ignore[assignment]
    for rank, row in enumerate(rows, start=1):
        typer.echo(f"{rank:>2}. {row['score']:.3f}  {readable(row['title'])}  [{row['paper_id']}]")


def _parse_where(conditions: list[str]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for condition in conditions:
        key, sep, value = condition.partition("=")
        if not sep or not key.strip():
            raise PaperchatError(f"--where {condition!r} is not FIELD=VALUE, e.g. --where primary_area='generative models'.")
        parsed[key.strip()] = value.strip()
    return parsed


def _row_or_error(key: str, text: str, run: Callable[[], dict[str, object]]) -> dict[str, object]:
    """In a batch, one bad line gets its own {key: text, "error": ...} and the others still run;
    a missing index stops the batch (every line would fail the same way)."""
    try:
        return run()
    except PaperchatError as exc:
        if isinstance(exc, NoIndexError):
            raise
        return {key: text, "error": str(exc)}


def _search_json(api: Any, query: str, k: int | None, options: dict[str, Any]) -> dict[str, object]:
    result = api.search(query, k, **options)
    return {
        "query": result.query,
        "results": [{"paper_id": h.paper.paper_id, "title": h.paper.title, "score": round(h.score, 4), "abstract": h.paper.abstract} for h in result.hits],
        "timings_ms": result.timings_ms,
    }


def _read_batch(path: Path) -> list[str]:
    return [row["q"] for row in _read_batch_objects(path)]


def _read_batch_objects(path: Path, key: str = "q") -> list[dict[str, Any]]:
    """The objects of a JSON-lines batch file, each with a string `key`."""
    if not path.is_file():
        raise PaperchatError(f'{path} does not exist; give a file with one JSON object per line, like {{"{key}": "..."}}.')
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PaperchatError(f'{path}:{number}: not JSON ({exc.msg}); each line must be like {{"{key}": "..."}}.') from exc
        if not isinstance(obj, dict) or not isinstance(obj.get(key), str):
            raise PaperchatError(f'{path}:{number}: each line must be an object with a string "{key}".')
        rows.append(obj)
    return rows


@app.command()
def ask(
    question: Annotated[str | None, typer.Argument(help="Your question, in English or Chinese.")] = None,
    mode: Annotated[Mode, typer.Option(help="auto: chosen by the wording.")] = Mode.AUTO,
    history: Annotated[Path | None, typer.Option("--history", help='Earlier turns, a JSON list [{"q": ..., "result": <ask --json output>}],')] = None,
    questions: Annotated[Path | None, typer.Option("--questions", help='Batch: JSON lines {"q": ..., "history": [...]}; prints a JSON list.')] = None,
    where: Annotated[list[str] | None, typer.Option("--where", help="Only papers with FIELD=VALUE (repeatable), as for search.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Answer a question from the abstracts; every sentence cites the paper it rests on."""
    if (question is None) == (questions is None):
        typer.echo("error: give a QUESTION or --questions FILE (not both).", err=True)
        raise typer.Exit(2)
    try:
        api = _api()
        filters = _parse_where(where or [])
        if questions is not None:
            _emit([_row_or_error("question", q, partial(_ask_json, api, q, h, filters, mode)) for q, h in _read_ask_batch(questions)])
            return
        earlier = _read_json_file(history, "--history") if history is not None else []
        document = _ask_json(api, question or "", earlier, filters, mode)
    except PaperchatError as exc:
        fail(str(exc), as_json)
    if as_json:
        _emit(document)
        return
    # Abstracts' LaTeX as a reader sees it ("30–50%", "SureLock"), as the app shows it; --json keeps the raw text.
    typer.echo(readable(str(document["answer"])))
    if document.get("comparison"):
        typer.echo("\n" + readable(str(document["table_markdown"])))
    for note in document["notes"]:  # type: ignore[attr-defined]
        typer.echo(f"\nnote: {readable(note)}")
    label = "possibly related" if document["abstained"] else "sources"
    listed = document["related"] if document["abstained"] else document["sources"]
    if listed:
        typer.echo(f"\n{label}:")
    for row in listed:  # type: ignore[attr-defined]
        title = readable(row["title"])
        typer.echo(f"  [{row['n']}] {title}  ({row['paper_id']})" if "n" in row else f"  - {title}  ({row['paper_id']})")


def _ask_json(api: Any, question: str, history: object, where: dict[str, str], mode: Mode = Mode.AUTO) -> dict[str, object]:
    from rag.conversation import turns_from_history

    answer: Answer = api.ask(question, turns_from_history(history), where=where or None, mode=mode)
    return answer.to_json()


def _read_json_file(path: Path, option: str) -> object:
    if not path.is_file():
        raise PaperchatError(f"{option} {path}: no such file; give a JSON file (a list of earlier turns).")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PaperchatError(f'{option} {path}: not valid JSON ({exc}); write a list like [{{"q": "...", "result": {{...}}}}].') from exc


def _read_ask_batch(path: Path) -> list[tuple[str, object]]:
    rows = _read_batch_objects(path)
    return [(row["q"], row.get("history") or []) for row in rows]


@app.command()
def check(
    claim: Annotated[str | None, typer.Argument(help="A statement about the papers, in English or Chinese.")] = None,
    paper: Annotated[str | None, typer.Option("--paper", help="Check against this paper's abstract only (an id of `paperchat papers`).")] = None,
    claims: Annotated[Path | None, typer.Option("--claims", help='Batch: JSON lines {"claim": ..., "paper_id": ...}; prints a JSON list, in order.')] = None,
    as_json: JsonFlag = False,
) -> None:
    """Check a statement against the abstracts: supported, unsupported or no_evidence, with the sentences and reasons."""
    if (claim is None) == (claims is None):
        typer.echo("error: give a CLAIM or --claims FILE (not both).", err=True)
        raise typer.Exit(2)
    try:
        api = _api()
        if claims is not None:
            rows = _read_batch_objects(claims, key="claim")
            _emit([_row_or_error("claim", row["claim"], partial(_check_json, api, row["claim"], row.get("paper_id"))) for row in rows])
            return
        document = _check_json(api, claim or "", paper)
    except PaperchatError as exc:
        fail(str(exc), as_json)
    if as_json:
        _emit(document)
        return
    typer.echo(f"{document['verdict']}: {readable(str(document['claim']))}")
    for reason in document["reasons"]:  # type: ignore[attr-defined]
        typer.echo(f"  because {readable(reason)}")
    for row in document["papers"]:  # type: ignore[attr-defined]
        typer.echo(f"\n{readable(row['title'])}  ({row['paper_id']}, support {row['support']:.2f})")
        for sentence in row["evidence"]:
            typer.echo(f"  “{readable(sentence)}”")


def _check_json(api: Any, claim: str, paper_id: object) -> dict[str, object]:
    if paper_id is not None and not isinstance(paper_id, str):
        raise PaperchatError(f'"paper_id" must be a string (an id of `paperchat papers`), not {paper_id!r}.')
    document: dict[str, object] = api.check(claim, paper_id).to_json()
    return document


eval_app = typer.Typer(help="The project's own quality and speed measurements.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")


@eval_app.command("retrieval")
def eval_retrieval(
    dataset: Annotated[
        str, typer.Option(help="scifact (BEIR, 300 test claims), iclr (ICLR 2026 + bench/iclr_dev.jsonl) or iclr-zh (the same papers, bench/zh_dev.jsonl).")
    ] = "scifact",
    data_root: Annotated[Path, typer.Option(help="Folder holding scifact/ and iclr2026/.")] = Path("../shared/data"),
    index_dir: Annotated[Path | None, typer.Option(help="Where to keep the dataset's index (default DATA_DIR/eval/DATASET).")] = None,
    limit: Annotated[int, typer.Option(help="Only the first N queries (a quick look).")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """nDCG@10 / Recall@100 (SciFact), Recall@5 / MRR@10 / theme Recall@20 (ICLR) for bm25, dense and hybrid."""
    from rag.config import Settings
    from rag.evaluation import evaluate, to_markdown

    settings = Settings()
    try:
        summary = evaluate(dataset, data_root, index_dir or settings.data_dir / "eval" / dataset.removesuffix("-zh"), settings, limit=limit)
    except PaperchatError as exc:
        fail(str(exc), as_json)
    if as_json:
        _emit(summary)
    else:
        typer.echo(to_markdown(summary))
