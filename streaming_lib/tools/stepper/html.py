"""Drawing frames as HTML: the stepper's panels, and a static page holding the frames.

The widget (`widget.py`) redraws the panels with `render_panels` at every step.
`static_page` draws the same panels for each frame once and embeds them as JSON
beside a plain JavaScript range slider: one self-contained file (no external
script, no CDN) that still works where no kernel runs (nbviewer, a course site).

The markup is in `templates/` (Jinja2, autoescaping): one macro per panel in
`panels.html`, the frame around them in `layout.html`, the static page in
`page.html`, a byte's token in `tokens.html`. This module computes what they show.
Any value a template writes is escaped (as `html.escape` does) unless it is
marked as HTML (`Markup`): what came from the stream cannot become markup, and
only our own words (the catalogue `i18n.STEPPER`) and HTML made by a template
are marked. A byte is shown as itself if it is printable ASCII and as an escape
otherwise (`\\n`, `\\r`, `\\xe5`), so the bytes panel shows exactly what crossed
the network:

    >>> "".join(byte_tokens(b"a<\\n"))
    'a&lt;<span class="ss-esc">\\\\n</span>\\n'

Size: every panel is bounded, however long the stream: the bytes panel shows
the last `BYTES_SHOWN` bytes received, the events panel the last `EVENTS_SHOWN`
events, and a long text (a block's text, a JSON buffer, a data line) its last
`TEXT_SHOWN` characters, each with a note saying how much came before. The
page stores each distinct panel once (most steps change one panel or none) and
at most `PAGE_FRAMES` frames per chunk plan: past that it keeps evenly spaced
steps and says so above the slider. The course fixture (2,350 bytes) makes a
page of about 70 kB at 7-byte chunks, 170 kB at 1-byte chunks, 270 kB with all
five chunk sizes.

Language: the panels' titles and subtitles, the legend, the status line, the
notes and the controls are in English, or in Chinese with `lang="zh"` (the
table `i18n.STEPPER`; the page's script gets its words in the page's data). The
field's terms (event names, `stop_reason`, the class names) and what came from
the stream stay as they are. The panels' own words (row labels, callouts, "(none)",
the notes on how much came before) are in `lang` too; what a text shows when empty
is in a `data-empty` attribute the stylesheet writes. A tool call's verdict
(`tool_call_verdict`) is shown in `lang` where `i18n.verdict_words` knows it; an
error's message stays as it was raised.

Deliberately not handled here: computing frames (`frames.py`), widgets (`widget.py`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from html import escape
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from jinja2.ext import Extension
from markupsafe import Markup

from ...language import say
from ..i18n import STEPPER, verdict_words, words
from ..utf8 import characters, unfinished_character
from .frames import EVENT_BY_EVENT, ChunkSize, Frame


def _asset(name: str) -> str:  # a file shipped beside this module -> its text
    return (Path(__file__).parent / name).read_text(encoding="utf-8")


# The page stores these panels as HTML strings, each distinct one once, in this
# order per frame. The other four (status, bytes, pending, events) change at
# almost every step: its script builds them from a few numbers per frame.
STRING_SLOTS = ("error", "lines", "sse", "content", "tools", "stop")

# What a panel shows at most: a panel that grew with the stream would make
# every step cost the stream so far (and a page of frames, its square).
BYTES_SHOWN = 8192  # the last bytes received, in the bytes panel
PENDING_SHOWN = 2048  # the last pending bytes, in the LineDecoder panel
EVENTS_SHOWN = 100  # the last events dispatched
TEXT_SHOWN = 1000  # characters of one long text: a block's text, a JSON buffer, a line
LINES_SHOWN = 50  # lines in one list: the lines a chunk completed, the data lines
PAGE_FRAMES = 2500  # frames per chunk plan on the static page (the fixture at 1-byte chunks fits)

# Where the bytes panel breaks its line: after an LF, and after a CR not followed by LF.
LINE_BREAK = re.compile(rb"\n|\r(?!\n)")

_ESCAPES = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


# -- bytes ---------------------------------------------------------------------


# Play's speeds: (label, milliseconds per tick, steps per tick), for the page and the widget.
SPEEDS: tuple[tuple[str, int, int], ...] = (
    ("slow", 800, 1),
    ("normal", 400, 1),
    ("quick", 100, 1),
    ("fast", 50, 2),
    ("fastest", 30, 10),
)
JUMP = 10  # the steps Shift+arrow (page) or a −10/+10 button (widget) moves

# After these, a long line may wrap: between JSON's tokens, never inside a word or an escape.
WRAP_AFTER = ",:"


def _breakable(text: str) -> Markup:
    """`text` escaped, with a line-break opportunity (<wbr>) after each comma and colon."""
    html = text if isinstance(text, Markup) else escape(str(text))
    for char in WRAP_AFTER:
        html = html.replace(char, char + "<wbr>")
    return Markup(html)


# -- templates -------------------------------------------------------------------


def _finalize(value: Any) -> Any:  # every {{ value }}: escaped here unless it is HTML
    return value if hasattr(value, "__html__") else Markup(escape(str(value)))


class _Layout(Extension):
    """A template's line breaks and the indentation after them are for its reader only:
    they are dropped from the template's source, so markup can be laid out on lines
    without adding whitespace to the page (its panels keep whitespace: pre-wrap)."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\n[ \t]*", "", source)


@cache
def _catalogue(lang: str) -> dict[str, Markup]:
    """The words of `i18n.STEPPER` in `lang` as HTML: our own words, which may hold markup."""
    return {key: Markup(value) for key, value in words(STEPPER, lang).items()}


def _bounded(text: str, keep: str) -> tuple[str, int]:
    """At most TEXT_SHOWN characters of `text`, its start or its end (`keep`), and how
    many are left out."""
    hidden = max(0, len(text) - TEXT_SHOWN)
    if not hidden:
        return text, 0
    return (text[:TEXT_SHOWN] if keep == "start" else text[-TEXT_SHOWN:]), hidden


# The panels' look, in a stylesheet beside this module.
STYLE = _asset("stepper.css")

TEMPLATES = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    finalize=_finalize,
    extensions=[_Layout],
    undefined=StrictUndefined,
    keep_trailing_newline=False,
)
TEMPLATES.filters.update(
    breakable=_breakable,
    json=lambda value: json.dumps(value, ensure_ascii=False),
    thousands=lambda count: f"{count:,}",
    plain=str,  # catalogue words to escape like any text
)
TEMPLATES.globals.update(
    words=_catalogue,
    bounded=_bounded,
    unfinished_character=unfinished_character,
    verdict_words=verdict_words,
    in_lang=say,  # an error's message (a `language.Text`) in the panel's language
    fields_of=lambda block: {key: value for key, value in block.items() if key != "type"},
    LINES_SHOWN=LINES_SHOWN,
    style=Markup(STYLE),
)
# Each template's macros, called by name (a macro returns Markup: HTML, a str).
PANEL_MACROS: Any = TEMPLATES.get_template("panels.html").module
LAYOUT_MACROS: Any = TEMPLATES.get_template("layout.html").module
PAGE_MACROS: Any = TEMPLATES.get_template("page.html").module
TOKEN_MACROS: Any = TEMPLATES.get_template("tokens.html").module


def _plain_token(byte: int) -> str:
    if 0x20 <= byte < 0x7F:
        return str(TOKEN_MACROS.plain(chr(byte)))
    return str(TOKEN_MACROS.escaped(_ESCAPES.get(byte, f"\\x{byte:02x}")))


_PLAIN = [_plain_token(byte) for byte in range(256)]  # a byte's token when it carries no character


@lru_cache(maxsize=4096)
def _utf8_token(char: str, byte: int) -> str:  # a byte of a valid UTF-8 character
    return str(TOKEN_MACROS.utf8(f"U+{ord(char):04X}", char, f"\\x{byte:02x}"))


def byte_tokens(raw: bytes, start: int = 0, end: int | None = None) -> list[str]:
    """One HTML string per byte of `raw[start:end]` (list of str).

    Printable ASCII is itself (escaped for HTML); any other byte is its Python
    escape in a `ss-esc` span. A line ending is followed by a real line break,
    so the panel keeps the stream's lines. The bytes of a valid UTF-8 character
    carry the character as a tooltip (the same for a slice as in the whole).
    """
    end = len(raw) if end is None else end
    tokens = [_PLAIN[byte] for byte in raw[start:end]]
    # A character covering `start` begins at most 3 bytes before it, and one
    # begun before `end` ends at most 3 bytes after: decode those bytes too.
    low, high = max(0, start - 3), min(len(raw), end + 3)
    for run in re.finditer(
        rb"[\x80-\xff]+", raw[low:high]
    ):  # ASCII bytes are never part of a longer character
        for offset, length, char in characters(run.group()):
            if char is None:
                continue
            first = low + run.start() + offset
            for at in range(max(first, start), min(first + length, end)):
                tokens[at - start] = _utf8_token(char, raw[at])
    for match in LINE_BREAK.finditer(
        raw, start, min(len(raw), end + 1)
    ):  # +1: is a CR followed by LF?
        if match.start() < end:
            tokens[match.start() - start] += "\n"
    return tokens


class ByteTokens(Sequence[str]):
    """`byte_tokens(raw)` made only for the slices asked (the widget shows a window of
    the bytes: a list of a token per byte would cost a pointer per byte received)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self.raw))
            if step != 1:
                raise ValueError("ByteTokens slices are contiguous")
            return byte_tokens(self.raw, start, max(start, stop))
        at = range(len(self.raw))[index]
        return byte_tokens(self.raw, at, at + 1)[0]


def _count_note(count: int, what: str, lang: str = "en") -> str:
    """ "… 1,234 earlier bytes", before a panel's window ("" for none); `what` a key of
    `i18n.STEPPER` ("bytes", "events", "lines", "data lines")."""
    return str(PANEL_MACROS.count_note(count, what, lang))


def bytes_html(tokens: Sequence[str], frame: Frame, lang: str = "en") -> str:
    """The last BYTES_SHOWN bytes received, this step's chunk in a `<mark>` (same as the page's
    JavaScript).
    `tokens`: `byte_tokens(raw)` or `ByteTokens(raw)`."""
    low = max(0, frame.end - BYTES_SHOWN)
    start = max(frame.start, low)
    return (
        _count_note(low, "bytes", lang)
        + "".join(tokens[low:start])
        + '<mark class="ss-chunk">'
        + "".join(tokens[start : frame.end])
        + "</mark>"
    )


def pending_html(tokens: Sequence[str], frame: Frame, lang: str = "en") -> str:
    """The line decoder's pending bytes (always the last bytes received; the last
    PENDING_SHOWN of them), a cut character marked."""
    first = frame.end - len(frame.pending)
    low = max(first, frame.end - PENDING_SHOWN)
    cut = frame.end - len(frame.partial_char)
    html = _count_note(low - first, "bytes", lang) + "".join(tokens[low:cut])
    if frame.partial_char:
        html += '<span class="ss-split">' + "".join(tokens[cut : frame.end]) + "</span>"
    return html


# -- the other panels ------------------------------------------------------------


def _text(text: str, keep: str = "end", lang: str = "en") -> str:
    """A text of any length, escaped: at most TEXT_SHOWN characters of it, its `keep` ("end"
    or "start"), and a note (in `lang`) saying how many more there are."""
    return str(PANEL_MACROS.text(text, keep, lang))


def status_html(frame: Frame, steps: int, total: int, lang: str = "en") -> str:
    """The line above the panels: which step, which bytes (twin of the page's `status()`)."""
    return str(PANEL_MACROS.status(frame, steps, total, lang))


def error_html(frame: Frame, lang: str = "en") -> str:
    """The error that ended the stream, if any (its type and message as raised)."""
    return str(PANEL_MACROS.error(frame, lang))


def lines_html(frame: Frame, lang: str = "en") -> str:
    """Stage 1 beyond the pending bytes themselves: a cut character, a CR at the end, the lines
    completed (the last LINES_SHOWN)."""
    return str(PANEL_MACROS.lines(frame, lang))


def sse_html(frame: Frame, lang: str = "en") -> str:
    """Stage 2: the fields of the event being built."""
    return str(PANEL_MACROS.sse(frame, lang))


def event_item_html(number: int, event: dict[str, Any], lang: str = "en") -> str:
    """One dispatched event (`number` counts from 1): its type, its id, its data."""
    return str(PANEL_MACROS.event_item(number, event, lang))


def events_html(
    items: Sequence[str] | Mapping[int, str], count: int, new: int, lang: str = "en"
) -> str:
    """The last EVENTS_SHOWN of the first `count` event items, the `new` last ones (this
    step's) highlighted (twin of the page's). `items[i]` is event i's item (from 0, HTML);
    only those shown are read."""
    low = max(0, count - EVENTS_SHOWN)
    shown = {i: Markup(items[i]) for i in range(low, count)}
    return str(PANEL_MACROS.events(shown, low, count, new, lang))


def _block_html(index: int, block: Any, stopped: bool, lang: str = "en") -> str:
    return str(PANEL_MACROS.content_block(index, block, stopped, lang))


def content_html(frame: Frame, lang: str = "en") -> str:
    """Stage 3: `message["content"]` as the accumulator holds it."""
    return str(PANEL_MACROS.content(frame, lang))


# The rows of a tool block's panel: (name in the template, key of its label in i18n.STEPPER).
TOOL_ROWS = (
    ("buffer", "row_buffer"),
    ("json.loads", None),  # a Python name: the same in every language
    ("partial", "row_partial"),
    ("at stop", "row_at_stop"),
    ("may run", "row_may_run"),
)


def tool_rows(tool: dict[str, Any], lang: str = "en") -> list[tuple[str, str]]:
    """The rows of one tool block's panel, (label, HTML), labels in `lang`: its JSON buffer,
    whether `json.loads` accepts it, the partial-JSON preview, what its stop did, and
    whether the call may run, with the reason (`MessageAccumulator.tool_call_verdict`)."""
    say = _catalogue(lang)
    return [
        (say[key] if key else Markup(name), PANEL_MACROS.tool_value(tool, name, lang))
        for name, key in TOOL_ROWS
        if name != "at stop" or (tool["stopped"] and tool["parses"])
    ]


def tools_html(frame: Frame, lang: str = "en") -> str:
    """Each tool block's panel: a head (index, name), then `tool_rows`."""
    return str(PANEL_MACROS.tools(frame, tool_rows, lang))


def stop_html(frame: Frame, lang: str = "en") -> str:
    """`stop_reason` and usage: the message's last word."""
    return str(PANEL_MACROS.stop(frame, lang))


def render_strings(frame: Frame, lang: str = "en") -> dict[str, str]:
    """The HTML of every slot in `STRING_SLOTS` for one frame (dict slot -> str), in `lang`."""
    return {
        "error": error_html(frame, lang),
        "lines": lines_html(frame, lang),
        "sse": sse_html(frame, lang),
        "content": content_html(frame, lang),
        "tools": tools_html(frame, lang),
        "stop": stop_html(frame, lang),
    }


# -- layout ------------------------------------------------------------------------


def legend(lang: str = "en", panels: Sequence[str] | None = None) -> str:
    """The key to the marks the panels named in `panels` (all for None) draw, below them
    (HTML), in `lang`: the chunk's highlight only with the bytes panel, escapes and half
    characters only with a panel of bytes (bytes, lines), and so on; "" when none."""
    return str(LAYOUT_MACROS.legend(chosen_panels(panels), lang))

# (slot, stage number, title, subtitle, extra CSS classes of the panel, of its body); the title
# and subtitle in English (in another language: `i18n.STEPPER`'s "panel_<slot>", "sub_<slot>").
PANELS = (
    (
        "bytes",
        1,
        "bytes received",
        "what the network delivered, chunk by chunk",
        "ss-wide",
        "ss-tail",
    ),
    ("lines", 2, "LineDecoder", "bytes → lines", "", ""),
    ("sse", 3, "SSEDecoder", "lines → events: the event being built", "", ""),
    ("events", 4, "events dispatched", "one per blank line", "ss-wide", "ss-tail"),
    ("content", 5, "MessageAccumulator", 'events → message["content"]', "", ""),
    ("tools", 6, "tool input", "raw JSON buffer and partial-JSON preview", "", ""),
    ("stop", 7, "stop_reason · usage", "from message_delta", "", ""),
)


PANEL_NAMES = tuple(panel[0] for panel in PANELS)  # "bytes", "lines", … "stop", in stage order


def chosen_panels(panels: Sequence[str] | None) -> tuple[str, ...]:
    """The panels to show, in stage order: all for None, else those named in `panels`
    (names from `PANEL_NAMES`). Raises ValueError naming an unknown panel."""
    if panels is None:
        return PANEL_NAMES
    unknown = [name for name in panels if name not in PANEL_NAMES]
    if unknown:
        raise ValueError(f"unknown stepper panel {unknown[0]!r}: choose from {PANEL_NAMES}")
    return tuple(name for name in PANEL_NAMES if name in panels)


def layout(slots: dict[str, str], panels: Sequence[str] | None = None, lang: str = "en") -> str:
    """The panels around the slots' HTML (missing slots are left empty, for the page's script);
    only the panels named in `panels` (all for None), each keeping its stage number; titles,
    subtitles and legend in `lang`."""
    shown = chosen_panels(panels)
    say = _catalogue(lang)
    chosen = [
        (name, number, say[f"panel_{name}"], str(say[f"sub_{name}"]), panel_class, body_class)
        for name, number, _, _, panel_class, body_class in PANELS
        if name in shown
    ]
    filled = {name: Markup(html) for name, html in slots.items()}
    return str(LAYOUT_MACROS.layout(filled, chosen, lang))


def heading_html(name: str, size: int, lang: str = "en") -> str:
    """The widget's heading (HTML): the stepper's title, the stream's `name` and its `size`
    in bytes, in `lang`."""
    return str(LAYOUT_MACROS.heading(name, size, lang))


def render_panels(
    tokens: Sequence[str],
    frame: Frame,
    steps: int,
    total: int,
    panels: Sequence[str] | None = None,
    lang: str = "en",
    items: dict[int, str] | None = None,
) -> str:
    """The panels of one frame, filled (the widget's HTML): `tokens` from `byte_tokens(raw)`
    or `ByteTokens(raw)`, `steps` the number of frames, `total` the stream's size in bytes,
    `panels` the names of the panels to show (all for None; see `chosen_panels`), `lang` the
    language of the labels ("en" or "zh"). `items`: a dict the caller keeps for one stream
    and language, where event items are kept from one step to the next (event i's item is
    the same at every step and every chunk size); it holds a few windows of them at most."""
    slots = render_strings(frame, lang)
    count = len(frame.events)
    if items is None:
        items = {}
    elif len(items) > 4 * EVENTS_SHOWN:  # bounded: start again from the window shown
        items.clear()
    for i in range(max(0, count - EVENTS_SHOWN), count):
        if i not in items:
            items[i] = event_item_html(i + 1, frame.events[i], lang)
    slots["events"] = events_html(items, count, frame.new_events, lang)
    slots["status"] = status_html(frame, steps, total, lang)
    slots["bytes"] = bytes_html(tokens, frame, lang)
    slots["pending"] = pending_html(tokens, frame, lang)
    parts = _skeleton(None if panels is None else tuple(panels), lang)
    return "".join(slots.get(part[1:-1], "") if part[:1] == "\0" else part for part in parts)


@cache
def _skeleton(panels: tuple[str, ...] | None, lang: str) -> tuple[str, ...]:
    """The widget's HTML around its slots, drawn once per choice of panels and language:
    its pieces, each slot a "\0name\0" piece for `render_panels` to fill."""
    marks = {
        name: f"\0{name}\0" for name in (*STRING_SLOTS, "events", "status", "bytes", "pending")
    }
    html = str(LAYOUT_MACROS.root(Markup(layout(marks, panels, lang))))
    return tuple(part for part in re.split(r"(\0\w+\0)", html) if part)


# -- the static page ------------------------------------------------------------------


def plan_label(chunk_size: ChunkSize, lang: str = "en") -> str:
    """How a chunk plan is named in selectors: "7 bytes", "1 byte", "event by event"
    (in Chinese "7 字节", "逐个事件")."""
    say = words(STEPPER, lang)
    if chunk_size == EVENT_BY_EVENT:
        return say["event_by_event"]
    return say["one_byte"] if chunk_size == 1 else say["n_bytes"].format(size=chunk_size)


KINDS = ("start", "chunk", "end")  # a frame's kind, as a number in the page's rows


def page_steps(count: int) -> list[int]:
    """The steps a page embeds of `count`: all of them, or PAGE_FRAMES evenly spaced from the first
    to the last.

    >>> page_steps(4), len(page_steps(10**6)), page_steps(10**6)[-1]
    ([0, 1, 2, 3], 2500, 999999)
    """
    if count <= PAGE_FRAMES:
        return list(range(count))
    return [i * (count - 1) // (PAGE_FRAMES - 1) for i in range(PAGE_FRAMES)]


def thinned_note(shown: int, count: int, lang: str = "en") -> str:
    """What the page says above its slider when it holds only some steps ("" when it holds all)."""
    if shown == count:
        return ""
    return words(STEPPER, lang)["thinned"].format(shown=f"{shown:,}", count=f"{count:,}")


# The words the page's script writes itself (the status line, the notes, the play button).
SCRIPT_WORDS = (
    "earlier",
    "bytes",
    "events",
    "status_start",
    "status_end",
    "status_chunk",
    "status_step",
    "status_complete",
    "play",
    "pause",
)


def page_data(
    raw: bytes, plans: Mapping[ChunkSize, Sequence[Frame]], lang: str = "en"
) -> dict[str, Any]:
    """What the page embeds (JSON-ready): one HTML token per byte, the distinct panel
    strings, the panels' bounds, the words its script writes in `lang` (`SCRIPT_WORDS`,
    templates with {fields}), and per plan its event items, its last step, the note
    when it is thinned (`page_steps`), and one row of numbers per frame embedded:
    [kind, step, start, end, len(pending), len(partial_char), events so far, new events,
    complete without error, then one string index per STRING_SLOTS]."""
    strings: list[str] = []
    index_of: dict[str, int] = {}

    def intern(text: str) -> int:  # most panels stay the same for many steps: store each once
        if text not in index_of:
            index_of[text] = len(strings)
            strings.append(text)
        return index_of[text]

    plan_data = []
    for chunk_size, frames in plans.items():
        rows = []
        steps = page_steps(len(frames))
        for step in steps:  # in order: a lazy `Frames` then only feeds forward
            frame = frames[step]
            row = [KINDS.index(frame.kind), frame.step, frame.start, frame.end, len(frame.pending)]
            row += [
                len(frame.partial_char),
                len(frame.events),
                frame.new_events,
                int(frame.complete and not frame.error),
            ]
            html = render_strings(frame, lang)
            rows.append(row + [intern(html[name]) for name in STRING_SLOTS])
        events = frame.events  # every frame's events are a prefix of the last frame's
        items = [event_item_html(number, event, lang) for number, event in enumerate(events, 1)]
        plan_data.append(
            {
                "label": plan_label(chunk_size, lang),
                "events": items,
                "frames": rows,
                "last": len(frames) - 1,
                "note": thinned_note(len(steps), len(frames), lang),
            }
        )
    limits = {"bytes": BYTES_SHOWN, "pending": PENDING_SHOWN, "events": EVENTS_SHOWN}
    return {
        "slots": list(STRING_SLOTS),
        "limits": limits,
        "tokens": byte_tokens(raw),
        "strings": strings,
        "plans": plan_data,
        "words": {key: words(STEPPER, lang)[key] for key in SCRIPT_WORDS},
    }


# The page's script: it draws frame `k` of the chosen plan, nothing else. Its rows
# and strings are those of `page_data`; `status`, `bytes`, `pending` and `events`
# are built exactly as `status_html`, `bytes_html`, `pending_html` and
# `events_html` build them (the browser test compares the two).
SCRIPT = _asset("stepper.js")  # with %(id)s and %(jump)d filled in per page


def _script_json(value: Any) -> str:
    # JSON inside <script>: "</" and "<!--" must not appear, or the HTML parser would
    # end (or comment out) the script early; "\\/" and "\\u003c" are JSON escapes.
    # A lone surrogate (JSON allows "\\ud800", UTF-8 does not) is written as its escape.
    text = (
        json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        .encode("utf-8", "backslashreplace")
        .decode("utf-8")
    )
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


NOTEBOOK_NOTE = STEPPER["en"]["notebook_note"]  # (in English; each language's in i18n.STEPPER)
PAGE_NOTE = STEPPER["en"]["page_note"]


def static_fragment(
    raw: bytes,
    plans: Mapping[ChunkSize, Sequence[Frame]],
    *,
    title: str = "",
    interval: int = 400,
    note: str | None = None,
    panels: Sequence[str] | None = None,
    lang: str = "en",
) -> str:
    """The stepper as one HTML fragment (a div with its style, data and script): for
    `IPython.display.HTML`, or inside a page. The first plan is shown first. `note`
    is what shows instead where the script cannot run (None: NOTEBOOK_NOTE, in `lang`);
    `panels` and `lang` as for `render_panels`."""
    say = words(STEPPER, lang)
    note = say["notebook_note"] if note is None else note
    payload = _script_json(page_data(raw, plans, lang))
    element_id = (
        "ss-" + hashlib.sha1(payload.encode()).hexdigest()[:12]
    )  # deterministic: same input, same page
    steps = (
        len(page_steps(len(next(iter(plans.values()))))) - 1
    )  # the slider moves through the rows embedded
    paces = (
        SPEEDS
        if (interval, 1) in [(ms, by) for _, ms, by in SPEEDS]
        else (
            (f"{interval} ms", interval, 1),
            *SPEEDS,
        )
    )
    speeds = [(label, ms, by, (ms, by) == (interval, 1)) for label, ms, by in paces]
    return str(
        PAGE_MACROS.fragment(
            element_id,
            title,
            note,
            steps,
            [plan_label(size, lang) for size in plans],
            speeds,
            Markup(layout({}, panels, lang)),
            Markup(payload),  # JSON made safe for a <script> by _script_json
            Markup(SCRIPT % {"id": element_id, "jump": JUMP}),
            lang,
        )
    )


def static_page(
    raw: bytes,
    plans: Mapping[ChunkSize, Sequence[Frame]],
    *,
    title: str | None = None,
    panels: Sequence[str] | None = None,
    lang: str = "en",
) -> str:
    """A whole self-contained HTML document with the frames of every plan in `plans` (all, or
    `page_steps`), showing the panels named in `panels` (all for None), its words in `lang`
    ("en" or "zh"); `title` None for "Stream stepper" in `lang`."""
    say = words(STEPPER, lang)
    title = say["title"] if title is None else title
    body = static_fragment(raw, plans, title=title, note=say["page_note"], panels=panels, lang=lang)
    return str(PAGE_MACROS.page(title, Markup(body), lang))
