"""Drawing frames as HTML: the stepper's panels, and a static page holding every frame.

The widget (`widget.py`) redraws the panels with `render_panels` at every step.
`static_page` draws the same panels for every frame once and embeds them as JSON
beside a plain JavaScript range slider: one self-contained file (no external
script, no CDN) that still works where no kernel runs (nbviewer, a course site).

Everything that came from the stream is escaped with `html.escape`. A byte is
shown as itself if it is printable ASCII and as an escape otherwise (`\\n`,
`\\r`, `\\xe5`), so the bytes panel shows exactly what crossed the network:

    >>> "".join(byte_tokens(b"a<\\n"))
    'a&lt;<span class="ss-esc">\\\\n</span>\\n'

Size: the bytes panel, which grows with the stream, is rebuilt in the page from
one HTML token per byte; every other panel is stored once per distinct content
(most steps change one panel or none), so the page grows about linearly with the
number of steps. The course fixture (2,350 bytes) makes a page of about 70 kB
at 7-byte chunks, 170 kB at 1-byte chunks, 270 kB with all five chunk sizes.

Deliberately not handled here: computing frames (`frames.py`), widgets (`widget.py`).
"""

from __future__ import annotations

import hashlib
import json
from html import escape
from pathlib import Path
from typing import Any

from .frames import EVENT_BY_EVENT, ChunkSize, Frame


def _asset(name: str) -> str:  # a file shipped beside this module -> its text
    return (Path(__file__).parent / name).read_text(encoding="utf-8")


# The page stores these panels as HTML strings, each distinct one once, in this
# order per frame. The other four (status, bytes, pending, events) change at
# almost every step: its script builds them from a few numbers per frame.
STRING_SLOTS = ("error", "lines", "sse", "content", "tools", "stop")

_ESCAPES = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


# -- bytes ---------------------------------------------------------------------


def _utf8_length(byte: int) -> int:  # lead byte -> length of its character (0: not a lead byte)
    return 1 if byte < 0x80 else 2 if 0xC2 <= byte < 0xE0 else 3 if 0xE0 <= byte < 0xF0 else 4 if 0xF0 <= byte < 0xF5 else 0


def byte_tokens(raw: bytes) -> list[str]:
    """One HTML string per byte of `raw` (list of str, `len(raw)` items).

    Printable ASCII is itself (escaped for HTML); any other byte is its Python
    escape in a `ss-esc` span. A line ending is followed by a real line break,
    so the panel keeps the stream's lines. The bytes of a valid UTF-8 character
    carry the character as a tooltip.
    """
    titles = _character_titles(raw)
    tokens = []
    for offset, byte in enumerate(raw):
        if 0x20 <= byte < 0x7F:
            tokens.append(escape(chr(byte)))
            continue
        text = _ESCAPES.get(byte, f"\\x{byte:02x}")
        title = titles.get(offset)
        attributes = f'class="ss-esc ss-u8" title="{title}"' if title else 'class="ss-esc"'
        ends_line = byte == 0x0A or (byte == 0x0D and raw[offset + 1 : offset + 2] != b"\n")
        tokens.append(f"<span {attributes}>{text}</span>" + ("\n" if ends_line else ""))
    return tokens


def _character_titles(raw: bytes) -> dict[int, str]:  # offset -> "U+627E 找" for each byte of a valid character
    titles, offset = {}, 0
    while offset < len(raw):
        length = _utf8_length(raw[offset])
        if length > 1:
            try:
                char = raw[offset : offset + length].decode("utf-8")
            except UnicodeDecodeError:
                length = 1  # not a whole character: its bytes stay plain escapes
            else:
                for at in range(offset, offset + length):
                    titles[at] = escape(f"U+{ord(char):04X} {char}")
        offset += max(length, 1)
    return titles


def bytes_html(tokens: list[str], frame: Frame) -> str:
    """The bytes received so far, this step's chunk in a `<mark>` (same as the page's JavaScript)."""
    return "".join(tokens[: frame.start]) + '<mark class="ss-chunk">' + "".join(tokens[frame.start : frame.end]) + "</mark>"


def pending_html(tokens: list[str], frame: Frame) -> str:
    """The line decoder's pending bytes (always the last bytes received), a cut character marked."""
    cut = frame.end - len(frame.partial_char)
    html = "".join(tokens[frame.end - len(frame.pending) : cut])
    if frame.partial_char:
        html += '<span class="ss-split">' + "".join(tokens[cut : frame.end]) + "</span>"
    return html


# -- the other panels ------------------------------------------------------------


def _json(value: Any) -> str:
    return escape(json.dumps(value, ensure_ascii=False))


def _none(text: str = "none") -> str:
    return f'<span class="ss-dim">({text})</span>'


def _row(label: str, value: str) -> str:
    return f'<div class="ss-row"><span class="ss-key">{label}</span><span class="ss-val">{value}</span></div>'


def status_html(frame: Frame, steps: int, total: int) -> str:
    """The line above the panels: which step, which bytes (twin of the page's `status()`)."""
    if frame.kind == "start":
        what = f"nothing received yet · the stream is {total} bytes"
    elif frame.kind == "end":
        what = "end of stream: the connection closed, the line decoder is flushed"
    else:
        size = frame.end - frame.start
        what = f"chunk {frame.step}: bytes {frame.start}–{frame.end} ({size} B) · {frame.end} of {total} bytes received"
    html = f'<span class="ss-step">step {frame.step} / {steps - 1}</span> {what}'
    if frame.complete and not frame.error:
        html += ' <span class="ss-ok">✔ message_stop: the message is complete</span>'
    return html


def error_html(frame: Frame) -> str:
    if not frame.error:
        return ""
    kind, text = escape(frame.error["type"]), escape(frame.error["message"])
    return (
        f'<div class="ss-error">✘ <b>{kind}</b>: {text}'
        '<div class="ss-note">A client stops at its first error: this is the last step.</div></div>'
    )


def lines_html(frame: Frame) -> str:
    """Stage 1 beyond the pending bytes themselves: a cut character, a CR at the end, the lines completed."""
    parts = []
    if frame.partial_char:
        first, have = frame.partial_char[0], len(frame.partial_char)
        parts.append(
            '<div class="ss-callout">the chunk ended inside a UTF-8 character: '
            f"{have} of its {_utf8_length(first)} bytes have arrived; they wait in <code>pending</code></div>"
        )
    if frame.after_cr:
        parts.append('<div class="ss-callout">the chunk ended with CR: an LF first in the next chunk is its CRLF</div>')
    if frame.lines:
        items = "".join(f'<li class="ss-new">{_line_html(line)}</li>' for line in frame.lines)
        parts.append(f'<div class="ss-sub">lines out (decoded str)</div><ol class="ss-list">{items}</ol>')
    else:
        parts.append(f'<div class="ss-sub">lines out</div>{_none("no line ended at this step")}')
    return "".join(parts)


def _line_html(line: str) -> str:  # one decoded line, with what the SSE decoder will make of it if special
    if line == "":
        return '<span class="ss-dim">(blank line) ← dispatch the event</span>'
    note = ' <span class="ss-dim">← comment: ignored</span>' if line.startswith(":") else ""
    return f'<span class="ss-line">{escape(line)}</span>{note}'


def sse_html(frame: Frame) -> str:
    """Stage 2: the fields of the event being built."""
    event_type = _json(frame.event_type) + (' <span class="ss-dim">(dispatches as "message")</span>' if not frame.event_type else "")
    if frame.data_lines:
        data = "".join(f'<li><span class="ss-line">{escape(line)}</span></li>' for line in frame.data_lines)
        data = f'<ol class="ss-list" start="0">{data}</ol>'
    else:
        data = _none("empty: a blank line now would dispatch nothing")
    last_id = _none() if frame.last_event_id is None else _json(frame.last_event_id)
    retry = _none() if frame.retry is None else f"{frame.retry} ms"
    note = ""
    if frame.kind == "end" and frame.data_lines:
        note = '<div class="ss-callout">no blank line came: this event is never dispatched</div>'
    return _row("event type", event_type) + _row("data lines", data) + _row("last event ID", last_id) + _row("retry", retry) + note


def event_item_html(number: int, event: dict[str, Any]) -> str:
    """One dispatched event (`number` counts from 1): its type, its id, its data."""
    event_id = f' <span class="ss-dim">id {_json(event["id"])}</span>' if event["id"] is not None else ""
    skipped = ' <span class="ss-dim">(skipped: no Messages API event)</span>' if event["skipped"] else ""
    classes = "ss-event ss-skipped" if event["skipped"] else "ss-event"
    return (
        f'<div class="{classes}"><span class="ss-num">{number}</span> '
        f'<span class="ss-name">{escape(event["event"])}</span>{event_id}{skipped}'
        f'<div class="ss-data">{escape(event["data"])}</div></div>'
    )


def events_html(items: list[str], count: int, new: int) -> str:
    """The first `count` event items, the `new` last ones (this step's) highlighted (twin of the page's)."""
    html = "".join(items[: count - new])
    if new:
        html += '<div class="ss-new">' + "".join(items[count - new : count]) + "</div>"
    return html


def _block_html(index: int, block: Any, stopped: bool) -> str:
    if not isinstance(block, dict):  # a message_start whose content held something else
        return f'<div class="ss-block"><span class="ss-num">[{index}]</span> <code>{_json(block)}</code></div>'
    kind = str(block.get("type", "?"))
    state = '<span class="ss-ok">■ stopped</span>' if stopped else '<span class="ss-open">▶ open</span>'
    name = f' <span class="ss-name">{escape(str(block["name"]))}</span>' if "name" in block else ""
    if kind in ("text", "thinking"):
        body = f'<div class="ss-text">{escape(str(block.get(kind) or ""))}</div>'
    elif "input" in block:
        body = _row("input", f"<code>{_json(block['input'])}</code>")
    else:
        body = f"<code>{_json({key: value for key, value in block.items() if key != 'type'})}</code>"
    head = f'<div class="ss-block-head"><span class="ss-num">[{index}]</span> <b>{escape(kind)}</b>{name} {state}</div>'
    return f'<div class="ss-block">{head}{body}</div>'


def content_html(frame: Frame) -> str:
    """Stage 3: `message["content"]` as the accumulator holds it."""
    if frame.content is None:
        return _none("no message_start yet")
    if not frame.content:
        return _none("message started, no content block yet")
    return "".join(_block_html(index, block, index in frame.stopped) for index, block in enumerate(frame.content))


def tools_html(frame: Frame) -> str:
    """Each tool block's JSON buffer, whether `json.loads` accepts it, and the partial-JSON preview."""
    if not frame.tools:
        return _none("no tool block yet")
    parts = []
    for tool in frame.tools:
        if tool["parses"]:
            verdict = '<span class="ss-ok">✔ parses</span>'
        else:
            verdict = '<span class="ss-bad">✘ not JSON' + ("" if tool["stopped"] else " yet") + "</span>"
        raw = escape(tool["raw"]) if tool["raw"] else _none("empty")
        if tool["preview"] == "value":
            preview = f"<code>{_json(tool['partial'])}</code>"
        elif tool["preview"] == "empty":
            preview = _none("no value started yet")
        else:
            preview = f'<span class="ss-bad">{escape(tool["preview"])}</span>'
        stop = ""
        if tool["stopped"] and tool["parses"]:
            stop = _row("at stop", "json.loads(buffer) became the block's input")
        parts.append(
            f'<div class="ss-block"><div class="ss-block-head"><span class="ss-num">[{tool["index"]}]</span> '
            f'<span class="ss-name">{escape(str(tool["name"]))}</span></div>'
            + _row("JSON buffer", f'<code class="ss-raw">{raw}</code>')
            + _row("json.loads", verdict)
            + _row("partial JSON", preview)
            + stop
            + "</div>"
        )
    return "".join(parts)


def stop_html(frame: Frame) -> str:
    """`stop_reason` and usage: the message's last word."""
    if frame.content is None:
        return _none("no message_start yet")
    stop = frame.stop_reason  # a string from the API; anything else is shown as JSON
    reason = _none("null: not decided yet") if stop is None else f"<b>{escape(stop) if isinstance(stop, str) else _json(stop)}</b>"
    usage = frame.usage if isinstance(frame.usage, dict) or frame.usage is None else {"(not an object)": frame.usage}
    usage = "".join(f'<div><span class="ss-dim">{escape(key)}:</span> {_json(value)}</div>' for key, value in (usage or {}).items())
    done = '<span class="ss-ok">✔ arrived</span>' if frame.complete else _none("not yet")
    return _row("stop_reason", reason) + _row("message_stop", done) + f'<div class="ss-sub">usage</div>{usage or _none()}'


def render_strings(frame: Frame) -> dict[str, str]:
    """The HTML of every slot in `STRING_SLOTS` for one frame (dict slot -> str)."""
    return {
        "error": error_html(frame),
        "lines": lines_html(frame),
        "sse": sse_html(frame),
        "content": content_html(frame),
        "tools": tools_html(frame),
        "stop": stop_html(frame),
    }


# -- layout ------------------------------------------------------------------------

# The panels' look, in a stylesheet beside this module.
STYLE = _asset("stepper.css")

LEGEND = (
    '<div class="ss-legend">'
    '<span><mark class="ss-chunk">&nbsp;abc&nbsp;</mark> the chunk this step delivered</span>'
    '<span><span class="ss-esc">\\n</span> <span class="ss-esc">\\xe5</span> a byte that is not printable ASCII, '
    "as its escape (hover a UTF-8 byte to see its character)</span>"
    '<span><span class="ss-split"><span class="ss-esc">\\xe5</span></span> half a character, waiting for its other bytes</span>'
    '<span><span class="ss-new">&nbsp;new&nbsp;</span> made at this step</span>'
    '<span><span class="ss-ok">✔</span>/<span class="ss-bad">✘</span> json.loads accepts the buffer / not yet</span>'
    "</div>"
)

# (slot, stage number, title, subtitle, extra CSS classes of the panel, of its body)
PANELS = (
    ("bytes", 1, "bytes received", "what the network delivered, chunk by chunk", "ss-wide", "ss-tail"),
    ("lines", 2, "LineDecoder", "bytes → lines", "", ""),
    ("sse", 3, "SSEDecoder", "lines → events: the event being built", "", ""),
    ("events", 4, "events dispatched", "one per blank line", "ss-wide", "ss-tail"),
    ("content", 5, "MessageAccumulator", 'events → message["content"]', "", ""),
    ("tools", 6, "tool input", "raw JSON buffer and partial-JSON preview", "", ""),
    ("stop", 7, "stop_reason · usage", "from message_delta", "", ""),
)


def layout(slots: dict[str, str]) -> str:
    """The panels around the slots' HTML (missing slots are left empty, for the page's script)."""

    def slot(name: str, classes: str = "") -> str:
        return f'<div class="{classes}" data-slot="{name}">{slots.get(name, "")}</div>'

    panels = []
    for name, number, title, subtitle, panel_class, body_class in PANELS:
        body = slot(name)
        if name == "lines":  # the pending bytes first, then what the decoder says about them
            body = '<div class="ss-sub">pending bytes</div>' + slot("pending", "ss-pending") + body
        panels.append(
            f'<div class="ss-panel {panel_class}"><h4><span class="ss-badge">{number}</span>{title}'
            f'<small>{escape(subtitle)}</small></h4><div class="ss-body {body_class}">{body}</div></div>'
        )
    return (
        f"<style>{STYLE}</style>"
        + slot("status", "ss-status")
        + slot("error")
        + f'<div class="ss-grid">{"".join(panels)}</div>'
        + LEGEND
    )


def render_panels(tokens: list[str], frame: Frame, steps: int, total: int) -> str:
    """All panels of one frame, filled (the widget's HTML): `tokens` from `byte_tokens(raw)`,
    `steps` the number of frames, `total` the stream's size in bytes."""
    slots = render_strings(frame)
    items = [event_item_html(number, event) for number, event in enumerate(frame.events, 1)]
    slots["events"] = events_html(items, len(frame.events), frame.new_events)
    slots["status"] = status_html(frame, steps, total)
    slots["bytes"] = bytes_html(tokens, frame)
    slots["pending"] = pending_html(tokens, frame)
    return f'<div class="ss-root">{layout(slots)}</div>'


# -- the static page ------------------------------------------------------------------


def plan_label(chunk_size: ChunkSize) -> str:
    """How a chunk plan is named in selectors: "7 bytes", "1 byte", "event by event"."""
    if chunk_size == EVENT_BY_EVENT:
        return "event by event"
    return f"{chunk_size} byte" + ("" if chunk_size == 1 else "s")


KINDS = ("start", "chunk", "end")  # a frame's kind, as a number in the page's rows


def page_data(raw: bytes, plans: dict[ChunkSize, list[Frame]]) -> dict[str, Any]:
    """What the page embeds (JSON-ready): one HTML token per byte, the distinct panel
    strings, and per plan its event items and one row of numbers per frame:
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
        for frame in frames:
            row = [KINDS.index(frame.kind), frame.step, frame.start, frame.end, len(frame.pending)]
            row += [len(frame.partial_char), len(frame.events), frame.new_events, int(frame.complete and not frame.error)]
            html = render_strings(frame)
            rows.append(row + [intern(html[name]) for name in STRING_SLOTS])
        events = frames[-1].events  # every frame's events are a prefix of the last frame's
        items = [event_item_html(number, event) for number, event in enumerate(events, 1)]
        plan_data.append({"label": plan_label(chunk_size), "events": items, "frames": rows})
    return {"slots": list(STRING_SLOTS), "tokens": byte_tokens(raw), "strings": strings, "plans": plan_data}


# The page's script: it draws frame `k` of the chosen plan, nothing else. Its rows
# and strings are those of `page_data`; `status`, `bytes`, `pending` and `events`
# are built exactly as `status_html`, `bytes_html`, `pending_html` and
# `events_html` build them (the browser test compares the two).
SCRIPT = _asset("stepper.js")  # with %(id)s and %(interval)d filled in per page


def _script_json(value: Any) -> str:
    # JSON inside <script>: "</" and "<!--" must not appear, or the HTML parser would
    # end (or comment out) the script early; "\\/" and "\\u003c" are JSON escapes.
    # A lone surrogate (JSON allows "\\ud800", UTF-8 does not) is written as its escape.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace").decode("utf-8")
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


NOTEBOOK_NOTE = ("Run this cell (Shift+Enter) to use the stepper: a notebook opened from disk "
                 "does not run the scripts of its saved outputs.")
PAGE_NOTE = "This page needs JavaScript to step through the stream."


def static_fragment(raw: bytes, plans: dict[ChunkSize, list[Frame]], *, title: str = "", interval: int = 400,
                    note: str = NOTEBOOK_NOTE) -> str:
    """The stepper as one HTML fragment (a div with its style, data and script): for
    `IPython.display.HTML`, or inside a page. The first plan is shown first. `note`
    is what shows instead where the script cannot run."""
    payload = _script_json(page_data(raw, plans))
    element_id = "ss-" + hashlib.sha1(payload.encode()).hexdigest()[:12]  # deterministic: same input, same page
    steps = len(next(iter(plans.values()))) - 1
    select = ""
    if len(plans) > 1:
        options = "".join(f'<option value="{i}">{escape(plan_label(size))}</option>' for i, size in enumerate(plans))
        select = f'<label>chunks <select class="ss-plan" autocomplete="off">{options}</select></label>'
    heading = f'<div class="ss-title">{escape(title)}</div>' if title else ""
    # autocomplete="off": going Back, the browser must not restore a control's old
    # value behind the script's back (the page would show one step, the slider another).
    controls = (
        '<div class="ss-controls">'
        '<button class="ss-play" type="button">▶ play</button>'
        '<button class="ss-prev" type="button" title="previous step">◀</button>'
        f'<input class="ss-slider" type="range" min="0" max="{steps}" value="0" step="1" aria-label="step" autocomplete="off">'
        '<button class="ss-next" type="button" title="next step">▶</button>'
        f"{select}</div>"
    )
    # Where scripts do not run (a notebook opened from disk before its cells run,
    # GitHub's preview), the note shows and the inert controls stay hidden; the
    # script removes the note and shows the stepper.
    return (
        f'<div class="ss-root ss-static" id="{element_id}">{heading}<p class="ss-noscript">{escape(note)}</p>'
        f'<div class="ss-live" style="display: none">{controls}{layout({})}</div>'
        f'<script type="application/json" class="ss-data">{payload}</script>'
        f"<script>{SCRIPT % {'id': element_id, 'interval': interval}}</script></div>"
    )


def static_page(raw: bytes, plans: dict[ChunkSize, list[Frame]], *, title: str = "Stream stepper") -> str:
    """A whole self-contained HTML document with every frame of every plan in `plans`."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<style>body { margin: 16px; background: #ffffff; }</style>"
        f"</head><body>{static_fragment(raw, plans, title=title, note=PAGE_NOTE)}</body></html>\n"
    )
