"""Lesson 06's checks: the learner's retry policy (retry.py) and client (client.py).

`retry_checks(wait_before_retry)`: the policy on failures made by hand (httpx responses
and transport errors, no socket): which statuses are retried, `x-should-retry` first,
`retry-after-ms` then `retry-after`, the back-off doubling from `first_wait` up to 8 s,
a connection that failed before any response.

`client_checks(stream_message)`: the client over a real socket, one `SCENARIOS` entry
each, against a fresh replay server on 127.0.0.1 (its faults in the query of
`base_url`); each gives an `Outcome` (tries, waits asked for, what came of it) that
must be the one the course's rule gives (`Scenario.course`). The waits are recorded,
never slept; the one scenario that takes time is the stall (READ_TIMEOUT, then the
server's STALL). `python -m streaming_lib my-client --live` (`live.py`) runs the same
scenarios and sets the SDK's outcome beside each.

    >>> print(Outcome(3, (0.5, 1.0), "HTTP 500"))
    3 tries (0.5, 1 s): HTTP 500
    >>> result_of(IncompleteStreamError("cut"))   # a cut that lost what had arrived
    'cut, without the message so far'
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from ...errors import (
    APIConnectionError,
    APIStatusError,
    APIStreamError,
    IncompleteStreamError,
    NotAnEventStreamError,
    StreamTimeoutError,
)
from ...lab.api import DEFAULT_MODEL, HOST
from ...lab.server import ReplayServer
from ...language import _
from ..fixtures import FIXTURES_DIR
from ..sdk import compare_messages
from .reports import named, stub_words

Check = tuple[str, Callable[[], Any], Any]

REQUEST: dict[str, Any] = {
    "model": DEFAULT_MODEL,
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "fix calc.py"}],
}
PACE = 0.001  # seconds between events: the scenarios are about faults, not speed
READ_TIMEOUT = 0.5  # seconds, in the stall scenario only; the others wait up to PATIENCE
PATIENCE = 30.0  # seconds: a read timeout no healthy scenario comes near, on a busy machine
STALL = 1.5  # seconds of silence before the first token, in the stall scenario


# -- the policy, on failures made by hand ---------------------------------------------


def _status(status: int, **headers: str) -> httpx.Response:
    """A response with `status` and `headers` (underscores are dashes), as the policy gets it."""
    return httpx.Response(status, headers={k.replace("_", "-"): v for k, v in headers.items()})


def retry_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 06's rules, on a retry policy `run` (failure, attempt, first_wait) -> seconds or
    None. The SDK's rules (`_should_retry`, `_calculate_retry_timeout` in its
    `_base_client.py`), without its jitter: the full back-off, so each wait can be named."""
    refused = httpx.ConnectError("[Errno 111] Connection refused")
    return [
        (
            str(_("429, 529, 5xx, 408, 409 are retried after 0.5 s")),
            lambda: [run(_status(n), 1) for n in (429, 529, 500, 502, 503, 504, 408, 409)],
            [0.5] * 8,
        ),
        (
            str(_("any other 4xx is never retried")),
            lambda: [run(_status(n), 1) for n in (400, 401, 403, 404, 413)],
            [None] * 5,
        ),
        (
            str(_("the wait doubles: 0.5, 1, 2, 4 s")),
            lambda: [run(_status(529), n) for n in (1, 2, 3, 4)],
            [0.5, 1.0, 2.0, 4.0],
        ),
        (str(_("the wait stops growing at 8 s")), lambda: run(_status(529), 7), 8.0),
        (
            str(_("first_wait sets the first wait")),
            lambda: run(_status(500), 2, first_wait=0.1),
            0.2,
        ),
        (str(_("retry-after: 2 means 2 s")), lambda: run(_status(429, retry_after="2"), 1), 2.0),
        (
            str(_("retry-after-ms: 1500 means 1.5 s, before retry-after")),
            lambda: run(_status(503, retry_after_ms="1500", retry_after="9"), 1),
            1.5,
        ),
        (
            str(_("a retry-after that is not a positive number: the back-off")),
            lambda: [run(_status(429, retry_after=v), 2) for v in ("0", "soon", "-3")],
            [1.0, 1.0, 1.0],
        ),
        (
            str(_("x-should-retry: false beats a 529")),
            lambda: run(_status(529, x_should_retry="false"), 1),
            None,
        ),
        (
            str(_("x-should-retry: true beats a 400")),
            lambda: run(_status(400, x_should_retry="true"), 1),
            0.5,
        ),
        (str(_("no response at all: retried")), lambda: run(refused, 2), 1.0),
        (
            str(_("a timeout before the response: retried")),
            lambda: run(httpx.ReadTimeout("timed out"), 1),
            0.5,
        ),
    ]


# -- the client, over a socket --------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Outcome:
    """What one request came to: `tries` (requests sent), `waits` (seconds asked for before
    each retry) and `result`: "message", "HTTP 529", "error event", "cut", "timeout",
    "no connection", "not an event stream", or what went wrong otherwise."""

    tries: int
    waits: tuple[float, ...]
    result: str

    def __str__(self) -> str:
        if not self.tries:  # nothing was sent: a stub, or a file that does not load
            return str(self.result)
        waits = ", ".join(f"{wait:g}" for wait in self.waits)
        tries = _("{tries} tries", tries=self.tries) if self.tries > 1 else _("1 try")
        if self.waits:
            tries = _("{tries} ({waits} s)", tries=tries, waits=waits)
        return str(_("{tries}: {result}", tries=tries, result=self.result))

    def __repr__(self) -> str:  # as a check's line shows it: "got 1 try: cut, expected ..."
        return str(self)


@dataclass(frozen=True)
class Scenario:
    """One fault the client meets: `name`, the replay server's `fault` (query parameters;
    None: no server listens, the connection is refused), the read timeout to use, the
    outcome the course's rule gives, and `stricter`: why the course asks more than the
    SDK does here ("" where the two agree)."""

    name: str
    fault: dict[str, Any] | None
    course: Outcome
    read_timeout: float = PATIENCE
    stricter: str = ""


# Each fault limited by `fail_times` fails only the first tries: a client that retries
# where it must not gets the whole stream on its second try, and shows it.
SCENARIOS = [
    Scenario(_("a clean stream"), {}, Outcome(1, (), _("message"))),
    Scenario(
        _("429 with retry-after: 2"),
        {"status": 429, "retry_after": 2, "fail_times": 1},
        Outcome(2, (2.0,), _("message")),
    ),
    Scenario(
        _("529, then the stream"),
        {"status": 529, "fail_times": 1},
        Outcome(2, (0.5,), _("message")),
    ),
    Scenario(
        _("500 three times"),
        {"status": 500, "fail_times": 3},
        Outcome(3, (0.5, 1.0), _("HTTP {status}", status=500)),
    ),
    Scenario(
        _("503 with retry-after-ms: 1500"),
        {"status": 503, "retry_after_ms": 1500, "fail_times": 1},
        Outcome(2, (1.5,), _("message")),
    ),
    Scenario(
        _("400: never retried"),
        {"status": 400, "fail_times": 1},
        Outcome(1, (), _("HTTP {status}", status=400)),
    ),
    Scenario(
        _("529 with x-should-retry: false"),
        {"status": 529, "x_should_retry": "false", "fail_times": 1},
        Outcome(1, (), _("HTTP {status}", status=529)),
    ),
    Scenario(
        _("a 200 that is no event stream"),
        {"page": "html"},
        Outcome(1, (), _("not an event stream")),
        stricter=_("the content-type is checked before the body"),
    ),
    Scenario(
        _("an error event after 200"),
        {"error_after": 5, "fail_times": 1},
        Outcome(1, (), _("error event")),
    ),
    Scenario(_("a body cut midway"), {"drop_at": 900, "fail_times": 1}, Outcome(1, (), _("cut"))),
    Scenario(
        _("a stall past the read timeout"),
        {"first_token_delay": STALL},
        Outcome(1, (), _("timeout")),
        read_timeout=READ_TIMEOUT,
    ),
    Scenario(_("connection refused"), None, Outcome(3, (0.5, 1.0), _("no connection"))),
]
# After 200 the error keeps the message so far: a result without it says so.
KEEPS_PARTIAL = ("error event", "cut", "timeout")


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (one just freed by the system)."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving(scenario: Scenario) -> Iterator[tuple[str, ReplayServer | None]]:
    """(base URL with the scenario's fault in its query, the server or None when the
    connection must be refused), on a fresh server so `fail_times` counts from 0."""
    if scenario.fault is None:
        yield f"http://{HOST}:{closed_port()}", None
        return
    with ReplayServer("fixture", pace=PACE) as server:
        query = f"?{urlencode(scenario.fault)}" if scenario.fault else ""
        yield server.url + query, server


def result_of(error: BaseException) -> str:
    """The result an error of the learner's client stands for (see `Outcome.result`)."""
    kinds: list[tuple[type[BaseException], str]] = [
        (StreamTimeoutError, _("timeout")),  # an IncompleteStreamError too: asked first
        (IncompleteStreamError, _("cut")),
        (APIStreamError, _("error event")),
        (APIConnectionError, _("no connection")),
        (NotAnEventStreamError, _("not an event stream")),
    ]
    if isinstance(error, APIStatusError):
        return _("HTTP {status}", status=error.status_code)
    for kind, result in kinds:
        if isinstance(error, kind):
            if result in KEEPS_PARTIAL and not getattr(error, "partial", None):
                return _("{result}, without the message so far", result=result)
            return result
    return _("raised {error}", error=named(error))


def outcome(
    stream_message: Callable[..., Any], scenario: Scenario, *, stub_raises: bool = False
) -> Outcome:
    """What the learner's `stream_message` comes to in `scenario`; never raises (a stub's
    NotImplementedError becomes the result "write ... in my_client/...", unless
    `stub_raises`: then it reaches the caller, as a lesson's check shows a stub)."""
    waits: list[float] = []
    result: str
    with serving(scenario) as (url, server):
        try:
            message = stream_message(
                REQUEST,
                base_url=url,
                api_key="test",
                max_retries=2,
                read_timeout=scenario.read_timeout,
                sleep=waits.append,
            )
            result = (
                _("message")
                if isinstance(message, dict)
                else _("returned {value}", value=repr(message)[:40])
            )
            if result == "message" and (differs := compare_messages(message, _fixture())):
                result = _("a message, but {difference}", difference=differs[0])
        except NotImplementedError as error:  # a stub: what to write, nothing was sent
            if stub_raises:
                raise
            return Outcome(0, (), stub_words(str(error)))
        except Exception as error:  # the learner's client: reported, never raised
            result = result_of(error)
        tries = server.requests if server is not None else len(waits) + 1
    waited = tuple(round(w, 6) if isinstance(w, (int, float)) else w for w in waits)
    return Outcome(tries, waited, result)


def _fixture() -> dict[str, Any]:
    """The SDK's final message of the fixture the replay server sends (its .sdk.json)."""
    verdict = json.loads((FIXTURES_DIR / "fixture.sdk.json").read_text(encoding="utf-8"))
    return dict(verdict["message"])


def client_checks(run: Callable[..., Any]) -> list[Check]:
    """Lesson 06's rules, on a client `run` (stream_message): every scenario, against the
    replay server on 127.0.0.1, gives the course's outcome. About 4 s in all."""
    return [
        (str(scenario.name), _outcome_of(run, scenario), scenario.course) for scenario in SCENARIOS
    ]


def _outcome_of(run: Callable[..., Any], scenario: Scenario) -> Callable[[], Outcome]:
    return lambda: outcome(run, scenario, stub_raises=True)
