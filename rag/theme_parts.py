"""The terms a theme joins ("dataset distillation, data pruning and coreset selection"), each a
theme of its own that a summary includes the papers of (rag/themes.about_theme_by)."""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.crosslingual import list_items
from rag.request_words import CONNECTORS

_ALTERNATIVES = re.compile(r"\s+/\s+|\s*,?\s+(?:and|or)\s+|\s*,\s+")
# A modifier by its form: hyphenated, or an adjective's ending ("few-step", "visual").
_MODIFIER = re.compile(r"\w-\w|(?:al|ic|ive|ous|ed|ar|ful|less|able|ible)$", re.I)
_PHRASE_WORDS = (CONNECTORS | {"by"}) - {"and"}
_ACRONYM = re.compile(r"^\S\S*?[A-Z]")  # "RL", "LoRA", "GANs": a capital after the first letter
# A word that names a process or a property on its own ("quantization", "pruning", "robustness"):
# in a list, a term of its own, where a plain noun or an adjective ("image", "sparse") shares the
# last item's head ("image, video and audio generation"; "sparse, dense and hybrid retrieval").
_NOMINAL = re.compile(r"(?:tion|sion|ing|ment|ness|ity|ance|ence|ism|ysis|acy|ogy|ics)$", re.I)


def theme_parts(theme: str) -> list[str]:
    """The terms a theme joins by "and", "or", "/" or commas, each a theme of its own, when every part is a
    term: two words or more ("dataset distillation and dataset condensation"; one is enough after
    "/", "state space models / Mamba"; in a list of three, a process or an acronym, "quantization,
    pruning and knowledge distillation", "RL, imitation learning and reward modeling", or all the
    items alone, "robustness, fairness and privacy"), none a phrase with a preposition. Words that
    modify the last item's head are terms of it ("few-step and one-step generation", "image, video
    and audio generation"). Else the theme alone: "machine learning for weather and climate
    forecasting" shares its head; "jailbreak attacks and defenses for LLMs" asks for jailbreak defenses."""
    parts = [p.strip() for p in _ALTERNATIVES.split(theme) if p.strip()]
    *firsts, last = parts or [""]
    listed = len(parts) > 2
    single = all(len(p.split()) == 1 for p in firsts)
    # Two items share the head only by a modifier's form ("pruning and knowledge distillation" is
    # no "pruning distillation"); in a list of three, any word that names no process alone.
    sharing = (lambda p: not _NOMINAL.search(p) and not _ACRONYM.search(p)) if listed else _MODIFIER.search
    if firsts and single and "/" not in theme and len(last.split()) > 1 and all(map(sharing, firsts)):
        parts = [" ".join([p, *last.split()[1:]]) for p in firsts] + [last]
    alone = "/" in theme or (listed and single and len(last.split()) == 1)

    def is_term(part: str) -> bool:
        words = part.lower().split()
        named = alone or (listed and (bool(_NOMINAL.search(part)) or bool(_ACRONYM.search(part))))
        return (len(words) >= 2 or named) and not _PHRASE_WORDS.intersection(words)

    return parts if len(parts) > 1 and all(map(is_term, parts)) else [theme]


# "LoRA、Adapter等参数高效微调": examples, then "等" ("and the like"), then the theme (not "等变", equivariant).
_EXAMPLES_ZH = re.compile(r"^(?:[^、，]+、)+[^、，]+?等(?![变价距效式号同于级])(?=[\u4e00-\u9fff])")
# A theme after "等" that says nothing of its own ("图像分类、目标检测等任务"): its examples are the list.
_GENERIC_ZH = re.compile(r"^(?:任务|方法|模型|架构|技术|领域|方向|方面|问题|场景|应用|工作|研究)[上中]?的?$")
# An item with a particle or a preposition in it ("大模型的幻觉", "扩散模型在图像编辑"), or that opens
# with an adverb or a verb ("特别是离线强化学习", "并比较它们"), is part of a phrase or a clause: no term.
_NOT_A_TERM_ZH = re.compile(r"[的在等]|^(?:特别|尤其|并(?![行发列联])|而且|包括|比如|例如|如(?!何)|主要|还有)")


def terms_zh(theme: str) -> list[str]:
    """The terms a Chinese list of terms names ("模型剪枝、量化和知识蒸馏": three; "LoRA、Adapter等参数高效
    微调": the one after "等"; "图像分类、目标检测等任务": the examples), else [] ("扩散模型的方法、数据集",
    "强化学习、特别是离线强化学习": "、" parts a phrase's or a clause's words)."""
    if match := _EXAMPLES_ZH.match(theme):
        if not _GENERIC_ZH.match(rest := theme[match.end() :]):
            return [rest]
        theme = theme[: match.end() - 1]
    items = list_items(theme) if "、" in theme else []
    return items if items and all(len(item) >= 2 and not _NOT_A_TERM_ZH.search(item) for item in items) else []


def english_list(theme: str, english: Callable[[str], str]) -> str:
    """A theme in another language, in English by `english`: a Chinese list of terms (`terms_zh`) term
    by term, joined as theme_parts reads a list ("model pruning, quantization and knowledge
    distillation"); any other theme as one phrase."""
    phrases = list(dict.fromkeys(p for p in map(english, terms_zh(theme)) if p))
    if len(phrases) < 2:
        return phrases[0] if phrases else english(theme)
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]
