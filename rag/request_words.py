"""The closed vocabularies a request's theme is read with (rag/theme_request.py): the words that
only frame a request (asking, summarising, time, venue, "papers"), those that join a theme's words,
and those that close or go on from a list of themes."""

from __future__ import annotations

# Words that speak of the literature and what is new in it: with them, a request that names one
# theme and nothing else asks for an overview of it ("conformal prediction, anything new?",
# "catch me up on X", "speculative decoding papers?").
OVERVIEW_WORDS = frozenset(
    """
    papers work research researchers people studies literature field area landscape summarize summarise summary overview
    survey review recap rundown roundup round-up digest highlights picture catch walk brief new newest latest recent recently lately
    progress progressed progressing advances advancements developments evolved trends trend directions direction ideas findings
    contributions done doing proposed publish published publishing tried explored happening going heading news updates worth recommend recommended
    primer intro introduction introduce hot top consensus takeaways insights lessons breakthroughs evolving speed started
    """.split()
)
VENUES = ("ICLR", "NeurIPS", "ICML", "CVPR", "ACL", "EMNLP")
# What papers or people do to a theme frames the request only after a frame word ("Which papers
# study X", "How are people improving X"); after a theme's word it ends a topic's name ("user
# study", "PDE solving", "missing data handling").
FRAME_VERBS = frozenset(
    """
    tackle tackles tackling address addresses addressing investigate investigates investigating study studying improve improves
    improving solve solves solving examine examines handle handles handling
    """.split()
)
# Words that frame an English request and never name its theme: the overview words above, and
# asking, reading, time, venue, the function words around them, and what papers or people do to a
# theme ("Which papers tackle X?", "How are people improving X?").
FRAME_WORDS = OVERVIEW_WORDS | {v.lower() for v in VENUES} | frozenset(
    """
    a an the this that these those some any anything anyone anybody all every everything each what what's whats which who who's
    whose how where when why is are was were be been being has have had do does did doing can could would should will may might
    i i'd i'm me my we you your us it its they them their there here so if still just also too very really out up through together
    over about please pls plz hey hi thanks briefly quick quickly short big overall main key major important interesting notable
    representative current currently now today year years conference corpus collection summarized summarised summaries give tell
    show explain describe reviews overviews pull list find get want like need help understand read reading know learn see go looking
    look stand stands try trying propose found exploring say says said cover covers covered discuss highlight paper works working
    areas topic topics idea trends finding contribution theme themes kinds kind sort sorts types stuff things thing newcomer
    newcomers beginner beginners someone starting tl;dr tldr lit should good fill start dig bring
    two three four five several various
    """.split()
) | FRAME_VERBS
# Frame words that are also words of topics ("peer review", "topic modeling", "fake news
# detection", "cold start", "reading comprehension", "key-value"): next to a word of the theme,
# they are part of it.
TOPIC_WORDS = frozenset("review reviews topic topics key news start reading highlight highlights walk consensus cover picture landscape".split())
# Words a theme may end in ("feature attribution methods") but that alone name no theme.
WEAK_WORDS = frozenset("methods approaches techniques problems challenges questions issues theory theories models landscape".split())
# Words that join the parts of one theme ("mixture of experts", "AI for drug discovery").
CONNECTORS = frozenset("of for in on with to and via from under between across against".split())
ARTICLES = frozenset({"the", "a", "an", "its", "their"})
# Prepositions after which an article is the theme's ("generalization outside of the training
# distribution", "... beyond the training horizon"; not "a taste of the X papers"). Like a
# connector they join words and weigh nothing: "graph learning papers beyond the homophily
# assumption" is about graph learning.
BEYOND = frozenset({"outside", "beyond"})
# Adverbs that narrow a theme to what follows them ("diffusion models, specifically video
# diffusion"; "particularly hard combinatorial problems"), or join its words ("models trained
# specifically for code"), but name nothing.
NARROWING = frozenset("specifically particularly particular especially mainly mostly primarily".split())  # ("in particular")
JOINERS = CONNECTORS | ARTICLES | BEYOND | NARROWING  # what joins a run's words, where words follow it
CONJUNCTIONS = frozenset({"and", "or"})  # what closes a list of themes
# Words that go on with a request after its theme, not an item of a list of themes nor the theme
# ("Summarise the papers on hallucination, and compare them"; "..., then rank them"). (A closed
# list: the small tagger reads "compare methods" as nouns, and "or reward modeling" as a verb.)
GOING_ON = frozenset("then plus compare comparing highlighting emphasizing emphasising focusing".split())
# ... and words that do so only alone or before a preposition ("..., or skip it", "..., and focus on
# VLMs", "..., and categorize by method"): with a theme's words they name it ("contrast enhancement",
# "skip connections", "focus stacking", "rank collapse").
GOING_ON_ALONE = frozenset("contrast focus skip rank organise organize categorise categorize".split())
