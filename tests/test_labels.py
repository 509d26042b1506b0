"""Unit tests for rag.labels.make_label, on small hand-written abstracts."""

from __future__ import annotations

import re

import pytest

from rag.label_clauses import as_title, title_phrase
from rag.labels import _APPOSITIVE_GIST_RE, MAX_LABEL_CHARS, TRAILING_STOP, make_label
from rag.tagger import make_tagger
from rag.text import title_name


def test_name_after_we_propose_with_appositive() -> None:
    abstract = (
        "Reading receipts on phones is slow. We propose QuillNet, a lightweight parser for noisy "
        "handwritten receipts that runs on commodity phones. QuillNet halves latency."
    )
    label = make_label(abstract)
    assert label.startswith("QuillNet: ")
    assert "lightweight parser" in label


def test_name_after_called_uses_the_preceding_description() -> None:
    abstract = (
        "Comparing river networks is hard. To this end, we introduce a new metric for comparing "
        "branching river networks, called FlowDiff. FlowDiff is cheap to compute."
    )
    label = make_label(abstract)
    assert label.startswith("FlowDiff: ")
    assert "metric for comparing branching river networks" in label


def test_acronym_expansion_becomes_the_gist() -> None:
    abstract = "In this paper, we propose Sparse Gated Recurrence (SGR), a recurrent layer for long sequences."
    assert make_label(abstract) == "SGR: Sparse Gated Recurrence"


def test_generic_acronyms_are_not_taken_as_names() -> None:
    abstract = (
        "Vision-language models (VLMs) often hallucinate. We introduce RL training for VLMs that "
        "rewards grounded answers on a GPU budget."
    )
    label = make_label(abstract)
    assert not label.startswith(("RL:", "VLMs:", "VLM:", "GPU:"))
    assert label.startswith("RL training for VLMs")


def test_generic_acronym_is_not_a_name_even_when_called_one() -> None:
    abstract = "Chatbots are popular. We study a system called LLM, which answers questions about tax law."
    assert not make_label(abstract).startswith("LLM")


def test_real_name_wins_over_generic_acronyms() -> None:
    abstract = (
        "Large language models (LLMs) decode slowly on a GPU. We present GLiDE, a speculative decoding "
        "scheme for LLMs. GLiDE is 2x faster than standard decoding with a KV cache."
    )
    assert make_label(abstract).startswith("GLiDE: ")


def test_prior_work_named_by_others_is_not_the_label() -> None:
    abstract = (
        "Smith et al. introduced TreeSim, a similarity for trees. However, TreeSim ignores labels. "
        "We propose LabelTree, a labelled tree similarity."
    )
    assert make_label(abstract).startswith("LabelTree: ")


def test_no_name_falls_back_to_cut_gist_without_trailing_stop_word() -> None:
    abstract = (
        "Calibration matters. In this work, we study how label noise affects the calibration of "
        "small image classifiers trained with heavy augmentation."
    )
    label = make_label(abstract, max_words=6)
    assert label == "Label noise"  # "affects the calibration" is the clause's verb and object
    assert label.split()[-1].lower() not in TRAILING_STOP


def test_fallback_to_first_sentence_when_no_contribution_sentence() -> None:
    abstract = "Graph coloring heuristics behave differently on sparse and dense random graphs of every size."
    label = make_label(abstract, max_words=8)
    assert label == "Graph coloring heuristics"  # a noun phrase ends before its verb
    assert len(label.split()) <= 8


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        (  # "no." is "number" only before a digit ("No. 5")
            "Are small benchmarks reliable? In many scenarios, we find that the answer is no. "
            "We introduce a meta-evaluation measure for micro-benchmarking that predicts ranking agreement.",
            "Meta-evaluation measure for micro-benchmarking",  # "that predicts ..." is a clause
        ),
        (  # a Greek or lower-case variable is not an initial
            "We study kernels for contrastive learning up to some error tolerance ε. "
            "Leveraging these definitions, we prove a recovery result for masked autoencoders.",
            "Kernels for contrastive learning up to some error tolerance",
        ),
        (
            "Prior work fails on graphs with n nodes. We show that sparse attention grows linearly in n. "
            "Experiments on ten benchmarks confirm it.",
            "Sparse attention",
        ),
        (  # a capital letter before "We" is a variable, not an initial as in "J. Doe"
            "We focus on two key hyperparameters: the clipping bound C and batch size B. "
            "We show a clear mismatch between theory and practice in choosing them.",
            "Clear mismatch between theory and practice",
        ),
        (  # a lower-case list marker starts a sentence
            "Docking models ignore overlapping fragments. This work addresses these limitations from two aspects. "
            "(i) OverlapBPE tokenization. (ii) A hierarchical interaction network.",
            # "These limitations from two aspects" points back: the next sentence stands in.
            "Docking models",
        ),
    ],
)
def test_gist_stays_within_its_sentence(abstract: str, expected: str) -> None:
    assert make_label(abstract) == expected


@pytest.mark.parametrize(
    "abstract",
    [
        r"We present H$^2$Flow, a solver that reaches $O(n \log n)$ cost for $\alpha$-stable noise.",
        r"We study the $\ell_1$ penalty and show that $\sum_i x_i^2 \leq 1$ implies sparsity of $\mathbf{w}$.",
        r"We propose \textbf{MiniTab}, a table encoder with $\mathcal{O}(1)$ memory.",
    ],
)
def test_latex_is_removed(abstract: str) -> None:
    label = make_label(abstract)
    assert label
    assert "$" not in label
    assert "\\" not in label
    assert "{" not in label


def test_math_inside_a_name_is_kept_as_text() -> None:
    label = make_label(r"We present H$^2$Flow, a solver for $\alpha$-stable noise.")
    assert label.startswith("H2Flow: ")


@pytest.mark.parametrize(
    "abstract",
    ["x", "1234", "...", "$a+b$", r"$\int_0^1 f(x)\,dx$", "We propose.", "The.", "a " * 300, "Ünïcödé ταυτότητα"],
)
def test_never_empty(abstract: str) -> None:
    label = make_label(abstract)
    assert label.strip()
    assert "\n" not in label


@pytest.mark.parametrize(
    "abstract",
    [
        "Supercalifragilistic" * 20,
        "We propose MegaNet, a " + "very " * 80 + "long description of a network.",
        "In this paper, we study " + " ".join(f"word{i}" for i in range(200)) + ".",
        "First line of text.\nSecond line with\nbreaks and a URL https://example.com/abc here.",
    ],
)
def test_length_bound_and_single_line(abstract: str) -> None:
    label = make_label(abstract)
    assert 0 < len(label) <= MAX_LABEL_CHARS
    assert "\n" not in label


def test_max_words_is_respected() -> None:
    abstract = "In this work, we present a careful empirical study of optimizer choice for training small transformers on code."
    for max_words in (1, 3, 5, 12):
        assert len(make_label(abstract, max_words=max_words).split()) <= max_words


def test_deterministic() -> None:
    abstract = "We propose QuillNet, a lightweight parser for noisy handwritten receipts."
    assert make_label(abstract) == make_label(abstract)


def test_a_label_without_its_subject_gets_the_phrase_the_abstract_repeats() -> None:
    abstract = (
        "Receipt parsing on phones is slow. We propose QuillNet, a lightweight parser. "
        "QuillNet reads handwritten receipts in one pass, and handwritten receipts are common."
    )
    assert make_label(abstract) == "QuillNet: lightweight parser for handwritten receipts"


def test_the_subject_phrase_is_never_a_verb_a_participle_or_a_citation() -> None:
    abstract = (
        "We propose QuillNet, a lightweight parser. To parse receipts we perform decoding passes, "
        "and QuillNet can perform decoding passes on phones. Bloggs et al showed et al results. "
        "Predicted receipts and predicted receipts follow; scanned ink improved, scanned ink improved."
    )
    # "perform decoding passes" (a verb), "predicted receipts", "ink improved", "et al" are passed over.
    assert make_label(abstract) == "QuillNet: lightweight parser for decoding passes"
    # A word after "to" is a verb only when it is one: "applied to protein design" keeps its subject.
    applied = "We present FoldNet, a small network. FoldNet is applied to protein design, and protein design is hard."
    assert make_label(applied) == "FoldNet: small network for protein design"


def test_a_clause_after_the_described_thing_is_cut() -> None:
    abstract = "We present ChemBot, a multi-agent system that reframes condition prediction as a debate among agents."
    assert make_label(abstract) == "ChemBot: multi-agent system"
    purpose = "We study steganography capabilities in frontier models to understand the risk they pose."
    assert make_label(purpose) == "Steganography capabilities in frontier models"


def test_a_clause_about_the_name_is_no_description_of_it() -> None:
    abstract = (
        "Decoders recompute every position. We propose LockStep: when a token position is stable, "
        "we lock it. Stable token positions are common in long outputs."
    )
    label = make_label(abstract)
    assert not label.lower().startswith("lockstep: when"), label
    assert label == "LockStep for token position"  # the phrase the abstract repeats, as first written
    # Still the name's label: search by name and follow-ups read it off the title.
    assert title_name(label, True) == title_name("LockStep", True) == "LockStep"


def test_a_stranded_participle_does_not_end_a_label() -> None:
    abstract = "We present Octo, a suite of classic arcade game environments implemented, in JAX, for speed."
    assert make_label(abstract) == "Octo: suite of classic arcade game environments"


@pytest.mark.parametrize(
    ("abstract", "expected"),
    [
        # A clause cut leaves two words: they are the title, not the sentence with "We propose" in front.
        ("We propose graph transformers that scale to millions of nodes. Graph transformers are fast.", "Graph transformers"),
        ("In this paper, we propose contrastive pretraining to improve retrieval of code snippets.", "Contrastive pretraining"),
        # "to test-time" is no purpose clause, and a label with "for" in it gets no second "for".
        (
            "We introduce TTAdapt, a method for adaptation to test-time distribution shift. Distribution shift is common; "
            "distribution shift hurts.",
            "TTAdapt: method for adaptation",
        ),
        (  # a description that opens with a verb is no description ("RKHS: derive a bound")
            "Kernel methods generalise well. We introduce KerBound, which we use to derive a bound for Rademacher complexity. "
            "KerBound derives a bound for Rademacher complexity of kernel classes. Kernel classes matter.",
            "KerBound for kernel classes",
        ),
        (  # "to better understand ...": a purpose clause, whatever adverb opens it
            "We study steganography capabilities in frontier LLMs to better understand the risk they pose. "
            "Frontier LLMs hide messages. Steganography capabilities grow with scale.",
            "Steganography capabilities in frontier LLMs",
        ),
        (  # a finite verb makes a sentence of it, not a title
            "We show that Langevin dynamics can succeed with few samples. Langevin dynamics mixes slowly without it.",
            "Langevin dynamics",
        ),
        (  # "capable of ...", and a verb in -ing taking an object, open clauses after the device
            "We propose FooNet, a video framework achieving large safety gains through three stages. "
            "Harm perception matters for harm perception models.",
            "FooNet: video framework for harm perception",
        ),
        (  # pointing back mid-gist ("approach to this problem") needs the sentence before it
            "Routing queries among models is costly. We propose UniRoute, an approach to this problem. "
            "UniRoute represents each model by its errors on prompt clusters, and prompt clusters route queries.",
            "UniRoute for routing queries",
        ),
    ],
)
def test_cuts_leave_a_title(abstract: str, expected: str) -> None:
    assert make_label(abstract) == expected


def test_a_gist_that_points_back_is_replaced_and_this_bottleneck_by_introducing_x_is_x() -> None:
    anaphoric = (
        "Learning rate transfer across widths rests on assumptions about training. We show that these assumptions "
        "hold only briefly at the start of training, after which learning rate transfer fails."
    )
    assert make_label(anaphoric) == "Rate transfer"  # the abstract's subject, not "These assumptions hold ..."
    bottleneck = (
        "Model predictive control is slow on CPUs. We address this bottleneck by introducing a GPU-accelerated "
        "differentiable solver for model predictive control."
    )
    assert make_label(bottleneck).startswith("GPU-accelerated differentiable solver")


def test_the_tagger_is_installed_and_keeps_the_noun_phrase_a_title_is() -> None:
    """spaCy's small English model comes with `make install`: without it the word rules alone decide."""
    tag = make_tagger()
    assert tag is not None
    assert title_phrase("dual-stage framework achieving unprecedented safety gains through three", tag) == "dual-stage framework"
    assert title_phrase("Training on Human Behavior Atlas enables models", tag) == "Training on Human Behavior Atlas"
    assert title_phrase("That the participation ratio of eigenvalues", tag) == ""  # a clause
    assert title_phrase("Towards robust reward models for human feedback", tag) == "Towards robust reward models for human feedback"
    assert title_phrase("graph coloring heuristics", tag) == "graph coloring heuristics"  # a gerund inside a compound
    assert title_phrase("dense retrieval for question answering", tag) == "dense retrieval for question answering"  # ... or ending it
    assert title_phrase("Learning to rank with LLMs", tag) == "Learning to rank with LLMs"
    assert title_phrase("graph neural networks that scale", tag) == "graph neural networks"
    # Without a tagger the gist stands as the word rules left it.
    assert title_phrase("label noise affects the calibration", None) is None
    assert as_title("label noise affects the calibration", frozenset(), None) == "label noise affects the calibration"
    assert as_title("derive a bound", frozenset({"derive"}), None) == ""


def test_without_the_tagger_labels_come_from_the_word_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    import rag.labels

    abstract = "We propose FooNet, a video framework that detects harm in clips. Harm perception matters for harm perception models."
    with_tagger = make_label(abstract)
    monkeypatch.setattr(rag.labels, "make_tagger", lambda: None)
    assert make_label(abstract) == with_tagger == "FooNet: video framework for harm perception"


class _PointsAt:
    """A fake embedding model under which the abstract (the one text longer than `SHORT` characters)
    and `phrase` share a direction, and every other text is orthogonal to both."""

    SHORT = 60

    def __init__(self, phrase: str) -> None:
        self.phrase, self.seen = phrase, []

    def __call__(self, texts):
        import numpy as np

        self.seen.extend(texts)
        return np.asarray([[1.0, 0.0] if t == self.phrase or len(t) > self.SHORT else [0.0, 1.0] for t in texts])


_SUBJECTS = (
    "We propose QuillNet, a lightweight parser. QuillNet reads handwritten receipts, and handwritten "
    "receipts are common. It targets low-power mobile devices, recognising ink strokes quickly."
)


def test_the_embedding_picks_the_subject_among_phrases_said_once() -> None:
    from rag.label_subjects import subject_phrase

    # Without the model: the repeated phrase. With it: the phrase closest to the abstract, even said once.
    assert make_label(_SUBJECTS) == "QuillNet: lightweight parser for handwritten receipts"
    embed = _PointsAt("low-power mobile devices")
    assert make_label(_SUBJECTS, embed=embed) == "QuillNet: lightweight parser for low-power mobile devices"
    assert "handwritten receipts" in embed.seen  # a repeated phrase competes too
    # A phrase said once stands only as the tagger reads it as a noun phrase: "recognising ink
    # strokes" opens with a verb, "ink strokes quickly" ends on an adverb.
    asked = _PointsAt("none of them")
    assert subject_phrase(_SUBJECTS, "QuillNet: lightweight parser", make_tagger(), asked)
    assert "ink strokes" in asked.seen
    assert not [p for p in asked.seen[1:] if "recognising" in p or "quickly" in p]  # [0]: the abstract


def test_a_paper_titled_in_any_copy_never_asks_the_embedding_model(tmp_path, settings) -> None:
    from functools import partial

    from rag.config import Settings
    from rag.corpus import load_papers
    from tests.conftest import make_fake_api, write_jsonl
    from tests.fakes import HashingEmbeddings

    def no_model(texts):
        raise AssertionError("the model was asked for a paper that has a title")

    seed_list = tmp_path / "seeds.txt"
    seed_list.write_text("ICLR 2026 Papers\n\n" + _SUBJECTS + "\n", encoding="utf-8")
    titled = write_jsonl(tmp_path / "titled.jsonl", [{"id": "p1", "title": "Quill", "abstract": _SUBJECTS}])
    # The untitled copy merges with the titled one before any title is generated.
    assert [p.title for p in load_papers([seed_list, titled], label=partial(make_label, embed=no_model)).papers] == ["Quill"]
    embed = _PointsAt("low-power mobile devices")
    assert load_papers([seed_list], label=partial(make_label, embed=embed)).papers[0].title == "QuillNet: lightweight parser for low-power mobile devices"

    # Indexed under its real title, the untitled copy alone is read again by a new process: no model.
    settings = Settings(data_dir=tmp_path / "data", multilingual=False, _env_file=None)  # type: ignore[call-arg]
    make_fake_api(settings, HashingEmbeddings()).ingest([seed_list, titled])
    later = HashingEmbeddings()
    report = make_fake_api(settings, later).ingest([seed_list])
    assert (report.unchanged, report.embedded, later.embedded) == (1, 0, 0)


def test_an_indexed_abstract_keeps_its_generated_title(api, fake_embeddings, tmp_path, monkeypatch) -> None:
    import rag.api
    from tests.conftest import SEEDS

    api.ingest([SEEDS])
    titles = {p.paper_id: p.title for p in api.papers()}
    # Labelling rules that would now give another title, and the model, are not asked again.
    monkeypatch.setattr(rag.api, "make_label", lambda abstract, **_: "Another title")
    before = fake_embeddings.embedded
    assert api.ingest([SEEDS]).embedded == 0 and fake_embeddings.embedded == before
    assert {p.paper_id: p.title for p in api.papers()} == titles
    # A new abstract is titled afresh.
    new = tmp_path / "more.txt"
    new.write_text("ICLR 2026 Papers\n\n" + _SUBJECTS + "\n", encoding="utf-8")
    api.ingest([new])
    assert "Another title" in {p.title for p in api.papers()}


def test_the_subject_shares_no_word_with_the_label_even_inside_a_hyphenated_one() -> None:
    from rag.label_subjects import subject_candidates

    abstract = "We propose GUI-Shift, a framework. GUI-Shift generalizes across mobile screens, and layout shift detection on mobile screens is hard."
    unlabelled = [c.surface for c in subject_candidates(abstract, "", make_tagger())]
    assert {"GUI-Shift generalizes", "layout shift detection", "mobile screens"} <= set(unlabelled)
    surfaces = [c.surface for c in subject_candidates(abstract, "GUI-Shift: framework", make_tagger())]
    assert "mobile screens" in surfaces and not [s for s in surfaces if "shift" in s.lower()]


def test_a_clause_about_the_name_or_its_authors_is_no_title() -> None:
    # "X, which couples ...": the relative clause's verb would open the description.
    relative = "Contact is hard to simulate. We propose DiffMJX, which couples adaptive time integration with penalty-based contact models."
    assert not make_label(relative).startswith("DiffMJX: couples")
    # An announcement, a clause hanging off "with", the authors' own "our": no title opens or speaks so.
    assert as_title("Introducing a novel approach for control policy discovery", frozenset(), make_tagger()) == ""
    assert as_title("with surprising evidence for user models", frozenset(), make_tagger()) == ""
    assert as_title("built on our theoretical discovery", frozenset(), make_tagger()) == ""
    # "by" and a gerund is the means, a clause: the phrase stops before it, and cannot open with it.
    assert as_title("Field of sequence generation by applying flow matching", frozenset(), make_tagger()) == "Field of sequence generation"
    assert as_title("By analyzing the effect of guidance", frozenset(), make_tagger()) == ""


def test_a_subject_is_never_the_start_of_a_longer_phrase() -> None:
    from rag.label_subjects import subject_candidates

    abstract = "We study multivariate hawkes processes. Estimating multivariate hawkes processes is hard, and kernels matter."
    surfaces = {c.surface for c in subject_candidates(abstract, "", make_tagger())}
    assert "multivariate hawkes processes" in surfaces and "multivariate hawkes" not in surfaces


def test_stray_quotes_and_a_hyphen_left_by_dropped_math_are_cleaned() -> None:
    quoted = "We propose ``Task Tokens'', a lightweight adapter for behaviour foundation models. Task Tokens are cheap."
    assert "''" not in make_label(quoted) and "``" not in make_label(quoted)
    half = 'We propose the Attack "Daze, a backdoor for agents. Backdoor agents matter, and backdoor agents are many.'
    assert make_label(half).count('"') % 2 == 0
    math = "$SE(3)$-equivariant policy learning for robot manipulation is studied here, for robot manipulation matters."
    assert not make_label(math).startswith("-")
    # "a simple but effective approach": "but" is filler too.
    assert make_label("We propose KeepLoRA, a simple but effective approach for continual learning.") == "KeepLoRA: approach for continual learning"


def test_words_of_any_alphabet_and_other_languages() -> None:
    from rag.label_subjects import subject_candidates, subject_phrase

    accented = "We study the Schrödinger bridge. Fast Schrödinger bridge solvers need Rényi divergence bounds."
    assert {"schrödinger bridge", "rényi divergence bounds"} <= {c.surface for c in subject_candidates(accented, "", make_tagger())}
    # The tagger reads English: in another language only a repeated phrase is a subject, and the model is not asked.
    spanish = "Proponemos un método nuevo para políticas fuera de línea. Las políticas fuera de línea mejoran con datos fijos."
    asked = _PointsAt("none")
    subject_phrase(spanish, "", make_tagger(), asked)
    assert asked.seen == []
    # "to" opens a clause after a name only as a word: "topology-aware" is the description.
    assert make_label("We propose TopoNet, topology-aware message passing for graphs. TopoNet is fast.") == "TopoNet: topology-aware message passing"


def test_a_phrase_that_starts_two_longer_ones_is_no_subject() -> None:
    from rag.label_subjects import subject_candidates

    abstract = "It has object-aware sparse window routing and object-aware sparse memory retrieval for video segmentation."
    assert "object-aware sparse" not in {c.surface for c in subject_candidates(abstract, "", make_tagger())}


def test_titling_shows_a_bar_when_asked_and_only_for_papers_without_a_title(api, tmp_path, capsys) -> None:
    from tests.conftest import write_jsonl

    titled = write_jsonl(tmp_path / "titled.jsonl", [{"id": "p1", "title": "Quill", "abstract": _SUBJECTS}])
    api.ingest([titled], progress=True)
    assert "titling" not in capsys.readouterr().err
    seed_list = tmp_path / "seeds.txt"
    seed_list.write_text("ICLR 2026 Papers\n\n" + _SUBJECTS.replace("QuillNet", "InkNet") + "\n", encoding="utf-8")
    api.ingest([seed_list], progress=True)
    assert "titling: 100%" in capsys.readouterr().err


def _bag_of_words(texts):
    """The shared fake embedding model as the labeller calls it: rows of unit vectors."""
    import numpy as np

    from tests.fakes import HashingEmbeddings

    return np.asarray(HashingEmbeddings().embed_documents(list(texts)))


def test_the_phrase_a_label_adds_names_the_field_the_abstract_opens_with() -> None:
    # The component is said most ("invisibility masks"), the field in the opening sentences: a title
    # is "for" the field. Closeness to the whole abstract picked the component.
    abstract = (
        "Video generation of 4D scenes is hard. Video generation from one clip loses geometry. "
        "We propose EasyMake, a 4D creation framework. EasyMake trains with invisibility masks: invisibility "
        "masks hide occluded pixels, invisibility masks are sampled per frame, and invisibility masks vary."
    )
    assert make_label(abstract, embed=_bag_of_words) == "EasyMake: 4D creation framework for video generation"
    # Without a label the phrase is the whole title, and the whole abstract's subject.
    from rag.label_subjects import subject_phrase

    assert subject_phrase(abstract, "", make_tagger(), _bag_of_words) == "invisibility masks"


def test_the_phrase_a_label_adds_never_spells_out_its_acronym() -> None:
    from rag.label_subjects import subject_candidates, subject_phrase

    abstract = (
        "Parameter-efficient fine-tuning adapts large models cheaply, and parameter-efficient fine-tuning "
        "of diffusion large language models is new. We propose DiaBlo, a PEFT approach with diagonal blocks."
    )

    def spelled(label: str) -> set[str]:
        return {c.surface.lower() for c in subject_candidates(abstract, label, make_tagger()) if c.spells_label}

    # "PEFT" already says "parameter-efficient fine-tuning"; "LLM" of "dLLM" is not "diffusion LLM".
    assert "parameter-efficient fine-tuning" in spelled("DiaBlo: PEFT approach for dLLMs")
    assert not [c for c in spelled("DiaBlo: PEFT approach for dLLMs") if "diffusion" in c]
    # A name's own acronym says no field; a bare name's spelled-out form is its description; two
    # capitals inside a word are no acronym ("FT" of "LoFT").
    assert spelled("PEFT-Bench: benchmark") == spelled("PEFT") == spelled("LoFT method") == set()
    # "3DGS" says "gaussian splatting" (a phrase's words start with a letter).
    splats = "We study Gaussian splatting with depth priors, as gaussian splatting blurs thin objects."
    assert "gaussian splatting" in {c.surface.lower() for c in subject_candidates(splats, "SparseSplat: 3DGS variant", make_tagger()) if c.spells_label}
    # When the closest phrase is the one the acronym says, the label names its field already: no other is added.
    assert subject_phrase(abstract, "DiaBlo: PEFT approach", make_tagger(), _PointsAt("parameter-efficient fine-tuning")) == ""
    assert subject_phrase(abstract, "DiaBlo: LoFT approach", make_tagger(), _PointsAt("parameter-efficient fine-tuning")) == "parameter-efficient fine-tuning"


class _LeansTowards:
    """A fake embedding model under which every short text (a phrase) is `similarity` away from the
    abstract (any text longer than `_PointsAt.SHORT` characters), by cosine."""

    def __init__(self, similarity: float) -> None:
        self.similarity = similarity

    def __call__(self, texts):
        import numpy as np

        off = (1 - self.similarity**2) ** 0.5
        return np.asarray([[1.0, 0.0] if len(t) > _PointsAt.SHORT else [self.similarity, off] for t in texts])


def test_a_label_adds_no_field_phrase_unlike_the_abstract() -> None:
    from rag.label_subjects import FIELD_MIN_SIMILARITY

    # The phrase closest to the opening still says little of it: a detail, so no "for" at all
    # ("AdaVaR: ... framework for selection capability" was one).
    assert make_label(_SUBJECTS, embed=_LeansTowards(FIELD_MIN_SIMILARITY - 0.1)) == "QuillNet: lightweight parser"
    assert make_label(_SUBJECTS, embed=_LeansTowards(FIELD_MIN_SIMILARITY + 0.1)).startswith("QuillNet: lightweight parser for ")
    # A bare name keeps its field however weak: a name alone says nothing.
    bare = "We propose QuillNet. QuillNet reads handwritten receipts, and handwritten receipts are common and hard to read."
    assert make_label(bare, embed=_LeansTowards(0.1)) == "QuillNet for handwritten receipts"


def test_a_bare_name_is_for_its_field_and_still_heads_the_label() -> None:
    # "SureLock: diffusion language models" said SureLock is one; it is a method for them.
    abstract = (
        "We propose SureLock. Diffusion language models decode slowly, and diffusion language models recompute "
        "every position at every step."
    )
    label = make_label(abstract)
    assert label == "SureLock for diffusion language models"
    # Search by name and follow-ups read the name off the label.
    assert title_name(label, True) == "SureLock"
    # A phrase that says what kind of thing the name is stays its description.
    agent = "We propose WebSeer. Web search needs a deep search agent, and a deep search agent must reflect on its steps."
    assert make_label(agent) == "WebSeer: search agent"
    # Not a real title's head, nor a generated one whose first word is no coined name.
    assert title_name("SureLock for diffusion language models", False) == ""
    assert title_name("Graph transformers for molecules", True) == ""


def test_a_gist_is_what_the_work_makes_not_what_it_leverages() -> None:
    # "leverage" puts background in the object; what the paper makes follows "to propose".
    abstract = (
        "Circuit discovery finds subgraphs of networks. In this work, we leverage recent advances in neural "
        "network verification to propose a suite of automated algorithms that yield circuits with provable guarantees."
    )
    assert make_label(abstract).startswith("Suite of automated algorithms")
    assert make_label(abstract.replace("to propose", "to develop")).startswith("Suite of automated algorithms")
    # Under a verb whose object is the subject, in any form, the object stays the gist.
    studied = "Circuits matter. In this work, we study recent advances in neural network verification to propose better circuits."
    assert make_label(studied).startswith("Recent advances in neural network verification")
    studies = "This paper studies the robustness of key-value cache eviction by introducing a new stress-test benchmark."
    assert make_label(studies).startswith("Robustness of key-value cache eviction")


@pytest.mark.parametrize(
    "sentence",
    [
        "We introduce a robust aggregation pipeline that uses Principal Component Analysis (PCA) for denoising style vectors.",
        "We introduce the first watermark for diffusion language models, in contrast to standard autoregressive language models (ARLMs).",
        "We introduce a framework trained with rewards generated by generative continuous normalizing flows (CNFs).",
        "We introduce a segmentation method that generates pseudo-labels using the Segment Anything Model (SAM).",
        "We introduce a denoiser whose features are computed via Fast Fourier Transform (FFT).",
    ],
)
def test_an_acronym_the_work_uses_or_sets_itself_against_is_no_name(sentence: str) -> None:
    label = make_label(f"Style control is hard. {sentence} It works well on many tasks.")
    assert not re.search(r"\b(?:PCA|ARLMs|CNFs|SAM|FFT)\b", label), label


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ("We propose a new unlearning framework via post judgment and multi-round thinking (PoRT). PoRT works well.", "PoRT"),
        ("We propose a new framework via dynamic token routing (DTR). DTR is fast on many models.", "DTR"),
        ("Token pruning is lossy. We tackle this by building Hierarchical Token Merging (HTM), which halves latency. HTM is fast.", "HTM"),
    ],
)
def test_an_acronym_the_work_defines_after_via_or_by_is_its_name(abstract: str, name: str) -> None:
    assert make_label(abstract).startswith(f"{name}: ")


def test_a_gist_naming_a_thing_of_plain_words_reads_as_name_and_description() -> None:
    # No rule can tell a name of plain capitalised words from a phrase; the comma after it can.
    abstract = (
        "Robots fail to transfer. We propose Latent Adaptation of Foundation Policies, a framework that adapts "
        "pretrained policies to real robots with few demonstrations."
    )
    assert make_label(abstract).startswith("Latent Adaptation of Foundation Policies: framework")
    # A longer opening before the comma is a clause, a framing phrase or a phrase in lower case no name.
    assert not _APPOSITIVE_GIST_RE.match("Training very large models on many small clusters of machines, a setting we study")
    assert not _APPOSITIVE_GIST_RE.match("For the first time, a benchmark for web agents")
    assert not _APPOSITIVE_GIST_RE.match("Application of graph random features, a recently introduced estimator")
    assert not _APPOSITIVE_GIST_RE.match("Recently, a benchmark") and not _APPOSITIVE_GIST_RE.match("Here, a method")
    assert _APPOSITIVE_GIST_RE.match("In-Place Test-Time Training, a framework")
