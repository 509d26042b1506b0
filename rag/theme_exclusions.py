"""What a request leaves out of its theme ("Summarise the kernel methods papers, not the GPU kernel
ones", "Please skip Bayesian optimization"): the spans it excludes, read off before its theme is
(rag/theme_request.py) and its examples are (rag/theme_examples.py), and the terms they name, whose
papers a summary then leaves out (rag/themes.left_out).

Why by hand: a leave-out is a cue from a short closed list ("not", "except", "skip", "leave out",
"other than") and the words after it up to the end of their clause; a parser would add a model for
what a pattern reads as well here. The cue "not" and the imperatives count only where a clause
starts ("..., not X", "(not X)", "Leave out X"): inside a clause they describe the theme ("methods
that do not need labels").
"""

from __future__ import annotations

import re

from rag.crosslingual import list_items

# Words before a cue that still start its clause: "but not X", "and please skip X", "I'm not
# interested in X", "but definitely not X".
_LEAD = r"(?:(?:but|and|though|just|please|also|I|we|I'm|I’m|I\s+am|we're|we’re|we\s+are|really|definitely|certainly|absolutely)\s+)*"
# "not" that reads as a leave-out: not "not only ... but", "not sure", "not yet".
_NOT = r"not(?!\s+(?:only|just|necessarily|sure|yet|so|too|much|all|always|even|quite|exactly|least|limited|restricted)\b)"
# "no X": not "no-regret", "no longer", "no matter".
_NO = r"no(?![\w-])(?!\s+(?:longer|matter|doubt|idea)\b)"
_AT_CLAUSE_START = (
    rf"{_NOT}|{_NO}|skip(?:ping)?|ignor(?:e|ing)|leav(?:e|ing)\s+out|exclud(?:e|ing)"
    r"|(?:do\s+not|don't|don’t)\s+(?:include|want|need|care\s+about|mean|count)"
)
# Cues that exclude wherever they stand: "all unlearning papers except the diffusion ones"; "outside
# of images", "outside of the vision domain", not "outside of the training distribution" (its data,
# domain or support) or "outside of the convex hull", which name a theme: out of distribution.
_OUT_OF_DISTRIBUTION = r"(?:(?:the|a|an|its|their)\s+)?(?:[\w-]+\s+)?(?:training|distributions?|support|hull|range|horizon)\b"
_ANYWHERE = (
    r"except(?:\s+for)?|excepting|excluding|other\s+than|apart\s+from|aside\s+from|rather\s+than"
    rf"|outside\s+of(?!\s+{_OUT_OF_DISTRIBUTION})"
)
# The marks that end a clause, and after which one starts: also after an opening bracket or a spaced dash.
_MARKS = r",;:.?!—，。；：？！\n"
_CLAUSE_START = rf"(?:^|(?<=[(（\[【–{_MARKS}])|(?<=\s[-–]))"
# A leave-out's words run to the end of their clause (a comma too: "Not RAG pipelines, the
# retrievers themselves" goes on about the theme) or to a "but" that turns to the theme ("not the
# LLM papers but the vision ones").
_SPAN_WORDS = rf"(?:(?!\s[-–]\s|\s(?:but|rather|instead)\b)[^()（）\[\]【】{_MARKS}])"
_SPAN = rf"(?P<left>{_SPAN_WORDS}*)"
# ... or, said after them, the whole clause: "Feature attribution / saliency methods are out of scope."
_OUT_OF_SCOPE_CUE = r"\bout\s+of\s+scope\b"
_OUT_OF_SCOPE = rf"{_CLAUSE_START}\s*(?P<said>{_SPAN_WORDS}*?)\s+(?:is|are)\s+{_OUT_OF_SCOPE_CUE}"
# In Chinese, a whole clause that starts with 除了 / 除开 / 不包括 / 排除 and asks nothing ("除了视频生成以外，总结一下
# 扩散模型的论文"): closed by a mark, never the clause that asks for the papers ("除了视频生成总结一下扩散模型的论文"
# keeps its theme). Not 不含 / 不包含, which describe a theme ("不含标签的学习方法"), nor 排除法, 不要 or 别 ("不要太长").
_ASKS_ZH = r"总结|概述|综述|梳理|盘点|介绍|哪些|什么|有没有|吗"
_ZH = rf"{_CLAUSE_START}\s*(?:除了|除开|不包括|排除(?!法))\s*(?P<zh>(?:(?!{_ASKS_ZH})[^()（）\[\]【】{_MARKS}])*)(?=[{_MARKS}、]|$)"
# (The "but" that turns back to the theme goes with the span: "Not LLM pruning but CNN pruning".)
EXCLUDED = re.compile(
    rf"(?:{_CLAUSE_START}\s*{_LEAD}(?:{_AT_CLAUSE_START})|\b(?:{_ANYWHERE}))(?![\w-])\s*{_SPAN}(?:\s+but\b)?|{_OUT_OF_SCOPE}|{_ZH}", re.I
)
# What frames a Chinese left-out term: "以外", "的论文", "相关的工作", "关于".
_FRAMES_ZH = re.compile(r"^(?:掉|关于|有关)|(?:以外|之外)$|(?:相关)?的?(?:论文|工作|研究|文章|方向|方面)?$")
# Within a list of examples, everything from a cue on says what is not one ("voice cloning is fine,
# but not TTS", "No more than five bullets"): the same cues wherever they stand, and "without".
AGAINST = re.compile(rf"(?:\bbut\s+)?\b(?:{_AT_CLAUSE_START}|{_ANYWHERE}|without)(?![\w-]).*$|^.*{_OUT_OF_SCOPE_CUE}.*$", re.I)
# What frames a left-out term rather than names it: "the GPU kernel ones", "the sparse
# autoencoder work", "interested in music".
_FRAMES = frozenset(
    """
    the a an any anything all of in on about for with to from by ones one themselves itself stuff kind kinds sort type types
    work works paper papers research studies study interested looking care include including count counting things thing
    based related style side please yet either that those these this them it
    """.split()
)
# Words that make a "not ..." a remark about the asker or the answer, not a topic to leave out
# ("Not an expert here", "Don't include citations", "Skip the introduction", "No jargon").
_REMARKS = frozenset(
    """
    here my your me you our previous question questions answer answers summary citations citation introduction intro jargon
    bullet bullets points detail details urgent sentences words paragraph paragraphs long short brief length
    """.split()
)
_ITEM_BREAK = re.compile(r"\s*(?:/|\bor\b|\band\b|\bnor\b|&)\s*", re.I)
_WORD = re.compile(r"\w(?:[\w'’+.-]*\w)?")


def without_exclusions(request: str) -> str:
    """The request without what it leaves out ("Summarise the kernel methods papers (NTK), not the
    GPU kernel ones." → "Summarise the kernel methods papers (NTK)."); a bracket left empty goes
    too."""
    kept = re.sub(r"[(（\[【]\s*[)）\]】]", " ", EXCLUDED.sub(" ", request))
    # The punctuation that ended the span's clause stays unless another mark already ends it there.
    kept = re.sub(r"\s+(?=[,.;:?!)，。；：？！])", "", kept)
    while (tidier := re.sub(r"[,，]+(?=[.;:?!)。；：？！])|(?<=[.;:?!。；：？！])[,.;:，。；：]+", "", kept)) != kept:
        kept = tidier
    return " ".join(kept.split()).lstrip(",;:.?!，。 ").rstrip(",;:，-–— ")


def exclusions(request: str) -> list[str]:
    """The terms a request leaves out, each without its frame: "GPU kernel" of "not the GPU kernel
    ones", "music" and "TTS" of "Not interested in music or TTS"; not a remark about the asker or the
    answer ("Not an expert here", "Don't include citations")."""
    terms: list[str] = []
    for match in EXCLUDED.finditer(request):
        if match.group("zh") is not None:
            # (A Chinese term drops no paper, having no English key terms: the corpus's English phrase
            # for it, rag/api.Paperchat.english_theme, is not looked up. "除了 LoRA 以外" drops LoRA's.)
            # (Framed twice: a term may end in both frames, in either order, "X以外的论文", "X的论文以外".)
            terms += [t for item in list_items(match.group("zh")) if (t := _FRAMES_ZH.sub("", _FRAMES_ZH.sub("", item.strip())).strip())]
            continue
        for item in _ITEM_BREAK.split(match.group("left") or match.group("said") or ""):
            words = _WORD.findall(item)
            kept = [i for i, w in enumerate(words) if w.lower() not in _FRAMES]
            if kept and not _REMARKS & {w.lower() for w in words}:
                terms.append(" ".join(words[kept[0] : kept[-1] + 1]))
    return list(dict.fromkeys(terms))
