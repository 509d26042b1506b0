"""The served app: start-up, answers in a real browser, memory. One process drives everything.

    .venv/bin/python bench/app.py [--questions 5] [--skip-iclr]

For three servers started the same way (a subprocess, loopback, a free port), one after another:
an empty `gr.Blocks` app (the baseline), `paperchat serve` over the 51 seeds (data/bench/seeds,
collection bench-seeds, ingested first if missing) and over ICLR 2026 (data/eval/iclr, collection
eval-iclr: the 5,358-paper index `paperchat eval retrieval --dataset iclr` built):
- ready: from starting the process to `GET /` answering 200;
- search: from starting the process to the first `/search` answered through gradio_client
  (the embedding model, Chroma and the BM25 index loaded);
- in headless Chromium (Debian's, driven by Playwright), per question in a fresh page: from
  clicking Ask to the first visible answer text (the sources found, or a verified sentence) and
  to the final answer, p50 and max over the questions (the first one also loads the LLM);
- the Explore tab: from clicking it to the table shown and to the topic map drawn;
- RSS of the served process and its children (/proc/<pid>/status VmRSS; VmHWM for the peak)
  after start-up, after the questions, after the explorer.
Prints a Markdown table with the empty app as the baseline of the ratios.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PAPERCHAT = str(BIN / "paperchat")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
CHROMIUM_ARGS += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]

# The same five questions for both corpora: the seeds are ICLR 2026 papers, so each names one
# paper of either index.
QUESTIONS = [
    "How does ReST-KV decide which entries to evict?",
    "What does SureLock lock during decoding?",
    "What does WinT3R keep in its camera token pool?",
    "How fast does FlashWorld generate 3D scenes?",
    "Which production stages does ToonComposer unify?",
]

EMPTY_APP = """
import sys
import gradio as gr
with gr.Blocks(title="empty") as demo:
    pass
demo.queue().launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), quiet=True)
"""

# The newest assistant message's every state, timed from window.__asked (a MutationObserver
# sees each state Gradio renders; tests/test_browser.py records them the same way).
RECORD_STATES = """() => {
  if (window.__observer) window.__observer.disconnect();
  window.__states = [];
  window.__observer = new MutationObserver(() => {
    const rows = document.querySelectorAll('#chat .message-row.bot-row');
    const text = rows.length ? rows[rows.length - 1].innerText.trim() : '';
    const states = window.__states;
    if (text && (!states.length || states[states.length - 1].text !== text)) states.push({ t: performance.now() - window.__asked, text });
  });
  window.__observer.observe(document.querySelector('#chat'), { childList: true, subtree: true, characterData: true });
}"""
FINAL = re.compile(r"\b(answer|summary|comparison) · .+ · \d+\.\d s\s*$")
FINAL_JS = "/" + FINAL.pattern + "/"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """`field` of the process and all its descendants, in MB (kB in /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += children.get(current, [])
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def load() -> str:
    return " / ".join(f"{v:.2f}" for v in os.getloadavg())


class Server:
    """A server subprocess; `ready` is the seconds from its start to GET / answering 200."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(log, "w")  # noqa: SIM115 - outlives this call: the server writes to it
        self.started = time.perf_counter()
        self.process = subprocess.Popen([*command, *self._port_args(command)], env=env, cwd=log.parent, stdout=self.log, stderr=subprocess.STDOUT)
        self.ready = self._wait(lambda: urllib.request.urlopen(self.url + "/", timeout=2).close(), 300)

    def _port_args(self, command: list[str]) -> list[str]:
        return ["--host", "127.0.0.1", "--port", str(self.port)] if command[0] == PAPERCHAT else [str(self.port)]

    def _wait(self, probe: Callable[[], object], timeout: float) -> float:
        deadline = time.perf_counter() + timeout
        while True:
            try:
                probe()
                return time.perf_counter() - self.started
            except OSError:
                if self.process.poll() is not None or time.perf_counter() > deadline:
                    raise RuntimeError(f"server did not start; see {self.log.name}") from None
                time.sleep(0.1)

    def since_start(self) -> float:
        return time.perf_counter() - self.started

    def rss(self, field: str = "VmRSS") -> float:
        return rss_mb(self.process.pid, field)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log.close()


def environment(data_dir: Path, collection: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERCHAT_")}
    return env | {
        "PAPERCHAT_DATA_DIR": str(data_dir),
        "PAPERCHAT_COLLECTION": collection,
        "PAPERCHAT_LLM_BACKEND": "local",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "GRADIO_ANALYTICS_ENABLED": "False",
    }


def ask_in_browser(browser: Any, url: str, question: str) -> tuple[float, float, str]:
    """(ms to the first visible answer text, ms to the final answer, the answer) for one
    question asked in a fresh page after the page's own load event ran."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(url)
        page.locator("#question textarea").wait_for(state="visible", timeout=120_000)
        page.wait_for_function("() => /papers/.test(document.querySelector('#status')?.innerText || '')", timeout=120_000)
        page.fill("#question textarea", question)
        page.evaluate(RECORD_STATES)
        page.evaluate("() => { window.__asked = performance.now(); }")
        page.click("#ask")
        page.wait_for_function(f"() => window.__states.some(s => {FINAL_JS}.test(s.text))", timeout=300_000, polling=50)
        states = page.evaluate("() => window.__states")
        final = next(s for s in states if FINAL.search(s["text"]))
        shown = next(s for s in states if "Found" in s["text"] or "▌" in s["text"] or s is final)
        return shown["t"], final["t"], final["text"]
    finally:
        page.close()


def open_explorer(browser: Any, url: str) -> tuple[float, float, int]:
    """Seconds from clicking Explore to the table shown and to the topic map drawn; map points."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(url)
        page.wait_for_function("() => /papers/.test(document.querySelector('#status')?.innerText || '')", timeout=120_000)
        started = time.perf_counter()
        page.get_by_role("tab", name="Explore").click()
        # The table's rows are a virtual list: divs with cells, not <tbody> rows.
        rows = "() => (document.querySelector('#papers-table .virtual-row')?.innerText || '').trim().length > 0"
        page.wait_for_function(rows, timeout=600_000, polling=100)
        table = time.perf_counter() - started
        page.locator("#topic-map svg.marks, #topic-map canvas").first.wait_for(state="visible", timeout=600_000)
        drawn = time.perf_counter() - started
        points = page.locator("#topic-map .mark-symbol.role-mark path").count()
        return table, drawn, points
    finally:
        page.close()


def measure(name: str, command: list[str], env: dict[str, str], folder: Path, browser: Any, questions: list[str]) -> dict[str, Any]:
    print(f"[{name}] starting (load {load()})", file=sys.stderr, flush=True)
    server = Server(command, env, folder / f"{name}.log")
    row: dict[str, Any] = {"ready": server.ready, "rss_start": server.rss()}
    try:
        if command[0] != PAPERCHAT:
            time.sleep(1)
            row["rss_start"] = server.rss()
            return row
        from gradio_client import Client

        client = Client(server.url, verbose=False)
        client.predict("warm up", 3, api_name="/search")
        row["search"] = server.since_start()
        row["rss_search"] = server.rss()
        shown, final = [], []
        for question in questions:
            first, done, text = ask_in_browser(browser, server.url, question)
            shown.append(first)
            final.append(done)
            print(f"[{name}] {first:7.0f} / {done:7.0f} ms  {question!r} -> {text[:90]!r}", file=sys.stderr, flush=True)
        row |= {"shown": shown, "final": final, "rss_questions": server.rss()}
        table, drawn, points = open_explorer(browser, server.url)
        row |= {"table": table, "map": drawn, "points": points, "rss_explorer": server.rss(), "peak": server.rss("VmHWM")}
        print(f"[{name}] explorer: table {table:.1f} s, map {drawn:.1f} s, {points} points", file=sys.stderr, flush=True)
        return row
    finally:
        server.stop()


def fmt_ms(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} / {max(values):,.0f} ms"


def table(rows: dict[str, dict[str, Any]], papers: dict[str, int]) -> str:
    base = rows["empty"]
    names = [n for n in ("seeds", "iclr") if n in rows]
    heads = {"seeds": f"paperchat, seeds ({papers['seeds']:,} papers)", "iclr": f"paperchat, ICLR 2026 ({papers.get('iclr', 0):,} papers)"}
    out = ["| measure | empty gr.Blocks | " + " | ".join(heads[n] for n in names) + " |", "|---|---|" + "---|" * len(names)]

    def line(label: str, empty: str, cell: Callable[[dict[str, Any]], str]) -> None:
        out.append(f"| {label} | {empty} | " + " | ".join(cell(rows[n]) for n in names) + " |")

    line("start -> GET / 200 (ratio to empty)", f"{base['ready']:.1f} s", lambda r: f"{r['ready']:.1f} s ({r['ready'] / base['ready']:.1f}x)")
    line("start -> first /search answered (models loaded)", "-", lambda r: f"{r['search']:.1f} s")
    line(
        "RSS at GET / 200, models still loading (ratio to empty)",
        f"{base['rss_start']:.0f} MB",
        lambda r: f"{r['rss_start']:.0f} MB ({r['rss_start'] / base['rss_start']:.1f}x)",
    )
    line("RSS after the first /search", "-", lambda r: f"{r['rss_search']:.0f} MB")
    count = len(next(iter(rows[n] for n in names))["final"]) if names else 0
    line(f"click -> first visible answer text, p50 / max of {count}", "-", lambda r: fmt_ms(r["shown"]))
    line(f"click -> final answer, p50 / max of {count}", "-", lambda r: fmt_ms(r["final"]))
    line("first question after start-up: visible / final", "-", lambda r: f"{r['shown'][0]:,.0f} / {r['final'][0]:,.0f} ms")
    line("RSS after the questions (ratio to empty)", "-", lambda r: f"{r['rss_questions']:.0f} MB ({r['rss_questions'] / base['rss_start']:.1f}x)")
    line("Explore clicked -> table shown / topic map drawn", "-", lambda r: f"{r['table']:.1f} / {r['map']:.1f} s ({r['points']:,} points)")
    line("RSS after the explorer (ratio to empty)", "-", lambda r: f"{r['rss_explorer']:.0f} MB ({r['rss_explorer'] / base['rss_start']:.1f}x)")
    line("peak RSS (VmHWM)", "-", lambda r: f"{r['peak']:.0f} MB")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=5, help="questions per corpus (at most 5)")
    parser.add_argument("--skip-iclr", action="store_true", help="only the empty app and the seeds")
    args = parser.parse_args()
    questions = QUESTIONS[: args.questions]

    from playwright.sync_api import sync_playwright

    seeds_dir, iclr_dir = ROOT / "data" / "bench" / "seeds", ROOT / "data" / "eval" / "iclr"
    seeds_env = environment(seeds_dir, "bench-seeds")
    iclr_env = environment(iclr_dir, "eval-iclr")
    if not (seeds_dir / "catalog.sqlite3").exists():
        subprocess.run([PAPERCHAT, "ingest", str(ROOT / "seeds")], env=seeds_env, check=True)
    papers = {"seeds": 51}
    if not args.skip_iclr:
        import sqlite3

        with sqlite3.connect(f"file:{iclr_dir / 'catalog.sqlite3'}?mode=ro", uri=True) as db:
            papers["iclr"] = int(db.execute("select count(*) from papers").fetchone()[0])

    print(f"machine: {os.cpu_count()} cores; load average (1/5/15 min) at the start: {load()}", file=sys.stderr)
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-app-") as tmp, sync_playwright() as playwright:
        folder = Path(tmp)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            rows["empty"] = measure("empty", [sys.executable, "-c", EMPTY_APP], seeds_env, folder, browser, [])
            rows["seeds"] = measure("seeds", [PAPERCHAT, "serve"], seeds_env, folder, browser, questions)
            if not args.skip_iclr:
                rows["iclr"] = measure("iclr", [PAPERCHAT, "serve"], iclr_env, folder, browser, questions)
        finally:
            browser.close()
    print(f"load average at the end: {load()}", file=sys.stderr)
    print(table(rows, papers))


if __name__ == "__main__":
    main()
