from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.api import Paperchat
from rag.config import Settings
from rag.records import Answer, Comparison, Group, Hit, IngestError, IngestReport, MapPoint, Paper, Source
from tests.conftest import SEEDS, free_port, make_fake_api, write_jsonl
from tests.fakes import HashingEmbeddings
from ui import render
from ui.sanitize import link
from ui.serve import start


def paper(title: str, generated: bool = False, url: str = "", abstract: str = "An abstract.", **extra: str) -> Paper:
    return Paper(paper_id=title.lower().replace(" ", "-"), abstract=abstract, title=title, title_is_generated=generated, url=url, extra=tuple(extra.items()))


def hit(title: str, generated: bool, url: str = "", score: float = 0.5, abstract: str = "An abstract.") -> Hit:
    return Hit(paper(title, generated, url, abstract), score, relevance=score)


# -- pure rendering ---------------------------------------------------------------------------


def test_render_hits_marks_generated_titles_links_and_escapes() -> None:
    text = render.render_hits("sheep <b>", [hit("FooNet", True), hit("Real <Title>", False, url="https://x.org/1", score=0.25)])
    assert "**2 papers**" in text and "sheep &lt;b&gt;" in text
    assert "1. **FooNet** <small>(generated title)</small> · relevance 0.50" in text
    assert '2. **<a href="https://x.org/1" target="_blank">Real &lt;Title&gt;</a> <small>(x.org)</small>** · relevance 0.25' in text


def test_render_hits_cuts_long_abstracts_and_says_when_nothing_matched() -> None:
    text = render.render_hits("q", [hit("T", False, abstract="word " * 500)])
    assert text.rstrip().endswith("…") and len(text) < 1000
    assert render.render_hits("nothing", []) == "No papers found for *nothing*."


def test_render_status_shows_the_llm_problem_and_what_still_works() -> None:
    assert render.render_status({"papers": 51, "embedding_model": "m"}) == "**papers**: 51 · **embedding model**: m"
    text = render.render_status({"llm_backend": "openai gpt"}, "OpenAI-compatible server at http://h:1 is unreachable.")
    assert "not available" in text and "unreachable" in text and "search works" in text


def test_cite_links_escape_the_text_and_link_each_number_to_its_turns_card() -> None:
    text = render.cite_links("A <script>x</script> claim [1]. Two [2, 3].", turn=4)
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert re.findall(r'href="#source-(\d+-\d+)"', text) == ["4-1", "4-2", "4-3"]
    assert text.count('class="cite"') == 3


def test_highlight_marks_evidence_even_when_the_abstract_had_reference_markers() -> None:
    abstract = "Background here. We propose X [12], a fast method. Results <b>good</b>."
    out = render.highlight(abstract, ["We propose X, a fast method.", "A sentence not in the abstract."])
    assert '<mark class="evidence">We propose X [12], a fast method.</mark>' in out
    # Evidence that cannot be found is still shown, above the abstract, not lost.
    assert out.startswith('<p class="evidence-quote"><mark class="evidence">A sentence not in the abstract.</mark></p>')
    assert "&lt;b&gt;good&lt;/b&gt;" in out and "<b>" not in out


def test_latex_is_shown_as_a_reader_sees_it_and_evidence_is_still_found() -> None:
    assert render.readable(r"by 2.58\% and 10.61$\times$, cost $O(N^2d)$, FLOPs by 30--50\%") == "by 2.58% and 10.61×, cost O(N^2d), FLOPs by 30–50%"
    assert render.readable(r"We propose \textbf{\textsc{Sure}Lock} (our \emph{sure} condition)") == "We propose SureLock (our sure condition)"
    assert render.readable("plain text, left alone") == "plain text, left alone"
    abstract = r"Intro. It surpasses baselines by 2.58\% on LongBench. End."
    assert '<mark class="evidence">It surpasses baselines by 2.58% on LongBench.</mark>' in render.highlight(
        abstract, [r"It surpasses baselines by 2.58\% on LongBench."]
    )
    assert "2.58% on LongBench [" in render.cite_links(r"It surpasses baselines by 2.58\% on LongBench [1].")


def test_render_sources_numbers_cards_by_turn_marks_generated_titles_and_links_only_web_urls() -> None:
    sources = [
        Source(1, paper("SureLock", True, abstract="We propose SureLock. It locks."), 0.81, ("We propose SureLock.",)),
        Source(2, paper("Real", url='https://openreview.net/forum?id=x"y'), 0.5, ()),
        Source(3, paper("Local", url="javascript:alert(1)"), 0.4, ()),
    ]
    html_text = render.render_sources(sources, turn=2)
    assert [m for m in re.findall(r'id="(source-[\d-]+)"', html_text)] == ["source-2-1", "source-2-2", "source-2-3"]
    assert "generated title" in html_text.split('id="source-2-2"')[0]
    assert 'href="https://openreview.net/forum?id=x&quot;y"' in html_text
    assert "javascript:" not in html_text.split("Local")[0].split("source-2-3")[-1]
    assert '<mark class="evidence">We propose SureLock.</mark>' in html_text
    assert "relevance 0.81" in html_text


def test_render_answer_shows_table_notes_removed_sentences_and_related_papers() -> None:
    table = Comparison(("approach",), ((1, "A", ("We do a.",)), (2, "B", ("not stated in the abstract",))))
    answer = Answer(
        question="compare",
        text="A does a [1].",
        mode="compare",
        comparison=table,
        notes=("Only two papers matched.",),
        dropped=(("B is best [7].", "cites [7], there are 2 sources"),),
        backend="local SmolLM2",
        timings_ms={"total": 1234.0},
    )
    text = render.render_answer(answer, turn=3)
    assert 'href="#source-3-1"' in text and "| approach |" in text
    assert "ℹ️ Only two papers matched." in text
    assert "1 draft sentence(s) removed" in text and "cites [7]" in text
    assert "comparison · local SmolLM2 · 1.2 s" in text
    abstained = Answer(question="q", text="Nothing in the corpus.", abstained=True, related=(hit("Near", False),))
    assert "Possibly related" in render.render_answer(abstained) and "Near" in render.render_answer(abstained)


def test_a_list_answer_shows_its_filters_as_chips_and_in_the_export() -> None:
    from rag.records import AppliedFilter, Page

    oral = AppliedFilter("status", ("Oral", "Oral (conditional)"), "oral")
    text = "**2 oral papers** mention “LoRA”:\n\n1. **A**: We use LoRA [1]."
    answer = Answer("Which oral papers use <b>LoRA</b>?", text, mode="list", filters=(oral,), page=Page(1, 20, 2))
    shown = render.render_answer(answer)
    assert '<span class="filter-chip"' in shown and "status: Oral, Oral (conditional)" in shown and "<sub>list ·" in shown
    exported = render.export_markdown([{"q": answer.question, "result": answer.to_json()}])
    assert "> Filters: status: Oral, Oral (conditional)" in exported


def test_render_draft_says_what_is_happening_then_streams_sentences() -> None:
    assert "Searching" in render.render_draft([], [])
    one = Source(1, paper("T"), 0.5)
    assert "Found 1 source" in render.render_draft([], [one])
    assert render.render_draft(["First [1]."], [one], turn=2).endswith(" ▌")


def test_export_markdown_lists_each_turns_references() -> None:
    result = Answer(question="q", text="X [1].", sources=(Source(1, paper("SureLock", True, url="https://x.org"), 0.9),)).to_json()
    text = render.export_markdown([{"q": "What is SureLock?", "result": result}])
    assert "## 1. What is SureLock?" in text and "X [1]." in text
    assert "[1] SureLock (generated title). <https://x.org> id: surelock" in text


def test_the_exported_conversation_carries_no_live_image_link_or_markup_from_outside() -> None:
    hostile = paper("Evil ![x](http://evil.example/a.png) <img src=x onerror=alert(1)>", url="javascript:alert(1)")
    result = Answer(question="q", text="See ![p](http://evil.example/p.png) [1].", sources=(Source(1, hostile, 0.9),)).to_json()
    text = render.export_markdown([{"q": "<script>alert(1)</script>", "result": result}])
    assert "![" not in text and "<img" not in text and "<script" not in text and "javascript:" not in text
    assert "Evil" in text and "[1]" in text  # still shown, as text


def test_papers_rows_filter_by_all_words_and_by_area() -> None:
    papers = [paper("Gaussian Splats", abstract="3D scenes", primary_area="vision"), paper("KV cache", abstract="eviction", primary_area="llm")]
    assert [r[0] for r in render.papers_rows(papers)] == ["Gaussian Splats", "KV cache"]
    assert [r[0] for r in render.papers_rows(papers, "kv EVICTION")] == ["KV cache"]
    assert render.papers_rows(papers, "kv scenes") == []
    assert [r[3] for r in render.papers_rows(papers, area="vision")] == ["gaussian-splats"]
    assert render.areas(papers) == ["llm", "vision"]


def test_map_rows_and_example_questions_come_from_the_corpus() -> None:
    points = [MapPoint("a", "A", "t1", 0.1, 0.2), MapPoint("b", "B", "t2", -0.1, 0.0)]
    assert render.map_rows(points) == {"x": [0.1, -0.1], "y": [0.2, 0.0], "topic": ["t1", "t2"], "title": ["A", "B"], "paper_id": ["a", "b"]}
    papers = [
        paper("A long generated label that is only a phrase of the abstract", True),
        paper("Two complementary solutions: a phrase, not a name", True),
        paper("SureLock: when the posterior at an unmasked position", True),
        paper("ReST-KV: robust KV eviction method", True),
    ]
    ids = tuple(p.paper_id for p in papers)
    examples = render.example_questions(papers, [Group("kv, eviction, sparse", ids, 3), Group("attention, kv cache", ids[:2], 2)])
    assert examples == [
        "What does SureLock propose?",
        "Summarise the papers about kv cache",  # a phrase of a label, not "kv eviction"
        "Compare SureLock and ReST-KV",
        "What topics does this corpus cover?",
    ]
    assert render.example_questions(papers[:1]) == ["What topics does this corpus cover?"]
    assert render.example_questions(papers[:1], [Group("graphs, molecules", ids[:1], 1)])[0] == "Summarise the papers about graphs"


def test_render_report_lists_each_bad_line_with_the_uploaded_name() -> None:
    report = IngestReport(added=2, papers=53, errors=(IngestError("/data/uploads/mine-abc.jsonl", "no abstract", 3),))
    text = render.render_report(report, {"/data/uploads/mine-abc.jsonl": "mine.jsonl"})
    assert "**2 added**" in text and "53 papers" in text and "| mine.jsonl | 3 | no abstract |" in text
    nothing = render.render_report(IngestReport(papers=51, errors=(IngestError("/x/bad.csv", "no abstract column"),)))
    assert nothing.startswith("❌ Nothing was added.") and "existing index is unchanged" in nothing


# -- the served app, end to end with gradio_client ---------------------------------------------


@pytest.fixture
def served(seeded: Paperchat) -> Iterator[str]:
    port = free_port()
    demo = start(seeded, "127.0.0.1", port, block=False)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


def test_client_asks_follows_up_and_searches(served: str) -> None:
    from gradio_client import Client

    client = Client(served, verbose=False)
    first = client.predict("How does ReST-KV evict KV cache entries?", "auto", [], api_name="/ask")
    assert not first["abstained"] and first["mode"] == "answer"
    assert "ReST-KV" in first["sources"][0]["abstract"] and "[1]" in first["answer"]
    follow = client.predict("What does it report on LongBench?", "auto", [{"q": "How does ReST-KV evict KV cache entries?", "result": first}], api_name="/ask")
    assert follow["sources"][0]["paper_id"] == first["sources"][0]["paper_id"] and "LongBench" in follow["answer"]
    found = client.predict("KV cache eviction", 3, api_name="/search")
    assert len(found["results"]) == 3 and "ReST-KV" in found["results"][0]["title"]


def test_client_checks_a_claim(served: str) -> None:
    from gradio_client import Client

    client = Client(served, verbose=False)
    narrowed = client.predict("SureLock reduces algorithmic FLOPs by 30% relative to the same sampler without locking", api_name="/check")
    assert narrowed["verdict"] == "unsupported" and "SureLock" in narrowed["papers"][0]["title"] + narrowed["papers"][0]["evidence"][0]
    with pytest.raises(Exception, match="Empty claim"):
        client.predict("  ", api_name="/check")


def test_client_gets_clear_errors_for_empty_and_overlong_questions(served: str) -> None:
    from gradio_client import Client

    client = Client(served, verbose=False)
    with pytest.raises(Exception, match="Empty question"):
        client.predict("   ", api_name="/ask")
    with pytest.raises(Exception, match="limit is 2,000"):
        client.predict("why " * 600, api_name="/ask")
    with pytest.raises(Exception, match="Unknown mode"):
        client.predict("What is ReST-KV?", "poetry", api_name="/ask")


def test_upload_of_a_bad_file_changes_nothing_then_a_good_file_is_added(served: str, seeded: Paperchat, tmp_path: Path) -> None:
    from gradio_client import Client, handle_file

    client = Client(served, verbose=False)
    before = {p.paper_id for p in seeded.papers()}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "no abstract here"}\nnot json at all\n', encoding="utf-8")
    report, _ = client.predict([handle_file(str(bad))], api_name="/add_papers")
    assert "Nothing was added" in report and "| bad.jsonl | 1 |" in report and "| bad.jsonl | 2 |" in report
    assert {p.paper_id for p in seeded.papers()} == before
    assert seeded.search("KV cache eviction", 1).hits[0].paper.title.startswith("ReST-KV")
    abstract = "We propose Zebrafish Attention, a striped attention pattern for long video transformers that halves memory."
    good = write_jsonl(tmp_path / "good.jsonl", [{"id": "zebra-1", "title": "Zebrafish Attention", "abstract": abstract}])
    report, status = client.predict([handle_file(str(good))], api_name="/add_papers")
    assert "**1 added**" in report and "52 papers" in report and "52" in status
    assert seeded.search("striped attention for long video", 1).hits[0].paper.title == "Zebrafish Attention"
    # Stored under the data directory, so the paper's source outlives Gradio's temporary upload.
    assert [p.name.startswith("good-") for p in (seeded.settings.data_dir / "uploads").iterdir()] == [True]
    again, _ = client.predict([handle_file(str(good))], api_name="/add_papers")
    assert "**0 added**" in again and "1 unchanged" in again


def test_an_unsupported_upload_is_refused_with_what_to_do(served: str, tmp_path: Path) -> None:
    from gradio_client import Client, handle_file

    client = Client(served, verbose=False)
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(b"%PDF-1.4 binary")
    with pytest.raises(Exception, match=r"\.txt.*\.jsonl.*\.csv"):
        client.predict([handle_file(str(pdf))], api_name="/add_papers")


def test_ask_about_a_paper_answers_from_that_paper_alone(seeded: Paperchat) -> None:
    target = next(p for p in seeded.papers() if "SureLock" in p.abstract)
    answer = seeded.ask("What problem does this paper address?", about=[target.paper_id])
    assert [s.paper.paper_id for s in answer.sources] == [target.paper_id] and not answer.abstained
    with pytest.raises(Exception, match="no longer in the corpus"):
        seeded.ask("What is it?", about=["no-such-paper"])


def test_login_is_required_when_auth_is_set(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    settings = Settings(data_dir=tmp_path / "data", auth="reader:s3cret", _env_file=None)  # type: ignore[call-arg]
    api = make_fake_api(settings, HashingEmbeddings())
    api.ingest([SEEDS])
    port = free_port()
    demo = start(api, "127.0.0.1", port, block=False)
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=10)
        assert refused.value.code in (401, 403)
        from gradio_client import Client

        client = Client(f"http://127.0.0.1:{port}/", auth=("reader", "s3cret"), verbose=False)
        assert client.predict("KV cache eviction", 1, api_name="/search")["results"]
    finally:
        demo.close()
    assert "s3cret" not in str(api.seams.status())


def test_a_malformed_auth_setting_is_refused_before_serving(tmp_path: Path) -> None:
    from rag.errors import PaperchatError

    settings = Settings(data_dir=tmp_path / "data", auth="just-a-password", _env_file=None)  # type: ignore[call-arg]
    with pytest.raises(PaperchatError, match="user:password"):
        start(make_fake_api(settings, HashingEmbeddings()), "127.0.0.1", free_port(), block=False)


def test_the_app_starts_with_no_index_and_says_how_to_make_one(api: Paperchat) -> None:
    from gradio_client import Client

    port = free_port()
    demo = start(api, "127.0.0.1", port, block=False)
    try:
        with pytest.raises(Exception, match="ingest"):
            Client(f"http://127.0.0.1:{port}/", verbose=False).predict("anything", api_name="/ask")
    finally:
        demo.close()


def test_the_app_starts_and_answers_when_the_llm_backend_is_unreachable(tmp_path: Path) -> None:
    from gradio_client import Client

    from rag.chunking import approx_token_counts
    from rag.llm import ping

    closed = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    settings = Settings(data_dir=tmp_path / "data", llm_backend="openai", openai_base_url=closed, openai_api_key="sk-x", llm_timeout_s=2, _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings, embeddings=HashingEmbeddings(), model="hashing-512", count_tokens=approx_token_counts, max_tokens=256)
    api.ingest([SEEDS])
    assert "127.0.0.1" in (ping(settings) or "")  # what the status line shows
    port = free_port()
    demo = start(api, "127.0.0.1", port, block=False)
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        assert client.predict("KV cache eviction", 1, api_name="/search")["results"]
        answer = client.predict("How does ReST-KV evict KV cache entries?", api_name="/ask")
        assert answer["extractive"] and "[1]" in answer["answer"] and not answer["abstained"]
        assert "sk-x" not in str(answer)
    finally:
        demo.close()


def forget_corpus(api: Paperchat) -> None:
    """As a new process sees the corpus: nothing cached, the lexical index not yet checked."""
    api.cache.clear()
    api.seams._lexical_version = None


def test_warm_up_loads_the_indexes_and_never_raises(seeded: Paperchat, tmp_path: Path) -> None:
    forget_corpus(seeded)
    seeded.warm_up()
    assert "papers" in seeded.cache._values and seeded.seams._lexical_version == seeded.corpus_version()
    empty = make_fake_api(Settings(data_dir=tmp_path / "empty", _env_file=None), HashingEmbeddings())  # type: ignore[call-arg]
    empty.warm_up()  # no index yet: nothing to load, and no error
    assert not empty.cache._values and not (tmp_path / "empty" / "catalog.sqlite3").exists()


FIRST_SEARCHES_TOGETHER = """
import sys, threading
from pathlib import Path
from rag.config import Settings
from tests.conftest import make_fake_api
from tests.fakes import HashingEmbeddings
api = make_fake_api(Settings(data_dir=Path(sys.argv[1]), _env_file=None), HashingEmbeddings())
barrier, outcomes = threading.Barrier(8), []
def search():
    barrier.wait()
    try:
        outcomes.append(api.search("KV cache eviction", 1).hits[0].paper.title)
    except Exception as exc:
        outcomes.append(repr(exc))
threads = [threading.Thread(target=search) for _ in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
print("\\n".join(outcomes))
"""


def test_first_searches_arriving_together_all_succeed(seeded: Paperchat) -> None:
    import subprocess
    import sys

    from tests.conftest import ROOT

    # A new process, as a just-started server: its store, embeddings and indexes are opened by
    # whichever request comes first, here eight at once (Chroma's client cache is per process).
    done = subprocess.run([sys.executable, "-c", FIRST_SEARCHES_TOGETHER, str(seeded.settings.data_dir)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    outcomes = done.stdout.splitlines()
    assert len(outcomes) == 8 and all(o.startswith("ReST-KV") for o in outcomes), done.stdout + done.stderr[-2000:]


def test_a_search_during_an_ingest_answers_at_once_instead_of_waiting(seeded: Paperchat) -> None:
    import threading

    forget_corpus(seeded)  # as after a catalogue change: the lexical index wants checking
    found: list[str] = []
    with seeded.seams.ingest_lock():  # an ingest (an upload, or the CLI in another process) is writing
        searcher = threading.Thread(target=lambda: found.append(seeded.search("KV cache eviction", 1).hits[0].paper.title))
        searcher.start()
        searcher.join(timeout=30)
        assert not searcher.is_alive(), "search waited for the ingest"
    assert found and found[0].startswith("ReST-KV")
    assert seeded.search("KV cache eviction", 1).hits and seeded.seams._lexical_version == seeded.corpus_version()  # checked once the ingest is over


def test_a_missing_model_file_leaves_answers_to_the_evidence_and_says_why(tmp_path: Path) -> None:
    from rag.chunking import approx_token_counts

    settings = Settings(data_dir=tmp_path / "data", llm_backend="local", llm_model_path=str(tmp_path / "gone.gguf"), _env_file=None)  # type: ignore[call-arg]
    api = Paperchat(settings, embeddings=HashingEmbeddings(), model="hashing-512", count_tokens=approx_token_counts, max_tokens=256)
    api.ingest([SEEDS])
    answer = api.ask("How does ReST-KV evict KV cache entries?")
    assert answer.extractive and not answer.abstained and "[1]" in answer.text
    assert api.seams.llm_problem and "gone.gguf" in api.seams.llm_problem


def test_an_upload_never_rewrites_a_paper_indexed_from_elsewhere(served: str, seeded: Paperchat, tmp_path: Path) -> None:
    from gradio_client import Client, handle_file

    original = write_jsonl(
        tmp_path / "mine.jsonl", [{"id": "p0", "title": "Zebra Nets", "abstract": "We propose Zebra Nets, striped networks for tabular data."}]
    )
    seeded.ingest([original])
    client = Client(served, verbose=False)
    hostile = write_jsonl(tmp_path / "other.jsonl", [{"id": "p0", "title": "=HYPERLINK(1)", "abstract": "Totally different text about something else."}])
    with pytest.raises(Exception, match="reuse the id of a paper already in the corpus"):
        client.predict([handle_file(str(hostile))], api_name="/add_papers")
    paper = next(p for p in seeded.papers() if p.paper_id == "p0")
    assert paper.title == "Zebra Nets" and "striped networks" in paper.abstract
    assert not (seeded.settings.data_dir / "uploads").exists() or not list((seeded.settings.data_dir / "uploads").iterdir())


def test_search_endpoint_caps_k(served: str) -> None:
    from gradio_client import Client

    with pytest.raises(Exception, match="1 to 100"):
        Client(served, verbose=False).predict("KV cache", 1_000_000, api_name="/search")


def test_comparison_csv_cells_never_become_spreadsheet_formulas() -> None:
    table = Comparison(("results",), ((1, "=HYPERLINK(x)", ("-3 points on X",)), (2, "B", ("+4 on Y",))))
    rows = table.to_csv().splitlines()
    assert rows[1] == "1,'=HYPERLINK(x),'-3 points on X" and rows[2] == "2,B,'+4 on Y"


def test_outside_images_in_text_are_not_fetched() -> None:
    assert "![" not in render.cite_links("See ![x](http://evil.example/p.png) [1].")
    assert "![" not in render.render_hits("q", [hit("T", False, abstract="![x](http://evil.example/p.png)")])


# A record (title, abstract, address) and a model (answer text, dropped sentences, notes) written
# to attack the page: raw HTML, an outside image, Markdown and bare links, a script address.
HOSTILE = (
    "<img src=x onerror=alert(1)><script>alert(2)</script> ![i](http://evil.example/p.png) [go](javascript:alert(3)) "
    "see https://evil.example/x and www.evil.example, 1https://evil.example/y, xwww.evil.example, mail x@evil.example"
)


def _live(rendered: str) -> list[str]:
    """What in `rendered` a browser or a Markdown renderer would act on, of the hostile string."""
    return [tag for tag in ("<img", "<script", "javascript:", "](", "![", "https://evil", "http://evil", "www.evil", "@evil") if tag in rendered]


def test_every_renderer_leaves_hostile_record_and_model_text_inert() -> None:
    bad = paper(HOSTILE, abstract=f"We propose X. {HOSTILE}.", url="https://x.org/a\n\n![i](https://evil.example/p.png)")
    linked = paper(HOSTILE, abstract="An abstract.", url="https://openreview.net/forum?id=abc")
    table = Comparison(("approach",), ((1, HOSTILE, (HOSTILE,)), (2, "B", ("not stated in the abstract",))))
    answer = Answer(
        question=HOSTILE,
        text=f"{HOSTILE} [1].",
        mode="compare",
        comparison=table,
        notes=(HOSTILE,),
        dropped=((HOSTILE, HOSTILE),),
        backend=HOSTILE,
        sources=(Source(1, bad, 0.5, (HOSTILE,)), Source(2, linked, 0.4, ())),
        related=(Hit(bad, 0.3),),
        abstained=False,
    )
    outputs = {
        "hits": render.render_hits(HOSTILE, [Hit(bad, 0.5)]),
        "answer": render.render_answer(answer, turn=1),
        "draft": render.render_draft([HOSTILE], answer.sources),
        "sources": render.render_sources(answer.sources, answer.related),
        "status": render.render_status({"corpus": HOSTILE}, HOSTILE),
        "report": render.render_report(IngestReport(errors=(IngestError(HOSTILE, HOSTILE, 1),))),
    }
    sources = outputs.pop("sources")  # HTML, not Markdown: its text is never read as links
    for name, rendered in outputs.items():
        assert not _live(rendered), (name, _live(rendered))
        assert "&lt;img src=x onerror=alert(1)&gt;" in rendered, name  # shown as text, not dropped
    assert "<img" not in sources and "<script" not in sources and "&lt;img src=x onerror=alert(1)&gt;" in sources
    assert set(re.findall(r'href="([^"]*)"', sources)) == {"https://openreview.net/forum?id=abc"}
    # A record's own http(s) address is the one live link, shown with its host.
    assert '<a href="https://openreview.net/forum?id=abc" target="_blank" rel="noopener noreferrer">' in sources
    assert "<small>(openreview.net)</small>" in sources


def test_topic_map_sampling_keeps_every_topics_share_and_colours_are_distinct() -> None:
    points = [MapPoint(f"a{i}", "A", "big", i, 0) for i in range(900)] + [MapPoint(f"b{i}", "B", "small", i, 1) for i in range(100)]
    drawn = render.sample_points(points, 100)
    assert len(drawn) == 100 and sum(p.topic == "small" for p in drawn) == 10
    assert render.sample_points(points[:50], 100) == points[:50]
    assert render.topic_colours(points) == {"big": render.TOPIC_COLOURS[0], "small": render.TOPIC_COLOURS[1]}
    assert len(set(render.TOPIC_COLOURS)) == 12


def test_topics_with_the_same_label_stay_apart_on_the_map() -> None:
    from rag.topic_map import topic_map

    papers = [paper(f"P{i}") for i in range(4)]
    vectors = {p.paper_id: [float(i), 1.0, 0.0] for i, p in enumerate(papers)}
    groups = [Group("kv, cache", ("p0", "p1"), 2), Group("kv, cache", ("p2", "p3"), 2)]
    assert {p.topic for p in topic_map(papers, vectors, groups)} == {"kv, cache", "kv, cache (2)"}


def test_the_explorer_table_shows_area_and_status_only_when_the_corpus_has_them() -> None:
    def shown(papers: list[Paper]) -> list[str]:
        return [render.TABLE_HEADERS[i] for i in render.table_columns(render.papers_rows(papers))]

    assert shown([paper("A"), paper("B")]) == ["title", "paper id"]
    assert shown([paper("A", primary_area="vision", status="Oral"), paper("B")]) == ["title", "area", "status", "paper id"]


def test_client_compares_and_summarizes(served: str) -> None:
    from gradio_client import Client

    client = Client(served, verbose=False)
    compared = client.predict("Compare SureLock and ReST-KV", "auto", [], api_name="/ask")
    assert compared["mode"] == "compare" and len(compared["comparison"]["rows"]) == 2
    assert compared["table_csv"].startswith("n,paper,") and "| [1]" in compared["table_markdown"]
    summary = client.predict("What topics does this corpus cover?", "auto", [], api_name="/ask")
    assert summary["mode"] == "summarize" and "51 papers" in summary["answer"] and "**" in summary["answer"]


def test_client_lists_papers_and_says_which_filter_words_it_could_not_apply(served: str) -> None:
    from gradio_client import Client

    client = Client(served, verbose=False)
    listed = client.predict("Which oral papers evaluate on LongBench?", "auto", [], api_name="/ask")
    assert listed["mode"] == "list" and listed["page"]["total"] == len(listed["sources"]) >= 1
    assert listed["filters"] == [] and any("“oral”" in note for note in listed["notes"])  # the seeds record no status
    assert all("LongBench" in " ".join(s["evidence"]) for s in listed["sources"])


def test_download_folders_of_old_sessions_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    import os
    import time

    from ui.handlers import DOWNLOAD_LIFETIME_S, _write_download, sweep_downloads

    _write_download(tmp_path / "old", "comparison.csv", "n,paper")
    _write_download(tmp_path / "live", "comparison.csv", "n,paper")
    day_ago = time.time() - DOWNLOAD_LIFETIME_S - 60
    os.utime(tmp_path / "old", (day_ago, day_ago))
    os.utime(tmp_path / "live", (day_ago, day_ago))
    _write_download(tmp_path / "live", "comparison.csv", "n,paper,results")  # written again: alive
    assert sweep_downloads(tmp_path) == 1
    assert not (tmp_path / "old").exists() and (tmp_path / "live" / "comparison.csv").read_text() == "n,paper,results"
    assert sweep_downloads(tmp_path / "missing") == 0


def test_a_download_survives_a_sweep_between_making_its_folder_and_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from ui.handlers import _write_download

    write_text = Path.write_text
    calls: list[Path] = []

    def swept_first(self: Path, *args: object, **kwargs: object) -> int:
        calls.append(self)
        if len(calls) == 1:  # another session's sweep removes the folder just now
            shutil.rmtree(self.parent)
        return write_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", swept_first)
    path = _write_download(tmp_path / "session", "comparison.csv", "n,paper")
    assert len(calls) == 2 and Path(path).read_text() == "n,paper"


def test_a_bidi_override_in_a_title_cannot_reverse_the_host_shown_beside_its_link() -> None:
    # Seen in a browser run (tests/test_browser_hostile.py): a title ending in U+202E reversed the rest
    # of its line on the page, "(evil.example)" included. Only the controls go; the letters stay.
    rlo = paper("Quokka \u202eeulav\u202c Flow \u2067x\u2069", url="https://evil.example/p")
    rendered = {
        "hits": render.render_hits("q", [Hit(rlo, 0.5)]),
        "sources": render.render_sources([Source(1, rlo, 0.5, ())]),
        "link": link(rlo.title, rlo.url),
    }
    for name, text in rendered.items():
        assert not re.search("[\u202a-\u202e\u2066-\u2069]", text), name
        assert "Quokka eulav Flow x" in text and "(evil.example)" in text, name


def test_the_sessions_the_app_keeps_in_memory_are_bounded_in_number_and_time(api: Paperchat) -> None:
    import gradio as gr

    from ui.app import MAX_SESSIONS, SESSION_LIFETIME_S

    demo = start(api, "127.0.0.1", free_port(), block=False)
    try:
        states = [block for block in demo.blocks.values() if isinstance(block, gr.State)]
        assert states and all(state.time_to_live == SESSION_LIFETIME_S for state in states)
        for number in range(MAX_SESSIONS + 20):  # more browser sessions than are kept
            demo.state_holder[f"session-{number}"]
        assert len(demo.state_holder.session_data) == MAX_SESSIONS
        assert "session-0" not in demo.state_holder and f"session-{MAX_SESSIONS + 19}" in demo.state_holder  # the oldest went
    finally:
        demo.close()


def test_a_conversation_stops_at_its_turn_limit_with_what_to_do(seeded: Paperchat) -> None:
    import gradio as gr

    from rag.conversation import MAX_TURNS, turns_from_history
    from ui.handlers import Handlers

    on = Handlers(seeded)
    one = {"q": "What does SureLock do?", "result": seeded.ask("What does SureLock do?").to_json()}
    below = [one] * (MAX_TURNS - 1)
    outputs = list(on.ask("What is ReST-KV?", "auto", [], below, []))
    assert len(outputs[-1][3]) == MAX_TURNS  # the last turn that fits is answered and kept
    with pytest.raises(gr.Error, match=r"50 turns.*Export conversation.*Clear"):
        list(on.ask("And its speed?", "auto", [], outputs[-1][3], []))
    # The same bound on a history passed to the API or `paperchat ask --history`.
    assert len(turns_from_history([one] * MAX_TURNS)) == MAX_TURNS
    with pytest.raises(Exception, match=r"51 turns.*at most 50.*last 50"):
        turns_from_history([one] * (MAX_TURNS + 1))
