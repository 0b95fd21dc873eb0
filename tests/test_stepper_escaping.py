"""What a stream holds is shown as text in every panel of the stepper, never run as markup.

A stream that carries `<script>`, quotes and ampersands in every place a panel shows
(a comment line, the last event ID, an event's name and data, a block's text, a tool's
name and input, `stop_reason`, a usage key, an error's type and message) is drawn by
the widget and by the static page: no element or attribute comes from it, and each
panel shows it, character for character, as text.
"""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser

import pytest

from streaming_lib.tools.stepper import compute_frames
from streaming_lib.tools.stepper.frames import ChunkSize
from streaming_lib.tools.stepper.html import (
    STRING_SLOTS,
    ByteTokens,
    bytes_html,
    event_item_html,
    pending_html,
    render_panels,
    render_strings,
    static_page,
)
from tests.test_accumulator import START as ACCUMULATOR_START
from tests.test_accumulator import block_start, delta, message_delta, stop

HOSTILE = '<script>alert("&amp;")</script>'


def event(name: str, data: dict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def events(*datas: dict) -> bytes:  # each event named after its data's type
    return b"".join(event(data["type"], data) for data in datas)


START = copy.deepcopy(ACCUMULATOR_START)
START["message"]["usage"][HOSTILE] = 2
TOOL = {"type": "tool_use", "id": "toolu_1", "name": HOSTILE, "input": {}}
COMPLETE = b"".join(
    [
        f": {HOSTILE}\nid: {HOSTILE}\n".encode(),
        events(START),
        event(HOSTILE, {"type": HOSTILE}),  # an unknown event type: shown, then skipped
        events(
            block_start(0, {"type": "text", "text": ""}),
            delta(0, type="text_delta", text=HOSTILE),
            stop(0),
            block_start(1, TOOL),
            delta(1, type="input_json_delta", partial_json=json.dumps({"q": HOSTILE})),
            stop(1),
            message_delta(HOSTILE, output_tokens=2),
            {"type": "message_stop"},
        ),
    ]
)
FAILED = events(START, {"type": "error", "error": {"type": HOSTILE, "message": HOSTILE}})
# The panels that show the hostile text at some step of each stream.
SHOWN_IN = {
    "complete": {"bytes", "lines", "sse", "events", "content", "tools", "stop"},
    "failed": {"bytes", "events", "error", "stop"},
}
STREAMS = {"complete": COMPLETE, "failed": FAILED}
OUR_ATTRIBUTES = {"class", "data-slot", "data-empty", "title", "start", "style"}


class Reader(HTMLParser):
    """The elements, attributes and text of a piece of HTML, as a browser would read them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: set[str] = set()
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes |= {name for name, _ in attrs}

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def slots_of(raw: bytes, size: ChunkSize) -> dict[str, list[str]]:
    """Each panel's HTML at every step of `raw` in chunks of `size`."""
    frames = compute_frames(raw, size)
    tokens = ByteTokens(raw)
    drawn: dict[str, list[str]] = {}
    for frame in frames:
        html = {
            **render_strings(frame),
            "bytes": bytes_html(tokens, frame),
            "pending": pending_html(tokens, frame),
            "events": "".join(
                event_item_html(number, item) for number, item in enumerate(frame.events, 1)
            ),
        }
        for slot, fragment in html.items():
            drawn.setdefault(slot, []).append(fragment)
    return drawn


def shows_as_text(fragment: str, text: str) -> bool:
    """Whether a reader sees `text` in `fragment` (line-break opportunities aside)."""
    seen = "".join(Reader(re.sub(r"<wbr>", "", fragment)).text)
    return text in seen or json.dumps(text) in seen


@pytest.mark.parametrize("size", [1, 7, "event"])
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_stream_content_is_text_in_every_panel_at_every_step(name, size):
    for slot, fragments in slots_of(STREAMS[name], size).items():
        for step, fragment in enumerate(fragments):
            reader = Reader(fragment)
            assert "script" not in reader.tags, (slot, step)
            assert reader.attributes <= OUR_ATTRIBUTES, (slot, step, reader.attributes)
        if slot in SHOWN_IN[name]:
            assert any(shows_as_text(fragment, HOSTILE) for fragment in fragments), slot


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_widget_panels_hold_no_element_from_the_stream(name):
    raw = STREAMS[name]
    frames = compute_frames(raw, 7)
    for frame in frames:
        reader = Reader(render_panels(ByteTokens(raw), frame, len(frames), len(raw)))
        assert reader.tags.count("style") == 1 and "script" not in reader.tags
        assert reader.attributes <= OUR_ATTRIBUTES


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_static_page_runs_only_its_own_script_and_embeds_the_stream_as_text(name):
    raw = STREAMS[name]
    page = static_page(raw, {7: compute_frames(raw, 7)}, title=HOSTILE)
    reader = Reader(page)
    assert reader.tags.count("script") == 2  # its data and its script
    assert page.count("</script>") == 2
    assert HOSTILE in "".join(reader.text)  # the title, as text
    data = json.loads(re.search(r'class="ss-data">(.*?)</script>', page, re.S).group(1))
    strings = (
        data["strings"] + data["tokens"] + [i for plan in data["plans"] for i in plan["events"]]
    )
    for fragment in strings:
        assert "script" not in Reader(fragment).tags
    rows = data["plans"][0]["frames"]
    for slot in set(STRING_SLOTS) & SHOWN_IN[name]:
        column = 9 + STRING_SLOTS.index(slot)
        assert any(shows_as_text(data["strings"][row[column]], HOSTILE) for row in rows), slot
