"""The chat app's relay, over real HTTP (no browser): bytes unchanged and unbuffered,
same-origin only, its own request shape only, the key kept, Stop reaching upstream."""

import asyncio
import contextlib
import doctest
import gzip
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import types
import zlib

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route
from starlette.testclient import TestClient
from test_server import recorded_errors

import streaming_lib.chat
import streaming_lib.chat.app as chat_app
import streaming_lib.chat.runner
import streaming_lib.chat.upstream
import streaming_lib.lab.api
import streaming_lib.lab.settings
from streaming_lib.__main__ import main
from streaming_lib.aio import aaccumulate
from streaming_lib.chat import ChatServer, ThreadedServer, build_app
from streaming_lib.chat.app import HUSH, MAX_BODY_BYTES, MAX_PROMPT_CHARS, WRITE_FILE
from streaming_lib.chat.upstream import SSE
from streaming_lib.lab.replay_plan import split_events
from streaming_lib.tools.fixtures import FIXTURES_DIR, read_fixture

FAKE_KEY = "sk-ant-api03-FAKE-KEY-never-shown-0123456789"
PROMPT = {"prompt": "Fix the bug in calc.py"}


def post_chat(chat, path="/chat", body=PROMPT, **headers):
    return httpx.post(
        chat.url + path, json=body, headers={"origin": chat.url, **headers}, timeout=10
    )


@pytest.fixture
def error_log():
    """The errors uvicorn logs during the test (a list of str, read at its end)."""
    yield from recorded_errors()


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
        assert chat.replay.wait_for_disconnects(1, timeout=1)  # within a second of the Stop


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
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        yield client


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
                httpx.get(chat.url + "/about"),
            ]
    assert [reply.status_code for reply in replies] == [200, 200, 200, 200, 401, 422, 403, 404, 200]
    assert replies[-1].json() == {"model": chat_app.MODEL, "replaying": None}  # a model answers
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


def test_the_app_tells_the_page_which_recording_it_replays_whatever_the_prompt(chat):
    about = httpx.get(chat.url + "/about")
    assert about.status_code == 200
    assert about.json() == {"model": chat_app.MODEL, "replaying": "fixture.sse"}
    with ChatServer(b"data: x\n\n", pace=0, environ={}) as given:
        assert httpx.get(given.url + "/about").json()["replaying"] == "a stream of 9 bytes"


def test_the_page_has_an_icon_so_a_browser_asking_for_favicon_ico_gets_no_404(chat):
    icon = httpx.get(chat.url + "/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"] == "image/x-icon"
    assert icon.content[:4] == b"\x00\x00\x01\x00"  # an ICO file's header
    assert len(icon.content) < 4096  # small


# ---- The page's language ----------------------------------------------------------------------


def page_in(app, query=""):
    with TestClient(app, base_url="http://127.0.0.1:8010") as client:
        return client.get("/" + query).text


def words_in(page):
    """chat.js's table of words, as the page holds it."""
    found = re.search(r'<script id="words" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


@pytest.mark.parametrize("lang", ["zh", "zh-CN"])
def test_lang_zh_on_the_pages_url_serves_the_page_and_its_scripts_words_in_chinese(lang):
    app = build_app("http://127.0.0.1:9", lang="en")
    english, chinese = page_in(app), page_in(app, f"?lang={lang}")
    assert '<html lang="en">' in english and "<title>Streaming chat</title>" in english
    assert '<html lang="zh-CN">' in chinese and "<title>流式聊天</title>" in chinese
    assert ">停止</button>" in chinese and ">发送</button>" in chinese
    said = words_in(chinese)
    assert said["done: stop_reason {reason}"] == "完成：stop_reason 为 {reason}"
    assert said["runnable: {reason}"] == "可以执行：{reason}"
    assert words_in(english)["done: stop_reason {reason}"] == "done: stop_reason {reason}"


def test_a_chinese_app_serves_chinese_and_lang_en_or_an_unknown_language_chooses_for_the_page():
    app = build_app("http://127.0.0.1:9", lang="zh")
    assert "<title>流式聊天</title>" in page_in(app)
    assert "<title>Streaming chat</title>" in page_in(app, "?lang=en")
    assert "<title>流式聊天</title>" in page_in(app, "?lang=fr")  # no catalogue: the app's own
    with pytest.raises(ValueError, match="no language 'fr'"):
        build_app("http://127.0.0.1:9", lang="fr")


def test_the_relays_own_refusals_speak_the_language_in_use_as_chat_lang_zh_sets_it():
    from streaming_lib.language import use_language

    app = build_app("http://127.0.0.1:9", allowed_hosts=["testserver"])
    with use_language("zh"), TestClient(app) as client:
        refused = client.post("/chat", json=PROMPT).json()["error"]["message"]
        silent = client.post("/chat", json=PROMPT, headers={"origin": "http://testserver"})
    assert refused == "没有 Origin 请求头：只有聊天页可以用这个中继"
    assert silent.status_code == 502 and silent.json()["error"]["message"].startswith(
        "连不上 Messages API："
    )


def test_every_sentence_chat_js_says_is_in_the_pages_table_and_translated_into_chinese():
    from streaming_lib.chat.words import TEMPLATES, page_words

    script = (chat_app.STATIC / "chat.js").read_text(encoding="utf-8")
    template = (chat_app.STATIC / "index.html").read_text(encoding="utf-8")
    # say("...") with a literal, and the two literals of count(number, "one", "{count} many")
    said = set(re.findall(r'say\(\s*"((?:[^"\\]|\\.)*)"', script + template))
    for one, many in re.findall(r'count\([^,()]+(?:\.\w+)?, "([^"]+)", "([^"]+)"\)', script):
        said |= {one, many}
    assert len(said) > 40 and said <= TEMPLATES, sorted(said - TEMPLATES)
    chinese = page_words("zh")
    untranslated = [english for english in TEMPLATES if chinese[english] == english]
    assert untranslated == []
    for english in TEMPLATES:  # the same fields, for chat.js to fill in
        fields = sorted(re.findall(r"\{\w+(?:!r)?\}", english))
        assert sorted(re.findall(r"\{\w+(?:!r)?\}", chinese[english])) == fields, english


def test_chat_js_section_headings_which_lesson_07_prints_are_in_the_catalogue():
    from streaming_lib.chat.words import SECTIONS
    from streaming_lib.language import translate

    script = (chat_app.STATIC / "chat.js").read_text(encoding="utf-8")
    headings = [line.strip("- /") for line in script.splitlines() if line.startswith("// ----")]
    assert headings == list(SECTIONS)
    assert all(translate(heading, "zh") != heading for heading in headings)


def test_the_pages_verdicts_are_the_librarys_own_catalogue_entries():
    from streaming_lib.chat.words import VERDICT
    from streaming_lib.tool_calls import NOT_RUNNABLE_BECAUSE, SERVER_RUN_BLOCKS

    said = [*NOT_RUNNABLE_BECAUSE.values(), *SERVER_RUN_BLOCKS.values()]
    library = {text.template for text in said}
    assert library <= set(VERDICT)


# ---- The command, and what it leaves behind ---------------------------------------------------


@contextlib.contextmanager
def chat_command(*options):
    """`python -m streaming_lib chat` on a free port with `options`, without an API key;
    yields (its first line, its URL, a function that presses Ctrl-C and returns all it
    printed). It is killed on the way out if it is still running."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environ = {
        name: value for name, value in os.environ.items() if not name.startswith("ANTHROPIC_")
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "streaming_lib", "chat", "--port", str(port), *options],
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # A shell that runs the tests in the background ignores SIGINT, and a child
        # inherits that: give the command Ctrl-C's usual meaning, as in a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )

    def ctrl_c():
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=10)[0]
        assert process.returncode == 0 and "Traceback" not in output, output
        return output

    try:
        yield process.stdout.readline(), f"http://127.0.0.1:{port}", ctrl_c
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_chat_command_prints_its_url_serves_the_page_and_stops_on_ctrl_c():
    with chat_command("--pace", "0") as (first_line, url, ctrl_c):
        assert first_line.startswith(f"Chat page: {url}/"), first_line
        assert "the replay server, replaying fixture.sse" in first_line, first_line
        assert "<title>Streaming chat</title>" in httpx.get(url + "/").text
        assert httpx.post(
            url + "/chat", json=PROMPT, headers={"origin": url}
        ).content == read_fixture("fixture")
        ctrl_c()


def test_the_chat_command_with_lang_zh_speaks_chinese_and_serves_the_page_in_chinese():
    with chat_command("--lang", "zh") as (first_line, url, ctrl_c):
        assert first_line.startswith(f"聊天页面：{url}/"), first_line
        assert "回放服务器" in first_line and "fixture.sse" in first_line, first_line
        page = httpx.get(url + "/").text
        assert '<html lang="zh-CN">' in page and "<title>流式聊天</title>" in page
        assert "<title>Streaming chat</title>" in httpx.get(url + "/?lang=en").text
        ctrl_c()


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


# ---- Hostile or broken upstreams, vanished pages: no 500, no traceback, nothing left open ----


class RawUpstream:
    """A fake upstream on a raw socket of 127.0.0.1: it reads each request's headers, sends
    `head` (bytes), then `trickle` one byte every 0.05 s, then hangs up (`then="close"`) or
    stays silent (`then="hold"`). `.open` counts the connections the relay has not closed."""

    def __init__(self, head=b"", *, trickle=b"", then="hold"):
        self.head, self.trickle, self.then = head, trickle, then
        self.open, self.seen = 0, 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.threads = []

    def serve(self, connection):
        with connection:
            connection.settimeout(5)
            received = b""
            try:
                while b"\r\n\r\n" not in received:
                    received += connection.recv(4096) or b"\r\n\r\n"  # (or it hung up)
                connection.sendall(self.head)
                for byte in self.trickle:
                    connection.sendall(bytes([byte]))
                    time.sleep(0.05)
                if self.then == "hold":
                    while connection.recv(4096):  # until the relay closes it
                        pass
            except OSError:  # the relay closed it first
                pass
            finally:
                self.open -= 1

    def accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.open, self.seen = self.open + 1, self.seen + 1
            thread = threading.Thread(target=self.serve, args=(connection,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def __enter__(self):
        threading.Thread(target=self.accept, daemon=True).start()
        return self

    def __exit__(self, *exc_info):
        self.listener.close()

    def wait_until_closed(self, within):
        """True once the relay has opened a connection and closed every one, within `within` s."""
        deadline = time.monotonic() + within
        while (self.seen == 0 or self.open) and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.seen > 0 and self.open == 0


def relay_to(upstream, **options):
    """The chat app relaying to `upstream` (a URL), served in a thread."""
    return ThreadedServer(build_app(upstream, **options), log_filter=HUSH)


def hang_up_after(app_url, seconds):
    """Post a prompt to the relay at `app_url`, then hang up after `seconds` without an answer."""
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(app_url + "/chat", json=PROMPT, headers={"origin": app_url}, timeout=seconds)
    return time.monotonic()


def response_head(status, content_type, length):
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {length}\r\n\r\n"
    ).encode()


def test_a_page_hanging_up_before_the_upstream_answers_closes_the_upstream_connection_at_once(
    error_log,
):
    with RawUpstream() as silent, relay_to(silent.url) as app:  # it accepts, then says nothing
        hung_up = hang_up_after(app.url, 0.5)
        assert silent.wait_until_closed(within=1)
        assert time.monotonic() - hung_up < 1
    assert error_log == []


def test_a_page_hanging_up_while_an_error_body_trickles_in_closes_the_upstream_at_once(error_log):
    head = response_head("500 Internal Server Error", "text/html", 10_000)
    with RawUpstream(head, trickle=b"<html>" * 100) as trickling, relay_to(trickling.url) as app:
        hang_up_after(app.url, 0.5)
        assert trickling.wait_until_closed(within=1)
    assert error_log == []


def test_a_silent_upstream_is_a_504_after_the_read_timeout_and_its_connection_is_closed(
    error_log,
):
    timeout = httpx.Timeout(2.0, read=0.3)
    with RawUpstream() as silent, relay_to(silent.url, timeout=timeout) as app:
        reply = post_chat(app)
        assert silent.wait_until_closed(within=1)
    assert reply.status_code == 504 and reply.json()["error"]["message"].startswith(
        "the Messages API did not answer in time"
    )
    assert error_log == []


def test_an_error_body_cut_off_is_the_relays_own_502_not_a_500(error_log):
    head = response_head("500 Internal Server Error", "application/json", 1000)
    with RawUpstream(head + b'{"type": "err', then="close") as cut, relay_to(cut.url) as app:
        reply = post_chat(app)
        assert cut.wait_until_closed(within=1)
    assert reply.status_code == 502
    assert reply.headers["content-type"] == "application/json"
    assert reply.json()["error"]["message"] == (
        "the Messages API answered HTTP 500 with application/json, not an API error"
    )
    assert error_log == []


def test_a_huge_error_page_is_cut_to_the_cap_and_sent_as_the_relays_own_json(error_log):
    page = b"<html>" + b"x" * 8_000_000
    head = response_head("503 Service Unavailable", "text/html", len(page))
    with RawUpstream(head + page, then="close") as huge, relay_to(huge.url) as app:
        reply = post_chat(app)
    assert reply.status_code == 502 and reply.headers["content-type"] == "application/json"
    assert len(reply.content) < 500 and b"<html>" not in reply.content
    assert reply.json()["error"]["message"] == (
        "the Messages API answered HTTP 503 with text/html, not an API error"
    )
    assert error_log == []


API_ERROR = (
    b'{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}'
)


@pytest.mark.parametrize(
    ("content_type", "body", "message"),
    [
        (
            "application/json",
            API_ERROR,
            "the Messages API answered HTTP 200 with application/json, not an event stream: "
            "invalid_request_error: prompt is too long",
        ),
        (
            "text/html",
            b"<html><body>Bad gateway</body></html>",
            "the Messages API answered HTTP 200 with text/html, not an event stream",
        ),
        (
            "text/plain",
            b"event: message_start\n\n",
            "the Messages API answered HTTP 200 with text/plain, not an event stream",
        ),
    ],
    ids=["json-error", "html", "plain-text"],
)
def test_a_200_that_is_not_an_event_stream_is_refused_with_a_plain_error(
    error_log, content_type, body, message
):
    head = response_head("200 OK", content_type, len(body))
    with RawUpstream(head + body, then="close") as odd, relay_to(odd.url) as app:
        reply = post_chat(app)
    assert reply.status_code == 502 and reply.headers["content-type"] == "application/json"
    assert reply.json()["error"]["message"] == message
    assert error_log == []


def test_an_upstream_api_error_keeps_its_4xx_status_type_and_message_but_a_5xx_becomes_a_502():
    def answer(request):
        status = int(request.url.params.get("status", "429"))
        kind = {429: "rate_limit_error", 529: "overloaded_error"}[status]
        body = {"type": "error", "error": {"type": kind, "message": "try later"}}
        return httpx.Response(status, json=body, headers={"retry-after": "3"})

    app = build_app("http://upstream.invalid", transport=httpx.MockTransport(answer))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        limited = client.post("/chat", json=PROMPT, headers=OWN)
    assert limited.status_code == 429 and "retry-after" not in limited.headers
    assert limited.json()["error"] == {"type": "rate_limit_error", "message": "try later"}


def test_an_overloaded_upstream_is_a_502_that_says_its_status():
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    transport = httpx.MockTransport(lambda request: httpx.Response(529, json=body))
    app = build_app("http://upstream.invalid", transport=transport)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/chat", json=PROMPT, headers=OWN)
    assert reply.status_code == 502
    assert reply.json()["error"] == {
        "type": "overloaded_error",
        "message": "the Messages API answered HTTP 529: Overloaded",
    }


def test_one_http_client_serves_every_request_and_is_closed_at_shutdown(monkeypatch):
    made = []

    class CountedClient(httpx.AsyncClient):
        def __init__(self, **options):
            super().__init__(**options)
            made.append(self)

    monkeypatch.setattr(chat_app.httpx, "AsyncClient", CountedClient)

    async def fixture_bytes():  # a stream, as a server's body is, not content read at once
        yield read_fixture("fixture")

    stream = httpx.MockTransport(
        lambda request: httpx.Response(
            200, content=fixture_bytes(), headers={"content-type": "text/event-stream"}
        )
    )
    app = build_app("http://upstream.invalid", transport=stream)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        for _ in range(3):
            assert client.post("/chat", json=PROMPT, headers=OWN).content == read_fixture("fixture")
        assert len(made) == 1 and not made[0].is_closed
    assert made[0].is_closed


def test_a_page_hanging_up_mid_body_or_too_slow_to_send_it_leaves_no_traceback(error_log):
    half = (
        b"POST /chat HTTP/1.1\r\nhost: 127.0.0.1\r\norigin: http://127.0.0.1\r\n"
        b'content-type: application/json\r\ncontent-length: 100\r\n\r\n{"pro'
    )
    app = build_app("http://upstream.invalid", transport=httpx.MockTransport(no_upstream))
    with ThreadedServer(app, request_timeout=0.3) as slow:
        gone = socket.create_connection(("127.0.0.1", slow.port))
        gone.sendall(half)
        gone.close()
        stalled = socket.create_connection(("127.0.0.1", slow.port))
        stalled.sendall(half)
        stalled.settimeout(2)
        assert stalled.recv(4096) == b""  # cut off after the request timeout, no answer
        stalled.close()
    assert error_log == []


@pytest.mark.parametrize(
    ("environ", "options", "message"),
    [
        ({}, ["--host", "::1"], "cannot listen on ::1 port 0"),
        (
            {"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": "ftp://example.com"},
            [],
            "ANTHROPIC_BASE_URL: the upstream must be an http(s) URL with a host, not "
            "'ftp://example.com'",
        ),
        (
            {"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": "http://[bad"},
            [],
            "ANTHROPIC_BASE_URL: the upstream must be an http(s) URL with a host, not "
            "'http://[bad'",
        ),
        ({}, ["--fixture", "no_such_fixture"], "cannot replay no_such_fixture: no such fixture"),
        (
            {"ANTHROPIC_API_KEY": "test"},
            ["--host", "0.0.0.0"],
            "with ANTHROPIC_API_KEY set the relay spends your key for whoever reaches it, "
            "so it listens only on 127.0.0.1 or localhost, not 0.0.0.0",
        ),
    ],
    ids=["ipv6-host", "ftp-base-url", "bad-base-url", "no-such-fixture", "key-on-every-address"],
)
def test_the_chat_commands_start_up_errors_are_one_sentence_and_status_2(
    capsys, monkeypatch, environ, options, message
):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert main(["chat", "--port", "0", *options]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("Cannot start the chat page: " + message), err


def test_the_chat_command_on_a_port_in_use_says_so_in_one_line(capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        threads_before = set(threading.enumerate())
        assert main(["chat", "--port", str(port)]) == 2
        assert set(threading.enumerate()) == threads_before  # the replay server it started stopped
    err = capsys.readouterr().err
    assert (
        err == f"Cannot start the chat page: cannot listen on 127.0.0.1 port {port}: "
        "Address already in use\n"
    )


def test_a_bad_fault_parameter_from_the_page_gets_the_replay_servers_400_naming_it(chat):
    for query, named in [
        ("pace=abc", "pace='abc'"),
        ("error_after=1%0D%0A", "error_after='1\\r\\n'"),
    ]:
        reply = post_chat(chat, "/chat?" + query)
        assert reply.status_code == 400 and reply.headers["content-type"] == "application/json"
        assert reply.json()["error"]["message"].startswith(named + ": expected")


def test_the_module_examples_run():
    for module in (
        streaming_lib.chat,
        chat_app,
        streaming_lib.chat.runner,
        streaming_lib.chat.upstream,
        streaming_lib.lab.settings,
        streaming_lib.lab.api,
    ):
        results = doctest.testmod(module)
        assert results.attempted > 0 and results.failed == 0, module.__name__


# -- hostile settings and upstreams (the key, the URL, error bodies) ---------------------


@pytest.mark.parametrize(
    "environ, named",
    [
        ({"ANTHROPIC_BASE_URL": "https://api.example.com\r"}, "ANTHROPIC_BASE_URL"),  # a CRLF .env
        ({"ANTHROPIC_BASE_URL": "https://api.example.com\n"}, "ANTHROPIC_BASE_URL"),
        ({"ANTHROPIC_BASE_URL": "https://api.exa mple.com"}, "ANTHROPIC_BASE_URL"),
        ({"ANTHROPIC_API_KEY": "sk-ant-clé"}, "ANTHROPIC_API_KEY"),
        ({"ANTHROPIC_API_KEY": FAKE_KEY + "\r"}, "ANTHROPIC_API_KEY"),
    ],
)
def test_a_setting_that_could_not_be_sent_is_refused_at_start_up_in_one_sentence(environ, named):
    with pytest.raises(ValueError) as caught:
        ChatServer(environ={"ANTHROPIC_API_KEY": FAKE_KEY, **environ})
    said = str(caught.value)
    assert named in said and "\n" not in said and FAKE_KEY not in said


def test_the_banner_masks_the_password_of_the_upstream_url_and_ctrl_c_ends_it_quietly():
    environ = {
        **os.environ,
        "ANTHROPIC_API_KEY": FAKE_KEY,
        "ANTHROPIC_BASE_URL": "http://me:hunter2@127.0.0.1:9",  # nothing is sent: no prompt
    }
    command = [sys.executable, "-m", "streaming_lib", "chat", "--port", "0"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ, text=True
    )
    try:
        banner = process.stdout.readline()
        page = re.search(r"http://127\.0\.0\.1:\d+/", banner)
        assert page is not None, banner
        for _ in range(100):  # Ctrl-C once the page answers, as a person would press it
            try:
                httpx.get(page[0] + "about", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        process.kill()
    assert "me:***@127.0.0.1:9" in banner and "hunter2" not in banner + out + err
    assert process.returncode == 0 and "Traceback" not in err


def key_echoing_upstream(status, content_type="application/json"):
    """An upstream whose error message quotes the key it was sent."""

    def answer(request):
        message = f"invalid x-api-key: {request.headers['x-api-key']}"
        body = {"type": "error", "error": {"type": "authentication_error", "message": message}}
        return httpx.Response(status, json=body, headers={"content-type": content_type})

    return httpx.MockTransport(answer)


@pytest.mark.parametrize("status", [401, 529, 200])
def test_a_key_quoted_by_the_upstreams_error_never_reaches_the_page(status):
    app = build_app(
        "http://upstream.invalid", api_key=FAKE_KEY, transport=key_echoing_upstream(status)
    )
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/chat", json=PROMPT, headers=OWN)
    assert reply.status_code in (401, 502)
    assert FAKE_KEY not in reply.text
    assert streaming_lib.lab.settings.REDACTED in reply.json()["error"]["message"]


def test_a_key_quoted_inside_a_stream_is_redacted_even_split_across_chunks():
    quoted = f'event: error\ndata: {{"type":"error","error":{{"message":"{FAKE_KEY}"}}}}\n\n'
    raw = read_fixture("fixture") + quoted.encode()
    cut = len(read_fixture("fixture")) + quoted.index(FAKE_KEY) + 7  # inside the key

    async def chunks():
        yield raw[:cut]
        yield raw[cut:]

    def answer(request):
        return httpx.Response(200, headers={"content-type": SSE}, stream=AsyncChunks(chunks()))

    app = build_app(
        "http://upstream.invalid", api_key=FAKE_KEY, transport=httpx.MockTransport(answer)
    )
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/chat", json=PROMPT, headers=OWN)
    redacted = raw.replace(FAKE_KEY.encode(), streaming_lib.lab.settings.REDACTED.encode())
    assert reply.status_code == 200 and reply.content == redacted


class AsyncChunks(httpx.AsyncByteStream):
    """A response body given chunk by chunk, as a network would (read once, as sent)."""

    def __init__(self, chunks):
        self.chunks = chunks
        self.pulled = 0

    async def __aiter__(self):
        async for chunk in self.chunks:
            self.pulled += len(chunk)
            yield chunk


def gzip_of_zeros(megabytes):
    """`megabytes` MB of zero bytes, gzipped (about a thousandth of the size)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip header
    zeros = bytes(1024 * 1024)
    return b"".join(packer.compress(zeros) for _ in range(megabytes)) + packer.flush()


def test_a_gzip_bomb_in_an_error_body_is_read_only_to_the_limit_as_sent_and_decompressed():
    limit = streaming_lib.lab.api.MAX_ERROR_BYTES
    bomb = gzip_of_zeros(200)  # 200 MB in about 200 KB
    assert len(bomb) > limit
    streams = []

    async def chunks():
        for start in range(0, len(bomb), 1024):
            yield bomb[start : start + 1024]

    def answer(request):
        streams.append(AsyncChunks(chunks()))
        headers = {"content-type": "application/json", "content-encoding": "gzip"}
        return httpx.Response(529, headers=headers, stream=streams[-1])

    app = build_app("http://upstream.invalid", transport=httpx.MockTransport(answer))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/chat", json=PROMPT, headers=OWN)
    assert reply.status_code == 502 and "not an API error" in reply.json()["error"]["message"]
    assert streams[0].pulled <= limit + 1024  # read as sent: stopped at the limit
    # ...and what those bytes unpack to is cut at the limit too.
    assert len(streaming_lib.lab.api.decoded(bomb[:limit], "gzip")) == limit


def test_a_gzipped_api_error_is_still_read():
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

    def answer(request):
        body = gzip.compress(json.dumps(error).encode())
        headers = {"content-type": "application/json", "content-encoding": "gzip"}
        return httpx.Response(529, headers=headers, stream=AsyncChunks(once(body)))

    app = build_app("http://upstream.invalid", transport=httpx.MockTransport(answer))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/chat", json=PROMPT, headers=OWN)
    assert reply.status_code == 502 and reply.json()["error"]["type"] == "overloaded_error"


async def once(body):
    yield body


def test_an_error_body_is_read_only_to_the_limit_as_sent():
    limit = streaming_lib.lab.api.MAX_ERROR_BYTES
    streams = []

    async def endless():
        while True:
            yield b"x" * 4096

    def answer(request):
        streams.append(AsyncChunks(endless()))
        return httpx.Response(502, headers={"content-type": "text/html"}, stream=streams[-1])

    app = build_app("http://upstream.invalid", transport=httpx.MockTransport(answer))
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/chat", json=PROMPT, headers=OWN)
    assert reply.status_code == 502
    assert limit <= streams[0].pulled <= limit + 4096


@pytest.mark.parametrize("coding", ["gzip", "br", "GZIP "])
def test_a_compressed_stream_is_refused_and_the_key_in_it_never_reaches_the_page(coding):
    quoted = f'event: ping\ndata: {{"type":"ping","key":"{FAKE_KEY}"}}\n\n'.encode()

    def answer(request):
        headers = {"content-type": SSE, "content-encoding": coding}
        return httpx.Response(200, headers=headers, content=gzip.compress(quoted))

    app = build_app(
        "http://upstream.invalid", api_key=FAKE_KEY, transport=httpx.MockTransport(answer)
    )
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/chat", json=PROMPT, headers=OWN)
    assert reply.status_code == 502 and reply.headers["content-type"] == "application/json"
    assert "compressed its stream" in reply.json()["error"]["message"]
    assert FAKE_KEY not in reply.text


class CtrlCAtFlush:
    """A stdout whose first flush is where Ctrl-C lands (a pipe reads the banner then)."""

    flushes = 0

    def flush(self):
        self.flushes += 1
        if self.flushes == 1:
            raise KeyboardInterrupt


def test_ctrl_c_as_the_banner_is_flushed_ends_chat_quietly_with_status_0(monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    # Only the runner's flush is the moment; uvicorn and pytest keep the real stdout.
    stdout = CtrlCAtFlush()
    monkeypatch.setattr(
        streaming_lib.chat.runner, "sys", types.SimpleNamespace(stdout=stdout, stderr=sys.stderr)
    )
    before = threading.active_count()
    assert streaming_lib.chat.runner.serve("fixture", port=0) == 0
    assert stdout.flushes == 1 and "Chat page: http://127.0.0.1:" in capsys.readouterr().out
    assert threading.active_count() == before  # both servers stopped, their threads joined
