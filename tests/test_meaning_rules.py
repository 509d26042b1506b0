"""The meaning rules (rag/entailment.py, rag/restatement.py) on claims labelled by reading the
sentence they edit: each kind of minimal edit is objected to, and the true restatement beside it is
not. Pure functions: no model."""

from __future__ import annotations

import pytest

from rag.chinese_claims import claim_findings
from rag.restatement import restatement_findings

SURELOCK = "On LLaDA-8B, SureLock reduces algorithmic FLOPs by 30--50\\% relative to the same sampler without locking."
RESTKV = "ReST-KV achieves up to 10.61$\\times$ reduction in decoding latency at 128k context length."
FASTVGGT = "We propose FastVGGT, a training-free framework that strategically prunes these redundant tokens."
SPECTRAL = (
    "To maintain the semantic quality of representations learned by an efficient student, we introduce Spectral Filtering which "
    "exploits a cross-modal covariance matrix over the softmaxed similarities measured by a strong teacher model."
)
MUP = "For the remainder of training it is weight decay rather than µP that correctly stabilizes the update dynamics across widths."
TASKS = "Our approach improves attribution accuracy across diverse tasks, including image classification, language modeling, and diffusion."
LIGHTING = "Our conditioning module explicitly encodes obstacles, objects of interest, and lighting levels."
VLM = "However, while VLMs can generate PDDL problem files satisfactorily, they struggle to accurately generate the PDDL domain files."
GAR = "GAR-1B outperforms DAM-3B +4.5 on DLC-Bench, and our zero-shot GAR-8B even outperforms in-domain VideoRefer-7B."
BYPASS = "NeuroAdapter directly conditions a latent diffusion model on brain representations, bypassing the need for intermediate feature spaces."
NEGLIGIBLE = "ZeroSiam can avoid collapse and perform more stably using negligible overhead."
TRIGGERS = "AEPO uses HWE tokens as exploration triggers to decide when to explore, and a reward to decide how much to explore."
LEVELS = "At the macro level, M2R retrieves evidence from external sources; at the micro level, it extracts results from a repository."
SCORES = "Our method achieves 26.95% Pass@1 on VM code generation compared to 22.58% for GPT-4o, and improves binary similarity detection."
MATCHES = "MAGPO consistently outperforms CTDE baselines and matches or surpasses fully centralized approaches."
CLOSER = "Recent studies find that the closer key information appears to the outputs, the higher the accuracy."
REALTIME = "MusicRFM injects concept directions to guide generation in real time without per-step optimization."
SEEK = "Seek-CAD explores locally deployed DeepSeek-R1 with a training-free methodology."
AGENTS = "Unlike more sophisticated specialized pipelines, visual agents perform significantly worse than specialized coding agents."
AVOIDS = "Our estimator uses only several forward passes and avoids backpropagation through the sampling."
LEVELS3 = "We introduce SCoT, a million-scale dataset spanning three levels: Spatial Perception, Spatial Analysis, and Spatial Planning."
PRIOR = "Existing methods retrain the model for every new concept, while our method edits activations at inference time."


def objections(claim: str, sentence: str, own: set[str] = frozenset()) -> list[str]:
    sentences = [sentence]
    return [f.kind for f in (*claim_findings(claim, sentences, sentences), *restatement_findings(claim, sentences, sentences, own))]


@pytest.mark.parametrize(
    ("claim", "sentence", "kind"),
    [
        ("On LLaDA-8B, SureLock reduces algorithmic FLOPs by 30% relative to the same sampler.", SURELOCK, "range_hedge"),
        ("ReST-KV achieves a 10.61x reduction in decoding latency at 128k context length.", RESTKV, "range_hedge"),
        ("On LLaDA-8B, SureLock increases algorithmic FLOPs by 30-50% relative to the same sampler.", SURELOCK, "direction"),
        ("FastVGGT is a framework that requires training and prunes redundant tokens.", FASTVGGT, "negation"),
        ("SureLock does not reduce algorithmic FLOPs relative to the same sampler without locking.", SURELOCK, "negation"),
        ("Spectral Filtering uses similarities measured by the efficient student model.", SPECTRAL, "subject"),
        ("For the remainder of training it is µP rather than weight decay that stabilizes the update dynamics.", MUP, "subject"),
        ("Existing methods edit activations at inference time.", PRIOR, "subject"),
        ("The approach improves attribution accuracy on image classification, language modeling, diffusion, and robot control.", TASKS, "overclaim"),
        ("SureLock provably reduces FLOPs by 30-50% on every model.", SURELOCK, "overclaim"),
        ("At the micro level, M2R retrieves evidence from external sources; at the macro level, it extracts results from a repository.", LEVELS, "subject"),
        ("GPT-4o achieves 26.95% Pass@1 on VM code generation compared to 22.58% for ShieldedCode.", SCORES, "subject"),
        ("MAGPO consistently outperforms CTDE baselines and surpasses fully centralized approaches.", MATCHES, "range_hedge"),
        ("Recent studies find that the farther key information appears from the outputs, the higher the accuracy.", CLOSER, "direction"),
        ("MusicRFM guides generation in real time, but this requires per-step optimization.", REALTIME, "negation"),
        ("Seek-CAD uses a methodology that requires fine-tuning the model.", SEEK, "negation"),
        ("LLaMA-7B outperforms LLaMA-70B on every reasoning benchmark.", "LLaMA-70B outperforms LLaMA-7B on every reasoning benchmark.", "subject"),
        ("The MinPV principle is proposed to maximize the path variance.", "The MinPV principle is proposed to minimize the path variance.", "direction"),
        ("Visual agents perform significantly better than specialized coding agents.", AGENTS, "direction"),
        ("The estimator uses several forward passes but requires backpropagation through the sampling.", AVOIDS, "negation"),
    ],
)
def test_each_kind_of_edit_is_objected_to(claim: str, sentence: str, kind: str) -> None:
    assert kind in objections(claim, sentence, {"surelock", "rest-kv", "fastvggt", "shieldedcode"})


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("SureLock cuts algorithmic FLOPs by 30–50% on LLaDA-8B compared with the same sampler without locking.", SURELOCK),
        ("ReST-KV reduces decoding latency by up to 10.61x at a 128k context.", RESTKV),
        ("FastVGGT prunes redundant tokens without any training.", FASTVGGT),
        ("Weight decay, not µP, stabilizes the update dynamics across widths for the rest of training.", MUP),
        ("The approach improves attribution accuracy on image classification, language modeling and diffusion.", TASKS),
        ("Unlike existing methods that retrain the model for each new concept, the method edits activations at inference time.", PRIOR),
        # One plain word in a list is as often a synonym as an extra item: let through.
        ("The module explicitly encodes obstacles, objects of interest, and illumination.", LIGHTING),
        ("The VLMFP paper observes that VLMs produce PDDL problem files but struggle to generate PDDL domain files.", VLM),
        ("GAR-1B surpasses DAM-3B on DLC-Bench, and the zero-shot GAR-8B outperforms VideoRefer-7B.", GAR),
        ("NeuroAdapter conditions a diffusion model on brain signals directly, with no intermediate feature space.", BYPASS),
        ("ZeroSiam avoids collapse while adding almost no overhead.", NEGLIGIBLE),
        ("Seek-CAD needs no training: it explores locally deployed DeepSeek-R1.", SEEK),
        # Narrower than the sentence, or the same items in another order: true.
        ("FooNet accepts text prompts.", "FooNet accepts text or image prompts."),
        ("FooNet is evaluated on text, images and audio.", "FooNet is evaluated on audio, images and text."),
        ("Seek-CAD requires tuning a single threshold.", SEEK),
        ("ZeroSiam adds a small overhead.", NEGLIGIBLE),
        ("SCoT is a dataset organised into three levels: spatial perception, spatial analysis, and spatial planning.", LEVELS3),
        ("The authors show that TRECs can be forecast before training.", "We show that the TREC can be predicted before training."),
        ("AEPO uses HWE tokens as exploration triggers to decide when to explore.", TRIGGERS),
    ],
)
def test_a_true_restatement_is_not(claim: str, sentence: str) -> None:
    assert objections(claim, sentence, {"surelock", "rest-kv", "fastvggt"}) == []


def test_a_chinese_claim_is_read_by_its_cue_words() -> None:
    assert "direction" in objections("SureLock 把 FLOPs 增加了 30–50%", SURELOCK)
    assert "negation" in objections("FastVGGT 需要重新训练", FASTVGGT)
    assert objections("SureLock 把 FLOPs 减少了 30–50%", SURELOCK) == []
    # "不受……影响" says with a negation what English says as "invariant to".
    assert objections("该表示不受原始状态表示方式的影响。", "The representation is invariant to the original state representation.") == []
    assert "negation" in objections("该表示不受原始状态表示方式的影响。", "The representation depends on the original state representation.")
