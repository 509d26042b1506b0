"""The Gradio app in a real browser: headless Debian Chromium driven by Playwright, against
`paperchat serve` over the ingested seeds (fixtures `browser` and `served_seeds_app` in conftest).

Screenshots and the page's console log go to test-artifacts/browser/ at the repository root
(git-ignored), kept after the run so a failing CI run can be looked at.

The chat app being built names its parts by element id, and later tests select by these:
chat textbox `#question` (a textarea inside), send `#ask`, stop `#stop`, clear `#clear`, mode
radio `#mode` (Auto, Ask, Summarize, Compare), chatbot `#chat`, sources panel `#sources` with
`.source-card` elements `#source-N` and `mark.evidence` highlights, citation links `a.cite` in
the answer; tabs "Chat", "Explore", "Add papers"; explorer table `#papers-table`, topic map
`#topic-map`; status `#status`. This first test asserts only what the current app has too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.conftest import ARTIFACTS

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
