"""What the replay server sends for one request: pure functions of the request and the fixture.

No socket, no event loop, no clock: `server.py` asks these what to send, then
sends it. So every fault and every pacing rule is tested here byte for byte.

    split_events(raw)                  the fixture cut into one piece of bytes per event
    plan_body(raw, error_after, drop_at)   the pieces to send, and whether to hang up after them
    delays(pieces, pace, first_token_delay)  seconds to wait before each piece
    options_from(query, headers)       the fault options a request asks for (query
                                       string, `x-replay-...` headers)
    faults_left(options, earlier)      the options, less the faults once `fail_times` is used up
    error_headers(options)             `retry-after` and `x-should-retry`, for an error reply
    load_source(fixture)               the stream to replay: bytes, an .sse path, or a fixture name

    >>> raw = b"event: a\\ndata: 1\\n\\nevent: content_block_delta\\ndata: 2\\n\\n"
    >>> pieces, hang_up = plan_body(raw, error_after=1)
    >>> pieces[1] == OVERLOADED, hang_up
    (True, False)
    >>> delays(split_events(raw), 0.5, first_token_delay=2.0)
    [0.0, 2.5]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..sse import iter_sse
from ..tools.files import read_stream_file
from ..tools.fixtures import fixture_names, read_fixture

DEFAULT_PACE = 0.02  # seconds between events: about 50 events a second, like a fast model
MAX_SECONDS = (
    60.0  # the longest pace or first_token_delay; more is surely a typo (milliseconds, say)
)

# What the API sends when it gives up in the middle of a stream (after HTTP 200).
OVERLOADED = (
    b"event: error\n"
    b'data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
)
# The `error.type` of the API's JSON body for each HTTP status it documents
# (https://platform.claude.com/docs/en/api/errors, "HTTP errors"). 502 and 503
# are not in that list: a load balancer or gateway in front of the API sends
# them; the replay server gives them the body of a 500.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
# What `page=html` answers with HTTP 200: a page from a proxy in front of the API, no stream.
GATEWAY_PAGE = b"<html><body><h1>502 Bad Gateway</h1><p>upstream unavailable</p></body></html>\n"
# Faults that `fail_times` limits to the first N requests asking for them.
FAULTS = ("status", "error_after", "drop_at")

# One line ending, by the WHATWG stream grammar: CRLF, a lone CR or a lone LF.
# `(?!\n)` matters: without it the regex could backtrack and read the CRLF of
# `a\r\nb` as a CR ending a line, then an LF ending an empty one.
LINE_END = rb"(?:\r\n|\r(?!\n)|\n)"
EVENT_END = re.compile(
    LINE_END + LINE_END
)  # a line's end, then an empty line: the end of one event


def split_events(raw: bytes) -> list[bytes]:
    """`raw` (bytes) cut after each blank line: one piece per event; joined, the pieces are `raw`.

    A blank line ends an event whatever the line endings (WHATWG HTML 9.2.6), as
    in our own decoders (`lines.py`, `sse.py`): here `\\n\\r\\n` is an LF, then
    an empty line ended by CRLF.

    >>> split_events(b"event: a\\ndata: 1\\n\\nevent: b\\rdata: 2\\n\\r\\n")
    [b'event: a\\ndata: 1\\n\\n', b'event: b\\rdata: 2\\n\\r\\n']
    """
    pieces, start = [], 0
    for match in EVENT_END.finditer(raw):
        pieces.append(raw[start : match.end()])
        start = match.end()
    if start < len(raw):
        pieces.append(raw[start:])  # a last event without its blank line
    return pieces


def plan_body(
    raw: bytes, *, error_after: int | None = None, drop_at: int | None = None
) -> tuple[list[bytes], bool]:
    """The pieces of body to send, one per event, and whether to hang up after them.

    >>> plan_body(b"a\\n\\nb\\n\\n", drop_at=4)        # hang up after 4 bytes
    ([b'a\\n\\n', b'b'], True)
    """
    pieces = split_events(raw)
    if error_after is not None:
        pieces = pieces[:error_after] + [OVERLOADED]
    if drop_at is None or drop_at > sum(map(len, pieces)):
        return pieces, False
    kept, sent = [], 0
    for piece in pieces:
        if sent + len(piece) >= drop_at:
            kept.append(piece[: drop_at - sent])
            break
        kept.append(piece)
        sent += len(piece)
    return [piece for piece in kept if piece], True


def event_type(piece: bytes) -> str | None:
    """The type of the event in `piece`, read by our own decoders (None if it completes no event).

    >>> event_type(b"event: ping\\rdata: {}\\r\\r")
    'ping'
    """
    return next((event.event for event in iter_sse([piece])), None)


def delays(pieces: list[bytes], pace: float, first_token_delay: float = 0.0) -> list[float]:
    """Seconds to wait before sending each of `pieces` (one float per piece).

    `pace` between pieces (none before the first); before the first
    content_block_delta, `first_token_delay` more: the model "thinking" before
    its first token.

    >>> ping = b"event: ping\\ndata: {}\\n\\n"
    >>> delta = b"event: content_block_delta\\ndata: {}\\n\\n"
    >>> pieces = [ping, delta] * 2
    >>> delays(pieces, 0.1, first_token_delay=3.0)
    [0.0, 3.1, 0.1, 0.1]
    """
    waits = [pace if number else 0.0 for number in range(len(pieces))]
    if first_token_delay > 0:
        first_token = next(
            (n for n, piece in enumerate(pieces) if event_type(piece) == "content_block_delta"),
            None,
        )
        if first_token is not None:
            waits[first_token] += first_token_delay
    return waits


# A number as a person types it: ASCII digits, one optional point, an optional exponent.
DECIMAL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def count(text: str) -> int:
    """`text` as a number of events or bytes (int, 0 or more); ValueError otherwise.

    Python would read a negative count as a slice from the end (`error_after=-1`:
    every event but the last), which no client means.
    """
    if not (text.isascii() and text.isdigit()):
        raise ValueError("expected a whole number, 0 or more")
    return int(text)


def seconds(text: str | float) -> float:
    """`text` as a delay (float, seconds, from 0 to MAX_SECONDS); ValueError otherwise.

    `float()` alone accepts "inf" (a sleep that never ends: the stream hangs),
    "nan" (false in every comparison, so no later check would catch it), and
    spaces, line breaks and digits of other scripts around or in the number: text
    is read only if it is a plain decimal number (`DECIMAL`).
    """
    try:
        delay = float(text) if not isinstance(text, str) or DECIMAL.fullmatch(text) else math.nan
    except ValueError:
        delay = math.nan  # not a number at all: refused just below, with the same message
    if not 0 <= delay <= MAX_SECONDS:  # false for nan and inf too
        raise ValueError(f"expected a number of seconds from 0 to {MAX_SECONDS:g}")
    return delay


def error_status(text: str) -> int:
    """`text` as an HTTP error status the API documents (in ERROR_TYPES); ValueError otherwise.

    >>> error_status("529")
    529
    """
    if not (text.isascii() and text.isdigit() and int(text) in ERROR_TYPES):
        raise ValueError(
            f"expected one of the API's error statuses: {', '.join(map(str, ERROR_TYPES))}"
        )
    return int(text)


def true_or_false(text: str) -> str:
    """`text` if it is "true" or "false" (the values of `x-should-retry`); ValueError otherwise."""
    if text not in ("true", "false"):
        raise ValueError('expected "true" or "false"')
    return text


def fixture_name(name: str) -> str:
    """`name` if it names a fixture (so never a path); ValueError listing the fixtures otherwise."""
    if name not in fixture_names():
        raise ValueError(f"no such fixture; the fixtures are: {', '.join(fixture_names())}")
    return name


def one_of(*choices: str) -> Callable[[str], str]:
    """A reader of a value that must be one of `choices` (str), as given; ValueError otherwise.
    (A value that goes into a response header must never be free text: a CR or LF
    would end the header, a character beyond Latin-1 cannot be sent at all.)

    >>> one_of("yes", "no")("no")
    'no'
    """

    def read(text: str) -> str:
        if text not in choices:
            raise ValueError(f"expected one of: {', '.join(choices)}")
        return text

    return read


# Fault name -> what reads its value (every value is checked: a bad one gets a 400 naming
# it). Read from the query string first, then from `x-replay-NAME` headers.
OPTIONS: dict[str, Callable[[str], Any]] = {
    "error_after": count,
    "drop_at": count,
    "first_token_delay": seconds,
    "hold_open": seconds,
    "pace": seconds,
    "x_accel_buffering": one_of("yes", "no"),  # nginx's own values
    "fixture": fixture_name,
    "status": error_status,
    "fail_times": count,
    "retry_after": count,
    "retry_after_ms": count,
    "x_should_retry": true_or_false,
    "page": one_of("html"),
}
# Options that only say something about a fault, and so need one.
NEEDS = {
    "fail_times": FAULTS,
    "retry_after": ("status",),
    "retry_after_ms": ("status",),
    "x_should_retry": ("status",),
}


def options_from(query: Mapping[str, str], headers: Mapping[str, str]) -> dict[str, Any]:
    """The fault options of one request (dict, only those given), from its query parameters
    and headers (mappings of str; header names lower-case). Raises ValueError on a bad value.

    >>> options_from({"error_after": "5"}, {"x-replay-pace": "0.5"})
    {'error_after': 5, 'pace': 0.5}
    """
    options = {}
    for name, read in OPTIONS.items():
        value = query.get(name, headers.get("x-replay-" + name.replace("_", "-")))
        if value is not None:
            try:
                options[name] = read(value)
            except ValueError as error:
                raise ValueError(f"{name}={value!r}: {error}") from None
    for name, faults in NEEDS.items():
        if name in options and not any(fault in options for fault in faults):
            raise ValueError(f"{name} applies to a fault: ask for {' or '.join(faults)} too")
    return options


def faults_left(options: Mapping[str, Any], earlier: int) -> dict[str, Any]:
    """`options` for a request that `earlier` requests with the same options came before
    (int, 0 for the first): unchanged, or without its faults (FAULTS) once
    `fail_times` requests have had them. So `status=529&fail_times=2` fails
    twice, then the stream is served, as a client retrying an overloaded API sees.

    >>> faults_left({"status": 529, "fail_times": 2, "pace": 0.1}, earlier=2)
    {'pace': 0.1}
    """
    if "fail_times" not in options or earlier < options["fail_times"]:
        return dict(options)
    spent = (*FAULTS, "fail_times", "retry_after", "retry_after_ms", "x_should_retry")
    return {name: value for name, value in options.items() if name not in spent}


def error_headers(options: Mapping[str, Any]) -> dict[str, str]:
    """The headers of an HTTP error reply that the options ask for (dict of str):

    - `retry-after`: seconds to wait before trying again (RFC 9110, section 10.2.3:
      a whole number of seconds); the API sends it with a 429
      (https://platform.claude.com/docs/en/api/rate-limits);
    - `retry-after-ms`: the same in milliseconds, a header the API's own gateways may
      send; the anthropic SDK reads it before `retry-after` (`_parse_retry_after_header`);
    - `x-should-retry`: "true" or "false", a header the anthropic SDK obeys before
      its own rules (`_should_retry` in its `_base_client.py`).

    >>> error_headers({"status": 429, "retry_after": 1})
    {'retry-after': '1'}
    """
    headers = {}
    if "retry_after" in options:
        headers["retry-after"] = str(options["retry_after"])
    if "retry_after_ms" in options:
        headers["retry-after-ms"] = str(options["retry_after_ms"])
    if "x_should_retry" in options:
        headers["x-should-retry"] = options["x_should_retry"]
    return headers


def load_source(fixture: str | Path | bytes) -> bytes:
    """The stream to replay: bytes as given, a path to an .sse file, or a fixture name.

    Raises ValueError (listing the fixtures) for an unknown name, and
    `files.FileRefused` (a ValueError too) for a file that is not a regular one
    of at most `files.MAX_STREAM_BYTES` or cannot be read.
    """
    if isinstance(fixture, bytes):
        return fixture
    if isinstance(fixture, Path) or fixture.endswith(".sse"):
        return read_stream_file(fixture)
    return read_fixture(fixture_name(fixture))
