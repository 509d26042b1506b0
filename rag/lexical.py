"""The only importer of bm25s: a BM25 index over papers (title + abstract), persisted beside
the Chroma store and kept in step with the catalogue by the same incremental ingest.

Why papers and not chunks: an abstract is short enough that BM25's length normalisation works
on it whole, and a name that occurs once in the title and once in the abstract should count
twice for one paper, not once for each of two chunks.

On disk (`data_dir/lexical/`): the tokenizer's vocabulary, every paper's token ids (so an
update tokenises only new and changed papers) and bm25s's own score matrix (so loading for a
query re-tokenises nothing and rebuilds nothing).
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

from rag.records import Paper
from rag.text import title_name

log = logging.getLogger(__name__)

# 3: a paper name may have two characters ("T1: ...", "J1: ..."), as rag.text.is_coined says.
FORMAT_VERSION = 3
# A paper's own name (the "WinT3R" of "WinT3R: Window-Based ...") shared by at most this many
# papers is worth ranking them first for; more, and it is a field's vocabulary.
NAME_MAX_PAPERS = 5
STATE_FILE = "state.json"
TOKENS_FILE = "tokens.npz"
MODEL_DIR = "bm25"
# What reading a damaged folder raises (a file overwritten, truncated or emptied): JSON and numpy
# errors (ValueError), a missing key, a zip that is not one, a file cut short. The catalogue holds
# every paper, so such a folder is rebuilt from it rather than reported (tests/test_faults.py).
DAMAGED = (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, zipfile.BadZipFile)


def document_text(paper: Paper) -> str:
    # A generated label is made of the abstract's own words; only a real title adds evidence.
    return paper.abstract if paper.title_is_generated else f"{paper.title}. {paper.abstract}"


_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9+\-]*[A-Za-z0-9+]|[A-Za-z0-9]")


def paper_name(paper: Paper) -> str:
    """The name a paper gives its own contribution (rag.text.title_name), lower-cased, or ""."""
    return title_name(paper.title, paper.title_is_generated).lower()


def query_names(text: str) -> set[str]:
    """Every word and word pair of a query, lower-cased: candidates to look up as paper names."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    return set(tokens) | {f"{a} {b}" for a, b in pairwise(tokens)}


# A word written in lower case that at least this many papers use (or this share of the corpus) is a
# word, not a name: "link" in 1,000+ ICLR abstracts, while a coined name is in one or a few.
COMMON_WORD_MIN_PAPERS = 3
COMMON_WORD_SHARE = 0.002


def common_words(frequency: Mapping[str, int], papers: int) -> Callable[[str], bool]:
    """Whether a word is one many of the corpus's papers use (`frequency`: papers per key term)."""
    from rag.text import key_terms

    least = max(COMMON_WORD_MIN_PAPERS, papers * COMMON_WORD_SHARE)
    return lambda word: any(frequency.get(term, 0) >= least for term in key_terms(word))


def _make_tokenizer() -> Any:
    import Stemmer
    from bm25s.tokenization import Tokenizer

    # English stop words out, Snowball stems: "locking" finds "lock"; the default splitter
    # keeps "wint3r" and "3dgs" as one token each.
    return Tokenizer(stopwords="en", stemmer=Stemmer.Stemmer("english"))


@dataclass
class _State:
    paper_ids: list[str]
    hashes: list[str]
    tokens: list[list[int]]
    names: dict[str, list[str]]


class LexicalIndex:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._tokenizer: Any = None
        self._bm25: Any = None
        self._paper_ids: list[str] = []
        self._hashes: dict[str, str] = {}
        self._position: dict[str, int] = {}
        self._names: dict[str, list[str]] = {}
        self._damage = ""  # why the folder last failed to load, if it did

    # -- loading --------------------------------------------------------------------------

    def load(self) -> bool:
        """Load from disk; False when there is nothing (usable) there yet, or it is damaged
        (logged: the caller rebuilds it from the catalogue)."""
        import bm25s

        state_path = self.folder / STATE_FILE
        if not state_path.is_file():
            return False
        try:
            state = json.loads(state_path.read_text(encoding="utf-8"))
            if state.get("version") != FORMAT_VERSION:
                return False
            tokenizer = _make_tokenizer()
            tokenizer.load_vocab(str(self.folder))
            paper_ids = list(state["paper_ids"])
            bm25 = bm25s.BM25.load(str(self.folder / MODEL_DIR), show_progress=False) if paper_ids else None
            hashes = dict(zip(paper_ids, state["hashes"], strict=True))
        except DAMAGED as exc:
            damage = f"{type(exc).__name__}: {exc}"
            if damage != self._damage:  # once, not again when the rebuild reads the folder first
                log.warning("The BM25 index in %s is damaged (%s); it is rebuilt from the catalogue", self.folder, damage)
            self._damage = damage
            return False
        self._damage = ""
        # Published in one assignment, so a search in another thread never pairs the new ids
        # with the old score matrix.
        (self._tokenizer, self._paper_ids, self._hashes, self._position, self._names, self._bm25) = (
            tokenizer,
            paper_ids,
            hashes,
            {pid: i for i, pid in enumerate(paper_ids)},
            state.get("names", {}),
            bm25,
        )
        return True

    def fingerprint(self) -> dict[str, str]:
        return dict(self._hashes)

    # -- keeping in step ----------------------------------------------------------------

    def sync(self, papers: Mapping[str, tuple[Paper, str]]) -> int:
        """Make the index hold exactly `papers` (paper_id -> (paper, content hash)).
        Tokenises only papers that are new or whose hash changed; returns how many."""
        # Always from disk: another process may have rewritten the index since this one loaded it.
        if not self.load():
            self._tokenizer, self._paper_ids, self._hashes, self._position, self._names, self._bm25 = _make_tokenizer(), [], {}, {}, {}, None
        if self._hashes == {pid: digest for pid, (_, digest) in papers.items()}:
            return 0
        old = self._load_tokens()
        changed = [pid for pid, (_, digest) in papers.items() if self._hashes.get(pid) != digest or pid not in old]
        if changed:
            fresh = self._tokenizer.tokenize(
                [document_text(papers[pid][0]) for pid in changed], update_vocab=True, return_as="ids", show_progress=False
            )
            old.update(zip(changed, fresh, strict=True))
        ids = list(papers)
        owners: dict[str, list[str]] = {}
        for pid, (paper, _) in papers.items():
            if name := paper_name(paper):
                owners.setdefault(name, []).append(pid)
        names = {name: pids for name, pids in owners.items() if len(pids) <= NAME_MAX_PAPERS}
        self._write(_State(ids, [papers[pid][1] for pid in ids], [old[pid] for pid in ids], names))
        self.load()
        return len(changed)

    def _load_tokens(self) -> dict[str, list[int]]:
        path = self.folder / TOKENS_FILE
        if not path.is_file() or not self._paper_ids:
            return {}
        try:
            with np.load(path) as data:
                flat, offsets = data["flat"], data["offsets"]
            return {pid: flat[offsets[i] : offsets[i + 1]].tolist() for i, pid in enumerate(self._paper_ids)}
        except (*DAMAGED, IndexError) as exc:
            log.warning("The BM25 token file %s is damaged (%s: %s); every paper is tokenised again", path, type(exc).__name__, exc)
            return {}

    def _write(self, state: _State) -> None:
        # Write a complete new folder, then swap it in: a crash leaves the old index or the
        # new one, never half of each (and the next ingest re-syncs from the catalogue).
        self.folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=self.folder.name + ".new-", dir=self.folder.parent))
        try:
            self._fill(staging, state)
        except BaseException:  # a full disk, a kill signal turned exception: no half-written folder left behind
            shutil.rmtree(staging, ignore_errors=True)
            raise
        retired = Path(tempfile.mkdtemp(prefix=self.folder.name + ".old-", dir=self.folder.parent))
        retired.rmdir()
        if self.folder.exists():
            self.folder.rename(retired)
        staging.rename(self.folder)
        shutil.rmtree(retired, ignore_errors=True)

    def _fill(self, staging: Path, state: _State) -> None:
        import bm25s

        self._tokenizer.save_vocab(str(staging))
        lengths = [len(t) for t in state.tokens]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        flat = np.fromiter((t for doc in state.tokens for t in doc), dtype=np.int32, count=int(offsets[-1]))
        np.savez(staging / TOKENS_FILE, flat=flat, offsets=offsets)
        if state.paper_ids:
            from bm25s.tokenization import Tokenized

            model = bm25s.BM25()
            model.index(Tokenized(ids=state.tokens, vocab=self._tokenizer.get_vocab_dict()), show_progress=False)
            model.save(str(staging / MODEL_DIR), show_progress=False)
        (staging / STATE_FILE).write_text(
            json.dumps({"version": FORMAT_VERSION, "paper_ids": state.paper_ids, "hashes": state.hashes, "names": state.names}), encoding="utf-8"
        )

    # -- querying -----------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._paper_ids)

    def query_ids(self, query: str) -> list[int]:
        if self._tokenizer is None:
            return []
        ids = self._tokenizer.tokenize([query], update_vocab=False, return_as="ids", show_progress=False)[0]
        return [i for i in ids if i != 0]

    def papers_named(self, query: str, is_word: Callable[[str], bool] | None = None) -> list[str]:
        """Papers that contain a rare coined name the query mentions, e.g. "what does SureLock lock?".
        `is_word`: a query word written in lower case that is a common word of the corpus ("link") is
        not the name of the paper called LINK; "surelock" still names SureLock."""
        found: list[str] = []
        lowered = query.lower()
        words = {t for t in _TOKEN.findall(query) if t.islower() and is_word is not None and is_word(t)}
        # In the order the query mentions them: "compare SureLock and ReST-KV" lists SureLock first.
        for token in sorted(query_names(query) - words, key=lambda t: (lowered.find(t), t)):
            found.extend(p for p in self._names.get(token, ()) if p not in found)
        return found

    def search(self, query: str, k: int, allowed: Iterable[str] | None = None) -> list[tuple[str, float]]:
        """(paper_id, BM25 score) pairs, best first; papers that share no term are left out."""
        ids = self.query_ids(query)
        if not ids or self._bm25 is None:
            return []
        mask = None
        if allowed is not None:
            mask = np.zeros(len(self._paper_ids), dtype=np.float32)
            mask[[self._position[p] for p in allowed if p in self._position]] = 1.0
        scores = self._bm25.get_scores_from_ids(ids, weight_mask=mask)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self._paper_ids[i], float(scores[i])) for i in top if scores[i] > 0]
