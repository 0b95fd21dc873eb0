"""The stepper: frames at every step, split characters and CRLFs, errors at their step.

Also the widget and the static page.
"""

import copy
import html
import json
import random
import re
import tracemalloc

import pytest

from benchmarks.streams import text_stream
from streaming_lib import (
    LineDecoder,
    MessageAccumulator,
    PartialJSONError,
    SSEDecoder,
    StreamError,
    accumulate,
    tool_call_verdict,
)
from streaming_lib.events import decode_event, load_json
from streaming_lib.partial_json import parse_partial_json
from streaming_lib.tools import i18n
from streaming_lib.tools.fixtures import FIXTURES_DIR, chunked, fixture_names, read_fixture
from streaming_lib.tools.stepper import (
    EVENT_BY_EVENT,
    StreamStepper,
    chunk_plan,
    compute_frames,
    frame_at,
    static_html,
)
from streaming_lib.tools.stepper import frames as stepper_frames
from streaming_lib.tools.stepper import html as stepper_html
from streaming_lib.tools.stepper.html import ByteTokens, byte_tokens, page_data, render_panels

RAW = read_fixture()
ERROR_EVENT = (
    b"event: error\n"
    b'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
)


def events_end(raw: bytes, count: int) -> int:
    """The offset just past the blank line that ends event number `count` (1-based)."""
    return [match.end() for match in re.finditer(rb"\n\n", raw)][count - 1]


def from_scratch(chunks: list[bytes]) -> tuple[LineDecoder, SSEDecoder, MessageAccumulator]:
    """The three stages run afresh on `chunks`: what any frame must show after them."""
    lines, sse, acc = LineDecoder(), SSEDecoder(), MessageAccumulator()
    for chunk in chunks:
        for line in lines.feed(chunk):
            event = sse.feed_line(line)
            if (
                event is not None
                and (decoded := decode_event(event, acc.event_number + 1)) is not None
            ):
                acc.feed(decoded)
    return lines, sse, acc


def step_of_offset(stepper: StreamStepper, offset: int) -> int:
    """The step whose chunk delivers byte `offset`."""
    return next(
        frame.step
        for frame in stepper.frames
        if frame.kind == "chunk" and frame.start <= offset < frame.end
    )


# -- frames ---------------------------------------------------------------------------


def test_every_step_shows_what_the_stages_hold_after_the_same_chunks_fed_afresh():
    chunks = chunked(RAW, 7)
    stepper = StreamStepper(chunk_size=7)
    for step in range(1, len(chunks) + 1):
        stepper.slider.value = step
        lines, sse, acc = from_scratch(chunks[:step])
        frame = stepper.frame
        assert frame.pending == lines.pending == RAW[: 7 * step].rsplit(b"\n", 1)[-1]
        assert (frame.event_type, list(frame.data_lines), frame.last_event_id) == (
            sse.event_type,
            sse.data_lines,
            sse.last_event_id,
        )
        assert frame.content == (acc.message["content"] if acc.message else None)


def test_the_frames_are_a_start_one_per_chunk_and_the_end_of_stream():
    frames = compute_frames(RAW, 7)
    assert [frame.kind for frame in frames] == ["start"] + ["chunk"] * len(chunked(RAW, 7)) + [
        "end"
    ]
    assert [frame.step for frame in frames] == list(range(len(frames)))
    assert frames[0].end == 0 and frames[-1].end == len(RAW)


def test_the_pending_bytes_are_always_the_last_bytes_received():
    for chunk_size in (1, 3, 7, 64, EVENT_BY_EVENT):
        for frame in compute_frames(RAW, chunk_size):
            assert RAW[: frame.end].endswith(frame.pending)


def test_a_chunk_boundary_inside_a_cjk_character_leaves_its_first_bytes_pending():
    # Find, independently, the first 7-byte boundary that falls inside a multi-byte character.
    text = RAW.decode()
    wide = [(len(text[:i].encode()), char) for i, char in enumerate(text) if len(char.encode()) > 1]
    start, char, cut = next(
        (s, ch, c) for s, ch in wide for c in range(7, len(RAW), 7) if s < c < s + len(ch.encode())
    )
    stepper = StreamStepper(chunk_size=7)
    stepper.slider.value = cut // 7
    frame = stepper.frame
    assert frame.end == cut
    assert frame.pending.endswith(RAW[start:cut])
    assert frame.partial_char == RAW[start:cut]
    assert frame.pending.decode(errors="replace").endswith(
        "\ufffd"
    )  # half a character does not decode
    split = "".join(f"\\x{byte:02x}" for byte in RAW[start:cut])
    assert re.sub("<[^>]+>", "", stepper.panels.value.split('class="ss-split">', 1)[1]).startswith(
        split
    )
    stepper.slider.value += 1  # the next chunk brings the rest of the character
    assert char.encode() in stepper.frame.pending


def test_a_crlf_split_between_two_chunks_ends_one_line_not_two():
    raw = RAW.replace(b"\n", b"\r\n")
    frames = compute_frames(raw, 7)
    split = next(f for f in frames if f.kind == "chunk" and raw[f.end - 1 : f.end + 1] == b"\r\n")
    after = frames[split.step + 1]
    assert split.after_cr and split.pending == b""
    assert split.lines and split.lines[-1] == raw[: split.end - 1].rsplit(b"\n", 1)[-1].decode()
    assert not after.after_cr or raw[after.end - 1 : after.end] == b"\r"
    assert (
        "" not in after.lines or raw[after.start : after.start + 3] == b"\n\r\n"
    )  # the LF only completes the CRLF
    assert frames[-1].content == compute_frames(RAW, 7)[-1].content


def test_event_by_event_mode_dispatches_exactly_one_event_per_step():
    frames = compute_frames(RAW, EVENT_BY_EVENT)
    chunks = [frame for frame in frames if frame.kind == "chunk"]
    assert [frame.new_events for frame in chunks] == [1] * len(chunks)
    assert len(chunks) == RAW.count(b"\n\n") == len(frames[-1].events)
    assert all(RAW[: frame.end].endswith(b"\n\n") for frame in chunks)


def test_event_by_event_mode_keeps_an_unfinished_last_event_as_a_last_chunk():
    assert chunk_plan(b"data: a\n\ndata: b", EVENT_BY_EVENT) == [(0, 9), (9, 16)]
    assert chunk_plan(b"data: a\r\n\r\n", EVENT_BY_EVENT) == [(0, 11)]


def test_a_tool_block_shows_its_buffer_whether_it_parses_and_its_partial_value():
    frames = compute_frames(RAW, EVENT_BY_EVENT)
    previews = [
        (f.tools[0]["raw"], f.tools[0]["parses"], f.tools[0]["partial"]) for f in frames if f.tools
    ]
    assert ('{"path": "ca', False, {"path": "ca"}) in previews
    assert previews[-1][1] is True and previews[-1][2] == {
        "path": "calc.py",
        "content": "def add(a, b):\n    return a + b\n",
    }
    first = next(f for f in frames if f.tools)
    assert first.tools[0]["preview"] == "empty" and first.tools[0]["raw"] == ""


def test_stop_reason_and_usage_arrive_with_message_delta():
    frames = compute_frames(RAW, EVENT_BY_EVENT)
    delta = next(
        f
        for f in frames
        if f.events and json.loads(f.events[-1]["data"])["type"] == "message_delta"
    )
    before = frames[delta.step - 1]
    assert (before.stop_reason, before.usage["output_tokens"]) == (None, 1)
    assert (delta.stop_reason, delta.usage["output_tokens"]) == ("tool_use", 58)
    assert not delta.complete and frames[delta.step + 1].complete


def reference_states(raw, chunk_size):
    """What the stages hold after each step, fed from step 0 in a plain loop (no checkpoint,
    no sharing): the rule every frame must follow, however it was made."""
    lines, sse, acc = LineDecoder(), SSEDecoder(), MessageAccumulator()
    dispatched, states = 0, []

    def state(completed, error):
        message = acc.message
        buffers = acc.json_buffers
        tools = []
        for index in sorted(acc.input_parsers):
            try:
                partial = parse_partial_json(buffers[index], trailing_strings=True)
            except PartialJSONError:
                partial = None
            try:
                load_json(buffers[index])
                parses = True
            except ValueError:
                parses = False
            tools.append((index, buffers[index], parses, partial, index in acc.stopped))
        return {
            "pending": lines.pending,
            "after_cr": lines.after_cr,
            "lines": tuple(completed),
            "event_type": sse.event_type,
            "data_lines": tuple(sse.data_lines),
            "last_event_id": sse.last_event_id,
            "retry": sse.retry,
            "events": dispatched,
            "content": copy.deepcopy(message["content"]) if message else None,
            "stopped": tuple(sorted(acc.stopped)),
            "tools": tools,
            "complete": acc.complete,
            "error": error,
        }

    states.append(state((), None))
    for chunk in [raw[start:end] for start, end in chunk_plan(raw, chunk_size)] + [None]:
        completed, error = [], None
        try:
            completed = lines.feed(chunk) if chunk is not None else lines.flush()
            for line in completed:
                event = sse.feed_line(line)
                if event is not None:
                    dispatched += 1
                    decoded = decode_event(event, acc.event_number + 1)
                    if decoded is not None:
                        acc.feed(decoded)
            if chunk is None:
                acc.final_message()
        except StreamError as failure:
            error = {"type": type(failure).__name__, "message": str(failure)}
        states.append(state(completed, error))
        if error:
            break
    return states


def frame_state(frame):
    tools = [(t["index"], t["raw"], t["parses"], t["partial"], t["stopped"]) for t in frame.tools]
    return {
        "pending": frame.pending,
        "after_cr": frame.after_cr,
        "lines": frame.lines,
        "event_type": frame.event_type,
        "data_lines": frame.data_lines,
        "last_event_id": frame.last_event_id,
        "retry": frame.retry,
        "events": len(frame.events),
        "content": frame.content,
        "stopped": frame.stopped,
        "tools": tools,
        "complete": frame.complete,
        "error": frame.error,
    }


@pytest.mark.parametrize(
    "name",
    [
        "fixture",
        "crlf",
        "cjk_emoji",
        "two_tools",
        "sse_fields",
        "bad_tool_json",
        "error_mid_stream",
    ],
)
@pytest.mark.parametrize("chunk_size", [1, 2, 7, EVENT_BY_EVENT])
def test_frames_asked_in_any_order_equal_the_stages_fed_from_step_0_in_a_plain_loop(
    monkeypatch, name, chunk_size
):
    monkeypatch.setattr(
        stepper_frames, "CHECKPOINT_STEPS", 5
    )  # many checkpoints: most frames resume from one
    raw = read_fixture(name)
    expected = reference_states(raw, chunk_size)
    lazy = compute_frames(raw, chunk_size)
    assert len(lazy) == len(expected)
    order = list(range(len(lazy)))
    random.Random(len(raw)).shuffle(order)
    for step in order[:150] + sorted(order[150:]):  # jumps back and forth, then a walk forward
        assert frame_state(lazy[step]) == expected[step], step
        assert lazy[step].step == step


def test_frame_at_gives_the_state_at_a_known_step_of_the_course_fixture():
    frame = frame_at(RAW, 7, 87)  # bytes 602-609: the chunk ends inside 找 (e6 89 be)
    assert (frame.kind, frame.start, frame.end) == ("chunk", 602, 609)
    assert frame.pending == (
        b'data: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"\xe6\x89'
    )
    assert frame.partial_char == "找".encode()[:2]
    assert (frame.event_type, frame.data_lines, frame.lines) == ("content_block_delta", (), ())
    assert [event["event"] for event in frame.events] == [
        "message_start",
        "content_block_start",
        "ping",
    ]
    assert frame.content == [{"type": "text", "text": ""}] and frame.tools == ()
    tool = frame_at(RAW, EVENT_BY_EVENT, 12).tools[
        0
    ]  # the first fragment of the tool input has arrived
    assert (tool["raw"], tool["parses"], tool["partial"]) == ('{"path": "ca', False, {"path": "ca"})
    last = frame_at(RAW, 7, -1)  # the end of the stream: the connection closed
    assert (last.kind, last.step, last.end, last.complete, last.error) == (
        "end",
        len(chunked(RAW, 7)) + 1,
        len(RAW),
        True,
        None,
    )
    with pytest.raises(IndexError):
        frame_at(RAW, 7, len(chunked(RAW, 7)) + 2)


def test_a_long_capture_at_1_byte_chunks_holds_a_small_multiple_of_its_size():
    raw = text_stream(128 * 1024)
    tracemalloc.start()
    try:
        lazy = compute_frames(raw, 1)
        middle, last = lazy[len(lazy) // 2], lazy[-1]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(lazy) == len(raw) + 2 and last.complete and middle.end == len(lazy) // 2
    assert peak < 10 * len(
        raw
    )  # a frame per step, each with its pending line, would be thousands of times more


# -- the bytes' characters ----------------------------------------------------------


def test_a_byte_that_starts_no_character_is_never_said_to_wait_for_more():
    frames_ = compute_frames(b"data: \xc0x\n\n", 7)  # c0 (an overlong lead) is invalid at once
    assert frames_[1].pending == b"data: \xc0" and frames_[1].partial_char == b""
    assert "UTF-8 character" not in stepper_html.lines_html(frames_[1])


@pytest.mark.parametrize(("char", "cut"), [("é", 1), ("原", 1), ("原", 2), ("😀", 1), ("😀", 3)])
def test_a_character_cut_by_a_chunk_says_how_many_of_its_bytes_have_arrived(char, cut):
    raw = b"data: " + char.encode() + b"\n\n"
    frame = compute_frames(raw, 6 + cut)[1]
    assert frame.partial_char == char.encode()[:cut]
    assert f"{cut} of its {len(char.encode())} bytes have arrived" in stepper_html.lines_html(frame)


def test_tokens_for_any_slice_of_the_bytes_are_that_slice_of_the_tokens_of_all():
    raw = read_fixture("cjk_emoji") + b"\xc0\xe5\x8e\r\xed\xa0\x80\xf0\x9f\x98\x80\r\n"
    whole = byte_tokens(raw)
    lazy = ByteTokens(raw)
    for start in range(0, len(raw), 5):
        for end in (start, start + 1, start + 3, start + 40, len(raw)):
            assert byte_tokens(raw, start, min(end, len(raw))) == whole[start : min(end, len(raw))]
            assert lazy[start:end] == whole[start:end]


# -- bounded panels and pages ----------------------------------------------------------


def test_every_panel_shows_a_bounded_window_and_says_how_much_came_before():
    raw = text_stream(256 * 1024)
    lazy = compute_frames(raw, 64)
    frame = lazy[len(lazy) - 3]  # near the end: long text, many events, many bytes
    panels = render_panels(ByteTokens(raw), frame, len(lazy), len(raw))
    assert len(panels) < 100_000  # the events alone are 262,000 bytes of data
    low = frame.end - stepper_html.BYTES_SHOWN
    assert f"… {low:,} earlier bytes" in panels
    assert f"… {len(frame.events) - stepper_html.EVENTS_SHOWN:,} earlier events" in panels
    text = frame.content[0]["text"]
    assert f"… {len(text) - stepper_html.TEXT_SHOWN:,} earlier characters" in panels
    assert html.escape(text[-stepper_html.TEXT_SHOWN :]) in panels.replace("<wbr>", "")


def test_event_items_kept_between_steps_draw_the_same_panels_and_stay_a_few_windows():
    raw = text_stream(96 * 1024)  # some 800 events
    lazy = compute_frames(raw, "event")
    tokens, items = ByteTokens(raw), {}
    steps = [*range(0, len(lazy), 7), len(lazy) - 1, 3, len(lazy) // 2]  # forward, then back
    for step in steps:
        kept = render_panels(tokens, lazy[step], len(lazy), len(raw), items=items)
        assert kept == render_panels(tokens, lazy[step], len(lazy), len(raw)), step
        assert len(items) <= 5 * stepper_html.EVENTS_SHOWN


def test_a_page_with_more_steps_than_it_holds_keeps_evenly_spaced_ones_and_says_so(monkeypatch):
    monkeypatch.setattr(stepper_html, "PAGE_FRAMES", 20)
    lazy = compute_frames(RAW, 7)
    page = StreamStepper(chunk_size=7).to_html()
    plan = embedded_data(page)["plans"][0]
    steps = [row[1] for row in plan["frames"]]
    assert (
        len(steps) == 20
        and steps[0] == 0
        and steps[-1] == len(lazy) - 1
        and steps == sorted(set(steps))
    )
    assert plan["last"] == len(lazy) - 1
    assert (
        plan["note"] == f"This page holds 20 of the stream's {len(lazy):,} steps, evenly spaced; "
        "the stepper widget in a notebook (StreamStepper) shows every step."
    )
    assert 'max="19"' in page
    assert (
        embedded_data(StreamStepper(chunk_size=EVENT_BY_EVENT).to_html())["plans"][0]["note"] == ""
    )  # 20 steps: all held


# -- failures ---------------------------------------------------------------------------


def test_an_error_event_shows_at_the_step_whose_chunk_ends_it_and_is_the_last_step():
    cut = events_end(RAW, 5)
    raw = RAW[:cut] + ERROR_EVENT + RAW[cut:]
    frames = compute_frames(raw, 7)
    error_end = cut + len(ERROR_EVENT)
    expected_step = -(-error_end // 7)  # the chunk holding the blank line after `data:`
    assert frames[-1].step == expected_step
    assert frames[-1].error == {
        "type": "APIStreamError",
        "message": "event 6: overloaded_error: Overloaded",
    }
    assert all(frame.error is None for frame in frames[:-1])
    assert frames[-1].content[0]["text"] == "找到原因了："  # the partial message is still on screen


def test_a_stream_cut_before_message_stop_is_incomplete_at_the_end_of_stream():
    raw = RAW[: events_end(RAW, 10)]
    frames = compute_frames(raw, 64)
    assert frames[-1].kind == "end"
    assert frames[-1].error["type"] == "IncompleteStreamError"
    assert "without message_stop" in frames[-1].error["message"]
    assert frames[-2].error is None


def test_tool_json_with_a_stray_brace_previews_fine_but_fails_once_the_stream_has_ended():
    raw = RAW.replace(b'"turn a + b\\\\n\\"}"', b'"turn a + b\\\\n\\"}}"')
    assert raw != RAW
    last = compute_frames(raw, EVENT_BY_EVENT)[-1]
    assert (
        last.error["type"] == "ToolInputJSONError"
    )  # judged after message_stop brought stop_reason tool_use
    assert json.loads(last.events[-1]["data"])["type"] == "message_stop"
    tool = last.tools[0]
    assert tool["parses"] is False  # json.loads: "Extra data"
    assert (
        tool["partial"]["path"] == "calc.py"
    )  # the partial parser ignores what follows a complete value


def test_tool_json_that_is_no_json_prefix_loses_its_preview_at_once():
    raw = RAW.replace(b'{\\"path\\": \\"ca', b'{\\"path\\": ca')
    assert raw != RAW
    frames = compute_frames(raw, EVENT_BY_EVENT)
    broken = next(f for f in frames if f.tools and f.tools[0]["raw"])
    assert broken.error is None and broken.tools[0]["preview"].startswith("broken: ")
    assert frames[-1].error["type"] == "ToolInputJSONError"


@pytest.mark.parametrize("name", fixture_names())
def test_every_fixture_ends_with_the_error_accumulate_raises_or_a_complete_message(name):
    raw = read_fixture(name)
    try:
        accumulate(raw)
        expected = None
    except StreamError as error:
        expected = {"type": type(error).__name__, "message": str(error)}
    for chunk_size in (1, 7, EVENT_BY_EVENT):
        last = compute_frames(raw, chunk_size)[-1]
        assert last.error == expected, chunk_size
        assert last.complete or expected is not None


@pytest.mark.parametrize("name", ["error_mid_stream", "truncated", "bad_tool_json"])
def test_a_failure_fixture_shows_its_error_in_the_panel_at_its_step(name):
    if not (FIXTURES_DIR / f"{name}.sse").exists():
        pytest.skip(f"fixtures/{name}.sse is not there yet")
    stepper = StreamStepper(name, chunk_size=7)
    stepper.slider.value = stepper.slider.max - 1
    assert "ss-error" not in stepper.panels.value.split("</style>", 1)[1]
    stepper.slider.value = stepper.slider.max
    error = stepper.frame.error
    assert error is not None
    assert f"<b>{error['type']}</b>: {html.escape(error['message'])}" in stepper.panels.value


# -- the widget ---------------------------------------------------------------------------


def test_the_slider_spans_every_step_and_moving_it_redraws_the_panels():
    stepper = StreamStepper()
    assert (stepper.slider.min, stepper.slider.max) == (0, len(chunked(RAW, 7)) + 1)
    assert stepper.play.max == stepper.slider.max
    before = stepper.panels.value
    stepper.slider.value = 30
    assert stepper.panels.value != before
    assert "step 30 / " in stepper.panels.value


def test_the_panels_escape_what_the_stream_says():
    raw = RAW.replace("减法".encode(), b"<b>&amp;</b>")
    stepper = StreamStepper(raw, chunk_size=EVENT_BY_EVENT)
    stepper.slider.value = stepper.slider.max
    assert "<b>&amp;</b>" not in stepper.panels.value
    assert "&lt;b&gt;&amp;amp;&lt;/b&gt;" in stepper.panels.value


def test_non_printable_bytes_are_shown_as_their_escapes():
    assert byte_tokens(b"a\r\n")[:2] == ["a", '<span class="ss-esc">\\r</span>']
    assert (
        byte_tokens("原".encode())[0] == '<span class="ss-esc ss-u8" title="U+539F 原">\\xe5</span>'
    )
    assert byte_tokens(b"\xff") == ['<span class="ss-esc">\\xff</span>']


def test_changing_the_chunk_size_redraws_at_the_same_place_in_the_stream():
    stepper = StreamStepper(chunk_size=7)
    stepper.slider.value = 100
    received, shown = stepper.frame.end, stepper.panels.value
    stepper.chunk_choice.value = 1
    assert stepper.slider.max == len(RAW) + 1
    assert stepper.frame.end == received and stepper.frame.end - stepper.frame.start == 1
    assert stepper.panels.value != shown
    stepper.chunk_choice.value = EVENT_BY_EVENT
    assert stepper.frame.end >= received > stepper.frames[stepper.slider.value - 1].end
    assert stepper.slider.max == RAW.count(b"\n\n") + 1
    stepper.slider.value = stepper.slider.max
    stepper.chunk_choice.value = 64
    assert stepper.frame.kind == "end"


def test_a_chunk_size_outside_the_choices_is_added_to_them():
    stepper = StreamStepper(chunk_size=5)
    assert stepper.chunk_size == 5 and ("5 bytes", 5) in stepper.chunk_choice.options


def test_the_source_may_be_bytes_a_path_or_a_fixture_name():
    assert StreamStepper(b"data: x\n\n").raw == b"data: x\n\n"
    assert StreamStepper(FIXTURES_DIR / "fixture.sse").raw == RAW
    assert StreamStepper("fixture").raw == RAW


# -- without a kernel ----------------------------------------------------------------------


def embedded_data(page: str):
    payload = re.search(
        r'<script type="application/json" class="ss-data">(.*?)</script>', page, re.S
    ).group(1)
    return json.loads(payload)


def test_the_static_page_embeds_every_frame_and_loads_nothing_from_outside(tmp_path):
    stepper = StreamStepper()
    path = tmp_path / "stepper.html"
    page = stepper.to_html(path)
    assert path.read_text(encoding="utf-8") == page
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<script[^>]+src=|<link|https?://", page)
    data = embedded_data(page)
    assert len(data["plans"]) == 1 and len(data["plans"][0]["frames"]) == len(stepper.frames)
    assert "".join(data["tokens"]) == "".join(byte_tokens(RAW))


def test_the_static_page_can_offer_several_chunk_sizes():
    page = StreamStepper().to_html(chunk_sizes=(7, 1, EVENT_BY_EVENT))
    assert [plan["label"] for plan in embedded_data(page)["plans"]] == [
        "7 bytes",
        "1 byte",
        "event by event",
    ]
    assert (
        '<select class="ss-plan" autocomplete="off">' in page
    )  # Back must not restore it behind the script


def test_the_embedded_json_cannot_end_its_script_early():
    raw = RAW.replace("减法".encode(), b"</script><!--")
    page = StreamStepper(raw).to_html()
    payload = re.search(r'class="ss-data">(.*?)</script>', page, re.S).group(1)
    assert "</" not in payload and "<!--" not in payload
    assert any("&lt;/script&gt;" in text for text in embedded_data(page)["plans"][0]["events"])


def test_the_page_stores_each_distinct_panel_once():
    frames = compute_frames(RAW, 1)
    data = page_data(RAW, {1: frames})
    assert len(data["strings"]) < len(frames) / 2


def test_the_widget_offers_its_static_page_to_renderers_without_widgets():
    bundle = StreamStepper()._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/html"].startswith('<div class="ss-root ss-static"')
    assert bundle["text/plain"] == "StreamStepper('fixture.sse', chunk_size=7)"
    assert "text/html" not in StreamStepper(static_fallback=False)._repr_mimebundle_()


def test_where_scripts_cannot_run_the_static_page_shows_a_note_not_dead_controls():
    # A notebook opened from disk (untrusted) drops <script> and <style> from its
    # saved HTML, but keeps inline styles: the controls stay hidden, the note shows.
    html = StreamStepper()._repr_mimebundle_()["text/html"]
    note, live = (
        html.index('<p class="ss-noscript">'),
        html.index('<div class="ss-live" style="display: none">'),
    )
    assert note < live < html.index('class="ss-slider"') and "Shift+Enter" in html[note:live]


def test_the_standalone_page_says_it_needs_javascript_not_to_run_a_cell():
    page = StreamStepper().to_html()
    assert "This page needs JavaScript" in page and "Shift+Enter" not in page


def test_static_returns_an_html_display_object():
    shown = StreamStepper.static("fixture", chunk_sizes=(7, 64))
    assert (
        shown.data.startswith('<div class="ss-root ss-static"')
        and "Stream stepper · fixture.sse" in shown.data
    )
    assert [plan["label"] for plan in embedded_data(shown.data)["plans"]] == ["7 bytes", "64 bytes"]
    assert shown.data.count('<option value="') - len(stepper_html.SPEEDS) == 2
    assert 'class="ss-plan"' not in static_html("fixture").data  # one plan: no selector


def test_odd_but_accepted_streams_are_drawn_not_a_crash():
    from streaming_lib.tools.stepper.html import stop_html

    start = {"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}}
    tool = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
    }
    deep = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": '{"x": ' + "[" * 3000},
    }
    odd_stop = {"type": "message_delta", "delta": {"stop_reason": 5}, "usage": {}}

    def sse(*events):
        return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)

    stepper = StreamStepper(sse(start, odd_stop, {"type": "message_stop"}))
    assert "<b>5</b>" in stop_html(stepper.frames[-1]) and stepper.to_html()
    stepper = StreamStepper(
        sse(start, tool, deep)
    )  # json.loads would recurse too deep on this buffer
    assert stepper.frames[-1].tools[0]["parses"] is False and stepper.to_html()
    odd_start = {
        "type": "message_start",
        "message": {"id": "m", "content": [5, None], "usage": "x"},
    }
    lone = {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "text", "text": "\ud800"},
    }
    page = StreamStepper(
        sse(odd_start, lone)
    ).to_html()  # a lone surrogate cannot be UTF-8: written as its escape
    assert page.encode("utf-8") and "\\ud800" in page


def test_the_tool_panel_says_whether_the_call_may_run_and_turns_yes_only_at_message_stop():
    frames = compute_frames(RAW, EVENT_BY_EVENT)
    verdicts = [(f.tools[0]["runnable"], f.tools[0]["verdict"]) for f in frames if f.tools]
    assert [runnable for runnable, _ in verdicts].count(
        True
    ) == 2  # after message_stop, and at the end of the bytes
    last_event = next(
        f for f in frames if f.tools and json.loads(f.events[-1]["data"])["type"] == "message_stop"
    )
    assert (
        last_event.tools[0]["runnable"]
        and "complete tool_use call" in last_event.tools[0]["verdict"]
    )
    assert all(not runnable for runnable, _ in verdicts[:-2])
    assert "no content_block_stop yet" in verdicts[0][1]
    panel = stepper_html.tools_html(last_event)
    assert "may it run?" in panel and "✔ yes" in panel


def test_the_tool_panel_never_lets_a_server_tool_call_run():
    last = compute_frames(read_fixture("web_search"), EVENT_BY_EVENT)[-1]
    tool = last.tools[0]
    assert tool["runnable"] is False and "(server_tool_use)" in tool["verdict"]
    assert "✘ no" in stepper_html.tools_html(last)


@pytest.mark.parametrize(
    "name",
    ["surrogate_pair_split_across_deltas", "data_only_events", "done_sentinel_after_message_stop"],
)
@pytest.mark.parametrize("size", [1, 7, EVENT_BY_EVENT])
def test_streams_gateways_reshape_step_to_the_message_accumulate_gives(name, size):
    gateway = FIXTURES_DIR.parent / "tests" / "data" / "gateway"
    raw = (gateway / f"{name}.sse").read_bytes()
    frames = compute_frames(raw, size)
    for frame in frames:  # what is shown at every step holds real characters only
        json.dumps(frame.content, ensure_ascii=False).encode("utf-8")
    assert frames[-1].error is None
    assert frames[-1].content == accumulate(raw)["content"]


def test_events_after_message_stop_are_skipped_as_accumulate_skips_them():
    extra = (
        b"event: content_block_delta\n"
        b'data: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"late"}}\n\n'
    )
    frames = compute_frames(RAW + extra, EVENT_BY_EVENT)
    assert frames[-1].error is None and frames[-1].events[-1]["skipped"] is True
    assert frames[-1].content == accumulate(RAW + extra)["content"] == accumulate(RAW)["content"]


def test_a_stepper_shows_only_the_panels_it_is_asked_for_in_stage_order():
    stepper = StreamStepper("fixture", chunk_size=7, panels=("sse", "bytes"))
    shown = re.findall(r'<div class="[^"]*" data-slot="(\w+)"', stepper.panels.value)
    assert [slot for slot in shown if slot in stepper_html.PANEL_NAMES] == ["bytes", "sse"]
    assert "events dispatched" not in stepper.panels.value
    assert "panels=('sse', 'bytes')" in repr(stepper)
    page = stepper.to_html()
    assert '" data-slot="sse"' in page and '" data-slot="content"' not in page


def test_every_panel_shows_when_none_are_named():
    shown = re.findall(
        r'<div class="[^"]*" data-slot="(\w+)"', StreamStepper("fixture").panels.value
    )
    assert [slot for slot in shown if slot in stepper_html.PANEL_NAMES] == list(
        stepper_html.PANEL_NAMES
    )


def test_an_unknown_panel_name_is_refused_with_the_names_to_choose_from():
    with pytest.raises(ValueError, match="unknown stepper panel 'parser'.*'sse'"):
        StreamStepper("fixture", panels=("parser",))


def test_a_new_chunk_size_gets_a_new_slider_whose_range_ends_at_the_new_last_step():
    # The browser's slider keeps the range it was made with for its End key; a fresh
    # slider is the only way End reaches the new last step.
    stepper = StreamStepper("fixture", chunk_size=EVENT_BY_EVENT)
    old = stepper.slider
    stepper.chunk_choice.value = 7
    assert stepper.slider is not old
    assert stepper.slider in stepper.children[1].children
    assert old not in stepper.children[1].children
    assert stepper.slider.max == stepper.play.max == len(compute_frames(RAW, 7)) - 1
    stepper.slider.value = stepper.slider.max  # the new slider still redraws the panels
    assert "the message is complete" in stepper.panels.value


def test_the_ten_step_buttons_move_the_slider_and_stop_at_its_ends():
    stepper = StreamStepper("fixture", chunk_size=7)
    stepper.ahead.click()
    assert stepper.slider.value == 10
    stepper.back.click()
    stepper.back.click()
    assert stepper.slider.value == 0
    stepper.slider.value = stepper.slider.max - 3
    stepper.ahead.click()
    assert stepper.slider.value == stepper.slider.max


def test_the_speed_choice_sets_plays_interval_and_steps_per_tick():
    stepper = StreamStepper("fixture", chunk_size=1)
    assert (stepper.play.interval, stepper.play.step) == (400, 1)
    stepper.speed.label = "fastest"
    assert (stepper.play.interval, stepper.play.step) == (30, 10)


def test_long_lines_may_wrap_only_between_json_tokens_and_never_inside_an_escape():
    tokens = byte_tokens('data: {"type":"x","text":"找"}\n'.encode())
    assert tokens[13] == ":<wbr>"  # after a colon
    assert ",<wbr>" in "".join(tokens)
    escapes = [token for token in tokens if "ss-esc" in token]
    assert escapes and all("<wbr>" not in token for token in escapes)
    css = stepper_html.STYLE
    assert re.search(r"\.ss-esc \{[^}]*white-space: nowrap", css)  # \x89 stays one piece
    assert re.search(r"\.ss-split \{[^}]*white-space: nowrap", css)  # so does a cut character
    assert "word-break: break-all" not in css  # words break at spaces, not mid-word


def test_the_panels_turn_dark_in_jupyterlabs_dark_theme_and_on_a_page_that_prefers_dark():
    css = stepper_html.STYLE
    dark_lab = r'body\[data-jp-theme-light="false"\] \.ss-root \{ color-scheme: dark; \}'
    assert re.search(dark_lab, css)
    assert re.search(r"\.ss-page \.ss-root \{ color-scheme: light dark; \}", css)
    assert '<body class="ss-page">' in StreamStepper(chunk_size=64).to_html()
    # Every colour of the palette has a light and a dark value (their contrast is measured
    # in tests/test_stepper_screen.py).
    block = re.search(r"\.ss-root \{\s*(--ss-fg.*?)\}", css, re.S)
    assert block is not None
    palette = dict(re.findall(r"(--ss-[\w-]+): (light-dark\(|[^;]*)", block.group(1)))
    colours = [name for name in palette if name != "--ss-mono"]
    assert len(colours) >= 20 and all(palette[name] == "light-dark(" for name in colours), palette


# -- in Chinese (lang="zh") ----------------------------------------------------------------------

CJK = re.compile(r"[\u4e00-\u9fff]")


def visible_text(fragment):
    """The text a reader sees in some HTML: no tags, no style, no scripts."""
    fragment = re.sub(r"<(style|script)[^>]*>.*?</\1>", "", fragment, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_the_stepper_speaks_english_unless_asked_and_refuses_a_language_it_does_not_speak():
    english = StreamStepper()
    assert english.lang == "en" and english.play.description == "play"
    assert not CJK.search(visible_text(english.panels.value).replace("找到原因了", ""))
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        StreamStepper(lang="fr")
    with pytest.raises(ValueError, match="unknown language"):
        static_html(lang="fr")


def test_in_chinese_the_widget_labels_its_panels_controls_and_status_line_in_chinese():
    stepper = StreamStepper(lang="zh")
    say = stepper_html.STEPPER["zh"]
    panels = stepper.panels.value
    for name in stepper_html.PANEL_NAMES:
        assert f"{say[f'panel_{name}']}<small>{html.escape(say[f'sub_{name}'])}</small>" in panels
    assert "收到的字节" in panels and "已派发的事件" in panels and "这一步送达的分片" in panels
    assert "bytes received" not in panels and "events dispatched" not in panels
    assert (stepper.play.description, stepper.speed.description) == ("播放", "速度")
    assert stepper.slider.description == "步"
    assert [label for label, _ in stepper.chunk_choice.options][:3] == [
        "1 字节",
        "3 字节",
        "7 字节",
    ]
    assert "逐个事件" in [label for label, _ in stepper.chunk_choice.options]
    assert "还没有收到任何字节 · 整个流共 2350 字节" in panels
    stepper.slider.value = 1
    assert (
        "第 1 / " in stepper.panels.value
        and "第 1 个分片：字节 0–7（7 B）" in stepper.panels.value
    )
    stepper.slider.value = stepper.slider.max
    assert "✔ message_stop：消息已完整" in stepper.panels.value
    assert repr(stepper) == "StreamStepper('fixture.sse', chunk_size=7, lang='zh')"


def test_in_chinese_the_glossary_terms_and_the_streams_own_words_stay_as_on_the_wire():
    stepper = StreamStepper(lang="zh")
    stepper.slider.value = stepper.slider.max
    panels = visible_text(stepper.panels.value)
    for term in ("LineDecoder", "SSEDecoder", "MessageAccumulator", "stop_reason", "message_delta"):
        assert term in panels
    assert "找到原因了" in panels and '"stop_reason":"tool_use"' in panels
    assert "<b>tool_use</b>" in stepper_html.stop_html(stepper.frame, "zh")


# The words a Chinese panel may show in Latin letters besides the stream's own: the class
# names, the wire's and Python's terms, units, and the legend's sample "abc".
LATIN_TERMS = {
    "LineDecoder", "SSEDecoder", "MessageAccumulator", "JSON", "json", "loads", "buffer",
    "pending", "str", "retry", "ID", "ASCII", "UTF", "B", "abc", "ms", "null",
}  # fmt: skip
# The course fixture's own words, as sent and as the message holds them once joined, and
# their beginnings and ends (a chunk can cut a word).
STREAM_WORDS = {
    piece
    for word in re.findall(r"[A-Za-z]+", RAW.decode() + repr(accumulate(RAW)))
    for cut in range(1, len(word) + 1)
    for piece in (word[:cut], word[-cut:])
}


def latin_words(fragment):
    """The words in Latin letters a reader sees in some HTML (a byte's escape is not a word)."""
    fragment = re.sub(r"<(style|script)[^>]*>.*?</\1>", "", fragment, flags=re.S)
    # A tag parts two words, but for those inside a run of bytes (a chunk's mark, a byte's
    # escape, a cut character's outline, a line-break opportunity, a closing span).
    inline = re.compile(r'</?mark|<wbr>|</span>|<span class="ss-(esc|split)')
    text = html.unescape(
        re.sub(r"<[^>]+>", lambda tag: "" if inline.match(tag.group()) else " ", fragment)
    )
    text = re.sub(r"\\x[0-9a-f]{2}|\\[nrt]", " ", text)
    return set(re.findall(r"[A-Za-z]+", text))


@pytest.mark.parametrize("chunk_size", [1, 7, EVENT_BY_EVENT])
def test_in_chinese_a_panel_shows_no_english_word_but_the_streams_own_and_the_wire_terms(
    chunk_size,
):
    stepper = StreamStepper(chunk_size=chunk_size, lang="zh")
    english = StreamStepper(chunk_size=chunk_size)
    last = stepper.slider.max
    for step in sorted({0, 1, 2, 3, 5, 8, last // 4, last // 2, 3 * last // 4, last - 2, last}):
        stepper.slider.value = english.slider.value = step
        left = latin_words(stepper.panels.value) - STREAM_WORDS - LATIN_TERMS
        assert not left, f"step {step}: English left in Chinese panels: {sorted(left)}"
        # and the English panels still speak English where the Chinese ones do not
        assert latin_words(english.panels.value) - STREAM_WORDS - LATIN_TERMS
        assert (
            stepper_html.render_strings(stepper.frame, "zh")["error"]
            == stepper_html.render_strings(english.frame)["error"]
            == ""
        )


def test_in_chinese_the_callouts_notes_and_row_labels_are_in_chinese():
    frames_ = stepper_frames.Frames(RAW, 1)
    cut = next(frame for frame in frames_ if frame.partial_char)
    assert "分片在一个 UTF-8 字符中间结束" in stepper_html.lines_html(cut, "zh")
    blank = next(frame for frame in frames_ if "" in frame.lines)
    assert "（空行）← 派发事件" in stepper_html.lines_html(blank, "zh")
    assert "(blank line) ← dispatch the event" in stepper_html.lines_html(blank)
    tool = next(frame for frame in frames_ if frame.tools and frame.tools[0]["stopped"])
    tools = visible_text(stepper_html.tools_html(tool, "zh"))
    assert "JSON 缓冲区" in tools and "可以执行吗？" in tools and "结束时" in tools
    assert "may it run?" in stepper_html.tools_html(tool) and "at stop" in stepper_html.tools_html(
        tool
    )
    long = "字" * (stepper_html.TEXT_SHOWN + 1_500)
    assert "… 前面还有 1,500 个字符" in stepper_html._text(long, lang="zh")
    assert "… 1,500 more characters" in stepper_html._text(long, keep="start")


def test_what_an_empty_slot_shows_is_in_the_panels_language():
    chinese, english = stepper_html.layout({}, lang="zh"), stepper_html.layout({})
    assert 'data-slot="pending" data-empty="（空）"' in chinese
    assert 'data-slot="events" data-empty="（还没有事件）"' in chinese
    assert 'data-slot="events" data-empty="(no event yet)"' in english
    assert "content: attr(data-empty)" in stepper_html.STYLE and "(empty)" not in stepper_html.STYLE
    block = {"type": "text", "text": ""}
    assert 'data-empty="（空）"' in stepper_html._block_html(0, block, False, "zh")
    assert 'data-empty="(empty)"' in stepper_html._block_html(0, block, False)


def test_a_tool_calls_verdict_is_shown_in_chinese_when_its_sentence_is_known():
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    message = {"content": [block], "stop_reason": "end_turn"}
    verdict = tool_call_verdict(message, 0, complete=True, stopped=True)
    assert verdict.reason == (
        "stop_reason is end_turn: the model finished its turn without asking for a tool to run"
    )
    assert (
        i18n.verdict_words(verdict.reason, "zh")
        == "stop_reason 是 end_turn：模型说完了这一轮，没有要求执行工具"
    )
    unknown = "block 1's input does not match the tool's input schema: 'x' is required"
    assert i18n.verdict_words(unknown, "zh") == unknown
    assert i18n.verdict_words(unknown, "en") == unknown


def test_the_chinese_static_page_carries_its_words_for_its_script_and_says_it_is_chinese():
    page = StreamStepper(lang="zh").to_html(chunk_sizes=(7, EVENT_BY_EVENT))
    assert '<html lang="zh-CN">' in page and "<title>流步进器 · fixture.sse</title>" in page
    data = embedded_data(page)
    assert data["words"]["play"] == "▶ 播放" and data["words"]["pause"] == "❚❚ 暂停"
    assert set(data["words"]) == set(stepper_html.SCRIPT_WORDS)
    assert [plan["label"] for plan in data["plans"]] == ["7 字节", "逐个事件"]
    assert "这个页面需要 JavaScript" in page
    assert '<label>分片 <select class="ss-plan"' in page and "<label>速度 " in page
    assert ">正常</option>" in page and ">▶ 播放</button>" in page
    english = embedded_data(StreamStepper().to_html())
    assert english["words"]["play"] == "▶ play"
    for text in data["strings"] + [item for plan in data["plans"] for item in plan["events"]]:
        assert not latin_words(text) - STREAM_WORDS - LATIN_TERMS


def test_a_thinned_chinese_page_says_so_in_chinese():
    assert stepper_html.thinned_note(2500, 10_000, "zh") == (
        "本页只存了流的 10,000 步中均匀分布的 2,500 步；笔记本里的步进器小部件"
        "（StreamStepper）能显示每一步。"
    )
    assert stepper_html.thinned_note(5, 5, "zh") == ""


def test_every_language_has_every_word_of_the_stepper():
    english, chinese = stepper_html.STEPPER["en"], stepper_html.STEPPER["zh"]
    assert set(english) == set(chinese)
    for key, text in english.items():  # a template's fields are the same in every language
        assert set(re.findall(r"\{(\w+)\}", text)) == set(re.findall(r"\{(\w+)\}", chinese[key]))
