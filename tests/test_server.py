"""The replay server over a real socket, and our client helpers (lab/server.py, lab/network.py).

The same bytes as the fixture; the same message for the real SDK over HTTP as
offline; a typed error of ours, with the partial message, for every fault;
and nothing left running once the server's block ends.
"""

import doctest
import itertools
import json
import logging
import math
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import anthropic
import httpx
import httpx2
import pytest

import streaming_lib.lab.network
import streaming_lib.lab.replay_plan
import streaming_lib.lab.server
import streaming_lib.lab.threaded
from streaming_lib import (
    APIStreamError,
    EventDataError,
    IncompleteStreamError,
    accumulate,
    iter_sse,
)
from streaming_lib.__main__ import main
from streaming_lib.lab.api import DEFAULT_MODEL, SSE_CONTENT_TYPE, free_port
from streaming_lib.lab.network import open_stream, timed_stream, until_dropped
from streaming_lib.lab.replay_plan import OVERLOADED, split_events
from streaming_lib.lab.server import GRACE, ReplayServer
from streaming_lib.lab.threaded import (
    KEEP_ALIVE,
    MAX_CONNECTIONS,
    MAX_HEADER_BYTES,
    REQUEST_TIMEOUT,
    ThreadedServer,
    server_config,
)
from streaming_lib.tools.fixtures import fixture_names, read_fixture
from streaming_lib.tools.sdk import compare_messages, sdk_final_message

PACE = 0.002  # fast: these tests check bytes and errors, not timing
FIXTURE = read_fixture("fixture")
FIRST_FIVE = b"".join(split_events(FIXTURE)[:5])  # message_start, block start, ping, two deltas
TEXT_AFTER_FIVE = "找到原因了："
REPO = Path(__file__).resolve().parent.parent
# Line endings to rewrite a stream with, used in turn. No order puts a lone CR
# right before a lone LF: the two would make a single CRLF.
ENDINGS = {
    "LF": (b"\n",),
    "CRLF": (b"\r\n",),
    "CR": (b"\r",),
    "LF,CRLF": (b"\n", b"\r\n"),
    "CR,CRLF,LF": (b"\r", b"\r\n", b"\n"),
}


@pytest.fixture(scope="module")
def server():
    with ReplayServer("fixture", pace=PACE) as running:
        yield running


def events(raw_or_chunks):
    chunks = [raw_or_chunks] if isinstance(raw_or_chunks, bytes) else raw_or_chunks
    return [(event.event, event.data) for event in iter_sse(chunks)]


def with_endings(raw, endings):
    """`raw` with its line endings replaced by `endings`, one after the other, in a cycle."""
    *lines, last = raw.replace(b"\r\n", b"\n").split(b"\n")
    return b"".join(line + ending for line, ending in zip(lines, itertools.cycle(endings))) + last


def refusal(server, **request):
    """The message of the API-shaped 400 the server must answer a streaming request with."""
    reply = httpx.post(server.url + "/v1/messages", json={"stream": True}, **request)
    assert reply.status_code == 400 and reply.json()["type"] == "error"
    assert reply.json()["error"]["type"] == "invalid_request_error"
    return reply.json()["error"]["message"]


def sdk_client(url):
    return anthropic.Anthropic(base_url=url, api_key="test", max_retries=0)


def sdk_stream(client, **options):
    request = {
        "model": DEFAULT_MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "fix calc.py"}],
    }
    return client.messages.stream(**request, **options)


# -- the replay itself --------------------------------------------------------


def test_the_replay_sends_the_fixtures_events_byte_for_byte(server):
    with open_stream(server.url) as response:
        received = b"".join(response.iter_bytes())
    assert received == FIXTURE
    assert events(received) == events(FIXTURE)


def test_the_replay_arrives_one_event_per_network_chunk():
    with ReplayServer("fixture", pace=0.01) as slow:
        timed = timed_stream(slow.url)
    assert len(timed.chunk_sizes) == len(split_events(FIXTURE))
    assert sum(timed.chunk_sizes) == len(FIXTURE)
    assert timed.event_times == sorted(timed.event_times)


def test_the_replay_sends_the_headers_of_the_real_api(server):
    with open_stream(server.url) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == SSE_CONTENT_TYPE
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["request-id"].startswith("req_")
        assert "x-accel-buffering" not in response.headers


def test_request_ids_count_the_requests():
    with ReplayServer(pace=PACE) as fresh:
        ids = [
            httpx.post(fresh.url + "/v1/messages", json={}).headers["request-id"] for _ in range(2)
        ]
        assert fresh.requests == 2
    assert ids == ["req_replay_0001", "req_replay_0002"]


def test_the_real_sdk_over_the_socket_builds_the_same_message_as_offline(server):
    with sdk_client(server.url) as client, sdk_stream(client) as stream:
        over_http = stream.get_final_message().to_dict()
    assert over_http == sdk_final_message(FIXTURE)


def test_without_stream_the_reply_is_the_final_message_as_json(server):
    reply = httpx.post(server.url + "/v1/messages", json={"model": "m", "stream": False})
    assert reply.headers["content-type"] == "application/json"
    assert reply.json() == accumulate(FIXTURE)
    with sdk_client(server.url) as client:
        created = client.messages.create(
            model=DEFAULT_MODEL, max_tokens=1, messages=[{"role": "user", "content": "x"}]
        )
    assert compare_messages(reply.json(), created.to_dict()) == []


def test_a_fixture_can_be_chosen_per_request(server):
    with open_stream(server.url, params={"fixture": "text_only"}) as response:
        assert b"".join(response.iter_bytes()) == read_fixture("text_only")


def test_the_server_replays_any_sse_file_given_by_its_path(tmp_path):
    path = tmp_path / "mine.sse"
    path.write_bytes(read_fixture("text_only"))
    for source in (path, str(path)):
        with ReplayServer(source, pace=0) as running, open_stream(running.url) as response:
            assert b"".join(response.iter_bytes()) == read_fixture("text_only")


# A text split between two deltas inside a UTF-16 surrogate pair (each delta's
# JSON holds one escaped half), and the same with the second half missing.
SPLIT_PAIR = read_fixture("text_only").replace(
    b'"text":"A stream',
    b'"text":"\\ud83d"}}\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":"\\ude00A stream',
    1,
)
LONE_HALF = read_fixture("text_only").replace(b'"text":"A stream', b'"text":"\\ud83dA stream', 1)


def test_a_stream_splitting_a_surrogate_pair_is_served_as_valid_json_with_the_character_whole():
    assert read_fixture("text_only") != SPLIT_PAIR
    with ReplayServer(SPLIT_PAIR, pace=0) as running:
        reply = httpx.post(running.url + "/v1/messages", json={"stream": False})
        with sdk_client(running.url) as client:
            created = client.messages.create(
                model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}]
            )
        with open_stream(running.url) as response:
            assert response.status_code == 200 and b"".join(response.iter_bytes()) == SPLIT_PAIR
    assert reply.status_code == 200 and reply.content.isascii()
    text = json.loads(reply.content)["content"][0]["text"]
    assert text.startswith("\U0001f600A stream") and text.encode("utf-8")
    assert created.to_dict()["content"][0]["text"] == text


def test_a_lone_surrogate_in_the_message_or_in_an_error_still_gets_json_never_a_500():
    error_event = (
        b"event: error\n"
        b'data: {"type":"error","error":{"type":"overloaded_error","message":"\\udc00"}}\n\n'
    )
    for raw, status in (
        (LONE_HALF, 200),
        (LONE_HALF.split(b"event: message_stop")[0] + error_event, 529),
    ):
        with ReplayServer(raw, pace=0) as running:
            reply = httpx.post(running.url + "/v1/messages", json={"stream": False})
        assert reply.status_code == status and reply.content.isascii()
        assert json.loads(reply.content)["type"] == ("message" if status == 200 else "error")


def test_a_bad_option_is_an_invalid_request_error(server):
    assert (
        refusal(server, params={"error_after": "soon"})
        == "error_after='soon': expected a whole number, 0 or more"
    )
    assert refusal(server, params={"fixture": "../pyproject"}).startswith(
        "fixture='../pyproject': no such fixture"
    )


def test_a_negative_count_is_refused_rather_than_read_as_a_slice_from_the_end(server):
    assert refusal(server, params={"error_after": "-1"}).startswith("error_after='-1'")
    assert refusal(server, params={"drop_at": "-5"}).startswith("drop_at='-5'")
    assert refusal(server, headers={"x-replay-drop-at": "-5"}).startswith("drop_at='-5'")


def test_a_delay_that_is_negative_infinite_nan_or_over_a_minute_is_refused(server):
    for name, value in itertools.product(
        ["pace", "first_token_delay", "hold_open"], ["-0.1", "inf", "-inf", "nan", "60.5", "1e9"]
    ):
        assert (
            refusal(server, params={name: value})
            == f"{name}={value!r}: expected a number of seconds from 0 to 60"
        )


def test_a_replay_server_refuses_the_same_paces():
    for pace in (-1, math.inf, math.nan, 61):
        with pytest.raises(ValueError, match="seconds from 0 to 60"):
            ReplayServer(pace=pace)


def test_the_serve_command_refuses_the_same_paces_with_a_usage_error(capsys):
    for value in ("-1", "inf", "nan", "61"):
        with pytest.raises(SystemExit) as exited:
            main(["serve", "--pace", value])
        assert exited.value.code == 2 and "--pace" in capsys.readouterr().err


def test_serve_with_an_unknown_fixture_lists_the_fixtures_and_exits_with_status_2(capsys):
    assert main(["serve", "--fixture", "nosuch"]) == 2
    message = capsys.readouterr().err
    assert "nosuch" in message and all(name in message for name in fixture_names())
    with pytest.raises(ValueError, match="no such fixture"):
        ReplayServer("nosuch")


def test_another_method_gets_the_apis_json_405(server):
    reply = httpx.get(server.url + "/v1/messages")
    assert (reply.status_code, reply.headers["allow"]) == (405, "POST")
    assert (
        reply.json()["type"] == "error" and reply.json()["error"]["type"] == "invalid_request_error"
    )
    assert reply.json()["error"]["message"].startswith("GET /v1/messages: Method Not Allowed")
    assert reply.headers["request-id"].startswith("req_replay_")


def test_an_unknown_path_gets_the_apis_json_404_which_the_real_sdk_reads_as_not_found(server):
    reply = httpx.post(server.url + "/v1/complete", json={"stream": True})
    assert reply.status_code == 404 and reply.json()["error"]["type"] == "not_found_error"
    with sdk_client(server.url) as client, pytest.raises(anthropic.NotFoundError):
        client.models.list()  # GET /v1/models


# -- faults ----------------------------------------------------------------------


def test_error_after_k_sends_an_overloaded_error_after_event_k(server):
    with (
        open_stream(server.url, params={"error_after": 5}) as response,
        pytest.raises(APIStreamError) as caught,
    ):
        accumulate(response.iter_bytes())
    assert (caught.value.error_type, caught.value.retryable, caught.value.event_number) == (
        "overloaded_error",
        True,
        6,
    )
    assert caught.value.partial["content"][0]["text"] == TEXT_AFTER_FIVE


def test_a_fault_can_be_asked_for_in_a_header_too(server):
    with open_stream(server.url, headers={"x-replay-error-after": "5"}) as response:
        assert b"".join(response.iter_bytes()) == FIRST_FIVE + OVERLOADED


def test_drop_at_k_sends_k_bytes_then_cuts_the_connection(server):
    dropped = []
    with open_stream(server.url, params={"drop_at": len(FIRST_FIVE) + 20}) as response:
        received = b"".join(until_dropped(response.iter_bytes(), dropped))
    assert received == FIXTURE[: len(FIRST_FIVE) + 20]
    assert isinstance(dropped[0], httpx.RemoteProtocolError)


def test_httpx_reports_a_cut_connection_as_a_protocol_error(server):
    with (
        open_stream(server.url, params={"drop_at": 100}) as response,
        pytest.raises(httpx.RemoteProtocolError),
    ):
        accumulate(response.iter_bytes())


def test_a_cut_connection_is_an_incomplete_stream_with_the_partial_message(server):
    with (
        open_stream(server.url, params={"drop_at": len(FIRST_FIVE) + 20}) as response,
        pytest.raises(IncompleteStreamError) as caught,
    ):
        accumulate(until_dropped(response.iter_bytes()))
    assert caught.value.partial["content"][0]["text"] == TEXT_AFTER_FIVE


def test_timed_stream_keeps_the_error_and_the_partial_message_of_each_fault(server):
    failed = timed_stream(server.url, params={"error_after": 5})
    cut = timed_stream(server.url, params={"drop_at": len(FIRST_FIVE) + 20})
    assert isinstance(failed.error, APIStreamError) and failed.dropped is None
    assert isinstance(cut.error, IncompleteStreamError) and "incomplete chunked read" in cut.dropped
    assert (
        failed.message["content"][0]["text"] == cut.message["content"][0]["text"] == TEXT_AFTER_FIVE
    )


def test_timed_stream_keeps_bad_data_as_an_error_with_the_message_so_far():
    raw = FIXTURE.replace(b'data: {"type":"ping"}', b"data: [1]", 1)
    assert raw != FIXTURE
    raw = raw.replace(b"event: ping", b"event: content_block_delta", 1)
    with ReplayServer(raw, pace=0) as running:
        timed = timed_stream(running.url)
    assert isinstance(timed.error, EventDataError) and timed.message["id"] == "msg_stream_01"


def test_first_token_delay_holds_back_only_the_first_delta(server):
    timed = timed_stream(server.url, params={"first_token_delay": 0.3})
    assert timed.event_types[:4] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
    ]
    assert timed.event_times[2] < 0.2  # the events before it came at once
    assert timed.time_to_first_token == timed.event_times[3] >= 0.3
    assert timed.event_times[-1] - timed.time_to_first_token < 0.3  # the rest at the normal pace


@pytest.mark.parametrize("endings", [ENDINGS["CR"], ENDINGS["LF,CRLF"]], ids=["CR", "LF,CRLF"])
def test_first_token_delay_works_with_cr_or_mixed_line_endings_and_the_bytes_stay_the_same(endings):
    raw = with_endings(FIXTURE, endings)
    with ReplayServer(raw, pace=PACE) as server:
        with open_stream(server.url) as response:
            assert b"".join(response.iter_bytes()) == raw
        timed = timed_stream(server.url, params={"first_token_delay": 0.3})
    assert timed.event_times[2] < 0.2 and timed.time_to_first_token == timed.event_times[3] >= 0.3


def test_the_real_sdk_sees_each_fault_too(server):
    with sdk_client(server.url) as client:
        with (
            sdk_stream(client, extra_query={"error_after": 5}) as stream,
            pytest.raises(anthropic.APIStatusError),
        ):
            stream.get_final_message()
        with (
            sdk_stream(client, extra_headers={"x-replay-drop-at": "300"}) as stream,
            pytest.raises(httpx2.RemoteProtocolError),
        ):
            # httpx2 (Pydantic's continuation of httpx, the SDK's transport) reports the
            # cut as httpx does
            stream.get_final_message()


# -- hanging up early, and cleaning up -----------------------------------------------


def test_interrupting_keeps_the_partial_message_and_the_server_sees_the_disconnect():
    with ReplayServer("fixture", pace=0.02) as slow:
        timed = timed_stream(slow.url, stop_after=5)
        assert slow.wait_for_disconnects(1)
    assert timed.interrupted and timed.error is None
    assert timed.message["content"][0]["text"] == TEXT_AFTER_FIVE
    assert timed.message["stop_reason"] is None  # not a finished message


def test_a_stream_read_to_the_end_is_not_a_disconnect(server):
    before = server.disconnects
    timed_stream(server.url)
    timed_stream(
        server.url, params={"drop_at": 100}
    )  # the server hanging up is not the client leaving
    assert not server.wait_for_disconnects(before + 1, timeout=0.3)


def test_closing_the_sdk_stream_early_leaves_no_thread_socket_or_server_behind():
    threads_before = set(threading.enumerate())
    with ReplayServer("fixture", pace=0.02) as slow:
        port = slow.port
        with sdk_client(slow.url) as client, sdk_stream(client) as stream:
            for number, _ in enumerate(stream, 1):
                if number == 3:
                    break  # leaving the block closes the response: the client hangs up
        assert slow.wait_for_disconnects(1)
        assert any(thread.name.startswith("replay-server") for thread in threading.enumerate())
    assert set(threading.enumerate()) == threads_before
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=0.5)


def start_serve(*options):
    """`python -m streaming_lib serve` on a free port, in a process of its own.

    Returns (process, url) once it listens.
    """
    port = free_port()
    command = [sys.executable, "-m", "streaming_lib", "serve", "--port", str(port), *options]
    process = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process, f"http://127.0.0.1:{port}"
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail("serve did not start:\n" + process.communicate()[0])
            time.sleep(0.05)


@pytest.mark.parametrize("presses", [1, 2], ids=["once", "twice"])
def test_ctrl_c_with_a_stream_open_stops_the_server_and_cuts_the_stream_without_a_traceback(
    presses,
):
    process, url = start_serve("--pace", "5")  # the whole stream would take minutes
    try:
        with open_stream(url) as response:
            chunks, dropped = response.iter_bytes(), []
            next(chunks)  # the stream is open: its first event came
            for _ in range(presses):
                process.send_signal(signal.SIGINT)
                time.sleep(0.2)
            output = process.communicate(timeout=GRACE + 5)[
                0
            ]  # once: after GRACE seconds; twice: at once
            list(until_dropped(chunks, dropped))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0 and "Traceback" not in output, output
    assert dropped  # the client sees a cut stream, not a finished one


# -- the pieces ----------------------------------------------------------------------


def test_the_module_examples_run():
    for module in (streaming_lib.lab.server, streaming_lib.lab.network, streaming_lib.lab.threaded):
        results = doctest.testmod(module)
        assert results.attempted > 0 and results.failed == 0


# -- hostile input: a 400 naming the problem, never a 500, a traceback or an empty reply -------


class ErrorLog(logging.Filter):
    """Records what uvicorn logs as an error (a traceback, an app that failed), once added to
    its `uvicorn.error` logger. (A filter, not a handler: uvicorn replaces the handlers.)"""

    def __init__(self):
        super().__init__()
        self.errors = []

    def filter(self, record):
        if record.levelno >= logging.ERROR or record.exc_info:
            self.errors.append(record.getMessage())
        return True


def recorded_errors():
    """Yields the list (of str) of the errors uvicorn logs until it is resumed."""
    log = ErrorLog()
    logging.getLogger("uvicorn.error").addFilter(log)
    try:
        yield log.errors
    finally:
        logging.getLogger("uvicorn.error").removeFilter(log)


@pytest.fixture
def error_log():
    """The errors uvicorn logs during the test (a list of str, read at its end)."""
    yield from recorded_errors()


def test_json_nested_past_pythons_stack_is_a_400_not_a_500(server, error_log):
    reply = httpx.post(
        server.url + "/v1/messages",
        content=b"[" * 100_000,
        headers={"content-type": "application/json"},
    )
    assert reply.status_code == 400
    assert reply.json()["error"]["message"].startswith("the body is not JSON")
    assert error_log == []


@pytest.mark.parametrize("value", ["é€", "no\r\nx-evil: 1", "no\n", "no\r", "n\x00o", "maybe", ""])
def test_x_accel_buffering_takes_only_yes_or_no_and_anything_else_is_a_400_naming_it(
    server, error_log, value
):
    assert (
        refusal(server, params={"x_accel_buffering": value})
        == f"x_accel_buffering={value!r}: expected one of: yes, no"
    )
    assert error_log == []


@pytest.mark.parametrize("name", list(streaming_lib.lab.replay_plan.OPTIONS))
def test_every_option_refuses_a_value_with_a_line_break_or_a_nul_naming_the_option(server, name):
    for value in ("1\r\n", "1\x00", "１"):  # the last: a full-width digit
        assert refusal(server, params={name: value}).startswith(f"{name}={value!r}: ")


def raw_request(port, data, *, close=True):
    """Send `data` (bytes) on a new connection to 127.0.0.1:`port`; the open socket if not
    `close`."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.sendall(data)
    if close:
        connection.close()
    return connection


HALF_A_BODY = (
    b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
    b'content-length: 100\r\n\r\n{"str'
)


def test_a_client_hanging_up_mid_body_leaves_no_traceback(server, error_log):
    raw_request(server.port, HALF_A_BODY)
    time.sleep(0.3)  # the server reads, then sees the hang-up
    assert httpx.post(server.url + "/v1/messages", json={"stream": False}).status_code == 200
    assert error_log == []


def closed_by_the_server(connection, within):
    """True if the server closes `connection` within `within` seconds (what it sends before
    is read and dropped)."""
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            connection.settimeout(max(deadline - time.monotonic(), 0.01))
            if connection.recv(4096) == b"":
                return True
        return False
    except TimeoutError:
        return False
    finally:
        connection.close()


@pytest.mark.parametrize(
    "sent",
    [b"", b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-le", HALF_A_BODY],
    ids=["nothing", "half the headers", "half the body"],
)
def test_a_client_too_slow_to_send_its_request_is_cut_off_after_the_request_timeout(
    sent, error_log
):
    app = streaming_lib.lab.server.build_app(FIXTURE, pace=0)
    with ThreadedServer(app, request_timeout=0.5, log_filter=streaming_lib.lab.server.HUSH) as slow:
        started = time.monotonic()
        connection = raw_request(slow.port, sent, close=False)
        assert closed_by_the_server(connection, within=2.5)
        assert time.monotonic() - started >= 0.4  # not before its time
    assert error_log == []


def test_the_request_timeout_does_not_cut_a_response_that_lasts_longer():
    app = streaming_lib.lab.server.build_app(FIXTURE, pace=0)
    with ThreadedServer(app, request_timeout=0.2) as slow:
        reply = httpx.post(slow.url + "/v1/messages?hold_open=0.6", json={"stream": True})
    assert reply.status_code == 200 and reply.content == FIXTURE


def test_a_connection_idle_after_its_answer_is_closed_too():
    app = streaming_lib.lab.server.build_app(FIXTURE, pace=0)
    with ThreadedServer(app, request_timeout=0.3) as slow:
        connection = raw_request(
            slow.port, b"GET /v1/messages HTTP/1.1\r\nhost: x\r\n\r\n", close=False
        )
        assert connection.recv(4096).startswith(b"HTTP/1.1 405")
        assert closed_by_the_server(connection, within=2)


def held_stream(port):
    """A connection whose streamed answer is held open for a second (its request is in
    progress: the server counts it as busy)."""
    return raw_request(
        port,
        b"POST /v1/messages?hold_open=1 HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b'content-length: 16\r\n\r\n{"stream": true}',
        close=False,
    )


def test_connections_past_the_cap_get_a_503_and_the_server_serves_again_once_they_close():
    app = streaming_lib.lab.server.build_app(FIXTURE, pace=0)
    with ThreadedServer(app, max_connections=3) as capped:
        busy = [held_stream(capped.port) for _ in range(2)]
        time.sleep(0.2)  # the server has accepted them and is answering
        assert httpx.post(capped.url + "/v1/messages", json={}).status_code == 503
        for connection in busy:
            connection.close()
        time.sleep(0.2)
        assert httpx.post(capped.url + "/v1/messages", json={}).status_code == 200


def test_idle_connections_cannot_hold_the_cap_the_longest_waiting_is_closed_for_a_new_one():
    app = streaming_lib.lab.server.build_app(FIXTURE, pace=0)
    with ThreadedServer(app, max_connections=3) as capped:
        # Idle sockets, and one sending its headers slowly: none has a whole request yet.
        idle = [raw_request(capped.port, sent, close=False) for sent in (b"", b"", b"POST /v1")]
        time.sleep(0.2)
        for _ in range(3):  # a client reopening its idle sockets does not lock the server either
            assert httpx.post(capped.url + "/v1/messages", json={}).status_code == 200
            idle.append(raw_request(capped.port, b"", close=False))
            time.sleep(0.05)
        assert closed_by_the_server(idle[0], within=1)  # the oldest went first
        for connection in idle[1:]:
            connection.close()


def test_a_request_with_both_content_length_and_transfer_encoding_is_a_400_and_closed(server):
    connection = raw_request(
        server.port,
        b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b"content-length: 16\r\ntransfer-encoding: chunked\r\n\r\n"
        b'10\r\n{"stream": true}\r\n0\r\n\r\n',
        close=False,
    )
    connection.settimeout(5)
    assert connection.recv(4096).startswith(b"HTTP/1.1 400")
    assert closed_by_the_server(connection, within=2)


@pytest.mark.parametrize("pieces", [1, 40], ids=["one write", "many writes"])
def test_headers_over_the_limit_are_refused_however_they_arrive(server, pieces):
    head = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
    head += b"x-filler: " + b"a" * (MAX_HEADER_BYTES + 4096) + b"\r\ncontent-length: 2\r\n\r\n{}"
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    size = -(-len(head) // pieces)
    try:
        for start in range(0, len(head), size):
            connection.sendall(head[start : start + size])
            if pieces > 1:
                time.sleep(0.005)
    except OSError:  # the server may close before the last piece: refused all the same
        pass
    status = connection.recv(4096)[:12]
    assert status in (b"HTTP/1.1 400", b"HTTP/1.1 431")
    assert closed_by_the_server(connection, within=2)
    assert httpx.post(server.url + "/v1/messages", json={}).status_code == 200  # and serves on


def test_a_body_over_the_limit_is_a_413_read_no_further():
    limit = streaming_lib.lab.server.MAX_BODY_BYTES
    with ReplayServer("fixture", pace=0) as replay:
        url = replay.url + "/v1/messages"
        padded = b'{"stream": false, "pad": "' + b"x" * limit + b'"}'
        reply = httpx.post(url, content=padded, headers={"content-type": "application/json"})
        assert (reply.status_code, reply.json()["error"]["type"]) == (413, "request_too_large")
        # A body that says it is huge is refused on its word, before it is sent.
        connection = raw_request(
            replay.port,
            b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"content-length: 268435456\r\n\r\n{",
            close=False,
        )
        connection.settimeout(5)
        assert connection.recv(4096).startswith(b"HTTP/1.1 413")
        assert closed_by_the_server(connection, within=2)
        just_under = b'{"stream": false, "pad": "' + b"x" * (limit - 40) + b'"}'
        reply = httpx.post(url, content=just_under, headers={"content-type": "application/json"})
        assert reply.status_code == 200


@pytest.mark.parametrize(
    "headers, status",
    [
        ({"origin": "https://elsewhere.example"}, 403),  # a web page's POST, even no-cors
        ({"sec-fetch-site": "cross-site"}, 403),
        ({"content-type": "text/plain"}, 415),  # what a page may send without a preflight
        ({"content-type": "application/x-www-form-urlencoded"}, 415),
        ({"content-type": None}, 415),
    ],
)
def test_the_replay_server_refuses_what_a_web_page_could_send(server, headers, status):
    sent = {"content-type": "application/json", **headers}
    sent = {name: value for name, value in sent.items() if value is not None}
    reply = httpx.post(server.url + "/v1/messages", content=b'{"stream": true}', headers=sent)
    assert reply.status_code == status and reply.json()["type"] == "error"


def test_its_own_origin_and_a_program_without_one_are_served(server):
    own = {"origin": server.url, "sec-fetch-site": "same-origin"}
    assert httpx.post(server.url + "/v1/messages", json={}, headers=own).status_code == 200
    assert httpx.post(server.url + "/v1/messages", json={}).status_code == 200


def test_the_server_sets_its_limits_from_uvicorns_own_settings():
    config = server_config(None)
    assert (config.limit_concurrency, config.timeout_keep_alive) == (MAX_CONNECTIONS, KEEP_ALIVE)
    assert config.h11_max_incomplete_event_size == MAX_HEADER_BYTES
    assert config.http.request_timeout == REQUEST_TIMEOUT


# -- the command's start-up errors: one sentence, no traceback --------------------------------


def one_line_error(capsys):
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


def test_serve_on_a_port_in_use_says_so_in_one_line(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    assert f"port {port}: Address already in use" in one_line_error(capsys)


@pytest.mark.parametrize("port", ["70000", "-1", "http", "８０"])
def test_serve_with_a_port_that_is_none_is_a_usage_error(capsys, port):
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", port])
    assert exited.value.code == 2
    assert "--port" in capsys.readouterr().err
