"""What the HTTP pieces of the course share: one home for each constant of the wire.

The replay server, the network helpers, the record command, the SDK checks,
the tests and the benchmarks all import these from here.

    >>> SSE_CONTENT_TYPE
    'text/event-stream; charset=utf-8'
    >>> 1024 <= free_port() <= 65535
    True
"""

from __future__ import annotations

import socket

HOST = "127.0.0.1"  # the lab's servers listen on this machine only
API_VERSION = "2023-06-01"  # the `anthropic-version` header (Messages API, "Versions")
DEFAULT_MODEL = "claude-haiku-4-5"  # sent in requests; the replay server ignores it
SSE_CONTENT_TYPE = (
    "text/event-stream; charset=utf-8"  # as the Messages API sends it (WHATWG HTML 9.2)
)


def free_port() -> int:
    """A TCP port of 127.0.0.1 (int) that is free right now.

    Free only now: whoever binds it next (nginx, a `serve` process) does so a
    moment later, so a busy machine could take it in between. When you bind the
    socket yourself, bind port 0 instead (as `ReplayServer` does).
    """
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]
