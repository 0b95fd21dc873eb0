"""The chat app's relay, over real HTTP (no browser): bytes unchanged and unbuffered,
same-origin only, its own request shape only, the key kept, Stop reaching upstream."""

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from streaming_lib.aio import aaccumulate
from streaming_lib.chat import ChatServer, ThreadedServer, build_app
from streaming_lib.chat.app import MAX_BODY_BYTES, MAX_PROMPT_CHARS, WRITE_FILE
from streaming_lib.lab.server import split_events
from streaming_lib.tools.fixtures import FIXTURES_DIR, read_fixture

FAKE_KEY = "sk-ant-api03-FAKE-KEY-never-shown-0123456789"
PROMPT = {"prompt": "Fix the bug in calc.py"}


def post_chat(chat, path="/chat", body=PROMPT, **headers):
    return httpx.post(
        chat.url + path, json=body, headers={"origin": chat.url, **headers}, timeout=10
    )


@pytest.fixture(scope="module")
def chat():
    with ChatServer("fixture", pace=0, environ={}) as server:
        yield server


@pytest.mark.parametrize("name", ["fixture", "cjk_emoji", "crlf", "sse_fields", "error_mid_stream"])
def test_the_relay_hands_on_the_upstream_bytes_unchanged(name):
    with ChatServer(name, pace=0, environ={}) as chat:
        reply = post_chat(chat)
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert reply.content == read_fixture(name)


def test_the_relays_answer_gives_the_fixtures_message_through_the_async_pipeline(chat):
    async def main():
        async with httpx.AsyncClient() as client:
            request = client.build_request(
                "POST", chat.url + "/chat", json=PROMPT, headers={"origin": chat.url}
            )
            response = await client.send(request, stream=True)
            try:
                return await aaccumulate(response.aiter_raw())
            finally:
                await response.aclose()

    expected = json.loads((FIXTURES_DIR / "fixture.expected.json").read_text(encoding="utf-8"))[
        "message"
    ]
    assert asyncio.run(main()) == expected


def gated_upstream(events, released):
    """A fake Messages API that sends `events[0]`, then each next event only once
    `released` (a threading.Event) is set and cleared again by the test."""

    async def messages(request: Request):
        async def body():
            for number, event in enumerate(events):
                if number:
                    while not released.is_set():  # the test has not seen the previous event yet
                        await asyncio.sleep(0.005)
                    released.clear()
                yield event

        return StreamingResponse(body(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])


def test_the_relay_passes_each_event_on_before_the_upstream_sends_the_next():
    # The upstream sends event k+1 only after the test has read event k through the
    # relay: a relay that buffered anything (a chunk, a line, the body) would hang
    # here until the read timeout.
    events = split_events(read_fixture("fixture"))
    released = threading.Event()
    with (
        ThreadedServer(gated_upstream(events, released)) as upstream,
        ThreadedServer(build_app(upstream.url)) as app,
    ):
        received = b""
        headers = {"origin": app.url}
        with httpx.stream(
            "POST", app.url + "/chat", json=PROMPT, headers=headers, timeout=5
        ) as reply:
            chunks = reply.iter_raw()
            for number in range(len(events)):
                while len(received) < sum(map(len, events[: number + 1])):
                    received += next(chunks)
                assert received == b"".join(events[: number + 1])
                released.set()
    assert received == read_fixture("fixture")


def test_stop_closes_the_upstream_request_at_once_and_the_replay_server_sees_it():
    with ChatServer(
        "fixture", pace=1, environ={}
    ) as chat:  # an event a second: the stream is far from its end
        with httpx.stream(
            "POST", chat.url + "/chat", json=PROMPT, headers={"origin": chat.url}, timeout=5
        ) as reply:
            first = next(reply.iter_raw())
        assert first.startswith(b"event: message_start")
        assert chat.replay.wait_for_disconnects(1, timeout=2)


def test_a_cut_upstream_is_handed_on_as_a_cut_not_as_a_clean_end(chat):
    received = b""
    with pytest.raises(httpx.RemoteProtocolError):  # noqa: SIM117
        with httpx.stream(
            "POST", chat.url + "/chat?drop_at=1500", json=PROMPT, headers={"origin": chat.url}
        ) as reply:
            for chunk in reply.iter_raw():
                received += chunk
    assert received == read_fixture("fixture")[:1500]


def test_the_pages_fault_parameters_reach_the_local_replay_server(chat):
    reply = post_chat(chat, "/chat?error_after=8")
    assert reply.content.endswith(
        b"event: error\n"
        + b'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    )
    assert reply.content.count(b"\n\n") == 9


# ---- Refusals: checked before any upstream request -----------------------------------------


def no_upstream(request):
    raise AssertionError(f"the relay called upstream for a refused request: {request.url}")


@pytest.fixture
def client():
    app = build_app("http://upstream.invalid", transport=httpx.MockTransport(no_upstream))
    return TestClient(app, base_url="http://127.0.0.1:8000")


OWN = {"origin": "http://127.0.0.1:8000"}


@pytest.mark.parametrize(
    "headers",
    [
        {},  # no Origin: not sent by a browser's page, so not the chat page
        {"origin": "http://evil.example"},
        {"origin": "http://127.0.0.1:9999"},  # another port is another origin
        {"origin": "null"},  # a sandboxed frame or a file: page
        {**OWN, "sec-fetch-site": "cross-site"},
        {**OWN, "sec-fetch-site": "same-site"},
    ],
)
def test_a_request_from_anywhere_but_the_page_itself_is_refused_with_403(client, headers):
    reply = client.post("/chat", json=PROMPT, headers=headers)
    assert reply.status_code == 403
    assert reply.json()["error"]["type"] == "forbidden"


def test_a_web_page_rebinding_its_name_to_this_machine_is_refused(client):
    # evil.example resolved to 127.0.0.1: Origin and Host agree, but the Host is not ours.
    headers = {"host": "evil.example:8000", "origin": "http://evil.example:8000"}
    assert client.post("/chat", json=PROMPT, headers=headers).status_code == 400


@pytest.mark.parametrize(
    "body",
    [
        {
            "prompt": "hi",
            "model": "claude-opus-4-1",
        },  # nothing but the prompt is taken from the page
        {"prompt": 42},
        {"messages": [{"role": "user", "content": "hi"}]},
        ["hi"],
        "hi",
        {"prompt": ""},
        {"prompt": "x" * (MAX_PROMPT_CHARS + 1)},
    ],
)
def test_a_body_of_another_shape_than_the_pages_own_is_refused_with_422(client, body):
    assert client.post("/chat", json=body, headers=OWN).status_code == 422


def test_a_body_that_is_not_json_is_refused(client):
    assert (
        client.post(
            "/chat", content=b"{prompt", headers={**OWN, "content-type": "application/json"}
        ).status_code
        == 400
    )
    # A form post (which any web page can send without asking) is not even read.
    assert client.post("/chat", data={"prompt": "hi"}, headers=OWN).status_code == 415


def test_a_body_over_the_cap_is_refused_before_it_is_parsed(client):
    body = b'{"prompt": "' + b"x" * MAX_BODY_BYTES + b'"}'
    assert (
        client.post(
            "/chat", content=body, headers={**OWN, "content-type": "application/json"}
        ).status_code
        == 413
    )


def test_the_relay_answers_only_post(client):
    assert client.get("/chat", headers=OWN).status_code == 405


# ---- The key: sent upstream, never to the page ----------------------------------------------


def recording_upstream(seen):
    """A fake "real API": records each request, answers with the fixture's stream,
    or with a 401 error body for the prompt "401"."""

    async def messages(request: Request):
        body = await request.json()
        seen.append(
            {"headers": dict(request.headers), "query": dict(request.query_params), "body": body}
        )
        if body["messages"][0]["content"] == "401":
            error = {
                "type": "error",
                "error": {"type": "authentication_error", "message": "invalid x-api-key"},
            }
            return JSONResponse(error, status_code=401, headers={"request-id": "req_1"})
        return StreamingResponse(iter([read_fixture("fixture")]), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])


def test_the_api_key_goes_upstream_and_never_to_the_page():
    seen = []
    with ThreadedServer(recording_upstream(seen)) as upstream:
        environ = {"ANTHROPIC_API_KEY": FAKE_KEY, "ANTHROPIC_BASE_URL": upstream.url}
        with ChatServer(environ=environ) as chat:
            assert chat.replay is None  # a key: the real API (here, its stand-in), no replay server
            replies = [
                httpx.get(chat.url + "/"),
                httpx.get(chat.url + "/static/chat.js"),
                httpx.get(chat.url + "/static/chat.css"),
                post_chat(
                    chat, "/chat?error_after=3", cookie="session=page", authorization="Bearer page"
                ),
                post_chat(chat, body={"prompt": "401"}),
                post_chat(chat, body={"prompt": 1}),
                post_chat(chat, origin="http://evil.example"),
                httpx.get(chat.url + "/nowhere"),
            ]
    assert [reply.status_code for reply in replies] == [200, 200, 200, 200, 401, 422, 403, 404]
    assert replies[3].content == read_fixture("fixture")
    for reply in replies:
        assert FAKE_KEY not in reply.text
        assert all(FAKE_KEY not in value for value in reply.headers.values())
        assert "request-id" not in reply.headers  # no upstream header comes back
    assert [request["headers"]["x-api-key"] for request in seen] == [FAKE_KEY, FAKE_KEY]
    first = seen[0]
    assert first["query"] == {}  # the replay server's faults never go to the real API
    assert "cookie" not in first["headers"] and first["headers"].get("authorization") is None
    assert first["body"]["messages"] == [{"role": "user", "content": PROMPT["prompt"]}]
    assert first["body"]["tools"] == [WRITE_FILE] and first["body"]["stream"] is True


# ---- The command, and what it leaves behind ---------------------------------------------------


def test_the_chat_command_prints_its_url_serves_the_page_and_stops_on_ctrl_c():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environ = {
        name: value for name, value in os.environ.items() if not name.startswith("ANTHROPIC_")
    }
    command = [sys.executable, "-m", "streaming_lib", "chat", "--port", str(port), "--pace", "0"]
    process = subprocess.Popen(
        command,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # A shell that runs the tests in the background ignores SIGINT, and a child
        # inherits that: give the command Ctrl-C's usual meaning, as in a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        first_line = process.stdout.readline()
        url = f"http://127.0.0.1:{port}"
        assert first_line.startswith(f"Chat page: {url}/"), first_line
        assert "<title>Streaming chat</title>" in httpx.get(url + "/").text
        assert httpx.post(
            url + "/chat", json=PROMPT, headers={"origin": url}
        ).content == read_fixture("fixture")
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=10)[0]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0 and "Traceback" not in output, output


def test_a_bad_pace_or_fixture_is_refused_before_anything_starts():
    for options in (["--pace", "-1"], ["--fixture", "no_such_fixture"]):
        command = [sys.executable, "-m", "streaming_lib", "chat", "--port", "0", *options]
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr


def test_leaving_the_chat_server_stops_both_servers_and_their_threads():
    threads_before = set(threading.enumerate())
    with ChatServer("fixture", pace=0, environ={}) as chat:
        assert post_chat(chat).status_code == 200
        port, replay_port = chat.port, chat.replay.port
    assert set(threading.enumerate()) == threads_before
    for closed in (port, replay_port):
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", closed), timeout=0.5)


@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        ('{"prompt": "\\ud800"}', "application/json", 422),
        ("[" * 60_000, "application/json", 400),
        ('{"prompt": "hi"}', "Application/JSON", None),
    ],
)
def test_odd_bodies_are_refused_with_a_4xx_never_a_500(body, content_type, status):
    with ChatServer("fixture", pace=0, environ={}) as chat:
        headers = {"content-type": content_type, "origin": chat.url}
        answer = httpx.post(chat.url + "/chat", content=body.encode(), headers=headers)
    assert answer.status_code == (status or 200)
