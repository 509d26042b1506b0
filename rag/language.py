"""The only importer of lingua: which language a question is asked in.

A question picks its retrieval channel and the words its answer is framed in by this: "zh" (the
multilingual channel, an answer framed in Chinese), "en" (the index's own language), or "other"
(any other language: the multilingual channel, an answer framed in English). lingua reads short and
mixed text better than a script rule: it tells Japanese (kanji with kana) and Korean from Chinese,
and Russian or French from English.

Sentences the pipeline writes or checks are told apart by `rag.text.language_of`, a hand rule:
lingua calls 37 of 19,763 English abstract sentences German or French ("Code: \\url{...}"), each a
true sentence the checker would drop; the rule calls none of 42,570 (rag/text.py).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from rag.text import CJK, is_coined, language_of

# Languages a reader of the corpus may ask in. Each is a model lingua loads on first use (a few
# MB each); a language left out is read as the closest one listed.
_LANGUAGES = ("ENGLISH", "CHINESE", "JAPANESE", "KOREAN", "FRENCH", "GERMAN", "SPANISH", "PORTUGUESE", "ITALIAN", "RUSSIAN")
# Latin-script words, and text that is no language at all (numbers, symbols, emoji).
_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'’-]*")
_LETTER = re.compile(r"[^\W\d_]")
# A Latin-script question needs this many ordinary words (not names like "GRPO" or "LoRA") before
# lingua's verdict is taken over English: on a name alone it says Italian.
MIN_WORDS_TO_DETECT = 3
# A Latin-script question is another language when lingua leaves English less than this
# confidence: Portuguese, Spanish and German questions 0.00-0.001, English keyword queries ≥ 0.16.
MAX_ENGLISH_CONFIDENCE_OTHER = 0.05
_lock = threading.Lock()


def question_language(text: str) -> str:
    """"zh", "en" or "other" for a question.

    - Chinese characters: lingua decides between Chinese and Japanese on the text without its
      Latin words, so "SureLock 是做什么的？" is Chinese however long the name, while "How does 推理 work in LLMs?"
      (mostly English words) is English.
    - Only names, numbers, emoji or nothing: English, the index's language.
    - Another script (Cyrillic, Hangul, kana): lingua's verdict.
    - Latin script alone: another language than English when its function words say so
      (rag.text.language_of: French, German, Spanish), or when lingua all but rules English out.
      lingua alone calls keyword queries German ("Kanzi protein tokenizer", English at 0.16) and
      "tell me more" Italian; a Portuguese question leaves English at 0.001, French at 0.09.
    """
    if not _LETTER.search(text):
        return "en"
    latin = _LATIN_WORD.findall(text)
    words = [w for w in latin if not is_coined(w)]
    rest = _LATIN_WORD.sub(" ", text)
    # A Chinese word is about two characters: "Which papers study 知识蒸馏?" is English with a term.
    if CJK.search(rest) and len(CJK.findall(rest)) >= 2 * len(words):
        return _code(_detector().detect_language_of(rest))
    if not _LETTER.search(rest) and len(words) < MIN_WORDS_TO_DETECT:
        return "en"
    # Its Chinese term left out: lingua calls "Which papers study 知识蒸馏?" Chinese.
    text = CJK.sub(" ", text)
    if _LETTER.search(rest):  # letters of another script than Latin
        return _code(_detector().detect_language_of(text))
    if language_of(text) == "other":
        return "other"
    english = next((c.value for c in _detector().compute_language_confidence_values(text) if c.language.name == "ENGLISH"), 0.0)
    return "other" if english < MAX_ENGLISH_CONFIDENCE_OTHER else "en"


def _code(language: Any) -> str:
    if language is None:
        return "en"
    name = language.name
    return "en" if name == "ENGLISH" else "zh" if name == "CHINESE" else "other"


@lru_cache(maxsize=1)
def _detector() -> Any:
    with _lock:
        from lingua import Language, LanguageDetectorBuilder

        return LanguageDetectorBuilder.from_languages(*(getattr(Language, name) for name in _LANGUAGES)).build()
