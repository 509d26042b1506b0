"""The one sanitiser for every string a record, an upload or a model puts on the page.

ui/render.py makes two kinds of output: Markdown for the chat, the search list and the reports
(Gradio renders it), and HTML for the source cards. A string from outside becomes inert in both
(`inert`): HTML escaped, no Markdown image or link able to form, a web address left as text. Links
are made only here (`link`): http(s) only, the title shown with the address's host beside it, so a
reader sees where it leads. Every HTML fragment then passes nh3 (the Ammonia sanitiser) with an
allow-list of exactly the markup render.py makes (`page`): a mistake upstream cannot put live
markup on the page, and the app does not depend on Gradio's own sanitising by accident.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

import nh3

# Markdown that would turn text into an image or a link: "![alt](src)", "[text](href)", and a
# bare address (GFM autolinks "https://…" and "www.…"). ("[a][b]" links only with a "[b]: url"
# definition line, which `inert` cannot form; and "[1][2]" are two citations.)
_IMAGE_OR_LINK = re.compile(r"!\[|\]\(")
# Not after a word boundary only: GFM autolinks "1https://…" and "xwww.…" as well.
_AUTOLINK = re.compile(r"(?i)(https?|ftp|mailto|javascript|data|file)(:)|(www)(\.)")
# An address with a space, a line break or a control character in it is no address: in Markdown a
# blank line inside an href would end the link's paragraph and start new Markdown.
_NOT_AN_ADDRESS = re.compile(r"[\s\x00-\x1f\x7f]")

# The bidi embedding, override and isolate controls ("Trojan Source", CVE-2021-42574): a title
# ending in U+202E (right-to-left override) reverses what follows it up to the end of its line on
# the page, such as the host `link` shows beside it ("(evil.example)" read as "(elpmaxe.live)").
# Dropped from what is shown; the letters of a right-to-left script keep their natural direction.
_BIDI_CONTROLS = dict.fromkeys([*range(0x202A, 0x202F), *range(0x2066, 0x206A)])

# The markup render.py makes, and nothing else.
_TAGS = {"a", "b", "strong", "em", "i", "small", "sub", "sup", "mark", "span", "div", "p", "br", "details", "summary", "code"}
_ATTRIBUTES = {
    "a": {"href", "target", "class"},
    "span": {"class", "title"},
    "div": {"class", "id", "data-paper-id"},
    "p": {"class"},
    "mark": {"class"},
}


def inert(value: object) -> str:
    """Untrusted text as inert Markdown and HTML: escaped (quotes too, so it may sit in an
    attribute), with no image, link or autolink able to form, and no bidi control able to
    reorder the text around it."""
    escaped = html.escape(str(value).translate(_BIDI_CONTROLS), quote=True)
    escaped = _IMAGE_OR_LINK.sub(lambda m: m.group().replace("[", "&#91;").replace("(", "&#40;"), escaped)
    # An entity in place of ":" (or of "." after "www", or of "@") reads the same and links nothing.
    escaped = _AUTOLINK.sub(lambda m: f"{m.group(1)}&#58;" if m.group(1) else f"{m.group(3)}&#46;", escaped)
    return escaped.replace("@", "&#64;")


def host(url: str) -> str:
    """The host a web address leads to ("arxiv.org"); "" for anything but an http(s) address."""
    if _NOT_AN_ADDRESS.search(url.strip()):
        return ""
    parts = urlsplit(url.strip())
    return parts.hostname or "" if parts.scheme in ("http", "https") else ""


def link(title: str, url: str) -> str:
    """A title, linked when the record's address is http(s), with the host shown beside it; any
    other address (javascript:, data:, a path) leaves the title as text."""
    shown = inert(title)
    where = host(url)
    if not where:
        return shown
    return f'<a href="{html.escape(url.strip(), quote=True)}" target="_blank">{shown}</a> <small>({inert(where)})</small>'


def page(fragment: str) -> str:
    """An HTML fragment made by render.py, cleaned to the markup it is allowed to make: links
    only to http(s) or to a card on the page ("#source-2-1"), opened with noopener."""
    return nh3.clean(
        fragment,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https"},
        link_rel="noopener noreferrer",
        strip_comments=True,
    )
