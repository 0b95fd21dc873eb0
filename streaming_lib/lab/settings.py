"""The settings a command reads from the environment (`ANTHROPIC_BASE_URL`,
`ANTHROPIC_API_KEY`), checked at start-up, and how they may be shown.

    checked_upstream(url)    the base URL, refused unless http(s) with a host, and printable
    checked_key(key)         the API key, refused unless printable ASCII (a header value)
    shown(url)               the URL as a banner or a log may show it: no password
    redacted(text, key)      `text` with every occurrence of the key replaced by REDACTED
    StreamRedactor(key)      the same for a stream's chunks, a key split across two included

Used by the chat relay and the record command, so that a bad setting is one clear
sentence before anything is sent, never an error at the first request.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..language import _

REDACTED = "[key redacted]"  # what is shown where an upstream's message quoted the key


def redacted(text: str, secret: str | None) -> str:
    """`text` with each occurrence of `secret` replaced by REDACTED (`secret` None or empty:
    `text` as it is).

    >>> redacted("invalid x-api-key: sk-ant-123", "sk-ant-123")
    'invalid x-api-key: [key redacted]'
    """
    return text.replace(secret, REDACTED) if secret else text


def checked_upstream(url: str) -> str:
    """`url` without its trailing slash, if it is an http(s) URL with a host; ValueError
    (one sentence naming it) otherwise.

    >>> checked_upstream("ftp://example.com")
    Traceback (most recent call last):
    ValueError: the upstream must be an http(s) URL with a host, not 'ftp://example.com'
    """
    try:
        # urlsplit drops a CR, LF or tab (a .env file with CRLF lines ends its values
        # with a CR), which httpx would refuse at each request: refused here instead.
        if not url.isprintable() or " " in url:
            raise ValueError(url)
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        parts.port  # noqa: B018 (read for its check: a port that is not a number, or out of range)
    except ValueError:  # `http://[bad`: a bracket left open, a port of letters...
        ok = False
    if not ok:
        raise ValueError(f"the upstream must be an http(s) URL with a host, not {shown(url)!r}")
    return url.rstrip("/")


def shown(url: str) -> str:
    """`url` with the password of its user information (`user:password@`) masked, for a
    banner or a log.

    >>> shown("https://me:s3cret@example.com/api")
    'https://me:***@example.com/api'
    """
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    user, at, host = authority.rpartition("@")
    if not at or ":" not in user:
        return url
    return f"{scheme}://{user.partition(':')[0]}:***@{host}{slash}{path}"


def checked_key(key: str) -> str:
    """`key` if it can be sent as a header value: printable ASCII, no space; ValueError
    (one sentence that never shows the key) otherwise.

    >>> checked_key("sk-ant-\u00e9")
    Traceback (most recent call last):
    ValueError: ANTHROPIC_API_KEY holds a character that is not printable ASCII (at position 7)
    """
    for position, character in enumerate(key):
        if not (character.isascii() and character.isprintable()) or character == " ":
            raise ValueError(
                _(
                    "ANTHROPIC_API_KEY holds a character that is not printable ASCII "
                    "(at position {position})",
                    position=position,
                )
            )
    return key


class StreamRedactor:
    """Replaces `secret` by REDACTED in a stream's chunks, even in one split across chunks.

    `feed(chunk)` returns the bytes that can go on at once: all but the chunk's
    end when that end could be the start of the secret (held until the next chunk
    tells; an event's end, a blank line, never is). `flush()` returns what is held.

    >>> redactor = StreamRedactor("sk-1234")
    >>> redactor.feed(b"data: key sk-12"), redactor.feed(b"34 refused\\n\\n"), redactor.flush()
    (b'data: key ', b'[key redacted] refused\\n\\n', b'')
    """

    def __init__(self, secret: str) -> None:
        self.secret, self.held = secret.encode("ascii"), b""

    def feed(self, chunk: bytes) -> bytes:
        data = (self.held + chunk).replace(self.secret, REDACTED.encode("ascii"))
        keep = next(
            (
                size
                for size in range(min(len(self.secret) - 1, len(data)), 0, -1)
                if data.endswith(self.secret[:size])
            ),
            0,
        )
        self.held = data[len(data) - keep :]
        return data[: len(data) - keep]

    def flush(self) -> bytes:
        held, self.held = self.held, b""
        return held
