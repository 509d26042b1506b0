"""The command-line contract of ARCHITECTURE.md: one JSON document on stdout with --json,
exit codes 0 / 1 (user error, message says what to do) / 2 (usage)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rag import cli
from rag.api import Paperchat
from tests.conftest import ROOT, SEEDS, write_jsonl

runner = CliRunner()


@pytest.fixture(autouse=True)
def fake_api(api: Paperchat, monkeypatch: pytest.MonkeyPatch) -> Paperchat:
    # The CLI builds its API through one factory; tests hand it the fake-embedder one.
    monkeypatch.setattr(cli, "_api", lambda: api)
    return api


def run(*args: str) -> tuple[int, object]:
    result = runner.invoke(cli.app, list(args))
    stdout = result.stdout.strip()
    return result.exit_code, json.loads(stdout) if stdout.startswith(("{", "[")) else stdout


def test_ingest_json_contract_and_idempotence() -> None:
    code, first = run("ingest", str(SEEDS), "--json")
    assert code == 0
    chunks = first["chunks"]  # type: ignore[index]
    assert first == {"added": 51, "updated": 0, "unchanged": 0, "removed": 0, "papers": 51, "chunks": chunks, "embedded": chunks, "errors": []}
    code, second = run("ingest", str(SEEDS), "--json")
    assert code == 0 and second["added"] == 0 and second["updated"] == 0 and second["embedded"] == 0  # type: ignore[index]


def test_ingest_errors_are_listed_with_path_and_line(tmp_path: Path) -> None:
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"title": "no abstract"}])
    code, report = run("ingest", str(SEEDS), str(bad), "--json")
    assert code == 1
    assert report["papers"] == 51  # type: ignore[index]
    assert report["errors"] == [{"path": report["errors"][0]["path"], "line": 1, "message": report["errors"][0]["message"]}]  # type: ignore[index]
    assert report["errors"][0]["path"].endswith("bad.jsonl")  # type: ignore[index]


def test_papers_json() -> None:
    run("ingest", str(SEEDS))
    code, papers = run("papers", "--json")
    assert code == 0 and isinstance(papers, list) and len(papers) == 51
    for paper in papers:
        assert {"paper_id", "title", "title_is_generated", "abstract", "source"} <= paper.keys()
        assert paper["title"] and paper["title_is_generated"] is True
        assert paper["source"].startswith("seeds/") or "seeds" in paper["source"]


def test_search_json_one_row_per_paper_best_first() -> None:
    run("ingest", str(SEEDS))
    code, result = run("search", "masked diffusion language model decoding", "-k", "5", "--json")
    assert code == 0
    assert result["query"] == "masked diffusion language model decoding"  # type: ignore[index]
    rows = result["results"]  # type: ignore[index]
    assert len(rows) == 5 and len({r["paper_id"] for r in rows}) == 5
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert set(rows[0]) == {"paper_id", "title", "score", "abstract"}
    assert {"embed", "dense", "total"} <= set(result["timings_ms"])  # type: ignore[index]


def test_search_batch_form(tmp_path: Path) -> None:
    run("ingest", str(SEEDS))
    queries = write_jsonl(tmp_path / "q.jsonl", [{"q": "KV cache eviction"}, {"q": "3D reconstruction from video"}])
    code, results = run("search", "--queries", str(queries), "-k", "2", "--json")
    assert code == 0 and isinstance(results, list)
    assert [r["query"] for r in results] == ["KV cache eviction", "3D reconstruction from video"]
    assert all(len(r["results"]) == 2 for r in results)


def test_user_errors_exit_1_with_the_fix() -> None:
    code, result = run("search", "anything", "--json")
    assert code == 1 and "paperchat ingest" in result["error"]  # type: ignore[index]
    code, result = run("papers", "--json")
    assert code == 1 and "paperchat ingest" in result["error"]  # type: ignore[index]
    run("ingest", str(SEEDS))
    code, result = run("search", "   ", "--json")
    assert code == 1 and "empty" in result["error"]  # type: ignore[index]


def test_usage_errors_exit_2() -> None:
    assert run("search")[0] == 2
    assert run("frobnicate")[0] == 2


def test_help_does_not_import_torch() -> None:
    code = (
        "import sys\n"
        "from rag.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'chromadb', 'gradio') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "ingest" in done.stdout and "search" in done.stdout


def test_prune_alone_prunes_without_ingesting_seeds(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "one.jsonl", [{"id": "ONE", "abstract": "We count sheep with drones on many farms across three seasons."}])
    run("ingest", str(path))
    path.unlink()
    code, report = run("ingest", "--prune", "--json")
    assert code == 0 and (report["removed"], report["papers"], report["added"]) == (1, 0, 0)  # type: ignore[index]


def test_record_fields_cannot_overwrite_contract_fields(tmp_path: Path) -> None:
    abstract = "We count sheep with drones on many farms across three seasons."
    run("ingest", str(write_jsonl(tmp_path / "x.jsonl", [{"id": "X", "abstract": abstract, "source": "evil", "status": "Oral"}])))
    code, papers = run("papers", "--json")
    assert code == 0
    assert papers[0]["source"].endswith("x.jsonl") and papers[0]["title_is_generated"] is True  # type: ignore[index]
    assert papers[0]["status"] == "Oral"  # type: ignore[index]


def test_batch_reports_a_bad_query_in_its_own_row(tmp_path: Path) -> None:
    run("ingest", str(SEEDS))
    queries = write_jsonl(tmp_path / "q.jsonl", [{"q": "KV cache"}, {"q": "   "}, {"q": "3D reconstruction"}])
    code, results = run("search", "--queries", str(queries), "--json")
    assert code == 0 and len(results) == 3  # type: ignore[arg-type]
    assert "error" in results[1] and results[0]["results"] and results[2]["results"]  # type: ignore[index]


def test_query_and_batch_together_is_a_usage_error(tmp_path: Path) -> None:
    queries = write_jsonl(tmp_path / "q.jsonl", [{"q": "x"}])
    assert run("search", "x", "--queries", str(queries))[0] == 2


def test_papers_does_not_load_the_model(api: Paperchat) -> None:
    api.ingest([SEEDS])
    code = (
        "import sys\n"
        "from rag.cli import app\n"
        "try:\n    app(['papers', '--json'])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules\n"
    )
    env = {"PAPERCHAT_DATA_DIR": str(api.settings.data_dir), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)) == 51


def test_ask_json_contract(tmp_path: Path) -> None:
    run("ingest", str(SEEDS))
    code, result = run("ask", "What does SureLock do?", "--json")
    assert code == 0
    assert {"answer", "mode", "abstained", "sources", "backend", "timings_ms"} <= set(result)  # type: ignore[arg-type]
    assert result["backend"] == "none" and result["mode"] == "answer"  # type: ignore[index]
    sources = result["sources"]  # type: ignore[index]
    assert sources and {"n", "paper_id", "title", "abstract", "evidence"} <= set(sources[0])
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result["answer"])}  # type: ignore[index]
    assert cited and cited <= {s["n"] for s in sources}
    # The printed result is a valid history for the next turn.
    history = tmp_path / "history.json"
    history.write_text(json.dumps([{"q": "What does SureLock do?", "result": result}]), encoding="utf-8")
    code, follow = run("ask", "What about its speed?", "--history", str(history), "--json")
    assert code == 0 and [s["paper_id"] for s in follow["sources"]] == [sources[0]["paper_id"]]  # type: ignore[index]


def test_papers_and_search_print_latex_titles_as_a_reader_sees_them(tmp_path: Path) -> None:
    record = {"id": "L1", "title": "\\textsc{FooNet}: Counting Sheep 10$\\times$ Faster", "abstract": "FooNet counts sheep ten times faster than others."}
    run("ingest", str(write_jsonl(tmp_path / "latex.jsonl", [record])))
    for printed in (run("papers")[1], run("search", "counting sheep")[1]):
        assert "FooNet: Counting Sheep 10× Faster" in printed and "\\textsc" not in printed  # type: ignore[operator]
    assert run("papers", "--json")[1][0]["title"] == record["title"]  # type: ignore[index]


def test_ask_prints_abstracts_latex_as_a_reader_sees_it() -> None:
    run("ingest", str(SEEDS))
    code, printed = run("ask", "What does SureLock do?")
    assert code == 0 and "SureLock" in printed and "30–50%" in printed  # type: ignore[operator]
    assert "\\textsc" not in printed and "30--50" not in printed  # type: ignore[operator]
    code, document = run("ask", "What does SureLock do?", "--json")
    assert "30--50" in document["answer"]  # type: ignore[index]


def test_ask_errors_say_what_to_do(tmp_path: Path) -> None:
    code, result = run("ask", "anything", "--json")
    assert code == 1 and "paperchat ingest" in result["error"]  # type: ignore[index]
    run("ingest", str(SEEDS))
    bad = tmp_path / "history.json"
    bad.write_text("{not json", encoding="utf-8")
    code, result = run("ask", "What about its speed?", "--history", str(bad), "--json")
    assert code == 1 and "not valid JSON" in result["error"]  # type: ignore[index]
    bad.write_text('{"q": "x"}', encoding="utf-8")
    code, result = run("ask", "What about its speed?", "--history", str(bad), "--json")
    assert code == 1 and "JSON list" in result["error"]  # type: ignore[index]
    code, result = run("ask", "   ", "--json")
    assert code == 1 and "empty" in result["error"]  # type: ignore[index]
    assert run("ask", "x", "--mode", "poem")[0] == 2
    assert run("ask")[0] == 2


def test_ask_compare_prints_the_table_and_its_exports() -> None:
    run("ingest", str(SEEDS))
    code, result = run("ask", "Compare SureLock and ReST-KV", "--json")
    assert code == 0 and result["mode"] == "compare"  # type: ignore[index]
    rows = result["comparison"]["rows"]  # type: ignore[index]
    assert [r["n"] for r in rows] == [1, 2] and "problem" in rows[0]["cells"]
    assert result["table_markdown"].startswith("| paper |") and result["table_csv"].startswith("n,paper,")  # type: ignore[index]
    code, text = run("ask", "Compare SureLock and ReST-KV", "--mode", "answer")
    assert code == 0 and "| paper |" not in str(text)


def test_serve_on_a_port_in_use_says_so_without_a_traceback() -> None:
    import socket

    import ui.serve  # noqa: F401 - registers `serve` on the CLI, as the `paperchat` entry point does

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(cli.app, ["serve", "--host", "127.0.0.1", "--port", str(port)])
    assert result.exit_code == 1
    assert f"Cannot listen on 127.0.0.1:{port}" in result.output and "--port" in result.output and "Traceback" not in result.output


def test_ask_list_json_has_its_page_and_filters() -> None:
    run("ingest", str(SEEDS))
    code, result = run("ask", "Which papers evaluate on LongBench?", "--json")
    assert code == 0 and result["mode"] == "list" and result["filters"] == []  # type: ignore[index]
    assert result["page"] == {"number": 1, "size": 20, "total": len(result["sources"]), "pages": 1} and result["sources"]  # type: ignore[index]
    code, result = run("ask", "Which papers mention LongBench?", "--mode", "list", "--where", "source=001_1a28f6aa0f7ab0ee.txt", "--json")
    assert code == 0 and result["filters"] == [{"field": "source", "values": ["001_1a28f6aa0f7ab0ee.txt"], "said": "--where"}]  # type: ignore[index]
    assert result["page"]["total"] == 1  # type: ignore[index]  # the one seed naming LongBench is in that list
