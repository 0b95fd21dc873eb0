"""The capstone: a chat page in the browser, streamed through a relay (notebook 07).

`app.py` is the relay and the page's server (starlette), `upstream.py` what it
answers when the upstream does not stream; `runner.py` runs it
(`ChatServer` in a thread, `serve` for `python -m streaming_lib chat`); the
page's own stream parser is `static/chat.js`.

    >>> from streaming_lib.chat.app import cross_origin
    >>> from starlette.requests import Request
    >>> headers = [(b"host", b"127.0.0.1:8000"), (b"origin", b"https://elsewhere.example")]
    >>> request = Request({"type": "http", "scheme": "http", "path": "/chat", "headers": headers})
    >>> print(cross_origin(request))  # doctest: +NORMALIZE_WHITESPACE
    cross-origin request from https://elsewhere.example: only the chat page
    (http://127.0.0.1:8000) may use the relay
"""

from .app import build_app
from .runner import ChatServer, ThreadedServer, serve

__all__ = ["ChatServer", "ThreadedServer", "build_app", "serve"]
