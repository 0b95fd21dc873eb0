"""What the replay server sends, planned without a socket (lab/replay_plan.py).

Every test here runs with sockets forbidden: the plan is a function of the
request's options and the fixture's bytes alone.
"""

import doctest
import itertools
import socket

import pytest

import streaming_lib.lab.replay_plan
from streaming_lib import iter_sse
from streaming_lib.lab.replay_plan import (
    ERROR_TYPES,
    MAX_SECONDS,
    OVERLOADED,
    count,
    delays,
    error_headers,
    event_type,
    faults_left,
    load_source,
    options_from,
    plan_body,
    seconds,
    split_events,
)
from streaming_lib.tools.fixtures import MAIN_FIXTURE, fixture_names, read_fixture

FIXTURE = read_fixture("fixture")
FIRST_FIVE = b"".join(split_events(FIXTURE)[:5])  # message_start, block start, ping, two deltas
# Line endings to rewrite a stream with, used in turn. No order puts a lone CR
# right before a lone LF: the two would make a single CRLF.
ENDINGS = {
    "LF": (b"\n",),
    "CRLF": (b"\r\n",),
    "CR": (b"\r",),
    "LF,CRLF": (b"\n", b"\r\n"),
    "CR,CRLF,LF": (b"\r", b"\r\n", b"\n"),
}


@pytest.fixture(autouse=True)
def no_sockets(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the replay plan opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)


def events(raw):
    return [(event.event, event.data) for event in iter_sse([raw])]


def with_endings(raw, endings):
    """`raw` with its line endings replaced by `endings`, one after the other, in a cycle."""
    *lines, last = raw.replace(b"\r\n", b"\n").split(b"\n")
    return b"".join(line + ending for line, ending in zip(lines, itertools.cycle(endings))) + last


# -- which bytes: one piece per event -----------------------------------------------------------


@pytest.mark.parametrize("endings", ENDINGS.values(), ids=ENDINGS)
@pytest.mark.parametrize("name", fixture_names())
def test_each_piece_holds_at_most_one_of_the_events_our_decoders_see_whatever_the_line_endings(
    name, endings
):
    raw = with_endings(read_fixture(name), endings)
    pieces = split_events(raw)
    assert b"".join(pieces) == raw
    assert all(len(events(piece)) <= 1 for piece in pieces)
    assert [event for piece in pieces for event in events(piece)] == events(raw)


def test_a_crlf_is_one_line_ending_not_a_line_ending_then_a_blank_line():
    assert split_events(b"data: 1\r\ndata: 2\r\n") == [b"data: 1\r\ndata: 2\r\n"]
    assert split_events(b"data: 1\r\r\ndata: 2\n\r") == [b"data: 1\r\r\n", b"data: 2\n\r"]


# -- faults ---------------------------------------------------------------------------------------


def test_error_after_counts_events_whatever_the_line_endings():
    for endings in ENDINGS.values():
        pieces, hang_up = plan_body(with_endings(FIXTURE, endings), error_after=5)
        assert events(b"".join(pieces)) == events(FIRST_FIVE + OVERLOADED) and not hang_up


def test_drop_at_beyond_the_end_sends_everything_and_does_not_hang_up():
    assert plan_body(FIXTURE, drop_at=len(FIXTURE) + 1) == (split_events(FIXTURE), False)
    assert plan_body(FIXTURE, drop_at=len(FIXTURE)) == (split_events(FIXTURE), True)


@pytest.mark.parametrize("drop_at", [0, 1, 2, 7, 100, len(FIRST_FIVE)])
def test_drop_at_k_plans_exactly_the_first_k_bytes_then_a_hang_up(drop_at):
    pieces, hang_up = plan_body(FIXTURE, drop_at=drop_at)
    assert b"".join(pieces) == FIXTURE[:drop_at] and hang_up
    assert all(pieces)  # never an empty piece: it would be sent as a chunk of nothing


def test_a_drop_inside_the_overloaded_error_cuts_the_error_too():
    pieces, hang_up = plan_body(FIXTURE, error_after=5, drop_at=len(FIRST_FIVE) + 3)
    assert b"".join(pieces) == FIRST_FIVE + OVERLOADED[:3] and hang_up


# -- pacing ---------------------------------------------------------------------------------------


def test_pieces_are_paced_evenly_with_no_wait_before_the_first():
    pieces = split_events(FIXTURE)
    assert delays(pieces, 0.25) == [0.0] + [0.25] * (len(pieces) - 1)


@pytest.mark.parametrize("endings", ENDINGS.values(), ids=ENDINGS)
def test_first_token_delay_is_added_before_the_first_content_block_delta_only(endings):
    pieces = split_events(with_endings(FIXTURE, endings))
    waits = delays(pieces, 0.25, first_token_delay=3.0)
    first_delta = [event_type(piece) for piece in pieces].index("content_block_delta")
    assert waits[first_delta] == 3.25
    assert waits[:first_delta] + waits[first_delta + 1 :] == [0.0] + [0.25] * (len(pieces) - 2)


def test_a_stream_without_deltas_gets_no_first_token_delay():
    assert delays(
        [b"event: ping\ndata: {}\n\n", b"event: message_stop\ndata: {}\n\n"],
        0.5,
        first_token_delay=9.0,
    ) == [0.0, 0.5]


# -- options of a request -------------------------------------------------------------------------


def test_the_query_string_wins_over_the_x_replay_header():
    query = {"error_after": "2"}
    headers = {
        "x-replay-error-after": "7",
        "x-replay-first-token-delay": "1.5",
        "x-replay-fixture": "text_only",
    }
    assert options_from(query, headers) == {
        "error_after": 2,
        "first_token_delay": 1.5,
        "fixture": "text_only",
    }


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"drop_at": "-1"}, "drop_at='-1': expected a whole number, 0 or more"),
        ({"pace": "nan"}, f"pace='nan': expected a number of seconds from 0 to {MAX_SECONDS:g}"),
        ({"fixture": "../secrets"}, "fixture='../secrets': no such fixture; the fixtures are: "),
    ],
)
def test_a_bad_option_value_is_a_value_error_naming_the_option_and_the_value(query, message):
    with pytest.raises(ValueError) as caught:
        options_from(query, {})
    assert str(caught.value).startswith(message)


def test_zero_and_a_minute_are_still_allowed():
    assert (count("0"), seconds("0"), seconds("60")) == (0, 0.0, 60.0)


def test_the_source_is_bytes_as_given_an_sse_path_or_a_fixture_name():
    assert load_source(b"data: x\n\n") == b"data: x\n\n"
    assert (
        load_source(MAIN_FIXTURE)
        == load_source(str(MAIN_FIXTURE))
        == load_source("fixture")
        == FIXTURE
    )
    with pytest.raises(ValueError, match="no such fixture"):
        load_source("nosuch")


# -- errors before the body --------------------------------------------------------------------


def test_fail_times_keeps_the_faults_for_the_first_n_requests_then_drops_them():
    options = {"status": 529, "fail_times": 2, "retry_after": 1, "fixture": "text_only"}
    assert [faults_left(options, earlier) for earlier in range(3)] == [
        options,
        options,
        {"fixture": "text_only"},
    ]
    cut = {"drop_at": 300, "fail_times": 0}
    assert faults_left(cut, earlier=0) == {}


def test_without_fail_times_a_fault_hits_every_request():
    assert faults_left({"status": 500}, earlier=99) == {"status": 500}


def test_the_error_reply_headers_are_the_ones_asked_for():
    assert error_headers({"status": 429, "retry_after": 2, "x_should_retry": "true"}) == {
        "retry-after": "2",
        "x-should-retry": "true",
    }
    assert error_headers({"status": 500}) == {}


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"status": "418"}, "status='418': expected one of the API's error statuses: 400, "),
        ({"status": "200"}, "status='200': expected one of the API's error statuses"),
        ({"x_should_retry": "yes", "status": "500"}, "x_should_retry='yes': expected \"true\""),
        ({"retry_after": "1"}, "retry_after applies to a fault: ask for status too"),
        ({"fail_times": "2"}, "fail_times applies to a fault: ask for status or error_after or"),
    ],
)
def test_a_bad_error_option_is_a_value_error_that_says_what_is_expected(query, message):
    with pytest.raises(ValueError) as caught:
        options_from(query, {})
    assert str(caught.value).startswith(message)


def test_every_documented_status_has_its_error_type():
    assert ERROR_TYPES[429] == "rate_limit_error" and ERROR_TYPES[529] == "overloaded_error"
    assert all(400 <= status < 600 for status in ERROR_TYPES)


def test_the_module_examples_run():
    assert doctest.testmod(streaming_lib.lab.replay_plan).failed == 0
