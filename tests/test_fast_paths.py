"""The fast paths (`streaming_lib/fast.py`) give exactly what the plain stages give.

`FastLineDecoder`, `iter_sse` and `iter_events` split plain chunks and handle
the common lines themselves, for speed, and hand everything else to a
`LineDecoder`, `parse_field` and `decode_event`; `read_string` reads most JSON
string fragments in one call where `partial_json_strings.read_string` reads them
run by run; `load_json` asks jiter first. Whatever the bytes (any field,
comments, CR, CRLF, a byte order mark, broken UTF-8) and wherever the chunks
end, the lines, the events, the values and the errors must be the ones the
plain stages give one call at a time.
"""

import json
from functools import partial

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import streaming_lib
from streaming_lib import (
    LineDecoder,
    SizeLimitError,
    SSEDecodeError,
    SSEDecoder,
    StreamError,
    decode_event,
    events,
    fast,
    iter_events,
    iter_lines,
    iter_sse,
    lines,
    sse,
)
from streaming_lib.accumulator import feed_chunk
from streaming_lib.fast import FastEventDecoder, FastLineDecoder, FastPartialJSONParser
from streaming_lib.partial_json import PartialJSONError, PartialJSONParser
from streaming_lib.partial_json_strings import read_string
from streaming_lib.tools.fixtures import chunked

# Pieces of a stream: every kind of line, every line ending, and bytes that
# break UTF-8 or sit on either side of a character boundary.
PIECES = [
    b"data: x",
    b"data:x",
    b"data:x y",
    b"event:a b",
    b"data: a b",
    b" data: x",
    b"data: ",
    b"data:",
    b"data",
    b"event: ping",
    b"event:",
    b"event: ",
    b"id: 7",
    b"id: a\x00b",
    b"id",
    b"retry: 1500",
    b"retry: 1.5",
    b": keep-alive",
    b":",
    b"other: y",
    b"Data: no",
    b"data:  two spaces",
    b"data: caf\xc3\xa9",
    b"data: \xe5\x8e\x9f\xf0\x9f\x98\x80",
    b"\xc3",
    b"\xa9",
    b"\xff",
    b"\xef\xbb\xbf",
    b"\n",
    b"\n",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n",
    b"\r\n\r\n",
]

streams = st.lists(st.sampled_from(PIECES), max_size=30).map(b"".join)


@st.composite
def chunkings(draw):
    """(stream bytes, the same bytes cut at random places)."""
    raw = draw(streams)
    cuts = sorted(draw(st.sets(st.integers(0, len(raw)), max_size=12)))
    bounds = [0, *cuts, len(raw)]
    return raw, [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def run(produce):  # -> (items produced, the error raised or None)
    items = []
    try:
        for item in produce():
            items.append(item)
    except SSEDecodeError as error:
        return items, (type(error), str(error), error.offset)
    except SizeLimitError as error:
        return items, (type(error), str(error), error.offset, error.limit)
    except StreamError as error:  # EventDataError, from decode_event
        return items, (type(error), str(error), error.event_number, error.data)
    return items, None


# Limits small enough for the pieces below to pass them (None: no limit).
limits = st.sampled_from([None, None, 3, 8, 20, 60])


def staged_lines(chunks, strict, limit=None):
    decoder = LineDecoder(strict=strict, max_line_bytes=limit)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.flush()


def staged_events(chunks, strict, limit=None):
    decoder = SSEDecoder(max_event_bytes=limit)
    for line in staged_lines(chunks, strict, limit):
        event = decoder.feed_line(line)
        if event is not None:
            yield event


def staged_api_events(chunks, strict, limit=None):
    number = 0
    for sse_event in staged_events(chunks, strict, limit):
        event = decode_event(sse_event, number + 1)
        if event is not None:
            number += 1
            yield event


# Lines of Messages API streams, good and bad: every name that decides the
# event, names the API does not send, no name; data that is JSON or not, not an
# object, null, too deep, a lone surrogate escape (which jiter refuses), split
# over two `data:` lines, with a `type` that is the name, another API name, an
# unknown one or not a string.
API_PIECES = [
    b"event: content_block_delta",
    b"event: ping",
    b"event: error",
    b"event: message",
    b"event: ",
    b"event:ping",
    b"event:ping x",
    b"event: other",
    b'data: {"type": "ping"}',
    b'data: {"type": "error", "error": {"type": "x"}}',
    b"event: message_stop",
    b"event: keepalive",
    b"event: done",
    b"data: [DONE]",
    b'data: {"type": "error"}',
    b'data: {"type": "content_block_delta", "index": 0}',
    b'data: {"type": "other"}',
    b'data: {"type": ["x"]}',
    b'data: {"type": "message_stop", "a": "\\ud800"}',
    b'data: {"type": "message_stop", "x": ' + b"[" * 201 + b"]" * 201 + b"}",
    b'data: {"type": "message_stop"}',
    b"data: [1, 2]",
    b"data: 0",
    b"data: null",
    b"data: {bad",
    b'data: {"a": "\\ud800"}',
    b"data: " + b"[" * 201 + b"]" * 201,
    b"data: {",
    b'data: "type": "x"}',
    b"data:",
    b"data",
    b"data:0",
    b'data:{"type": "x"}',
    b"event",
    b"event:ping",
    b"event:b c",
    b"id: 1",
    b": comment",
    b"retry: 5",
    b"\xff",
    b"\n",
    b"\n",
    b"\n",
    b"\n\n",
    b"\r\n",
]

# Each piece mostly ends its line, and a blank line (b"" then an end) dispatches.
api_streams = st.lists(
    st.tuples(
        st.sampled_from(API_PIECES + [b""] * 8),
        st.sampled_from([b"\n"] * 8 + [b"\r\n", b"\r", b""]),
    ),
    max_size=30,
).map(lambda pairs: b"".join(piece + end for piece, end in pairs))


@given(st.data(), st.booleans(), limits)
def test_iter_events_gives_the_events_and_errors_of_decode_event(data, strict, limit):
    raw = data.draw(api_streams)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(raw)), max_size=12)))
    bounds = [0, *cuts, len(raw)]
    chunks = [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert run(lambda: iter_events(chunks, strict=strict, max_event_bytes=limit)) == run(
        lambda: staged_api_events(chunks, strict, limit)
    )


def test_iter_events_numbers_events_as_the_accumulator_will():
    raw = (
        b"event: ping\ndata: {}\n\n"
        b'event: message\ndata: {"x": 1}\n\n'
        b"data: {}\n\n"
        b"event: a\ndata: {}\n\n"
        b"event: b\ndata: nope\n\n"
        b'data: {"type": "message_stop"}\n\n'
        b'event: message_start\ndata: {"type": "message_stop"}\n\n'
    )
    events = iter_events([raw])
    assert next(events) == {"type": "ping"} and next(events) == {"type": "message_stop"}
    with pytest.raises(
        StreamError,
        match=r"^event 3 \(message_start\): named 'message_start' .* but 'message_stop'",
    ) as error:
        next(events)  # the unnamed events that name no event, and the unknown names, do not count
    assert error.value.event_number == 3


@given(chunkings(), st.booleans(), limits)
def test_iter_lines_gives_the_lines_and_errors_of_feed(stream, strict, limit):
    raw, chunks = stream
    assert run(lambda: iter_lines(chunks, strict=strict, max_line_bytes=limit)) == run(
        lambda: staged_lines(chunks, strict, limit)
    )


@given(chunkings(), st.booleans(), limits)
def test_iter_sse_gives_the_events_and_errors_of_feed_line(stream, strict, limit):
    raw, chunks = stream
    assert run(lambda: iter_sse(chunks, strict=strict, max_event_bytes=limit)) == run(
        lambda: staged_events(chunks, strict, limit)
    )


@given(chunkings(), st.booleans(), limits)
def test_the_same_bytes_in_one_chunk_or_many_give_the_same_events_and_errors(stream, strict, limit):
    raw, chunks = stream
    assert run(lambda: iter_sse(chunks, strict=strict, max_event_bytes=limit)) == run(
        lambda: iter_sse([raw], strict=strict, max_event_bytes=limit)
    )
    assert run(lambda: staged_events(chunks, strict, limit)) == run(
        lambda: staged_events([raw], strict, limit)
    )


def fed_one_by_one(decoder, chunks):  # -> (lines, state) after each chunk, then flush
    for chunk in chunks:
        yield decoder.feed(chunk), (decoder.pending, decoder.offset, decoder.after_cr)
    yield decoder.flush(), (decoder.pending, decoder.offset, decoder.after_cr)


@given(chunkings(), st.booleans(), limits)
def test_fast_line_decoder_gives_the_lines_errors_and_state_of_line_decoder(stream, strict, limit):
    raw, chunks = stream
    options = {"strict": strict, "max_line_bytes": limit}
    assert run(lambda: fed_one_by_one(FastLineDecoder(**options), chunks)) == run(
        lambda: fed_one_by_one(LineDecoder(**options), chunks)
    )


@given(chunkings(), limits)
def test_feed_each_yields_what_feed_returns_chunk_by_chunk(stream, limit):
    raw, chunks = stream

    def fed_one_by_one():
        decoder = LineDecoder(max_line_bytes=limit)
        for chunk in chunks:
            if lines := decoder.feed(chunk):
                yield lines

    for cls in (FastLineDecoder, LineDecoder):
        decoder = cls(max_line_bytes=limit)
        assert run(partial(decoder.feed_each, chunks)) == run(fed_one_by_one)


@given(chunkings(), st.booleans())
def test_feed_each_without_decoding_gives_the_same_lines_as_utf_8_bytes(stream, strict):
    raw, chunks = stream

    def decoded_later(decoder):
        for batch in decoder.feed_each(chunks, decode=False):
            assert batch and all(type(line) is bytes for line in batch)
            yield [line.decode("utf-8", "replace") for line in batch]

    for cls in (FastLineDecoder, LineDecoder):
        assert run(partial(decoded_later, cls(strict=strict))) == run(
            lambda: LineDecoder(strict=strict).feed_each(chunks)
        )


@pytest.mark.parametrize("cls", [FastLineDecoder, LineDecoder])
def test_feed_each_stopped_early_leaves_the_decoder_where_it_was(cls):
    decoder = cls()
    batches = decoder.feed_each([b"data: a\n", b"data: b", b"c\n", b"tail"])
    assert next(batches) == ["data: a"]
    batches.close()  # the caller stopped after the first chunk
    assert (decoder.pending, decoder.offset) == (b"", 8)
    assert decoder.feed(b"data: z\n") == ["data: z"]
    assert list(decoder.feed_each([b"x\r", b"\ny\n"])) == [["x"], ["y"]]
    assert decoder.offset == 8 + 8 + 5


def test_a_fast_decoder_taken_over_midway_counts_offsets_from_the_start_of_the_stream():
    decoder = FastLineDecoder(max_line_bytes=4)
    assert list(decoder.feed_each([b"ab\ncd", b"\r\n"])) == [["ab"], ["cd"]]  # a CR: plain now
    assert (decoder.offset, decoder.after_cr) == (7, False)
    with pytest.raises(SizeLimitError) as caught:
        decoder.feed(b"\xef\xbb\xbfxy\n")  # not the stream's start: no byte order mark here
    assert caught.value.offset == 7


def test_line_decoder_taking_over_at_an_offset_keeps_a_byte_order_mark_as_a_character():
    assert LineDecoder(offset=5).feed(b"\xef\xbb\xbfa\n") == ["\ufeffa"]
    assert LineDecoder(offset=0).feed(b"\xef\xbb\xbfa\n") == ["a"]
    with pytest.raises(ValueError):
        LineDecoder(offset=-1)


def test_feed_and_flush_wait_until_feed_each_is_over():
    decoder = FastLineDecoder()
    batches = decoder.feed_each([b"a\n", b"b\n"])
    assert next(batches) == ["a"]
    assert (decoder.pending, decoder.offset) == (b"", 2)  # up to date while it waits
    for call in (
        lambda: decoder.feed(b"x\n"),
        decoder.flush,
        lambda: next(decoder.feed_each([b"y\n"])),
    ):
        with pytest.raises(RuntimeError, match="feed_each"):
            call()
    assert list(batches) == [["b"]] and decoder.offset == 4
    assert decoder.feed(b"x\n") == ["x"] and decoder.flush() == []

    def source():  # a chunk source that feeds the decoder itself
        yield b"c\n"
        decoder.feed(b"z\n")

    with pytest.raises(RuntimeError):
        list(decoder.feed_each(source()))
    assert decoder.feed(b"d\n") == ["d"]  # usable again once feed_each is over


@pytest.mark.parametrize("cls", [FastLineDecoder, LineDecoder])
def test_an_error_inside_feed_each_leaves_the_decoder_as_feed_would(cls):
    for how in ("feed", "feed_each"):
        decoder = cls(strict=True)
        with pytest.raises(SSEDecodeError) as first:
            decoder.feed(b"\xff\n") if how == "feed" else list(decoder.feed_each([b"\xff\n"]))
        with pytest.raises(SSEDecodeError) as again:  # the bad line is still pending
            decoder.feed(b"x\n")
        assert (first.value.offset, again.value.offset, decoder.offset) == (0, 0, 4), how


# -- each public fast function against the plain function of the same name ----------------


def test_streaming_lib_binds_the_fast_paths():
    import streaming_lib

    assert (streaming_lib.iter_lines, streaming_lib.iter_sse, streaming_lib.iter_events) == (
        fast.iter_lines,
        fast.iter_sse,
        fast.iter_events,
    )


@given(chunkings(), st.booleans(), limits)
def test_fast_iter_lines_gives_the_lines_and_errors_of_lines_iter_lines(stream, strict, limit):
    raw, chunks = stream
    assert run(lambda: fast.iter_lines(chunks, strict=strict, max_line_bytes=limit)) == run(
        lambda: lines.iter_lines(chunks, strict=strict, max_line_bytes=limit)
    )


@given(chunkings(), st.booleans(), limits)
def test_fast_iter_sse_gives_the_events_and_errors_of_sse_iter_sse(stream, strict, limit):
    raw, chunks = stream
    assert run(lambda: fast.iter_sse(chunks, strict=strict, max_event_bytes=limit)) == run(
        lambda: sse.iter_sse(chunks, strict=strict, max_event_bytes=limit)
    )


@given(st.data(), st.booleans(), limits)
def test_fast_iter_events_gives_the_events_and_errors_of_events_iter_events(data, strict, limit):
    raw = data.draw(api_streams)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(raw)), max_size=12)))
    bounds = [0, *cuts, len(raw)]
    chunks = [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert run(lambda: fast.iter_events(chunks, strict=strict, max_event_bytes=limit)) == run(
        lambda: events.iter_events(chunks, strict=strict, max_event_bytes=limit)
    )


def test_an_event_of_many_short_lines_is_counted_against_the_limit_by_both_paths():
    raw = b"data: xy\n" * 1000 + b"\n"  # 3000 bytes of data buffer, joined 64 lines at a time
    for limit in (2999, 3000):
        for chunks in ([raw], chunked(raw, 9), chunked(raw, 4096)):
            assert run(partial(fast.iter_sse, chunks, max_event_bytes=limit)) == run(
                partial(sse.iter_sse, chunks, max_event_bytes=limit)
            )


# JSON text around strings: escapes of every kind (split anywhere by the fragments),
# surrogate pairs and lone halves, control characters, non-ASCII, quotes.
STRING_PIECES = [
    "a",
    "é",
    "→",
    "😀",
    "\\n",
    '\\"',
    "\\\\",
    "\\/",
    "\\t",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\\ude00",
    "\\x",
    "\\u12",
    "\t",
    "\x01",
    "\ud800",
    " ",
    ",",
]
json_texts = st.lists(
    st.lists(st.sampled_from(STRING_PIECES), max_size=12).map("".join), min_size=1, max_size=4
).map(lambda strings: "[" + ", ".join(f'"{text}"' for text in strings) + ', {"k": 1}]')


def parsed(parser_class, fragments):  # -> (changes and snapshots per fragment, the error or None)
    parser, seen = parser_class(), []
    try:
        for fragment in fragments:
            seen.append((parser.feed(fragment), parser.snapshot(True) if parser.position else None))
    except PartialJSONError as error:
        return seen, (error.message, error.offset)
    return seen, None


@given(st.data(), json_texts)
def test_the_fast_parser_gives_the_changes_snapshots_and_errors_of_the_plain_one(data, text):
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=10)))
    bounds = [0, *cuts, len(text)]
    fragments = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    assert parsed(FastPartialJSONParser, fragments) == parsed(PartialJSONParser, fragments)


# Nested values of every kind, written as JSON with and without spaces.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from("abc"), children, max_size=3)
    ),
    max_leaves=25,
)


@given(st.data(), json_values, st.booleans(), st.booleans())
def test_fast_snapshots_equal_the_plain_ones_and_stay_as_taken(data, value, compact, trailing):
    text = json.dumps(value, separators=(",", ":") if compact else None)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    fast_one, plain, taken = FastPartialJSONParser(), PartialJSONParser(), []
    for a, b in zip(bounds, bounds[1:], strict=False):
        if b > a:
            fast_one.feed(text[a:b])
            plain.feed(text[a:b])
            try:
                snapshot = fast_one.snapshot(trailing)
            except PartialJSONError:
                with pytest.raises(PartialJSONError):
                    plain.snapshot(trailing)
                continue
            assert snapshot == plain.snapshot(trailing)
            taken.append((snapshot, json.dumps(snapshot)))
    # A value that ends is shared by the snapshots after it, but what grows later
    # never shows in a snapshot taken before.
    assert [json.dumps(snapshot) for snapshot, _ in taken] == [then for _, then in taken]
    assert fast_one.snapshot() == value


@given(st.data(), json_texts)
def test_fast_read_string_stops_where_the_plain_one_does_with_the_same_text(data, text):
    pos = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(pos, len(text)))
    assert fast.read_string(text[:end], pos) == read_string(text[:end], pos)


# JSON text for the parser's runs of small values (`FastPartialJSONParser._run`):
# values written as raw text (every literal and number form, numbers too long or
# out of range, strings and keys with and without escapes) nested in lists and
# dicts, with and without spaces; then, often, a token that breaks it put in
# somewhere (a leading zero, a cut exponent, a trailing comma, a stray character).
SMALL_VALUES = [
    "true",
    "false",
    "null",
    "NaN",
    "Infinity",
    "-Infinity",
    "0",
    "-0",
    "1.5",
    "1E+2",
    "-2e-3",
    "1e400",
    "-1e400",
    "12345678901234567890",
    "7" * 120,
    "0." + "5" * 120,
    '"k"',
    '"a b"',
    '""',
    '"é→"',
    '"\\n"',
    '"\\u00e9"',
    '"\\ud83d"',
    '"\\""',
    '"\ud800"',  # a surrogate, and a control character: no string holds them
    '"\x01"',
]
KEYS = ['"k"', '"a b"', '""', '"é"', '"\\t"', '"\\u006b"', '"\ud800"', '"\x01"']
FAULTS = [
    "01",
    "1.",
    "-",
    "2e-",
    "tru",
    "x",
    ",",
    "]",
    "}",
    ":",
    '"\x01"',
    '"\ud800"',
    '"\\x"',
    " ",
]
raw_values = st.recursive(
    st.sampled_from(SMALL_VALUES),
    lambda inner: (
        st.lists(inner, max_size=5).map(lambda items: ("list", items))
        | st.lists(st.tuples(st.sampled_from(KEYS), inner), max_size=5).map(
            lambda items: ("dict", items)
        )
    ),
    max_leaves=30,
)


def written(value, comma, colon):
    if type(value) is str:
        return value
    kind, items = value
    if kind == "list":
        return "[" + comma.join(written(item, comma, colon) for item in items) + "]"
    return "{" + comma.join(k + colon + written(item, comma, colon) for k, item in items) + "}"


@st.composite
def token_texts(draw):
    value = draw(raw_values.filter(lambda value: type(value) is tuple))
    text = written(
        value, draw(st.sampled_from([",", ", ", " ,\n"])), draw(st.sampled_from([":", ": "]))
    )
    if draw(st.booleans()):
        where = draw(st.integers(0, len(text)))
        text = text[:where] + draw(st.sampled_from(FAULTS)) + text[where:]
    return text


def parsed_with(parser_class, fragments, options, trailing):
    # -> (per fragment: changes, snapshot or its error; the error that stopped it; state)
    parser, seen = parser_class(**options), []
    try:
        for fragment in fragments:
            changes = parser.feed(fragment)
            try:
                snapshot = ("value", parser.snapshot(trailing))
            except PartialJSONError as error:
                snapshot = ("error", error.message, error.offset)
            seen.append((changes, snapshot))
    except PartialJSONError as error:
        return seen, (error.message, error.offset), parser.position
    return seen, None, (parser.position, parser.done)


@given(
    st.data(),
    token_texts(),
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, 2, 200]),
    st.booleans(),
    st.sampled_from([0, 256]),
)
@example(
    data=None,
    text='{"t": {"rows": [{"id": 1, "ok": true}, 2]}}',
    track=True,
    nan=False,
    depth=200,
    trailing=False,
    long_text=0,
)
@example(
    data=None,
    text="[1e400, -1e400]",
    track=False,
    nan=False,
    depth=None,
    trailing=True,
    long_text=256,
)
@example(
    data=None, text='{"a": 1, }', track=True, nan=True, depth=None, trailing=True, long_text=256
)
def test_the_fast_parser_reads_runs_of_small_values_as_the_plain_one(
    data, text, track, nan, depth, trailing, long_text
):
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=8))) if data else []
    bounds = [0, *cuts, len(text)]
    fragments = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
    options = {"track_changes": track, "allow_inf_nan": nan, "max_depth": depth}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fast, "LONG_TEXT", long_text)  # 0: every string read as in a long text
        fast_result = parsed_with(FastPartialJSONParser, fragments, options, trailing)
    # (repr: 1 and 1.0, 0.0 and -0.0, are equal, but not the same value)
    assert repr(fast_result) == repr(parsed_with(PartialJSONParser, fragments, options, trailing))


def test_a_long_text_is_read_without_copying_what_follows_each_string_or_escape():
    # One feed of a long text (a preview read after many fragments) reads each
    # string, and each run between escapes, on its own: no copy of the rest of
    # the text each time (the square of its length).
    import tracemalloc

    table = "[" + ", ".join(['"a\\tb"'] * 20_000) + "]"
    escaped = '["' + "\\u6d41" * 20_000 + '"]'
    tracemalloc.start()
    try:
        assert fast.read_string(table, 2) == ("a\tb", 6)
        assert fast.read_string(escaped, 2) == ("", 2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000 < len(table)
    for text, value in ((table, ["a\tb"] * 20_000), (escaped, ["流" * 20_000])):
        parser = FastPartialJSONParser(track_changes=False)
        parser.feed(text)
        assert parser.snapshot() == value


def test_the_accumulator_parses_tool_input_with_the_fast_parser():
    acc = streaming_lib.MessageAccumulator()
    acc.feed({"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}})
    tool = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    acc.feed({"type": "content_block_start", "index": 0, "content_block": tool})
    assert type(acc.input_parsers[0]) is FastPartialJSONParser


# JSON documents, and texts near them: cut, or with a character put in (jiter refuses
# some that json.loads takes: a lone surrogate escape, a str that is not UTF-8).
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.sampled_from(["a", "é", "😀", '"', "\\", "\n", "\ud800", "\x01"])),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "type", "\ud83d"]), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def json_like_texts(draw):
    text = json.dumps(draw(json_values), ensure_ascii=draw(st.booleans()))
    where = draw(st.integers(0, len(text)))
    return draw(
        st.sampled_from(
            [
                text,
                text[:where],
                text[:where]
                + draw(st.sampled_from(["x", '"', ",", "]", "\ud800", "\\ud800"]))
                + text[where:],
                "[" * 201 + text + "]" * 201,
                "[" * 200 + text + "]" * 200,
            ]
        )
    )


def loaded(load, text, **options):  # -> the value's repr (-0.0, nan) or the error
    try:
        return "value", repr(load(text, **options))
    except ValueError as error:
        return "error", type(error), str(error)


@given(json_like_texts(), st.sampled_from(["keep", "replace"]), st.booleans())
def test_fast_load_json_gives_the_values_and_errors_of_events_load_json(text, surrogates, nan):
    options = {"lone_surrogates": surrogates, "allow_nan": nan}
    assert loaded(fast.load_json, text, **options) == loaded(events.load_json, text, **options)


# -- MessageAccumulator.feed_each against feed, event by event -----------------------

# Events of every kind the accumulator's fast path could meet, good and bad: pieces
# with a lone surrogate (a gateway cut a character's UTF-16 pair), indices that are
# not ints, deltas to blocks of the other type, to stopped or unknown blocks.
PIECE_VALUES = ["ab", "", "é→", "\ud83d", "\ude00", "\ud83d\ude00", '{"a": ', "1}", 7, None]
DELTA_KINDS = [
    ("text_delta", "text"),
    ("thinking_delta", "thinking"),
    ("input_json_delta", "partial_json"),
]
delta_events = st.builds(
    lambda index, kind, piece: {
        "type": "content_block_delta",
        "index": index,
        "delta": {"type": kind[0], kind[1]: piece},
    },
    st.sampled_from([0, 0, 0, 1, 1, 2, True, "1"]),
    st.sampled_from(DELTA_KINDS),
    st.sampled_from(PIECE_VALUES),
)
OTHER_EVENTS = [
    {"type": "message_start", "message": {"id": "m", "content": []}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "thinking"}},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t"}},
    {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "u"}},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "text", "text": "\ude00"},
    },
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_stop", "index": 1},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
    {"type": "message_stop"},
    {"type": "ping"},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "other_delta"}},
    {"type": "content_block_delta", "index": 0, "delta": "text"},
    {"type": "content_block_delta", "index": 0},
    {"type": "something_new"},
    ["not", "an", "object"],
]
START = OTHER_EVENTS[:3]
api_event_lists = st.lists(
    st.one_of(delta_events, delta_events, st.sampled_from(OTHER_EVENTS)), max_size=40
).map(lambda events: [*START, *events])


def state_of(acc):  # what a reader of the accumulator sees, and what a preview reads
    return (
        acc.event_number,
        acc.text_added,
        acc.complete,
        sorted(acc.stopped),
        acc.input_changes,
        acc.snapshot(),
    )


def fed(feed, event):  # -> the error raised (its kind, text, event number, partial) or None
    try:
        feed(event)
        error = None
    except StreamError as caught:
        error = (type(caught).__name__, str(caught), caught.event_number, caught.partial)
    return error


def json_delta(index, text):
    delta = {"type": "input_json_delta", "partial_json": text}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def text_delta(index, text):
    delta = {"type": "text_delta", "text": text}
    return {"type": "content_block_delta", "index": index, "delta": delta}


@given(api_event_lists)
# A high surrogate held from the last piece: the next one, plain as it is, is mended.
@example([*START, text_delta(0, "x"), text_delta(0, "\ud83d"), text_delta(0, "ab")])
# A piece for a block that stopped is refused, though its parts list is still there.
@example([*START, text_delta(0, "x"), OTHER_EVENTS[6], text_delta(0, "ab")])
# After message_stop, nothing more.
@example([*START, text_delta(0, "x"), OTHER_EVENTS[9], text_delta(0, "ab")])
def test_feed_each_leaves_the_accumulator_as_feed_does_after_every_event(events_in):
    plain, fast_one = streaming_lib.MessageAccumulator(), streaming_lib.MessageAccumulator()
    for event in events_in:
        error = fed(plain.feed, event)
        assert fed(lambda e: fast_one.feed_each([e]), event) == error
        assert state_of(fast_one) == state_of(plain)
        if error:
            break


@given(api_event_lists)
def test_feed_each_over_a_list_stops_at_message_stop_and_keeps_every_event_read(events_in):
    plain, fast_one = streaming_lib.MessageAccumulator(), streaming_lib.MessageAccumulator()
    kept: list = []
    read = 0
    try:
        for read, event in enumerate(events_in, 1):  # noqa: B007
            plain.feed(event)
            if plain.complete:
                break
        plain_error = None
    except StreamError as caught:
        plain_error = (type(caught).__name__, str(caught))
    try:
        stopped = fast_one.feed_each(events_in, kept.append)
        fast_error = None
    except StreamError as caught:
        stopped, fast_error = None, (type(caught).__name__, str(caught))
    assert fast_error == plain_error
    assert kept == events_in[:read]
    assert state_of(fast_one) == state_of(plain)
    if fast_error is None:
        assert stopped is plain.complete


# -- feed_chunk (the decoder appending pieces itself) against feed, chunk by chunk ----


def wire(events_in, names):
    """The events as SSE bytes: each named by its type, by another name or not at
    all (`names`), its data as `json.dumps` writes it (a lone surrogate escaped)."""
    out = []
    for event, how in zip(events_in, names, strict=False):
        kind = event.get("type") if isinstance(event, dict) else None
        name = {"own": kind, "delta": "content_block_delta", "none": None}[how]
        head = f"event: {name}\n" if isinstance(name, str) else ""
        out.append(f"{head}data: {json.dumps(event)}\n\n".encode("utf-8", "surrogatepass"))
    return b"".join(out)


def fed_chunks(reader, chunks):  # -> the state after each chunk (None: the end), the error
    states = []
    for chunk in [*chunks, None]:
        error = fed(reader, chunk)
        states.append(state_of(reader.acc))
        if error or reader.done:
            return states, error
    return states, None


class Plain:  # every event decoded, then given to `feed`: the rules' one home
    def __init__(self):
        self.acc, self.decoder = streaming_lib.MessageAccumulator(), FastEventDecoder()
        self.done = False

    def __call__(self, chunk):
        for event in self.decoder.feed(chunk) if chunk is not None else self.decoder.flush():
            self.acc.feed(event)
            if self.acc.complete:
                self.done = True
                return


class Fast(Plain):  # the pieces appended by the decoder itself
    def __call__(self, chunk):
        self.done = feed_chunk(self.acc, self.decoder, chunk, None)


THINKING = {"type": "content_block_delta", "index": 1, "delta": {"type": "thinking_delta"}}


@given(
    api_event_lists,
    st.lists(st.sampled_from(["own", "own", "own", "delta", "none"]), max_size=50),
    st.sets(st.integers(0, 4000), max_size=8),
)
# A chunk ends with a piece the decoder took: `text_added` is that piece.
@example([*START, text_delta(0, "x"), text_delta(0, "yz")], [], {999})
# `True` is 1 to a dict, but not an index: refused, not appended to block 1.
@example(
    [
        *START,
        *[{**THINKING, "delta": {"type": "thinking_delta", "thinking": "a"}}] * 2,
        {**THINKING, "index": True, "delta": {"type": "thinking_delta", "thinking": "b"}},
    ],
    [],
    set(),
)
# A high surrogate held: the next pieces go to `feed`, which mends them.
@example([*START, text_delta(0, "x"), text_delta(0, "\ud83d"), text_delta(0, "ab")], [], set())
# A block that stopped takes no more pieces, though its list is still there.
@example([*START, *[text_delta(0, "x")] * 2, OTHER_EVENTS[6], text_delta(0, "y")], [], set())
# The last event a tool input fragment the decoder took: `input_changes` says what it changed.
@example([*START, OTHER_EVENTS[4], *[json_delta(2, '{"a": '), json_delta(2, "1}")]], [], set())
def test_feed_chunk_leaves_the_accumulator_as_feed_does_after_every_chunk(events_in, names, cuts):
    names = names + ["own"] * (len(events_in) - len(names))
    raw = wire(events_in, names)
    bounds = [0, *sorted(cut for cut in cuts if cut < len(raw)), len(raw)]
    chunks = [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert fed_chunks(Fast(), chunks) == fed_chunks(Plain(), chunks)


def test_events_fed_by_hand_between_chunks_are_seen_by_the_pieces_the_decoder_takes():
    # feed_chunk, then a block's stop fed by hand, then a chunk with a piece for it:
    # refused as `feed` refuses it, never appended to the stopped block.
    head = [*START, text_delta(0, "x"), text_delta(0, "y")]
    plain, fast_one = streaming_lib.MessageAccumulator(), streaming_lib.MessageAccumulator()
    decoder = FastEventDecoder()
    assert not feed_chunk(fast_one, decoder, wire(head, ["own"] * len(head)), None)
    for event in head:
        plain.feed(event)
    for acc in (plain, fast_one):
        acc.feed(OTHER_EVENTS[6])  # content_block_stop, index 0
    late = text_delta(0, "z")
    error = fed(plain.feed, late)
    assert error is not None
    assert (
        fed(lambda chunk: feed_chunk(fast_one, decoder, chunk, None), wire([late], ["own"]))
        == error
    )
    assert state_of(fast_one) == state_of(plain)
