"""The chat page in a real browser: the text and the tool input grow as events
arrive, the verdict, usage, Stop, an error mid-stream and a cut stream; and the
page's own stream reader (chat.js) gives our decoders' events on every chunking.

Needs Debian's chromium at /usr/bin/chromium and the `playwright` package (no
downloaded browser), launched as in test_stepper_browser.py.
"""

import json
import random

import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route
from test_stepper_browser import CHROMIUM, CHROMIUM_ARGS, missing

from streaming_lib.accumulator import MessageAccumulator, accumulate
from streaming_lib.chat import ChatServer, ThreadedServer
from streaming_lib.errors import StreamError
from streaming_lib.events import iter_events
from streaming_lib.lab.replay_plan import plan_body
from streaming_lib.language import use_language
from streaming_lib.sse import iter_sse
from streaming_lib.tools.fixtures import FIXTURES_DIR, chunked, read_fixture

pytestmark = pytest.mark.browser

if missing():
    pytest.skip(missing(), allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

TIMEOUT_MS = 15_000
EXPECTED = json.loads((FIXTURES_DIR / "fixture.expected.json").read_text(encoding="utf-8"))[
    "message"
]
TEXT = EXPECTED["content"][0]["text"]
TOOL_INPUT = EXPECTED["content"][1]["input"]

# Recorded in the page, outside its code: each distinct text of the answer, of the
# tool preview, of the verdict (with its colour) and of the usage line, in the order
# the page showed them.
RECORD_GROWTH = """
window.grew = {answer: [], preview: [], verdict: [], usage: []};
new MutationObserver(() => {
  const record = (list, element, text) => {
    text = text === undefined ? (element ? element.textContent : "") : text;
    if (text !== "" && text !== list[list.length - 1]) list.push(text);
  };
  record(window.grew.answer, document.getElementById("answer"));
  record(window.grew.preview, document.querySelector(".tool-input"));
  record(window.grew.usage, document.getElementById("usage"));
  const verdict = document.querySelector(".verdict");
  if (verdict && verdict.textContent) {
    record(window.grew.verdict, null, getComputedStyle(verdict).color + " " + verdict.textContent);
  }
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""
RED = "rgb(161, 38, 13)"  # chat.css: an error, a final refusal
GREEN = "rgb(20, 108, 46)"  # chat.css: runnable, done


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 900, "height": 760})
    page.set_default_timeout(TIMEOUT_MS)
    page.add_init_script(RECORD_GROWTH)
    yield page
    page.close()


def ask(page, url, send="Send"):
    page.goto(url)
    page.get_by_role("button", name=send).click()


def expected_after(raw):
    """The accumulator after the events of `raw` (bytes), up to an error or the end."""
    acc = MessageAccumulator()
    try:
        for event in iter_events([raw]):
            acc.feed(event)
    except Exception:  # the error event, or the cut: the accumulator keeps what came before
        pass
    return acc


def each_a_prefix_of_the_next(texts):
    return all(
        later.startswith(earlier) and later != earlier
        for earlier, later in zip(texts, texts[1:], strict=False)
    )


def test_the_answer_and_the_tool_input_grow_as_they_arrive_then_the_verdict_and_usage_show(
    page, tmp_path
):
    # 0.15 s between events: slow enough that a loaded machine still paints each one
    with ChatServer("fixture", pace=0.15, environ={}) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_have_text("done: stop_reason tool_use")
    grew = page.evaluate("window.grew")
    assert len(grew["answer"]) >= 3 and each_a_prefix_of_the_next(grew["answer"])
    assert grew["answer"][-1] == TEXT == page.locator("#answer").text_content()
    assert len(grew["preview"]) >= 3 and each_a_prefix_of_the_next(grew["preview"])
    assert json.loads(grew["preview"][-1]) == TOOL_INPUT
    acc = expected_after(read_fixture("fixture"))
    expect(page.locator(".verdict")).to_have_text("runnable: " + acc.tool_call_verdict(1).reason)
    expect(page.locator("#usage")).to_have_text("usage: 412 input tokens, 58 output tokens")
    # message_start counts 1 output token: singular while it is the count so far.
    assert "usage so far: 412 input tokens, 1 output token" in page.evaluate("window.grew.usage")
    page.screenshot(path=str(tmp_path / "chat.png"), full_page=True)
    assert (tmp_path / "chat.png").stat().st_size > 10_000


def test_at_lang_zh_the_page_its_banner_verdict_usage_and_status_speak_chinese(page):
    acc = expected_after(read_fixture("fixture"))
    with ChatServer("fixture", pace=0.02, environ={}) as chat:
        page.goto(chat.url + "/?lang=zh")
        expect(page).to_have_title("流式聊天")
        expect(page.get_by_role("button", name="停止")).to_be_disabled()
        expect(page.locator("#source")).to_contain_text("离线回放：不管你问什么")
        page.get_by_role("button", name="发送").click()
        expect(page.locator("#status")).to_have_text("完成：stop_reason 为 tool_use")
    reason = acc.tool_call_verdict(1).reason.in_language("zh")
    expect(page.locator(".verdict")).to_have_text("可以执行：" + reason)
    expect(page.locator("#usage")).to_have_text("用量：输入 412 个 token，输出 58 个 token")
    assert "目前的用量：输入 412 个 token，输出 1 个 token" in page.evaluate("window.grew.usage")


def test_at_lang_zh_a_cut_stream_is_marked_in_chinese(page):
    with ChatServer("fixture", pace=0.05, environ={}) as chat:
        page.goto(chat.url + "/?lang=zh&drop_at=1500")
        page.get_by_role("button", name="发送").click()
        expect(page.locator("#status")).to_contain_text("不完整：连接在 message_stop 之前断了")
    expect(page.locator(".cut-note")).to_contain_text("✂ 连接断了，这段输入还不完整")
    expect(page.locator(".verdict")).to_have_text("不能执行：连接断了，这次调用还不完整：不能执行")


def test_the_page_says_it_replays_a_recorded_answer_whatever_the_prompt_and_which(page):
    with ChatServer("tool_use_end_turn", pace=0, environ={}) as chat:
        page.goto(chat.url + "/")
        notice = page.locator("#source")
        expect(notice).to_be_visible()
        expect(notice).to_contain_text("whatever you ask, the answer is the same recorded stream")
        expect(notice).to_contain_text("tool_use_end_turn.sse")
        expect(notice).to_contain_text("ANTHROPIC_API_KEY")


def test_while_the_tool_input_streams_its_verdict_is_a_neutral_pending_never_the_red_of_a_no(page):
    with ChatServer("fixture", pace=0.15, environ={}) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_have_text("done: stop_reason tool_use")
    shown = page.evaluate("window.grew.verdict")
    *streaming, final = shown
    assert len(streaming) >= 2, shown  # "no content_block_stop yet", then "no message_stop yet"
    for line in streaming:
        assert " pending: " in line and not line.startswith((RED, GREEN)), line
    assert final.startswith(GREEN + " runnable: "), final
    # A "no" once the stream is over is final, and red.
    with ChatServer("tool_use_end_turn", pace=0, environ={}) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_have_text("done: stop_reason end_turn")
    verdict = page.locator(".verdict")
    expect(verdict).to_have_class("verdict not-runnable")
    expect(verdict).to_have_css("color", RED)


@pytest.mark.parametrize("drop_at", [1500, 1800])
def test_after_a_cut_the_tool_box_shows_the_input_that_arrived_marked_as_cut(page, drop_at):
    with ChatServer("fixture", pace=0.1, environ={}) as chat:
        ask(page, f"{chat.url}/?drop_at={drop_at}")
        expect(page.locator("#status")).to_contain_text("the connection was cut")
    arrived = expected_after(read_fixture("fixture")[:drop_at]).json_buffers[1]
    box = page.locator(".tool")
    expect(box).to_have_class("tool cut")
    expect(box.locator(".tool-input")).to_have_text(arrived)
    said = (
        "none of it arrived."
        if arrived == ""
        else f"the {len(arrived)} characters above are all that arrived."
    )
    expect(box.locator(".cut-note")).to_have_text(
        "✂ the connection was cut before this input was complete: " + said
    )
    # The empty input says so instead of showing a blank bar.
    content = box.locator(".tool-input").evaluate(
        "(pre) => getComputedStyle(pre, '::before').content"
    )
    assert content == ('"(none of the input arrived)"' if arrived == "" else "none")
    expect(box.locator(".verdict")).to_have_css("color", RED)
    expect(box.locator(".verdict")).to_have_text(
        "not runnable: the connection was cut before this call was complete: it may not run"
    )


def test_stop_freezes_the_page_keeps_the_partial_text_and_the_replay_server_sees_the_disconnect(
    page,
):
    with ChatServer("fixture", pace=0.3, environ={}) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#answer")).not_to_be_empty()
        page.get_by_role("button", name="Stop").click()
        expect(page.locator("#status")).to_contain_text("stopped")
        assert chat.replay.wait_for_disconnects(1, timeout=5)
        shown = page.locator("#answer").text_content()
        page.wait_for_timeout(1000)  # three more events' time: nothing more may show
        assert page.locator("#answer").text_content() == shown
    assert shown and TEXT.startswith(shown) and shown != TEXT
    assert page.evaluate("window.grew.answer")[-1] == shown


def test_an_error_mid_stream_shows_its_message_and_keeps_the_partial_answer(page):
    error_after = 14  # in the middle of the tool input
    with ChatServer("fixture", pace=0.01, environ={}) as chat:
        ask(page, f"{chat.url}/?error_after={error_after}")
        expect(page.locator("#status")).to_have_text(
            "error: overloaded_error: Overloaded; the answer above is partial"
        )
    pieces, _ = plan_body(read_fixture("fixture"), error_after=error_after)
    acc = expected_after(b"".join(pieces))
    assert page.locator("#answer").text_content() == TEXT
    assert page.locator(".tool-input").text_content() == acc.json_buffers[1]
    assert not acc.tool_call_verdict(1).runnable  # the library's: no stop yet for block 1
    # Nothing more will come: the page says why the call never completed.
    expect(page.locator(".verdict")).to_have_text(
        "not runnable: an error ended the stream before this call was complete: it may not run"
    )


@pytest.mark.parametrize("drop_at", [700, 1500])
def test_a_cut_stream_is_marked_incomplete_and_keeps_the_partial_answer(page, drop_at):
    # Events 0.1 s apart: the page has read each event before the cut comes. (A cut
    # errors the fetch's ReadableStream, which drops the chunks not read yet.)
    with ChatServer("fixture", pace=0.1, environ={}) as chat:
        ask(page, f"{chat.url}/?drop_at={drop_at}")
        expect(page.locator("#status")).to_contain_text(
            "incomplete: the connection was cut before message_stop"
        )
    acc = expected_after(read_fixture("fixture")[:drop_at])
    text = acc.message["content"][0]["text"]
    assert text and page.locator("#answer").text_content() == text
    assert "answer above is partial" in page.locator("#status").text_content()


def test_a_page_from_another_origin_cannot_use_the_relay(page):
    other_page = HTMLResponse("<!doctype html><title>another site</title>")
    other = Starlette(routes=[Route("/", lambda request: other_page)])
    with ChatServer("fixture", pace=0, environ={}) as chat, ThreadedServer(other) as elsewhere:
        page.goto(elsewhere.url + "/")
        # A "simple" request (no preflight), as any web page may send to any address:
        # the browser sends it, with the other page's Origin, and the app refuses it.
        with page.expect_response(chat.url + "/chat") as refused:
            page.evaluate(
                """(url) => fetch(url + "/chat", {method: "POST", mode: "no-cors",
                                                  headers: {"content-type": "text/plain"},
                                                  body: JSON.stringify({prompt: "hi"})})""",
                chat.url,
            )
        assert refused.value.status == 403
        # A JSON request needs a CORS preflight, which the app does not grant: never sent.
        failed = page.evaluate(
            """(url) => fetch(url + "/chat", {
                method: "POST",
                headers: {"content-type": "application/json"},
                body: JSON.stringify({prompt: "hi"}),
            }).then(() => "sent", (e) => e.name)""",
            chat.url,
        )
        assert failed == "TypeError"
        assert chat.replay.requests == 0  # nothing went upstream


# ---- The page's reader against ours: same events on every chunking ----------------------------

PARSE_IN_PAGE = """([bytes, sizes]) => {
    const data = new Uint8Array(bytes);
    const decoder = new TextDecoder("utf-8");
    const lines = new LineSplitter();
    const sse = new SSEParser();
    const events = [];
    const take = (text) => {
        for (const line of lines.feed(text)) {
            const event = sse.feedLine(line);
            if (event !== null) events.push([event.type, event.data]);
        }
    };
    let start = 0;
    for (const size of sizes) {
        take(decoder.decode(data.subarray(start, start + size), {stream: true}));
        start += size;
    }
    take(decoder.decode());
    return events;
}"""

STREAMS = ["fixture", "crlf", "sse_fields", "cjk_emoji", "unknown_types"]


def chunkings(raw, seed):
    rng = random.Random(seed)
    yield [len(raw)]
    for size in (1, 2, 7):
        yield [len(piece) for piece in chunked(raw, size)]
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(raw)), 12))
        yield [b - a for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]


@pytest.fixture(scope="module")
def reader_page(browser):
    """The chat page, loaded once, for its LineSplitter and SSEParser."""
    with ChatServer("fixture", pace=0, environ={}) as chat:
        page = browser.new_page()
        page.goto(chat.url + "/")
        yield page
        page.close()


@pytest.mark.parametrize("name", STREAMS)
def test_the_pages_line_and_event_reader_gives_our_decoders_events_on_every_chunking(
    reader_page, name
):
    raw = read_fixture(name)
    ours = [[event.event, event.data] for event in iter_sse([raw])]
    for sizes in chunkings(raw, seed=name):
        assert reader_page.evaluate(PARSE_IN_PAGE, [list(raw), sizes]) == ours, sizes


@pytest.mark.parametrize(
    "stream",
    [
        b"data: a\r\ndata: b\r\n\r\n",
        b"data: a\r\rdata: b\n\n",
        b"data: a\r\n\r\n\r\n",
        b": hi\r\ndata: \xe6\x89\xbe\r\r",
    ],
    ids=["crlf", "cr-cr", "crlf-blank-blank", "comment-and-cjk"],
)
def test_a_stream_cut_in_two_anywhere_gives_the_same_events_as_whole(reader_page, stream):
    # In particular a CR ending the first piece and an LF starting the second are one line end.
    ours = [[event.event, event.data] for event in iter_sse([stream])]
    for cut in range(1, len(stream)):
        assert (
            reader_page.evaluate(PARSE_IN_PAGE, [list(stream), [cut, len(stream) - cut]]) == ours
        ), cut


def test_a_refusal_withdraws_the_text_shown_while_it_streamed(page):
    with ChatServer("refusal", pace=0.05, environ={}) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_contain_text("refused")
    shown = page.evaluate("window.grew.answer")
    assert (
        shown and shown[-1] == expected_after(read_fixture("refusal")).message["content"][0]["text"]
    )
    expect(page.locator("#answer")).to_be_empty()


def test_the_page_runs_a_call_only_by_the_allow_list_and_skips_events_the_api_does_not_send(page):
    # A complete call under end_turn: the page says no, with the library's reason.
    with ChatServer("tool_use_end_turn", pace=0, environ={}) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_have_text("done: stop_reason end_turn")
    acc = expected_after(read_fixture("tool_use_end_turn"))
    expect(page.locator(".verdict")).to_have_text(
        "not runnable: " + acc.tool_call_verdict(1).reason
    )
    # A gateway's keep-alive event with plain-text data, mid-stream: skipped, as events.py skips it.
    raw = read_fixture("fixture")
    cut = raw.index(b"event: content_block_stop")
    with ChatServer(
        raw[:cut] + b"event: keepalive\ndata: ok\n\n" + raw[cut:], pace=0, environ={}
    ) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_have_text("done: stop_reason tool_use")
    assert page.locator("#answer").text_content() == TEXT


# ---- Streams the library refuses: the page refuses them too, with the library's sentence -----

RAW = read_fixture("fixture")
FIRST_EVENT = RAW[: RAW.index(b"\n\n") + 2]  # message_start
SECOND_BLOCK = RAW.index(
    b'event: content_block_start\ndata: {"type":"content_block_start","index":1'
)


def broken(name):
    """The course fixture, broken as `name` says (bytes)."""
    if name == "a second message_start":
        return RAW[:SECOND_BLOCK] + FIRST_EVENT + RAW[SECOND_BLOCK:]
    if name == "a name its data contradicts":
        stop = b'event: content_block_stop\ndata: {"type":"content_block_stop"'
        return RAW.replace(stop, stop.replace(b'"content_block_stop"', b'"message_stop"'), 1)
    if name == "an index of __proto__":
        start = RAW[SECOND_BLOCK:].replace(b'"index":1', b'"index":"__proto__"', 1)
        return RAW[:SECOND_BLOCK] + start
    raise ValueError(name)


@pytest.mark.parametrize(
    "name", ["a second message_start", "a name its data contradicts", "an index of __proto__"]
)
def test_a_stream_the_library_refuses_is_refused_by_the_page_with_the_same_sentence(page, name):
    raw = broken(name)
    with pytest.raises(StreamError) as refused:
        accumulate([raw])
    with ChatServer(raw, pace=0, environ={}) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_have_text(
            f"error: bad_event: {refused.value}; the answer above is partial"
        )
    # What came before the bad event is kept, and the page still renders.
    assert page.locator("#answer").text_content() == TEXT


@pytest.mark.parametrize("name", ["a second message_start", "a name its data contradicts"])
def test_at_lang_zh_a_refused_stream_is_refused_with_the_librarys_chinese_sentence(page, name):
    raw = broken(name)
    with pytest.raises(StreamError) as refused, use_language("zh"):
        accumulate([raw])
    with use_language("zh"):
        said = str(refused.value)
    assert said != str(refused.value) and "第" in said  # the library's sentence, in Chinese
    with ChatServer(raw, pace=0, environ={}) as chat:
        ask(page, chat.url + "/?lang=zh", send="发送")
        expect(page.locator("#status")).to_have_text(
            f"出错：bad_event：{said}；上面的回答只是一部分"
        )


def test_a_200_that_is_not_an_event_stream_shows_as_a_plain_error(page):
    html = HTMLResponse("<!doctype html><title>502 Bad Gateway</title>")
    gateway = Starlette(routes=[Route("/v1/messages", lambda request: html, methods=["POST"])])
    with ThreadedServer(gateway) as upstream:
        environ = {"ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": upstream.url}
        with ChatServer(environ=environ) as chat:
            ask(page, chat.url + "/")
            expect(page.locator("#status")).to_have_text(
                "error: HTTP 502: api_error: the Messages API answered HTTP 200 with text/html, "
                "not an event stream"
            )


def test_run_on_the_learners_code_the_page_shows_their_clients_report_and_their_verdict(
    page, tmp_path
):
    import shutil

    from streaming_lib.tools.my_client import REFERENCE, stage
    from streaming_lib.tools.my_client.beside import readings

    where = tmp_path / "my_client"
    shutil.copytree(REFERENCE, where)
    reader, core = readings(where), stage("relay", where).run
    with ChatServer("fixture", pace=0.01, environ={}, core=core, reader=reader) as chat:
        ask(page, chat.url + "/")
        expect(page.locator("#status")).to_have_text("done: stop_reason tool_use")
        expect(page.locator("#yours")).to_have_text(
            "your client: the message matches. Your stages: lines, sse, accumulator,"
            " tool_input, verdict"
        )
        verdict = page.locator(".verdict")
        expect(verdict).to_have_text("runnable, says your may_run (my_client/verdict.py)")
        assert page.evaluate("getComputedStyle(document.querySelector('.verdict')).color") == GREEN


def test_the_page_follows_the_systems_dark_mode_and_keeps_its_colours_apart(browser):
    page = browser.new_page(viewport={"width": 900, "height": 760}, color_scheme="dark")
    page.set_default_timeout(TIMEOUT_MS)
    try:
        with ChatServer("fixture", pace=0, environ={}) as chat:
            ask(page, chat.url + "/")
            expect(page.locator("#status")).to_have_text("done: stop_reason tool_use")
        colour = "(selector) => getComputedStyle(document.querySelector(selector))"
        assert page.evaluate(colour + ".backgroundColor", "body") == "rgb(22, 24, 29)"
        assert page.evaluate(colour + ".color", "#answer") == "rgb(230, 232, 236)"
        assert page.evaluate(colour + ".color", ".verdict") == "rgb(111, 208, 140)"
    finally:
        page.close()
