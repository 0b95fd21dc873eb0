"""The async pipeline gives exactly what the sync one gives, and lets go of the
connection when the consumer stops."""

import asyncio
import json

import httpx
import pytest
from anthropic import AsyncAnthropic
from hypothesis import given, settings
from hypothesis import strategies as st

from streaming_lib import StreamError, accumulate, decode_event, fast, iter_events
from streaming_lib.aio import aaccumulate, aiter_events
from streaming_lib.lab.server import ReplayServer
from streaming_lib.tools.fixtures import FIXTURES_DIR, chunked, fixture_names, read_fixture
from streaming_lib.tools.sdk import MODEL
from tests.test_fast_paths import api_streams, limits, run

GATEWAY = FIXTURES_DIR.parent / "tests" / "data" / "gateway"
REQUEST = {
    "model": MODEL,
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "fix calc.py"}],
}


async def trickle(chunks, log=None):
    """The chunks as an async byte stream; `log` lists each chunk as it is taken."""
    for chunk in chunks:
        if log is not None:
            log.append(chunk)
        await asyncio.sleep(0)  # hand control back, as a socket read would
        yield chunk


def stepped(events):
    """An async iterator walked one item at a time from sync code: items and errors come
    out at the moment they would in an `async for`."""
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                yield loop.run_until_complete(anext(events))
            except StopAsyncIteration:
                return
    finally:
        loop.close()


def outcome(function):
    """(the message, None) or (None, what the error says and holds)."""
    try:
        return function(), None
    except StreamError as error:
        return None, (
            type(error),
            str(error),
            error.event_number,
            error.index,
            error.offset,
            error.partial,
            error.events,
        )


def sync_and_async(chunks, **options):
    options.setdefault("keep_events", True)
    return (
        outcome(lambda: accumulate(chunks, **options)),
        outcome(lambda: asyncio.run(aaccumulate(trickle(chunks), **options))),
    )


@settings(max_examples=300, deadline=None)
@given(st.data(), st.booleans(), limits)
def test_aiter_events_gives_the_events_and_errors_of_iter_events(data, strict, limit):
    raw = data.draw(api_streams)
    cuts = sorted(data.draw(st.sets(st.integers(0, len(raw)), max_size=12)))
    bounds = [0, *cuts, len(raw)]
    chunks = [raw[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    produced = run(
        lambda: stepped(aiter_events(trickle(chunks), strict=strict, max_event_bytes=limit))
    )
    assert produced == run(lambda: iter_events(chunks, strict=strict, max_event_bytes=limit))


def test_bad_data_midway_comes_after_every_event_before_it_as_in_the_sync_pipeline():
    raw = (
        b"\n\n".join(read_fixture().split(b"\n\n")[:5])
        + b"\n\nevent: content_block_delta\ndata: {bad\n\n"
    )
    items, error = run(lambda: stepped(aiter_events(trickle(chunked(raw, 7)))))
    assert (items, error) == run(lambda: iter_events([raw]))
    assert len(items) == 5 and error[0].__name__ == "EventDataError" and error[2] == 6


def test_the_async_pipeline_reads_plain_events_the_fast_way_as_the_sync_one_does(monkeypatch):
    decoded = []  # the numbers of the events handed to the plain `decode_event`

    def counting(event, number):
        decoded.append(number)
        return decode_event(event, number)

    monkeypatch.setattr(fast, "decode_event", counting)
    raw = read_fixture()
    sync = accumulate(chunked(raw, 7))
    sync_decoded, decoded[:] = list(decoded), []
    assert asyncio.run(aaccumulate(trickle(chunked(raw, 7)))) == sync
    assert decoded == sync_decoded  # the same few (ping, error), not every event
    assert len(decoded) < raw.count(b"\n\n") // 4


@pytest.mark.parametrize("size", [1, 7, None])
@pytest.mark.parametrize("name", fixture_names())
def test_aaccumulate_gives_what_accumulate_gives_on_every_fixture(name, size):
    raw = read_fixture(name)
    ours_sync, ours_async = sync_and_async([raw] if size is None else chunked(raw, size))
    assert ours_async == ours_sync


@pytest.mark.parametrize("path", sorted(GATEWAY.glob("*.sse")), ids=lambda path: path.stem)
def test_aaccumulate_reads_the_streams_gateways_reshape(path):
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))[
        "expected_final_message"
    ]
    for size in (1, 2, 7):
        assert asyncio.run(aaccumulate(trickle(chunked(path.read_bytes(), size)))) == expected


def test_aaccumulate_asks_for_no_chunk_after_the_one_that_ends_message_stop():
    raw = read_fixture()
    end = raw.index(b'{"type":"message_stop"') + 40
    log = []

    async def held_open():
        async for chunk in trickle(chunked(raw[:end], 7), log):
            yield chunk
        raise AssertionError(
            "asked for a chunk after message_stop: a held connection would hang here"
        )

    assert asyncio.run(aaccumulate(held_open())) == accumulate([raw])
    assert b"".join(log) == raw[:end]


def test_a_chunk_that_is_not_bytes_is_a_type_error_as_in_the_sync_pipeline():
    with pytest.raises(TypeError, match="must be bytes"):
        list(stepped(aiter_events(trickle(["event: ping\n"]))))


# -- over HTTP, against the local replay server ------------------------------------


async def ours_over_http(url, **params):
    async with (
        httpx.AsyncClient(timeout=10) as client,
        client.stream(
            "POST", f"{url}/v1/messages", json={**REQUEST, "stream": True}, params=params
        ) as response,
    ):
        return await aaccumulate(response.aiter_bytes())


async def sdk_over_http(url):
    client = AsyncAnthropic(base_url=url, api_key="not-used-offline", max_retries=0)
    async with client.messages.stream(**REQUEST) as stream:
        message = await stream.get_final_message()
    await client.close()
    return message.to_dict(mode="json", warnings=False)


@pytest.mark.parametrize(
    "name",
    [n for n in fixture_names() if outcome(lambda n=n: accumulate(read_fixture(n)))[1] is None],
)
def test_the_real_async_client_and_ours_agree_over_http_on_every_fixture_we_finish(name):
    from streaming_lib.tools.sdk import compare_messages

    with ReplayServer(name, pace=0) as server:
        ours = asyncio.run(ours_over_http(server.url))
        theirs = asyncio.run(sdk_over_http(server.url))
    if name == "mcp_tools":  # the plain client leaves MCP input {}: fixtures/README.md
        theirs["content"][1]["input"] = ours["content"][1]["input"]
    assert compare_messages(ours, theirs) == []
    assert ours == accumulate(read_fixture(name))


def test_cancelling_the_consumer_closes_the_upstream_response_and_leaves_no_task():
    async def scenario(server):
        started = asyncio.Event()

        async def consume():
            async with (
                httpx.AsyncClient(timeout=10) as client,
                client.stream(
                    "POST", f"{server.url}/v1/messages", json={**REQUEST, "stream": True}
                ) as response,
            ):
                async for event in aiter_events(response.aiter_bytes()):
                    if event["type"] == "content_block_delta":
                        started.set()

        task = asyncio.create_task(consume())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    with ReplayServer(
        "fixture", pace=0.2
    ) as server:  # 18 events: several seconds if read to the end
        left = asyncio.run(scenario(server))
        assert server.wait_for_disconnects(1)
    assert left == []
