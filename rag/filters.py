"""Filters said in words ("oral papers", "in the RL area", "robotics papers", "ICLR papers",
"from 2024", "口头报告论文", "强化学习领域") turned into conditions on the fields the corpus has.

Only the corpus's own values are offered: a status word keeps the statuses that start with it
("oral" keeps "Oral" and "Oral (conditional)"). An area said as an area ("in the RL area", "the
area of robotics", "物理领域") keeps the primary area one of whose parts it names ("robotics" →
"applications to robotics, autonomy, planning"; "physics" → "applications to physical sciences
(physics, chemistry, biology, etc.)"); "<X> papers" is an area only when X names the area itself
(its name, its first part, its acronym: "robotics papers", "RL papers"), not one of its many
topics ("audio papers" are papers on audio, not the 737 of the modalities area). Words for a
field the corpus lacks (the seed lists have none) or a value it lacks are reported, never guessed.
The words of a filter are taken out of the question, so that "Which oral papers use LoRA?" looks
for LoRA.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from rag import prompts
from rag.context import Request
from rag.language import question_language
from rag.records import AppliedFilter, Paper
from rag.request_words import FRAME_WORDS
from rag.text import STOPWORDS

FILTER_FIELDS = ("status", "primary_area", "venue", "year")

# A status said as one: "oral papers", "among the orals", "accepted as an oral", "口头报告论文" (not
# "scientific posters", "oral cancer" or "生成海报的论文").
_STATUS = {
    kind: rf"\b(?:in|among|from)\s+the\s+{kind}s?(?:\s+(?:papers?|presentations?|talks?|works?|submissions))?\b"
    rf"|\b{kind}s?(?=\s+(?:papers?|presentations?|talks?|works?|ones?|submissions)\b)|\b(?:accepted\s+)?as\s+(?:an?\s+)?{kind}\b|{zh}"
    for kind, zh in (("oral", "口头报告|口头(?=论文)"), ("poster", "(?:海报|墙报)(?=论文)"), ("spotlight", "亮点(?=论文)"))
}
# Where an area is said: before "area"/"track"/"field"/"papers", or after "area (of)", "field of".
_AREA_BEFORE = re.compile(r"\b(?:area|track|field|papers)\b", re.I)
_AREA_AFTER = re.compile(r"(?:\b(?:in|from)\s+)?(?:the\s+)?\b(?:(?:primary\s+)?area|field|track)\s+(?:of\s+)?", re.I)
MAX_AREA_WORDS = 5
# Area words in Chinese, as words of the English area names they mean.
_AREA_ZH = {
    "强化学习": "reinforcement learning", "机器人": "robotics", "优化": "optimization", "生成模型": "generative models",
    "可解释": "interpretability", "神经科学": "neuroscience", "认知科学": "cognitive science", "图学习": "graphs",
    "时间序列": "time series", "因果": "causal reasoning", "学习理论": "learning theory", "数据集": "datasets and benchmarks",
    "表示学习": "representation learning", "迁移学习": "transfer learning", "元学习": "meta learning",
    "概率方法": "probabilistic methods", "安全": "safety", "隐私": "privacy", "公平": "fairness", "对齐": "alignment",
    "基础模型": "foundation or frontier models", "物理科学": "physical sciences", "计算机视觉": "computer vision",
    "物理": "physics", "化学": "chemistry", "生物": "biology", "大语言模型": "llms", "大模型": "llms",
}  # fmt: skip
_AREA_ZH_SAID = re.compile("(?:" + "|".join(map(re.escape, sorted(_AREA_ZH, key=len, reverse=True))) + ")(?:领域|方向|方面)")
# Words that start an area's name without naming it ("applications to robotics").
_AREA_PREFIX = re.compile(r"^(?:applications? to|learning on|other topics in)\s+", re.I)
_LEADING = re.compile(r"^(?:in|from|of|the|all|which|what|many|how|are|any|there)\s+", re.I)
_YEAR = re.compile(r"\b(?:from|published in)\s+((?:19|20)\d\d)\b|\b((?:19|20)\d\d)\s+papers\b|((?:19|20)\d\d)\s*年")


@dataclass(frozen=True)
class SaidFilters:
    applied: tuple[AppliedFilter, ...] = ()
    ignored: tuple[str, ...] = ()  # words naming a filter on a field this corpus does not record
    unmatched: tuple[str, ...] = ()  # words naming a value no paper of this corpus has ("spotlight")
    question: str = ""  # the question without the words of the applied filters


def field_values(papers: Iterable[Paper]) -> dict[str, Counter[str]]:
    """The values each filterable field takes in the corpus, with how many papers have each."""
    values: dict[str, Counter[str]] = {}
    for paper in papers:
        for key, value in paper.metadata().items():
            if key in FILTER_FIELDS:
                values.setdefault(key, Counter())[str(value)] += 1
    return values


def area_parts(area: str, whole: bool = False) -> list[str]:
    """The parts of an area's name a reader would say, lower-cased: "applications to robotics,
    autonomy, planning" → robotics, autonomy, planning; "reinforcement learning" → it and "rl";
    the words in its parentheses and after "including" too ("physics", "llms"). `whole`: only
    those that name the area itself: its name, its first part, their acronyms."""
    name = re.sub(r"\([^)]*\)|,?\s*including\b.*$", "", area).strip().lower()
    parts = [_AREA_PREFIX.sub("", p.strip()) for p in re.split(r",|\band\b|\bor\b|&", name)]
    parts = [p for p in parts if p and p not in ("other", "etc.", "etc")]
    if whole:
        parts = parts[:1]
    else:
        inside = re.findall(r"\(([^)]*)\)|including\s+(.*)$", area.lower())
        parts += [w.strip() for groups in inside for g in groups for w in re.split(r",|\band\b", g) if w.strip() not in ("", "etc.", "etc")]
    acronyms = ["".join(w[0] for w in p.split()) for p in parts if len(p.split()) >= 2]
    return list(dict.fromkeys([area.lower(), name, *parts, *acronyms]))


def filters_in(question: str, fields: Mapping[str, Counter[str]]) -> SaidFilters:
    """The filters `question` says in words, kept to the values `fields` (field_values) has."""
    applied: list[AppliedFilter] = []
    ignored: list[str] = []
    unmatched: list[str] = []
    rest = question
    for kind, pattern in _STATUS.items():
        if match := re.search(pattern, rest, re.I):
            values = tuple(v for v in fields.get("status", {}) if v.lower().startswith(kind))
            said = match.group(0)
            if values:
                applied.append(AppliedFilter("status", values, said))
            else:
                (unmatched if "status" in fields else ignored).append(said)
            rest = _without(rest, match.span())
    area, span, said = _area(rest, fields.get("primary_area", {}))
    if area:
        applied.append(AppliedFilter("primary_area", (area,), said))
    elif said:
        ignored.append(said)
    if said:
        # "<area> papers" keeps its "papers": the rest of the question still asks for papers.
        rest = _without(rest, span, keep="papers" if said.lower().endswith("papers") else "")
    for head in dict.fromkeys(v.split()[0] for v in fields.get("venue", {}) if v.strip()):
        if match := re.search(rf"\b{re.escape(head)}(?:\s+\d{{4}})?(?=\s+papers\b)|\b(?:at|in|from)\s+{re.escape(head)}(?:\s+\d{{4}})?\b", rest):
            applied.append(AppliedFilter("venue", tuple(v for v in fields["venue"] if v.split()[0] == head), match.group(0)))
            rest = _without(rest, match.span())
            break
    if match := _YEAR.search(rest):
        year = next(g for g in match.groups() if g)
        if year in fields.get("year", {}):
            applied.append(AppliedFilter("year", (year,), match.group(0)))
        else:
            (unmatched if "year" in fields else ignored).append(match.group(0))
        rest = _without(rest, match.span(), keep="papers" if match.group(0).endswith("papers") else "")
    return SaidFilters(tuple(applied), tuple(ignored), tuple(unmatched), rest)


def papers_called(filters: Sequence[AppliedFilter], count: int | str, language: str = "en") -> str:
    """How many papers, and which once filtered, in the answer's language: "13 oral papers in the
    “reinforcement learning” area", "13 篇 oral 论文（“reinforcement learning”领域）". `count`: a
    number, or words already in that language ("At least 40", "no")."""
    kinds = [f.values[0].split()[0].lower() if f.field == "status" else f.values[0] for f in filters if f.field in ("status", "venue", "year")]
    areas = [f.values[0] for f in filters if f.field == "primary_area"]
    counted, one = (f"{count:,}" if isinstance(count, int) else count), count == 1
    if kinds:
        words = prompts.say("PAPERS_OF_KINDS_ONE" if one else "PAPERS_OF_KINDS", language, count=counted, kinds=" ".join(kinds))
    else:
        words = prompts.say("PAPERS_ONE" if one else "PAPERS", language, count=counted)
    return prompts.say("PAPERS_IN_AREA", language, papers=words, area=areas[0]) if areas else words


def _area(question: str, areas: Mapping[str, int]) -> tuple[str, tuple[int, int], str]:
    """(the area, where it is said, the words) for an area the question names as one. With no
    area field, an area said explicitly ("in the RL area") comes back as words to report ignored."""
    parts = {part: area for area in areas for part in area_parts(area)}
    wholes = {part: area for area in areas for part in area_parts(area, whole=True)}
    for anchor in _AREA_BEFORE.finditer(question):
        before = question[: anchor.start()].rstrip()
        words = list(re.finditer(r"[\w&'\-]+", before))
        named = wholes if anchor.group(0).lower() == "papers" else parts
        for n in range(min(MAX_AREA_WORDS, len(words)), 0, -1):
            start = words[-n].start()
            phrase = _LEADING.sub("", _LEADING.sub("", before[start:].lower()))
            start += len(before[start:]) - len(phrase)  # "Which robotics papers": the area is "robotics"
            if (found := _part(phrase, named)) and anchor.group(0).lower() == "papers" and _ends_a_term(before[:start]):
                continue  # "multi-objective optimization papers": papers on a term that ends in an area's name
            if found:
                # "in the ... area" is taken whole; "... papers" keeps its "papers".
                frame = re.search(r"(?:\b(?:in|from|of)\s+)?(?:the\s+)?$", question[:start], re.I)
                begin = frame.start() if frame and anchor.group(0).lower() != "papers" else start
                return found, (begin, anchor.end()), question[begin : anchor.end()]
        if not areas and anchor.group(0).lower() in ("area", "track") and words:
            return "", (0, 0), question[words[max(0, len(words) - 3)].start() : anchor.end()]
    for after in _AREA_AFTER.finditer(question):
        words = list(re.finditer(r"[\w&'\-]+", question[after.end() :]))
        for n in range(min(MAX_AREA_WORDS, len(words)), 0, -1):
            end = after.end() + words[n - 1].end()
            if found := _part(question[after.end() : end].lower(), parts):
                return found, (after.start(), end), question[after.start() : end]
    if match := _AREA_ZH_SAID.search(question):
        english = _AREA_ZH[match.group(0)[:-2]]
        area = next((a for a in areas if english in area_parts(a) or english in a.lower()), "")
        return (area, match.span(), match.group(0)) if area or not areas else ("", (0, 0), "")
    return "", (0, 0), ""


# Words that may stand before "<area> papers" without making the area's name part of a longer
# term: a request's frame words ("Summarise", "Which", "the", "newest", rag/theme_request.py), a
# status, a number.
_STATUS_WORDS = frozenset("oral orals poster posters spotlight spotlights accepted rejected".split())


def _ends_a_term(before: str) -> bool:
    """Whether the word before an area's name joins it in a term ("multi-objective" before
    "optimization"), rather than framing the request ("Which", "the", "oral", "Top-5")."""
    words = re.findall(r"[\w&'\-]+", before)
    if not words:
        return False
    word = words[-1].lower()
    return not (word in STOPWORDS or word in FRAME_WORDS or word in _STATUS_WORDS or any(c.isdigit() for c in word) or words[-1].isupper())


def _part(phrase: str, parts: Mapping[str, str]) -> str:
    """The area `phrase` names ("robotic" and "robotics" alike), or ""."""
    for candidate in (phrase, phrase.rstrip("s"), phrase + "s"):
        if candidate in parts:
            return parts[candidate]
    return ""


def _without(question: str, span: tuple[int, int], keep: str = "") -> str:
    return " ".join(f"{question[: span[0]]} {keep} {question[span[1] :]}".split())


def with_said_filters(request: Request, fields: Mapping[str, Counter[str]]) -> tuple[Request, list[str]]:
    """The request restricted by the filters its question says (beside `--where`, which wins for
    its fields), and the notes that say what was applied and what was not."""
    said = filters_in(request.question, fields)
    explicit = dict(request.where or {})
    where: dict[str, object] = {f.field: list(f.values) for f in said.applied if f.field not in explicit} | explicit
    applied = [*(f for f in said.applied if f.field not in explicit)]
    applied += [AppliedFilter(k, tuple(map(str, v)) if isinstance(v, list | tuple) else (str(v),), "--where") for k, v in explicit.items()]
    language = question_language(request.question)
    notes = [prompts.say("FILTER_IGNORED", language, said=words) for words in said.ignored]
    notes += [prompts.say("FILTER_UNMATCHED", language, said=words) for words in said.unmatched]
    if applied:
        conditions = "; ".join(f"{f.field.replace('_', ' ')} {' or '.join(f.values)}" for f in applied)
        notes.insert(0, prompts.say("FILTER_APPLIED", language, conditions=conditions))
    return replace(request, where=where or None, filters=tuple(applied), asked=said.question), notes
