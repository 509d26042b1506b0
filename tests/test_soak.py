"""The soak's short form (bench/soak.py runs the long one): `paperchat serve` over a fresh data dir
of the seeds, 4 gradio_client sessions for 20 s mixing every /ask mode, /search and good and bad
uploads, while `paperchat ingest` adds 10 ICLR papers to the same data dir. No request may fail
(a clear refusal of a bad file is a right answer), and afterwards catalogue, store and BM25 hold
the same papers, every added one among them.

Evidence-only answers (PAPERCHAT_LLM_BACKEND=none) keep it within ~90 s on 2 cores: the local
model's concurrency has its own test (tests/test_app_concurrency.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ICLR

pytestmark = pytest.mark.integration


@pytest.mark.skipif(not ICLR.exists(), reason=f"{ICLR} is missing (../shared/data, the evaluation data)")
def test_four_sessions_and_an_ingest_lose_nothing(tmp_path: Path) -> None:
    from bench.soak import MIX, QUESTIONS, run, table

    soak = run(4, 20, 0, 10, folder=tmp_path, papers=ICLR, llm_backend="none", side_delay_s=0)
    print("\n" + table(soak))

    asked = {call.endpoint for call in soak.calls}
    assert {"/search", "/add_papers good", "/add_papers bad"} <= asked, asked
    assert any(name.startswith("/ask ") and name.split()[1] in QUESTIONS for name in asked), asked
    assert len(MIX) == 4  # one first request of each kind per session (bench/soak.session)
    failed = [(c.endpoint, c.detail) for c in soak.calls if not c.ok]
    assert not failed, failed
    checks = {name: (ok, detail) for name, ok, detail in soak.checks if not name.startswith("RSS")}
    assert all(ok for ok, _ in checks.values()), {name: detail for name, (ok, detail) in checks.items() if not ok}
    counts = soak.counts
    assert counts["catalogue papers"] == counts["store papers"] == counts["BM25 papers"] == counts["papers added (seeds, base, side ingest, good uploads)"]
    assert counts["of them by good uploads"] >= 2
