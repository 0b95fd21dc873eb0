"""Our client helpers on real and mock connections (network.py): a connection held
open after `message_stop`, a stall longer than the read timeout, a cut.

Every helper returns at `message_stop` and hangs up, however long the server
keeps the body open; a stall or a cut becomes our typed error, with the
message so far and where it happened, never a raw httpx exception.
"""

import contextlib
import http.server
import socket
import threading

import anthropic._constants
import httpx
import pytest

from streaming_lib import (
    APIStreamError,
    IncompleteStreamError,
    StreamError,
    StreamTimeoutError,
    accumulate,
)
from streaming_lib.errors import NotAnEventStreamError
from streaming_lib.lab.network import (
    DEFAULT_TIMEOUT,
    body_chunks,
    open_stream,
    timed_stream,
    until_dropped,
)
from streaming_lib.lab.server import ReplayServer, split_events
from streaming_lib.tools.fixtures import chunked, read_fixture

PACE = 0.002
FIXTURE = read_fixture("fixture")
MESSAGE = accumulate(FIXTURE)
HOLD = 30  # seconds the server keeps the body open after the last event: far beyond any wait below
BEFORE_FIRST_TOKEN = b"".join(split_events(FIXTURE)[:3])  # message_start, content_block_start, ping
STALL = 5  # seconds before the first token, against...
SHORT = 0.2  # ...a read timeout this short
CUTS = [100, len(BEFORE_FIRST_TOKEN), len(BEFORE_FIRST_TOKEN) + 20, len(FIXTURE) - 10]


@pytest.fixture(scope="module")
def server():
    with ReplayServer("fixture", pace=PACE) as running:
        yield running


def ends_early(raw):
    """The IncompleteStreamError `accumulate` raises when the bytes simply end after `raw`."""
    with pytest.raises(IncompleteStreamError) as caught:
        accumulate(raw, keep_events=True)
    return caught.value


def failure(chunks):
    with pytest.raises(StreamError) as caught:
        accumulate(chunks, keep_events=True)
    return caught.value


# -- the read timeout ------------------------------------------------------------


def test_the_default_timeout_is_at_least_as_generous_as_the_sdks():
    sdk = anthropic._constants.DEFAULT_TIMEOUT
    assert DEFAULT_TIMEOUT.read >= sdk.read and DEFAULT_TIMEOUT.connect >= sdk.connect


def test_open_stream_sends_its_timeout_with_the_request_whatever_the_clients(server):
    with open_stream(server.url) as response:
        assert response.request.extensions["timeout"]["read"] == DEFAULT_TIMEOUT.read
    with (
        httpx.Client(timeout=1.0) as client,
        open_stream(server.url, client=client, timeout=7.5) as response,
    ):
        assert response.request.extensions["timeout"]["read"] == 7.5


# -- a connection held open after message_stop -------------------------------------------


def returns_before_the_hold_ends(server, read):
    """`read(url)` gives the final message, and the server saw the client leave while it
    still held the body open (had the client waited for the end, it would not count)."""
    before = server.disconnects
    assert read(server.url) == MESSAGE
    assert server.wait_for_disconnects(before + 1, timeout=HOLD / 3)


def test_accumulate_over_body_chunks_returns_at_message_stop_and_hangs_up(server):
    def read(url):
        with open_stream(url, params={"hold_open": HOLD}) as response:
            return accumulate(body_chunks(response))

    returns_before_the_hold_ends(server, read)


def test_accumulate_over_iter_bytes_returns_at_message_stop_and_hangs_up(server):
    def read(url):
        with open_stream(url, params={"hold_open": HOLD}) as response:
            return accumulate(response.iter_bytes())

    returns_before_the_hold_ends(server, read)


def test_accumulate_over_until_dropped_returns_at_message_stop_and_hangs_up(server):
    def read(url):
        with open_stream(url, params={"hold_open": HOLD}) as response:
            return accumulate(until_dropped(response.iter_bytes()))

    returns_before_the_hold_ends(server, read)


def test_timed_stream_returns_at_message_stop_and_hangs_up(server):
    def read(url):
        timed = timed_stream(url, params={"hold_open": HOLD})
        assert (
            timed.error is None
            and not timed.interrupted
            and timed.event_types[-1] == "message_stop"
        )
        return timed.message

    returns_before_the_hold_ends(server, read)


def test_a_stream_whose_body_ends_at_message_stop_is_read_to_its_end_not_cut():
    with ReplayServer(
        "fixture", pace=0
    ) as own:  # its own counter: no other test's hang-up lands here
        assert timed_stream(own.url).message == MESSAGE
        with open_stream(own.url) as response:
            assert accumulate(body_chunks(response)) == MESSAGE
        assert not own.wait_for_disconnects(1, timeout=0.3)


# -- a stall longer than the read timeout ------------------------------------------------


def stalls(error):
    """`error` is the stall before the first token of FIXTURE.

    It carries everything that came before it.
    """
    assert isinstance(error, StreamTimeoutError) and isinstance(error, IncompleteStreamError)
    assert isinstance(error.__cause__, httpx.ReadTimeout)
    assert (error.timeout, error.offset, error.event_number) == (SHORT, len(BEFORE_FIRST_TOKEN), 3)
    assert error.partial == ends_early(BEFORE_FIRST_TOKEN).partial
    assert error.partial["content"] == [{"type": "text", "text": ""}]
    assert (
        f"read timeout: nothing arrived for {SHORT:g} s after {len(BEFORE_FIRST_TOKEN)} bytes"
        in str(error)
    )


def test_a_stall_past_the_read_timeout_is_a_timeout_error_with_the_message_so_far(server):
    with open_stream(server.url, params={"first_token_delay": STALL}, timeout=SHORT) as response:
        error = failure(body_chunks(response))
    stalls(error)
    assert [event["type"] for event in error.events] == [
        "message_start",
        "content_block_start",
        "ping",
    ]


def test_until_dropped_raises_a_stall_rather_than_ending_the_bytes(server):
    with open_stream(server.url, params={"first_token_delay": STALL}, timeout=SHORT) as response:
        stalls(failure(until_dropped(response.iter_bytes())))


def test_timed_stream_keeps_a_stall_as_its_error(server):
    timed = timed_stream(server.url, params={"first_token_delay": STALL}, timeout=SHORT)
    stalls(timed.error)
    assert timed.message == timed.error.partial and timed.dropped is None
    assert timed.event_types == ["message_start", "content_block_start", "ping"]


def test_a_stall_shorter_than_the_read_timeout_is_no_error(server):
    timed = timed_stream(server.url, params={"first_token_delay": 3 * SHORT}, timeout=10 * SHORT)
    assert timed.error is None and timed.message == MESSAGE


@pytest.fixture
def silent_server():
    """A port that accepts connections (the kernel completes them) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


def test_no_headers_within_the_read_timeout_is_a_timeout_error_before_any_byte(silent_server):
    with pytest.raises(StreamTimeoutError) as caught, open_stream(silent_server, timeout=SHORT):
        pass
    assert (caught.value.offset, caught.value.partial, caught.value.timeout) == (None, None, SHORT)
    assert "before the response headers" in str(caught.value)
    timed = timed_stream(silent_server, timeout=SHORT)
    assert isinstance(timed.error, StreamTimeoutError) and (timed.status_code, timed.message) == (
        0,
        None,
    )


# -- a cut connection ------------------------------------------------------------------------


@pytest.mark.parametrize("cut", CUTS)
def test_a_cut_connection_is_an_incomplete_stream_with_what_the_bytes_up_to_the_cut_give(
    server, cut
):
    with open_stream(server.url, params={"drop_at": cut}) as response:
        error = failure(body_chunks(response))
    assert type(error) is IncompleteStreamError and isinstance(
        error.__cause__, httpx.RemoteProtocolError
    )
    assert error.offset == cut and f"the connection was cut after {cut} bytes of the body" in str(
        error
    )
    expected = ends_early(FIXTURE[:cut])
    assert (error.partial, error.event_number, error.events) == (
        expected.partial,
        expected.event_number,
        expected.events,
    )


def test_a_server_that_cannot_be_reached_is_httpxs_error_there_being_no_stream():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]  # bound, not listening: connections are refused
        with pytest.raises(httpx.ConnectError), open_stream(f"http://127.0.0.1:{closed_port}"):
            pass


# -- every httpx failure, at every chunking (a mock transport) -----------------------------------


class FailingBody(httpx.SyncByteStream):
    """A body that yields `chunks`, then raises `error` as httpx's transport would."""

    def __init__(self, chunks, error):
        self.chunks, self.error = chunks, error

    def __iter__(self):
        yield from self.chunks
        raise self.error


FAILURES = {
    "reset": (httpx.ReadError("connection reset by peer"), IncompleteStreamError),
    "incomplete chunked read": (
        httpx.RemoteProtocolError("incomplete chunked read"),
        IncompleteStreamError,
    ),
    "close error": (httpx.CloseError("close failed"), IncompleteStreamError),
    "read timeout": (httpx.ReadTimeout("timed out"), StreamTimeoutError),
}


def mock_client(respond):
    return httpx.Client(transport=httpx.MockTransport(respond))


@pytest.mark.parametrize("size", [1, 2, 7, None], ids=["1", "2", "7", "whole"])
@pytest.mark.parametrize("name", FAILURES)
def test_each_transport_failure_becomes_its_typed_error_at_every_chunking(name, size):
    httpx_error, expected_class = FAILURES[name]
    for cut in CUTS:
        head = FIXTURE[:cut]
        body = FailingBody(chunked(head, size) if size else [head], httpx_error)
        with (
            mock_client(lambda request, body=body: httpx.Response(200, stream=body)) as client,
            open_stream("http://mock", client=client, timeout=3.0) as response,
        ):
            error = failure(body_chunks(response))
        expected = ends_early(head)
        assert (
            type(error) is expected_class and error.__cause__ is httpx_error and error.offset == cut
        )
        assert (error.partial, error.event_number) == (expected.partial, expected.event_number)
        if expected_class is StreamTimeoutError:
            assert error.timeout == 3.0


@pytest.mark.parametrize("name", FAILURES)
def test_each_transport_failure_before_the_headers_becomes_its_typed_error(name):
    httpx_error, expected_class = FAILURES[name]

    def respond(request):
        raise httpx_error

    with (
        mock_client(respond) as client,
        pytest.raises(expected_class) as caught,
        open_stream("http://mock", client=client),
    ):
        pass
    assert (
        type(caught.value) is expected_class
        and caught.value.offset is None
        and caught.value.partial is None
    )


def test_raw_chunks_count_the_bytes_on_the_wire():
    body = FailingBody([FIXTURE[:50], FIXTURE[50:90]], httpx.ReadError("reset"))
    with (
        mock_client(lambda request: httpx.Response(200, stream=body)) as client,
        open_stream("http://mock", client=client) as response,
    ):
        chunks = body_chunks(response, raw=True)
        assert [next(chunks), next(chunks)] == [FIXTURE[:50], FIXTURE[50:90]]
        with pytest.raises(IncompleteStreamError) as caught:
            next(chunks)
    assert caught.value.offset == 90


def test_a_done_sentinel_after_message_stop_changes_nothing_for_any_helper():
    with ReplayServer(FIXTURE + b"event: done\ndata: [DONE]\n\n", pace=PACE) as sentinel:
        timed = timed_stream(sentinel.url)
        with open_stream(sentinel.url) as response:
            read = accumulate(body_chunks(response))
    assert timed.error is None and timed.message == read == MESSAGE


def test_an_http_error_read_through_body_chunks_is_the_status_error_with_its_body_not_a_cut_stream(
    server,
):
    with (
        open_stream(server.url, params={"error_after": "-1"}) as response,
        pytest.raises(httpx.HTTPStatusError) as caught,
    ):
        accumulate(body_chunks(response))
    assert (
        caught.value.response.status_code == 400 and caught.value.response.json()["type"] == "error"
    )


# -- a 200 whose content type is not text/event-stream -----------------------------

GATEWAY_ERROR = b'{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
GATEWAY_PAGE = b"<html><body><h1>502 Bad Gateway</h1></body></html>"


@contextlib.contextmanager
def answering(body, content_type):
    """A server on 127.0.0.1 that answers every POST with HTTP 200, `body` and `content_type`."""

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the name http.server calls)
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (GATEWAY_ERROR, "application/json", APIStreamError),
        (GATEWAY_PAGE, "text/html; charset=utf-8", NotAnEventStreamError),
        (b"", "text/plain", NotAnEventStreamError),
    ],
    ids=["json-error", "html", "empty-text"],
)
def test_a_success_that_is_not_an_event_stream_fails_from_its_content_type_before_parsing(
    body, content_type, expected
):
    with answering(body, content_type) as url:
        with open_stream(url) as response, pytest.raises(expected) as caught:
            next(body_chunks(response))  # before any chunk is handed on
        timed = timed_stream(url)
    assert type(timed.error) is expected and timed.message is None and timed.event_types == []
    error = caught.value
    if expected is APIStreamError:
        assert (error.error_type, error.error_message, error.retryable) == (
            "overloaded_error",
            "Overloaded",
            True,
        )
    else:
        assert error.content_type == content_type and error.first_bytes == body
        assert content_type in str(error)


def test_an_event_stream_content_type_with_parameters_is_read_as_a_stream():
    with answering(FIXTURE, "Text/Event-Stream ; charset=utf-8") as url:
        assert timed_stream(url).message == MESSAGE
