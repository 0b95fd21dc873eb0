"""Stage 2, the SSE parser: the WHATWG "event stream interpretation" rules, one test each."""

import pytest

from streaming_lib import ServerSentEvent, SizeLimitError, SSEDecoder, iter_sse, parse_sse
from streaming_lib.tools.fixtures import chunked, read_fixture


def events(text: str) -> list[ServerSentEvent]:
    """The events of `text` (its lines split at LF), from both parsers: `parse_sse`
    feeds `SSEDecoder.feed_line`, `iter_sse` has a fast path of its own."""
    staged = list(parse_sse(text.split("\n")))
    assert list(iter_sse([text.encode() + b"\n"])) == staged
    return staged


def test_a_blank_line_dispatches_the_event():
    assert events("event: ping\ndata: {}\n\n") == [ServerSentEvent("ping", "{}")]


def test_the_event_type_defaults_to_message():
    assert events("data: hi\n\n") == [ServerSentEvent("message", "hi")]


def test_data_lines_are_joined_with_lf():
    assert events("data: a\ndata:b\ndata\n\n")[0].data == "a\nb\n"


def test_only_one_leading_space_is_removed():
    assert events("data:  two\n\n")[0].data == " two"


def test_a_comment_line_is_ignored():
    assert events(": keep-alive\ndata: x\n: more\n\n") == [ServerSentEvent("message", "x")]


def test_a_field_with_no_colon_has_an_empty_value():
    # "data" alone appends an empty line: the data buffer is no longer empty.
    assert events("data\n\n") == [ServerSentEvent("message", "")]


def test_an_empty_data_field_dispatches_an_event_with_empty_data():
    assert events("event: x\ndata:\n\n") == [ServerSentEvent("x", "")]


def test_a_block_of_only_event_or_id_lines_dispatches_nothing():
    assert events("event: lonely\n\nid: 7\n\n") == []


def test_the_event_type_is_reset_after_dispatch_even_without_data():
    assert events("event: a\n\ndata: x\n\n") == [ServerSentEvent("message", "x")]


def test_the_last_event_id_persists_across_events():
    got = events("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n")
    assert [e.id for e in got] == ["1", "1", ""]


def test_an_id_containing_nul_is_ignored():
    assert events("id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n")[1].id == "1"


def test_the_last_event_id_set_in_a_dataless_block_carries_on():
    assert events("id: 5\n\ndata: x\n\n")[0].id == "5"


def test_retry_is_taken_only_when_all_ascii_digits():
    decoder = SSEDecoder()
    for line in ["retry: 3000", "retry: 12a", "retry: -1", "retry: ３", "data: x"]:
        decoder.feed_line(line)
    event = decoder.feed_line("")
    assert event.retry == 3000 and decoder.reconnection_time == 3000


def test_retry_belongs_to_the_event_it_was_sent_with():
    got = events("retry: 10\ndata: a\n\ndata: b\n\n")
    assert [e.retry for e in got] == [10, None]


def test_a_retry_in_a_block_without_data_is_given_to_no_event():
    # The block is not dispatched, but its blank line still empties the buffers;
    # the reconnection time itself is kept.
    assert [e.retry for e in events("retry: 1500\n\ndata: x\n\n")] == [None]
    decoder = SSEDecoder()
    for line in ["retry: 1500", "", "data: x"]:
        decoder.feed_line(line)
    assert decoder.feed_line("").retry is None and decoder.reconnection_time == 1500


def test_unknown_fields_are_ignored():
    assert events("foo: bar\ndata: x\n\n") == [ServerSentEvent("message", "x")]


def test_field_names_are_case_sensitive():
    assert events("Data: x\nEVENT: y\ndata: z\n\n") == [ServerSentEvent("message", "z")]


def test_a_value_may_contain_colons():
    assert events('data: {"a": ":"}\n\n')[0].data == '{"a": ":"}'


def test_an_unterminated_final_event_is_not_dispatched():
    assert events("data: a\n\ndata: cut") == [ServerSentEvent("message", "a")]
    assert list(iter_sse([b"data: a\n\ndata: cut\n"])) == [ServerSentEvent("message", "a")]


def test_the_decoder_state_is_readable_between_lines():
    decoder = SSEDecoder()
    decoder.feed_line("event: content_block_delta")
    decoder.feed_line("data: {")
    assert decoder.event_type == "content_block_delta"
    assert decoder.data_lines == ["{"]
    decoder.feed_line("")
    assert decoder.event_type == "" and decoder.data_lines == []


def test_json_decodes_the_data():
    assert ServerSentEvent("x", '{"a": [1]}').json() == {"a": [1]}


def test_cr_only_streams_parse_like_lf_streams():
    assert list(iter_sse([b"event: a\rdata: 1\r\r"])) == [ServerSentEvent("a", "1")]


def test_crlf_streams_split_at_every_offset_parse_alike():
    raw = b"event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n"
    whole = list(iter_sse([raw]))
    assert len(whole) == 2
    for cut in range(len(raw) + 1):
        assert list(iter_sse([raw[:cut], raw[cut:]])) == whole


def test_the_fixture_has_eighteen_events_at_every_chunk_size():
    raw = read_fixture()
    whole = list(iter_sse([raw]))
    assert len(whole) == 18
    assert [e.event for e in whole[:3]] == ["message_start", "content_block_start", "ping"]
    for size in (1, 3, 7, 64):
        assert list(iter_sse(chunked(raw, size))) == whole


def test_the_fixture_split_in_two_at_every_offset_gives_the_same_events():
    raw = read_fixture()
    whole = list(iter_sse([raw]))
    for cut in range(len(raw) + 1):
        assert list(iter_sse([raw[:cut], raw[cut:]])) == whole, cut


def test_an_absurdly_long_retry_is_ignored_not_a_crash():
    got = events("retry: " + "9" * 5000 + "\ndata: x\n\n")
    assert got == [ServerSentEvent("message", "x")]


def test_leading_zeros_do_not_make_a_retry_too_long():
    assert events("retry: " + "0" * 5000 + "1500\ndata: x\n\n")[0].retry == 1500
    assert events("retry: 000\ndata: x\n\n")[0].retry == 0


# -- a limit on an event's data (ours: hostile input must not fill memory) -------


def test_a_data_line_that_takes_the_data_buffer_past_the_limit_is_refused():
    decoder = SSEDecoder(max_event_bytes=8)
    decoder.feed_line("data: abc")  # 4 bytes: "abc" and its LF
    decoder.feed_line("data: é")  # 3 more: "é" is 2 bytes in UTF-8
    with pytest.raises(SizeLimitError) as caught:
        decoder.feed_line("data: xy")
    assert caught.value.limit == 8 and caught.value.offset is None
    assert decoder.data_lines == ["abc", "é"]  # the line was not kept


def test_an_event_whose_data_buffer_is_exactly_the_limit_is_dispatched():
    text = "data:abc\ndata:é\ndata:\n\n"  # 4 + 3 + 1 bytes, and no line longer than 8 bytes
    assert list(parse_sse(text.split("\n"), max_event_bytes=8)) == [
        ServerSentEvent(data="abc\né\n")
    ]
    assert list(iter_sse([text.encode()], max_event_bytes=8)) == [ServerSentEvent(data="abc\né\n")]


def test_the_limit_is_per_event():
    text = b"data: abcdef\n\n" * 3
    for size in (1, 2, 7, len(text)):
        assert len(list(iter_sse(chunked(text, size), max_event_bytes=12))) == 3  # 7 bytes each


def test_an_event_of_endless_short_data_lines_is_refused_before_it_is_held_whole():
    sent = 0

    def endless():  # one event that never ends: "data: x" forever, a line at a time
        nonlocal sent
        for _ in range(10**7):
            sent += 1
            yield b"data: x\n"

    with pytest.raises(SizeLimitError) as caught:
        list(iter_sse(endless(), max_event_bytes=1000))
    assert caught.value.limit == 1000 and sent == 501  # 2 bytes a line: refused at the 501st


@pytest.mark.parametrize("size", [1, 2, 7, None])
def test_an_oversized_event_is_refused_after_the_events_before_it_whatever_the_chunks(size):
    raw = b"data: first\n\n" + b"data: 0123456789\n" * 3 + b"\ndata: last\n\n"
    got = []
    with pytest.raises(SizeLimitError):
        for event in iter_sse(chunked(raw, size) if size else [raw], max_event_bytes=30):
            got.append(event.data)
    assert got == ["first"]


def test_an_event_of_many_data_lines_is_the_same_whatever_the_chunks():
    # iter_sse keeps an open event's lines joined in groups: the data must not show it.
    raw = b"event: x\n" + b"".join(b"data: %d\n" % i for i in range(300)) + b"data:\n\n"
    expected = list(parse_sse(raw.decode().split("\n")))
    assert expected[0].data == "\n".join(map(str, range(300))) + "\n"
    for size in (1, 2, 7, len(raw)):
        assert list(iter_sse(chunked(raw, size))) == expected


# -- the WHATWG specification's own examples (HTML Standard, 9.2.6 "Interpreting an event stream")
# Each stream is the spec's, byte for byte; each is read whole and in 1, 2 and 7-byte
# chunks, by the plain stages (`streaming_lib.sse.iter_sse`) and by the fast path.


def every_reading(raw: bytes) -> list[list[ServerSentEvent]]:
    from streaming_lib.sse import iter_sse as plain_iter_sse

    return [
        list(read(chunks))
        for read in (iter_sse, plain_iter_sse)
        for chunks in ([raw], chunked(raw, 1), chunked(raw, 2), chunked(raw, 7))
    ]


def spec_example_gives(raw: bytes, expected: list[ServerSentEvent]) -> None:
    for got in every_reading(raw):
        assert got == expected


def test_spec_example_the_three_data_lines_of_one_block_make_one_event_yhoo_plus_2_10():
    # "would cause an event message ... The event's data attribute would contain
    # the string "YHOO\n+2\n10"".
    spec_example_gives(
        b"data: YHOO\ndata: +2\ndata: 10\n\n", [ServerSentEvent("message", "YHOO\n+2\n10")]
    )


def test_spec_example_test_stream_a_comment_fires_nothing_id_sets_then_resets_the_last_event_id():
    # Three blocks that fire: "first event" (then the last event ID is "1"), "second event"
    # (whose "id" field with no value resets it to the empty string), and " third event"
    # with its leading space; the last block has no blank line after it, so fires nothing...
    raw = (
        b": test stream\n\n"
        b"data: first event\nid: 1\n\n"
        b"data:second event\nid\n\n"
        b"data:  third event\n"
    )
    spec_example_gives(
        raw,
        [
            ServerSentEvent("message", "first event", "1"),
            ServerSentEvent("message", "second event", ""),
        ],
    )
    # ...and with the blank line it fires " third event", the single leading space kept.
    spec_example_gives(
        raw + b"\n",
        [
            ServerSentEvent("message", "first event", "1"),
            ServerSentEvent("message", "second event", ""),
            ServerSentEvent("message", " third event", ""),
        ],
    )


def test_spec_example_data_data_data_a_bare_data_line_is_an_empty_string_and_two_make_one_newline():
    # "The first block fires events with the data set to the empty string, as would the
    # last block if it was followed by a blank line. The middle block fires an event with
    # the data set to a single newline character. The last block is discarded because it
    # is not followed by a blank line."
    raw = b"data\n\ndata\ndata\n\ndata:"
    spec_example_gives(raw, [ServerSentEvent("message", ""), ServerSentEvent("message", "\n")])
    spec_example_gives(
        raw + b"\n\n",
        [
            ServerSentEvent("message", ""),
            ServerSentEvent("message", "\n"),
            ServerSentEvent("message", ""),
        ],
    )


def test_spec_example_data_test_with_and_without_the_space_fires_two_identical_events():
    # "The following stream fires two identical events ... the space after the colon is
    # ignored if present."
    spec_example_gives(b"data:test\n\ndata: test\n\n", [ServerSentEvent("message", "test")] * 2)
