"""Thresholds in one record per embedding model (rag/calibration.py), and the corpus caches keyed
on the corpus version (rag/corpus_cache.py)."""

from __future__ import annotations

import logging
from dataclasses import fields
from pathlib import Path

import pytest

from rag.calibration import MINILM, MULTILINGUAL, calibration_for
from rag.config import Settings
from rag.corpus_cache import CorpusCache
from tests.conftest import make_fake_api
from tests.fakes import HashingEmbeddings


def test_every_threshold_says_how_it_was_measured() -> None:
    table = MINILM.table()
    assert len(table) == len(fields(MINILM)) - 2  # all but the model's name and the record's own notes
    assert all(len(how) > 40 for _, _, how in table)
    assert MINILM.embedding_model == "all-MiniLM-L6-v2 (bundled)" and calibration_for(MINILM.embedding_model) is MINILM


def test_a_value_measured_for_the_multilingual_model_says_how_it_was_measured_there() -> None:
    differing = [f.name for f in fields(MULTILINGUAL) if f.metadata and getattr(MULTILINGUAL, f.name) != getattr(MINILM, f.name)]
    assert differing and set(differing) <= set(MULTILINGUAL.measured_here)
    how = dict((name, text) for name, _, text in MULTILINGUAL.table())
    assert "Chinese dev questions" in how["min_grounding"] and calibration_for(MULTILINGUAL.embedding_model) is MULTILINGUAL


def test_another_embedding_model_logs_that_the_thresholds_were_measured_with_minilm(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="rag.calibration"):
        assert calibration_for("/models/bge-small") == MINILM
    assert "calibrated for all-MiniLM-L6-v2" in caplog.text and "/models/bge-small" in caplog.text
    assert "min_grounding" in caplog.text and "min_overlap" not in caplog.text  # only the cosine-bound ones are named


def test_min_grounding_is_the_calibrated_value_unless_set(tmp_path: Path) -> None:
    def calibrated(**settings: object) -> float:
        api = make_fake_api(Settings(data_dir=tmp_path, _env_file=None, **settings), HashingEmbeddings())  # type: ignore[call-arg]
        return api.seams.calibration.min_grounding

    assert calibrated() == MINILM.min_grounding == 0.45
    assert calibrated(min_grounding="") == 0.45  # PAPERCHAT_MIN_GROUNDING= as in .env.example
    assert calibrated(min_grounding=0.3) == 0.3


def test_a_cached_value_is_computed_once_per_corpus_version() -> None:
    version, computed = [1], []
    cache = CorpusCache(lambda: version[0])

    def compute() -> int:
        computed.append(version[0])
        return version[0] * 10

    assert cache.get("x", compute) == 10 and cache.get("x", compute) == 10 and computed == [1]
    version[0] = 2  # an ingest, here or in another process
    assert cache.get("x", compute) == 20 and computed == [1, 2]


def test_a_value_computed_while_the_corpus_changed_is_not_kept() -> None:
    version = [1]
    cache = CorpusCache(lambda: version[0])

    def slow() -> str:
        version[0] = 2  # an ingest lands while the topics are computed
        return "stale"

    assert cache.get("topics", slow) == "stale"
    assert cache.get("topics", lambda: "fresh") == "fresh"
