"""Eight users at once: gradio_client Clients asking the served app's `/ask` endpoint
concurrently, each about a different seed paper named by its coined name. Every answer must
cite its own paper and carry nothing of the other seven questions' papers (no state shared
between requests, no answers crossed in the queue).

Against `paperchat serve` over the ingested seeds (fixture `served_seeds_app` in conftest), the
local SmolLM2 backend drafting. Run alone:
    .venv/bin/python -m pytest -s tests/test_app_concurrency.py
"""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytestmark = pytest.mark.integration

# Name -> question. Each name occurs in exactly one of the 51 seed abstracts.
QUESTIONS = {
    "ReST-KV": "How does ReST-KV evict KV cache entries?",
    "SureLock": "When does SureLock lock a token position, and what does it skip afterwards?",
    "SpectralGCD": "What representation does SpectralGCD use for generalized category discovery?",
    "WinT3R": "What does WinT3R predict online, and how does it keep reconstruction fast?",
    "BrainGFM": "What data is BrainGFM pre-trained on?",
    "FlashWorld": "How fast does FlashWorld generate 3D scenes?",
    "DiffMJX": "How does DiffMJX improve simulator gradients under hard contacts?",
    "ToonComposer": "Which cartoon production stages does ToonComposer unify?",
}
CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def cited_numbers(answer: str) -> set[int]:
    return {int(n) for group in CITATION.findall(answer) for n in group.split(",")}


def test_eight_concurrent_clients_get_their_own_papers(served_seeds_app: str) -> None:
    from gradio_client import Client

    names = list(QUESTIONS)
    clients = [Client(served_seeds_app, verbose=False) for _ in names]
    start = threading.Barrier(len(names) + 1)
    results: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}

    def ask(index: int) -> None:
        name = names[index]
        start.wait()
        began = time.perf_counter()
        results[name] = clients[index].predict(QUESTIONS[name], "auto", [], api_name="/ask")
        seconds[name] = time.perf_counter() - began

    with ThreadPoolExecutor(len(names)) as pool:
        futures = [pool.submit(ask, i) for i in range(len(names))]
        start.wait()
        began = time.perf_counter()
        for future in futures:
            future.result(timeout=600)
        wall = time.perf_counter() - began

    served = sum(float(r["timings_ms"].get("total", 0.0)) for r in results.values()) / 1000
    print(f"\n{len(names)} concurrent /ask: wall {wall:.1f} s; sum of the answers' own times {served:.1f} s")
    for name in names:
        result = results[name]
        print(f"  {name:13} {seconds[name]:5.1f} s  {result['answer'][:110]!r}")

    for name in names:
        result = results[name]
        assert result["question"] == QUESTIONS[name]
        assert not result["abstained"], (name, result["answer"])
        by_n = {s["n"]: s for s in result["sources"]}
        cited = cited_numbers(result["answer"])
        assert cited and cited <= set(by_n), (name, result["answer"], sorted(by_n))
        assert any(name.lower() in by_n[n]["abstract"].lower() for n in cited), (name, [by_n[n]["title"] for n in cited])
        for other in names:
            if other == name:
                continue
            # Nothing of another question's paper: not among the sources, not in the answer.
            assert not any(other.lower() in s["abstract"].lower() for s in result["sources"]), (name, other, [s["title"] for s in result["sources"]])
            assert other.lower() not in result["answer"].lower(), (name, other, result["answer"])
