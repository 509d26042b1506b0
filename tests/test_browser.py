"""The Gradio app in a real browser: headless Debian Chromium driven by Playwright, against
`paperchat serve` over the ingested seeds (fixtures `browser` and `served_seeds_app` in conftest).

Screenshots and the page's console log go to test-artifacts/browser/ at the repository root
(git-ignored), kept after the run so a failing CI run can be looked at.

The app names its parts by element id, and the tests select by these: chat textbox `#question`
(a textarea inside), send `#ask`, stop `#stop`, clear `#clear`, mode radio `#mode`, chatbot
`#chat` (one `.message-row.bot-row` per answer), sources panel `#sources` with `.source-card`
elements `#source-{turn}-{n}` and `mark.evidence` highlights, citation links `a.cite` in the
answer; tabs "Chat", "Explore", "Add papers"; explorer table `#papers-table`, filter
`#paper-filter`, topic map `#topic-map`; status `#status`.

Run alone (about 2 minutes, most of it ingesting the seeds and starting the server):
    .venv/bin/python -m pytest -s tests/test_browser.py
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from tests.conftest import ARTIFACTS, first_seed_row

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.integration

SHOTS = ARTIFACTS / "browser"


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh context and page per test; the page's console messages, errors and failed
    requests are written to test-artifacts/browser/<test>.log."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    lines: list[str] = []
    page.on("console", lambda message: lines.append(f"console {message.type}: {message.text}"))
    page.on("pageerror", lambda error: lines.append(f"pageerror: {error}"))
    page.on("requestfailed", lambda req: lines.append(f"requestfailed: {req.url} ({req.failure})"))
    try:
        yield page
    finally:
        (SHOTS / f"{request.node.name}.log").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        context.close()


def test_app_renders(page: Page, served_seeds_app: str) -> None:
    page.goto(served_seeds_app)
    # Gradio renders client-side: the page is there when its first textbox is.
    textbox = page.locator("textarea").first
    textbox.wait_for(state="visible")
    shot = SHOTS / "app-renders.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")

    assert page.title() == "paperchat"
    assert textbox.is_editable()


# --- The chat and the explorer, end to end ---------------------------------------------------

QUESTION = "How does ReST-KV evict KV cache entries?"
FOLLOW_UP = "What does it report on LongBench?"
# The last line of a finished answer: "<sub>answer · <backend> · 5.9 s</sub>" (ui/render.py).
FINAL = re.compile(r"(?:\b(?:answer|summary|comparison|list)|回答|总结|比较|列表) · .+ · \d+\.\d (?:s|秒)\s*$")

# Records every text the newest assistant message shows, with the time since window.__asked,
# from a MutationObserver: it sees each state Gradio renders, however briefly, unlike a poll.
RECORD_STATES = """() => {
  if (window.__observer) window.__observer.disconnect();
  window.__states = [];
  const newest = () => {
    const rows = document.querySelectorAll('#chat .message-row.bot-row');
    return rows.length ? rows[rows.length - 1].innerText.trim() : '';
  };
  const observer = (window.__observer = new MutationObserver(() => {
    const text = newest();
    const states = window.__states;
    if (text && (!states.length || states[states.length - 1].text !== text)) {
      states.push({ t: performance.now() - window.__asked, text, bots: document.querySelectorAll('#chat .message-row.bot-row').length });
    }
  }));
  observer.observe(document.querySelector('#chat'), { childList: true, subtree: true, characterData: true });
}"""

# Whether an element's box overlaps the viewport and every scrolling ancestor's box (#sources
# scrolls on its own, so being inside the window is not enough).
IN_VIEW = """(element) => {
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return false;
  const overlaps = (outer) => box.bottom > outer.top && box.top < outer.bottom && box.right > outer.left && box.left < outer.right;
  if (!overlaps({ top: 0, left: 0, bottom: window.innerHeight, right: window.innerWidth })) return false;
  for (let node = element.parentElement; node; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (/(auto|scroll|hidden)/.test(style.overflowY) && !overlaps(node.getBoundingClientRect())) return false;
  }
  return true;
}"""


def wait_until_loaded(page: Page, url: str) -> None:
    """Open the app and wait for its load event (status line and examples) to have run."""
    page.goto(url)
    page.locator("#question textarea").wait_for(state="visible")
    # demo.load fills the status line ("... · papers: 51") and the examples in one call. Asking
    # (or opening Explore) before it ended can fail on a fresh server: its examples open the
    # Chroma store, and rag.api.Paperchat.store() has no lock against a concurrent first call.
    page.wait_for_function("() => /papers/.test(document.querySelector('#status')?.innerText || '')", timeout=120_000)


def ask_and_record(page: Page, question: str, bots_before: int, timeout_s: float = 150) -> list[dict[str, Any]]:
    """Type `question`, click Ask, and wait until the new assistant message is the finished
    answer; returns every state that message showed, [{"t": ms since the click, "text"}]."""
    page.fill("#question textarea", question)
    page.evaluate(RECORD_STATES)
    page.evaluate("() => { window.__asked = performance.now(); }")
    page.click("#ask")
    deadline = time.monotonic() + timeout_s
    streaming_shot = False
    while True:
        states = [s for s in page.evaluate("() => window.__states") if s["bots"] > bots_before]
        if states and FINAL.search(states[-1]["text"]):
            return states
        if not streaming_shot and states and ("▌" in states[-1]["text"] or "Found" in states[-1]["text"]) and bots_before == 0:
            page.screenshot(path=str(SHOTS / "chat-streaming.png"))
            streaming_shot = True
        assert time.monotonic() < deadline, f"no final answer to {question!r} after {timeout_s} s; states: {states}"
        time.sleep(0.1)


def first_visible(states: list[dict[str, Any]]) -> dict[str, Any]:
    """The first state showing answer text: the sources found, a verified sentence, or the answer."""
    return next(s for s in states if "Found" in s["text"] or "▌" in s["text"] or FINAL.search(s["text"]))


def test_chat_streams_cites_and_follows_up(page: Page, served_seeds_app: str) -> None:
    wait_until_loaded(page, served_seeds_app)

    states = ask_and_record(page, QUESTION, bots_before=0)
    final = states[-1]
    shown, done = first_visible(states)["t"], final["t"]
    print(f"\nstates of the answer: {[(round(s['t']), s['text'][:60]) for s in states]}")
    print(f"click -> first visible answer text: {shown:.0f} ms; -> final answer: {done:.0f} ms")
    page.screenshot(path=str(SHOTS / "chat.png"))

    # Streamed: the final answer was preceded by at least two different states of its own.
    before = [s["text"] for s in states[:-1] if not FINAL.search(s["text"])]
    assert len(set(before)) >= 2, f"expected streamed states before the answer, saw {states}"
    assert any("Found" in text or "▌" in text for text in before), before
    assert shown < done

    answer = page.locator("#chat .message-row.bot-row").last
    cites = answer.locator("a.cite")
    assert cites.count() >= 1, answer.inner_text()
    hrefs = [cites.nth(i).get_attribute("href") or "" for i in range(cites.count())]
    assert all(re.fullmatch(r"#source-1-\d+", h) for h in hrefs), hrefs

    # Every cited number has its card, with the evidence highlighted; the first is ReST-KV's.
    for href in set(hrefs):
        card = page.locator(f"#sources {href}")
        assert card.count() == 1, href
        assert card.locator("mark.evidence").count() >= 1, card.inner_text()
    assert "ReST-KV" in page.locator(f"#sources {hrefs[0]}").inner_text()

    # Clicking [n] brings card n into view and flashes it.
    page.evaluate("() => { document.querySelector('#sources').scrollTop = 1e6; window.scrollTo(0, 0); }")
    first_card = page.locator(f"#sources {hrefs[0]}")
    cites.first.click()
    page.wait_for_function("(card) => card.classList.contains('flash')", arg=first_card.element_handle(), timeout=1_500)
    page.wait_for_function(IN_VIEW, arg=first_card.element_handle(), timeout=3_000)
    page.locator("#sources").screenshot(path=str(SHOTS / "sources.png"))

    # A follow-up: "it" is ReST-KV; its answer cites this turn's cards.
    follow = ask_and_record(page, FOLLOW_UP, bots_before=1)
    print(f"follow-up: first visible {first_visible(follow)['t']:.0f} ms, final {follow[-1]['t']:.0f} ms; answer: {follow[-1]['text'][:300]!r}")
    second = page.locator("#chat .message-row.bot-row").last
    cites2 = second.locator("a.cite")
    assert cites2.count() >= 1, second.inner_text()
    href2 = cites2.first.get_attribute("href") or ""
    assert re.fullmatch(r"#source-2-\d+", href2), href2
    assert "ReST-KV" in page.locator(f"#sources {href2}").inner_text()
    page.screenshot(path=str(SHOTS / "chat-follow-up.png"), full_page=True)

    # The first answer's [n] now points into the folded sources of question 1: the click unfolds them.
    old_card = page.locator(f"#sources {hrefs[0]}")
    # Folded: its turn's <details> is closed. (Whether a card in a closed <details> has a box to be
    # "in view" differs between Chromium runs, so the fold itself is what is checked.)
    page.wait_for_function("(card) => !card.closest('details').open", arg=old_card.element_handle(), timeout=3_000)
    page.locator("#chat .message-row.bot-row").first.locator("a.cite").first.click()
    page.wait_for_function(f"(card) => card.closest('details').open && ({IN_VIEW})(card)", arg=old_card.element_handle(), timeout=3_000)


def test_a_chinese_question_gets_a_chinese_framed_answer_citing_english_evidence(page: Page, served_seeds_app: str) -> None:
    wait_until_loaded(page, served_seeds_app)
    # No English name in it: only the multilingual channel can find ToonComposer.
    states = ask_and_record(page, "有没有研究把动画的中间帧补全和上色放在一个模型里做的论文？", bots_before=0)
    answer = page.locator("#chat .message-row.bot-row").last
    text = answer.inner_text()
    print(f"\nChinese question, final after {states[-1]['t']:.0f} ms: {text[:300]!r}")
    page.screenshot(path=str(SHOTS / "chat-chinese.png"))
    assert "回答 ·" in text and " 秒" in text, text  # the app's words around the turn are Chinese
    assert re.search(r"[\u4e00-\u9fff].*：", text.split("\n")[0]), text  # a Chinese lead-in line
    cites = answer.locator("a.cite")
    assert cites.count() >= 1, text
    card = page.locator(f"#sources {cites.first.get_attribute('href')}")
    assert "ToonComposer" in card.inner_text(), card.inner_text()
    evidence = card.locator("mark.evidence").first.inner_text()
    assert re.search(r"[A-Za-z]{4,}", evidence) and not re.search(r"[\u4e00-\u9fff]", evidence), evidence  # the abstract's English


def test_a_comparison_is_a_table_in_the_chat_that_scrolls_sideways(page: Page, served_seeds_app: str) -> None:
    """A real <table>, not its Markdown source: a header and a row per paper, a cell per aspect,
    cited cells linking to their cards, and wider than the bubble it scrolls instead of spilling."""
    wait_until_loaded(page, served_seeds_app)
    ask_and_record(page, "Compare SureLock and ReST-KV.", bots_before=0)
    answer = page.locator("#chat .message-row.bot-row").last
    table = answer.locator("table")
    assert table.count() == 1, answer.inner_text()
    assert table.locator("thead th").count() == 7  # the paper, then six aspects
    rows = table.locator("tbody tr")
    assert rows.count() == 2 and all(rows.nth(i).locator("td").count() == 7 for i in range(2))
    assert "|---|" not in answer.inner_text()
    first, second = rows.nth(0).locator("td").first.inner_text(), rows.nth(1).locator("td").first.inner_text()
    assert "SureLock" in first and "ReST-KV" in second, (first, second)
    cites = table.locator("td a.cite")
    assert cites.count() >= 4
    hrefs = {cites.nth(i).get_attribute("href") for i in range(cites.count())}
    assert hrefs == {"#source-1-1", "#source-1-2"}, hrefs
    for href in hrefs:
        assert page.locator(f"#sources {href}").count() == 1
    sideways = table.evaluate("(t) => [getComputedStyle(t).overflowX, t.scrollWidth, t.clientWidth]")
    assert sideways[0] in ("auto", "scroll") and sideways[1] > sideways[2], sideways
    page.screenshot(path=str(SHOTS / "chat-compare.png"))


def test_explorer_table_and_topic_map(page: Page, served_seeds_app: str) -> None:
    wait_until_loaded(page, served_seeds_app)
    page.get_by_role("tab", name="Explore").click()
    table = page.locator("#papers-table")
    started = time.monotonic()
    # Selecting the tab loads the table and computes the topic map (vega draws svg or canvas).
    first = first_seed_row()
    page.wait_for_function("(first) => (document.querySelector('#papers-table')?.innerText || '').includes(first)", arg=first, timeout=60_000)
    page.locator("#topic-map svg.marks, #topic-map canvas").first.wait_for(state="visible", timeout=60_000)
    print(f"\nexplorer: table and topic map after {time.monotonic() - started:.1f} s")
    # svg: one symbol per paper, 51 seeds (a canvas would have none to count; legend symbols are another role).
    points = page.locator("#topic-map .mark-symbol.role-mark path").count()
    assert points in (0, 51), points
    page.screenshot(path=str(SHOTS / "explore.png"), full_page=True)
    page.locator("#topic-map").screenshot(path=str(SHOTS / "topic-map.png"))

    # The filter narrows the table to the papers whose title or abstract has the words.
    page.fill("#paper-filter textarea", "ReST-KV")
    page.press("#paper-filter textarea", "Enter")
    page.wait_for_function("(first) => !document.querySelector('#papers-table').innerText.includes(first)", arg=first, timeout=30_000)
    assert "ReST-KV" in table.inner_text()
