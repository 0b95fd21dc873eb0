"""Errors before the body, served by the replay server, and what the real SDK does with them.

The server's faults `status`, `fail_times`, `retry_after` and `x_should_retry`
(lab/server.py) answer as the API does before a stream begins: a status line and
the API's JSON error body. The anthropic SDK, talking to it over a real socket,
retries some of them; the server counts its attempts. The SDK's back-off is
recorded, not slept: `_calculate_retry_timeout` (its `_base_client.py`) is
wrapped to note each wait it chose and return 0.
"""

import anthropic
import httpx
import httpx2
import pytest
from anthropic._base_client import SyncAPIClient

from streaming_lib.lab.api import DEFAULT_MODEL
from streaming_lib.lab.replay_plan import ERROR_TYPES
from streaming_lib.lab.server import ReplayServer

PACE = 0.001
REQUEST = {
    "model": DEFAULT_MODEL,
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "fix calc.py"}],
}


@pytest.fixture
def waits(monkeypatch):
    """The waits (seconds) the SDK chose before each retry, in order; it sleeps 0 instead."""
    chosen = []
    calculate = SyncAPIClient._calculate_retry_timeout

    def record(self, *args, **kwargs):
        chosen.append(calculate(self, *args, **kwargs))
        return 0.0

    monkeypatch.setattr(SyncAPIClient, "_calculate_retry_timeout", record)
    return chosen


def attempts(fault, max_retries=2, stream=True):
    """(requests the server saw, what the caller got: a stop_reason or the error's class name)
    for one request of the SDK asking for `fault`, on a fresh server."""
    with ReplayServer("fixture", pace=PACE) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=max_retries)
        try:
            if stream:
                with client.messages.stream(**REQUEST, extra_query=fault) as sdk_stream:
                    got = sdk_stream.get_final_message().stop_reason
            else:
                got = client.messages.create(**REQUEST, extra_query=fault).stop_reason
        except (anthropic.APIError, httpx2.HTTPError, AssertionError) as error:
            got = type(error).__name__
        finally:
            client.close()
        return server.requests, got


# -- what the server sends ------------------------------------------------------------------------


@pytest.mark.parametrize("status", ERROR_TYPES)
def test_each_status_gets_the_apis_json_error_body_with_its_documented_type(status):
    with ReplayServer("fixture", pace=PACE) as server:
        reply = httpx.post(server.url + "/v1/messages", params={"status": status}, json={})
    assert reply.status_code == status
    assert reply.json()["type"] == "error"
    assert reply.json()["error"]["type"] == ERROR_TYPES[status]
    assert reply.json()["request_id"] == reply.headers["request-id"]


def test_retry_after_and_x_should_retry_are_headers_of_the_error_reply():
    with ReplayServer("fixture", pace=PACE) as server:
        params = {"status": 429, "retry_after": 3, "x_should_retry": "false"}
        reply = httpx.post(server.url + "/v1/messages", params=params, json={"stream": True})
    assert reply.headers["retry-after"] == "3" and reply.headers["x-should-retry"] == "false"


def test_fail_times_fails_the_first_requests_then_serves_the_stream_and_counts_each_fault_apart():
    with ReplayServer("fixture", pace=PACE) as server:
        url = server.url + "/v1/messages"
        first = [httpx.post(url, params="status=529&fail_times=2", json={}) for _ in range(3)]
        other = httpx.post(url, params="status=500&fail_times=1", json={})
    assert [reply.status_code for reply in first] == [529, 529, 200]
    assert first[2].json()["stop_reason"] == "tool_use"
    assert other.status_code == 500  # another fault: its own count


def test_fail_times_limits_a_cut_too():
    with ReplayServer("fixture", pace=PACE) as server:
        url = server.url + "/v1/messages"
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.post(url, params="drop_at=300&fail_times=1", json={"stream": True})
        again = httpx.post(url, params="drop_at=300&fail_times=1", json={"stream": True})
    assert again.status_code == 200 and again.text.endswith('message_stop"}\n\n')


# -- what the SDK retries -------------------------------------------------------------------------


def test_a_529_twice_is_retried_twice_by_the_sdk_with_exponential_back_off_then_served(waits):
    assert attempts({"status": 529, "fail_times": 2}) == (3, "tool_use")
    first, second = waits  # 0.5 s, then 1 s, each less up to a quarter (jitter)
    assert 0.375 <= first <= 0.5 and 0.75 <= second <= 1.0


def test_the_sdk_gives_up_after_its_default_two_retries(waits):
    assert attempts({"status": 529}) == (3, "OverloadedError")
    assert anthropic.Anthropic(api_key="test").max_retries == 2


@pytest.mark.parametrize("max_retries", [0, 1, 4])
def test_max_retries_n_makes_n_plus_one_attempts_at_most(waits, max_retries):
    assert attempts({"status": 500}, max_retries=max_retries) == (
        max_retries + 1,
        "InternalServerError",
    )


def test_a_429_is_retried_after_the_seconds_its_retry_after_header_gives(waits):
    fault = {"status": 429, "retry_after": 1, "fail_times": 1}
    assert attempts(fault) == (2, "tool_use")
    assert waits == [1.0]


@pytest.mark.parametrize(
    ("status", "error"),
    [(400, "BadRequestError"), (401, "AuthenticationError"), (403, "PermissionDeniedError")],
)
def test_a_4xx_other_than_429_is_never_retried(waits, status, error):
    assert attempts({"status": status}) == (1, error)
    assert waits == []


def test_x_should_retry_overrides_the_sdks_own_rules_both_ways(waits):
    assert attempts({"status": 400, "x_should_retry": "true", "fail_times": 1}) == (2, "tool_use")
    assert attempts({"status": 529, "x_should_retry": "false"}) == (1, "OverloadedError")


def test_a_request_without_streaming_is_retried_the_same_way(waits):
    assert attempts({"status": 529, "fail_times": 2}, stream=False) == (3, "tool_use")


# -- what it never can: the stream has begun ------------------------------------------------------


def test_once_a_200_has_begun_an_error_event_is_not_retried(waits):
    assert attempts({"error_after": 5}) == (1, "APIStatusError")
    assert waits == []


def test_once_a_200_has_begun_a_cut_is_not_retried(waits):
    assert attempts({"drop_at": 900}) == (1, "RemoteProtocolError")
    assert waits == []


def test_retry_after_ms_is_a_header_too_and_the_sdk_reads_it_before_retry_after(waits):
    with ReplayServer("fixture", pace=PACE) as server:
        params = {"status": 503, "retry_after_ms": 1500}
        reply = httpx.post(server.url + "/v1/messages", params=params, json={"stream": True})
    assert reply.headers["retry-after-ms"] == "1500"
    fault = {"status": 503, "retry_after_ms": 1500, "retry_after": 9, "fail_times": 1}
    assert attempts(fault) == (2, "tool_use")
    assert waits == [1.5]


def test_page_html_is_a_success_that_is_no_event_stream_and_the_sdk_has_no_rule_for_it():
    with ReplayServer("fixture", pace=PACE) as server:
        reply = httpx.post(server.url + "/v1/messages", params={"page": "html"}, json={})
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/html")
    assert reply.text.startswith("<html>")
    assert attempts({"page": "html"}) == (1, "AssertionError")  # the body read, no message
