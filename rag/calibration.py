"""Every measured threshold in one record: its value, how it was measured, and the embedding
model it was measured with.

Cosine similarities depend on the embedding model (MiniLM's on-topic cosines run 0.4-0.8; a
multilingual encoder's 0.18-0.55), so a cut measured with one model is wrong for another. The
pipeline takes its thresholds from the `Calibration` the facade picks for the configured model;
a model with no calibration of its own gets MiniLM's, and a warning says so. Numbers chosen
rather than measured (the RRF constant, a table's width) stay beside the code that uses them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, fields
from typing import Any

from rag.embeddings import BUNDLED_MODEL_NAME
from rag.multilingual import MULTILINGUAL_MODEL_NAME

log = logging.getLogger(__name__)


def measured(value: float, how: str, *, cosine: bool = False) -> Any:
    """A threshold with the measurement behind it. `cosine`: it is a cosine cut, or weighs one,
    so it depends on the embedding model."""
    return field(default=value, metadata={"how": how, "cosine": cosine})


@dataclass(frozen=True)
class Calibration:
    embedding_model: str
    # How a value of this record that differs from the default was measured, by field name.
    measured_here: dict[str, str] = field(default_factory=dict, compare=False)

    # -- retrieval (rag/retrieval.py) --
    dense_weight: float = measured(
        0.5,
        "Weighted fusion's share of the min-max normalised dense score: SciFact nDCG@10 0.733; 0.6 lifted ICLR idea Recall@5 "
        "0.943 → 0.971 but theme Recall@20 fell 0.582 → 0.575 (bench/RESULTS.md, issue 3).",
        cosine=True,
    )
    chunks_per_paper: int = measured(
        2, "Dense chunks fetched per wanted paper: (3, 50) and (2, 30) gave the same Recall@5, MRR@10 and nDCG@10 to the third decimal."
    )
    min_candidates: int = measured(30, "Papers each side brings to the fusion at least; with chunks_per_paper, Chroma's time 21 → 14 ms.")

    # -- is a paper about the question? (rag/evidence.py) --
    grounding_cosine_weight: float = measured(
        0.7,
        "Grounding = this × best-chunk cosine + the rest × share of the question's key terms in the paper: cosine alone put an "
        "off-corpus DP-SGD question at 0.41 on a seed, as high as real questions (bench/answer_dev.jsonl, bench/iclr_dev.jsonl).",
        cosine=True,
    )
    min_grounding: float = measured(
        0.45,
        "Below it a paper is not about the question (and `ask` abstains when no paper reaches it): seeds 13/13 out-of-corpus "
        "abstained, 0/64 in-corpus; ICLR 2026 19/20 and 1/85. PAPERCHAT_MIN_GROUNDING overrides it.",
        cosine=True,
    )
    source_margin: float = measured(
        0.12,
        "A source must come this close to the best source's grounding: on the seeds the right paper leads the next by 0.11-0.45 "
        "(median 0.3), and a distractor shown beside it is what the 135M model then quotes.",
        cosine=True,
    )

    # -- evidence sentences (rag/evidence.py) --
    evidence_cosine_weight: float = measured(
        0.7, "A sentence's answer score = this × cosine to the question + the rest × key-term overlap (seed questions, by hand).", cosine=True
    )
    contribution_bonus: float = measured(
        0.05, "Lift for 'we propose ...' sentences, which answer 'how/what does it do' better than an abstract's background opening.", cosine=True
    )

    # -- the checker (rag/support.py), graded on bench/claims.jsonl's dev part by bench/check.py --
    support_cosine_weight: float = measured(
        0.5, "Support = this × best sentence cosine + the rest × share of the claim's key terms in the cited abstract.", cosine=True
    )
    min_support: float = measured(
        0.58,
        "Labelled dev claims (bench/claims.jsonl) the meaning rules do not object to: true paraphrases score 0.49-1.0, another "
        "paper's true fact 0.28-0.58; on dev batches 1, 2 and 5 (213 true, 207 unsupported English claims), with min_overlap "
        "0.45: 0.6 kept 206 and 0.58 kept 207, both catching 194; 0.55 caught 193.",
        cosine=True,
    )
    min_overlap: float = measured(
        0.45,
        "Share of a claim's key terms that must occur in what it cites: true paraphrases of the dev claims reach 0.42-1.0. On dev "
        "batches 1, 2 and 5 (213 true, 207 unsupported English claims): 0.55 kept 203, 0.5 kept 205, 0.45 kept 206, 0.4 kept 206, "
        "each catching 194 (0.7 had rejected 12 of batch 1's 96). Padding that 0.7 used to stop ('..., a common practice in the "
        "field') is an added phrase the abstract never says (rag/restatement.py).",
    )
    repeat_cosine: float = measured(
        0.92, "A kept sentence this close to an earlier one says it again: a reworded repeat 0.97, two claims about one paper < 0.85.", cosine=True
    )

    # -- answers (rag/answer.py) --
    not_stated_below: float = measured(
        0.3, "Best evidence below this, for a question about one named paper: its abstract has nothing close (on-topic evidence 0.45-0.8).", cosine=True
    )
    extractive_margin: float = measured(
        0.08, "Another paper's sentence joins an extractive answer only within this of the best sentence's score (~one rank of closeness).", cosine=True
    )

    # -- theme summaries (rag/themes.py), measured on 20 ICLR themes by reading 396 included papers --
    theme_candidates: int = measured(150, "Candidates a theme is gathered from: more than any ICLR dev theme has (48 gold papers).")
    core_term_max_share: float = measured(0.05, "A theme term at most this share of the corpus uses is a core term ('splat', not '3d').")
    core_term_max_papers: int = measured(10, "In a small corpus, a term at most this many papers use is core too (5% of 51 seeds is 2.5).")
    min_core_sentences: int = measured(
        2, "A paper is about a theme when its title or this many abstract sentences name a core term: off-theme papers name it once."
    )
    subject_top: int = measured(20, "Best-ranked candidates whose shared core terms are the theme's subject (pseudo-relevance feedback).")
    subject_share: float = measured(0.8, "Share of those candidates that must use a term for it to be part of the subject.")
    theme_paraphrase_cosine: float = measured(
        0.55,
        "A candidate that never names the theme's term of several words ('Bayesian optimization') stays when its best chunk's cosine "
        "to the theme is at least this. Offline sweep over the tuned multiword themes' candidates (dev / first held-out part, term "
        "always required): 0.50 recall 0.809 / 0.856, off-theme 0.072 / 0.144; 0.55 0.809 / 0.856, 0.070 / 0.117; 0.60 0.809 / "
        "0.850, 0.070 / 0.106 (bench/RESULTS.md, issue 15, last stop).",
        cosine=True,
    )
    theme_term_gap: float = measured(
        0.04,
        "The term is required only when the candidates that never name it sit this much further from the theme (mean best-chunk "
        "cosine) than those that do. Offline sweep on the tuned themes (English dev recall / off-theme, Chinese dev recall, "
        "multiword held-out off-theme): never required 0.899 / 0.106, 0.881, 0.244; always 0.822 / 0.073, 0.807, 0.119; gap 0.00 "
        "0.866 / 0.075, 0.846, 0.119; 0.04 0.880 / 0.076, 0.881, 0.128; 0.08 0.886 / 0.080, 0.881, 0.152 (bench/RESULTS.md, issue 15).",
        cosine=True,
    )

    # -- a question in another language (rag/retrieval.py, rag/crosslingual.py) --
    multilingual_weight: float = measured(
        0.3,
        "Share of the multilingual channel's normalised cosine when it is fused with what the question's English words found: "
        "0.3 put the right paper in the top 5 for 18/18 Chinese dev idea questions (bench/zh_dev.jsonl), 0.5 for 17/18.",
        cosine=True,
    )
    min_phrase_cosine: float = measured(
        0.6,
        "A question's word stands for the nearest corpus phrase only this close: 知识蒸馏 → 'knowledge distillation' 0.80, "
        "联邦学习 → 'federated learning' 0.75, while unrelated neighbours stay below 0.6.",
        cosine=True,
    )

    def table(self) -> list[tuple[str, object, str]]:
        """(name, value, how it was measured) of every threshold."""
        return [(f.name, getattr(self, f.name), self.measured_here.get(f.name, f.metadata["how"])) for f in fields(self) if f.metadata]


MINILM = Calibration(embedding_model=BUNDLED_MODEL_NAME)
# The multilingual channel's thresholds: whether a paper is about a question asked in another
# language (its cosines run lower than MiniLM's), and how that question's search is fused.
MULTILINGUAL = Calibration(
    embedding_model=MULTILINGUAL_MODEL_NAME,
    min_grounding=0.38,
    min_support=0.4,
    measured_here={
        "min_support": "A Chinese claim's cosine to the English sentence nearest it (bench/claims.jsonl, dev part): true claims "
        "0.42-0.82 (11), false minimal edits 0.53-0.72 (they are caught by numbers and the Chinese cue words, not by this cut).",
        "min_grounding": "Grounding (0.7 × the channel's cosine + 0.3 × the share of the question's English words in the paper) "
        "of the top hit of the Chinese dev questions (bench/zh_dev.jsonl, dev part), English words read by BM25: about one paper "
        "0.355-1.0 (39 questions on the seeds and on ICLR 2026, 2 of them below 0.38, both on ICLR); about nothing in the corpus "
        "0.135-0.378 (12, 3 of them 0.346-0.378). 0.38 misclassifies 2 of 51, 0.34 3. Held-out part at 0.38: 2 of 27 in-corpus "
        "questions below (ICLR), 0 of 9 out-of-corpus above.",
    },
)
CALIBRATED = {MINILM.embedding_model: MINILM, MULTILINGUAL.embedding_model: MULTILINGUAL}


def calibration_for(model: str) -> Calibration:
    """The thresholds measured with `model`; for a model with none of its own, MiniLM's, with a
    warning naming the cuts that depend on the model."""
    if model in CALIBRATED:
        return CALIBRATED[model]
    depends = [f.name for f in fields(MINILM) if f.metadata.get("cosine")]
    log.warning(
        "The thresholds were calibrated for %s, not for the embedding model %s; these depend on it and may need measuring again "
        "(rag/calibration.py): %s.",
        MINILM.embedding_model,
        model,
        ", ".join(depends),
    )
    return MINILM
