"""Claude on Amazon Bedrock: binary frames instead of lines; stages 2 and 3 unchanged.

Bedrock's `InvokeModelWithResponseStream` answers with `application/vnd.amazon.eventstream`,
a binary framing (AWS, "Event stream encoding"). Each frame is

    total length (4 bytes) | headers length (4) | prelude CRC32 (4)
    | headers | payload | message CRC32 (4)

all integers big-endian; the prelude CRC covers the first 8 bytes, the message CRC
every byte before it. A header is a name (1-byte length, UTF-8) then a type byte
and a value (type 7, a string, has a 2-byte length; type 9, a UUID, is 16 bytes,
handed out as those bytes, as botocore's decoder does). The headers say what the
payload is: `:message-type` `event` with `:event-type` `chunk`, whose JSON payload
`{"bytes": "<base64>"}` holds one Messages API event; or `:message-type`
`exception` with `:exception-type` (`throttlingException`, ...) and a JSON
payload `{"message": ...}` (AWS Bedrock API reference, "ResponseStream").

`FrameDecoder` is stage 1 for this wire, the line splitter's counterpart: bytes cut
anywhere in, whole frames out, each checked against both CRCs. What comes out of a
chunk frame is a Messages API event, decoded by `events.decode_event` and fed to the
course's `MessageAccumulator`, untouched: stage 3 does not change.

Deliberately not handled here: signing the request (SigV4) and the HTTP exchange.

    >>> frame = bytes.fromhex("00000012 00000000 7f021b8b 7b7d 2f9261fa")  # payload b"{}"
    >>> decoder = FrameDecoder()
    >>> decoder.feed(frame[:5])          # inside the prelude: nothing yet
    []
    >>> decoder.feed(frame[5:])
    [Frame(headers={}, payload=b'{}', offset=0)]
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
import zlib
from collections.abc import AsyncIterable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..accumulator import MessageAccumulator, keep_partial
from ..errors import EventDataError, FrameError, IncompleteStreamError, ProviderStreamError
from ..events import decode_event
from ..language import _
from ..sse import ServerSentEvent

PRELUDE_BYTES = 12  # total length, headers length, prelude CRC: 4 bytes each
MESSAGE_CRC_BYTES = 4
# The smallest frame: a prelude and a message CRC, no headers, no payload.
MIN_FRAME_BYTES = PRELUDE_BYTES + MESSAGE_CRC_BYTES
# The largest frame we take (16 MiB, as for an SSE event): a length past it is damage.
MAX_FRAME_BYTES = 16 * 2**20
# Header value types (AWS, "Event stream encoding"): type byte -> (struct format or
# None for a value with a 2-byte length, name). 0 and 1 are the booleans, with no value.
HEADER_TYPES: dict[int, str | None] = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q", 9: "16s"}
STRING, BYTE_ARRAY = 7, 6
# Exceptions the Bedrock API reference ("ResponseStream") says to retry.
RETRYABLE_EXCEPTIONS = frozenset(
    {
        "throttlingException",
        "internalServerException",
        "modelStreamErrorException",
        "serviceUnavailableException",
    }
)


@dataclass(slots=True)
class Frame:
    """One eventstream frame: its `headers` (dict: name -> str, bytes, int or bool; a
    UUID or a byte array as bytes), its `payload` (bytes) and `offset`, the byte
    offset of its first byte."""

    headers: dict[str, Any]
    payload: bytes
    offset: int


class FrameDecoder:
    """Split a stream of byte chunks into checked frames.

    `feed(chunk: bytes) -> list[Frame]` returns the frames `chunk` completes;
    `flush()` raises `IncompleteStreamError` if a frame was cut short. Both CRCs
    are checked; a mismatch, or a length no frame can have, is a `FrameError`
    naming the frame's byte offset, never a skipped frame.
    """

    def __init__(self) -> None:
        # Bytes of the frame not yet complete. A bytearray, so a frame arriving
        # one byte at a time grows in place; whole frames are cut off its front.
        self._pending = bytearray()
        # The byte offset of `_pending[0]` in the stream, for error messages.
        self.offset = 0
        # A damaged frame met after good ones in the same chunk: those are handed
        # back first (they arrived before it), and this is raised at the next call.
        self._failure: FrameError | None = None

    @property
    def pending(self) -> bytes:
        """The bytes held for the frame not yet finished."""
        return bytes(self._pending)

    def feed(self, chunk: bytes) -> list[Frame]:
        if self._failure is not None:
            raise self._failure
        self._pending += chunk
        frames: list[Frame] = []
        try:
            while len(self._pending) >= PRELUDE_BYTES:
                total = self._check_prelude()
                if len(self._pending) < total:
                    break  # the prelude said how long; wait for the rest
                frames.append(self._frame(bytes(self._pending[:total])))
                del self._pending[:total]
                self.offset += total
        except FrameError as error:
            if not frames:
                raise
            self._failure = error
        return frames

    def flush(self) -> list[Frame]:
        """The end of the stream: nothing may be left half read."""
        if self._failure is not None:
            raise self._failure
        if self._pending:
            raise IncompleteStreamError(
                _(
                    "the stream ended inside a frame: {count} bytes of it from byte {offset}",
                    count=len(self._pending),
                    offset=self.offset,
                ),
                offset=self.offset,
            )
        return []

    def _check_prelude(self) -> int:
        total, headers_length, crc = struct.unpack_from(">III", self._pending)
        expected = zlib.crc32(self._pending[:8])
        if crc != expected:
            raise self._error(
                _(
                    "prelude CRC 0x{crc:08x} does not match its bytes (0x{expected:08x})",
                    crc=crc,
                    expected=expected,
                )
            )
        if not MIN_FRAME_BYTES + headers_length <= total <= MAX_FRAME_BYTES:
            raise self._error(
                _(
                    "total length {total} cannot hold {count} header bytes",
                    total=total,
                    count=headers_length,
                )
            )
        return int(total)

    def _frame(self, raw: bytes) -> Frame:
        (crc,) = struct.unpack_from(">I", raw, len(raw) - MESSAGE_CRC_BYTES)
        expected = zlib.crc32(raw[:-MESSAGE_CRC_BYTES])
        if crc != expected:
            raise self._error(
                _(
                    "message CRC 0x{crc:08x} does not match its bytes (0x{expected:08x})",
                    crc=crc,
                    expected=expected,
                )
            )
        (headers_length,) = struct.unpack_from(">I", raw, 4)
        headers_end = PRELUDE_BYTES + headers_length
        headers = self._headers(raw[PRELUDE_BYTES:headers_end])
        return Frame(headers, raw[headers_end:-MESSAGE_CRC_BYTES], self.offset)

    def _headers(self, raw: bytes) -> dict[str, Any]:
        headers, at = {}, 0
        try:
            while at < len(raw):
                name_length = raw[at]
                name = raw[at + 1 : at + 1 + name_length].decode("utf-8")
                at += 1 + name_length
                kind = raw[at]
                at += 1
                value: Any
                if kind in (0, 1):  # true, false: the type is the value
                    value = kind == 0
                elif kind in (STRING, BYTE_ARRAY):
                    (length,) = struct.unpack_from(">H", raw, at)
                    value = raw[at + 2 : at + 2 + length]
                    value = value.decode("utf-8") if kind == STRING else value
                    at += 2 + length
                elif kind in HEADER_TYPES:
                    fmt = HEADER_TYPES[kind]
                    (value,) = struct.unpack_from(fmt, raw, at)  # type: ignore[arg-type]
                    at += struct.calcsize(fmt)  # type: ignore[arg-type]
                else:
                    raise self._error(
                        _("header {name!r} has unknown value type {kind}", name=name, kind=kind)
                    )
                headers[name] = value
        except (IndexError, struct.error, UnicodeDecodeError) as error:
            raise self._error(_("its headers cannot be read ({error})", error=str(error))) from None
        return headers

    def _error(self, problem: str) -> FrameError:
        return FrameError(
            _("frame at byte {offset}: {problem}", offset=self.offset, problem=problem),
            problem=problem,
            offset=self.offset,
        )


def iter_frames(chunks: Iterable[bytes]) -> Iterator[Frame]:
    """Yield the frames of a stream given as byte chunks (cut anywhere), CRCs checked;
    one bytes-like object is one chunk (iterating it would give ints).

    Raises `FrameError` (a CRC mismatch, an impossible length: `.offset` is the frame's
    first byte) and `IncompleteStreamError` (the bytes end inside a frame)."""
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        chunks = [bytes(chunks)]
    decoder = FrameDecoder()
    for chunk in chunks:
        yield from decoder.feed(bytes(chunk))
    decoder.flush()


def frame_event(frame: Frame, number: int) -> dict[str, Any] | None:
    """The Messages API event (dict) a frame carries; None for a frame that carries none
    (an event type other than `chunk`). Raises `ProviderStreamError` for an exception
    frame and `EventDataError` for a chunk whose payload is not `{"bytes": base64}`.
    `number` is the event's 1-based number, for errors."""
    message_type = frame.headers.get(":message-type")
    if message_type in ("exception", "error"):
        return _raise_exception(frame, number)
    if frame.headers.get(":event-type") != "chunk":
        return None
    try:
        text = base64.b64decode(json.loads(frame.payload)["bytes"], validate=True).decode("utf-8")
    except (ValueError, KeyError, TypeError, binascii.Error) as error:
        raise EventDataError(
            _(
                "frame at byte {offset}: its payload is not a chunk ({error!r})",
                offset=frame.offset,
                error=error,
            ),
            data=frame.payload.decode("utf-8", "replace"),
            event_number=number,
            offset=frame.offset,
        ) from None
    # From here on, the Messages API's own stage 2: the event is its data's type.
    return decode_event(ServerSentEvent(data=text), number)


def _raise_exception(frame: Frame, number: int) -> dict[str, Any]:
    # An exception frame names its kind in `:exception-type` and says why in its JSON
    # payload; an error frame has both in headers, `:error-code` and `:error-message`.
    kind = frame.headers.get(":exception-type") or frame.headers.get(":error-code")
    text = frame.headers.get(":error-message")
    if text is None:
        try:
            text = str(json.loads(frame.payload).get("message", ""))
        except (ValueError, AttributeError):
            text = frame.payload.decode("utf-8", "replace")
    raise ProviderStreamError(
        _("frame at byte {offset}: {kind}: {text}", offset=frame.offset, kind=kind, text=text),
        provider="bedrock",
        error_type=kind,
        error_message=text,
        retryable=kind in RETRYABLE_EXCEPTIONS,
        event_number=number,
        offset=frame.offset,
    )


def iter_events(chunks: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    """Yield the Messages API events (dicts) inside a Bedrock stream's frames."""
    number = 0
    for frame in iter_frames(chunks):
        event = frame_event(frame, number + 1)
        if event is not None:
            number += 1
            yield event


def accumulate(chunks: Iterable[bytes]) -> dict[str, Any]:
    """The final Message (dict, as `streaming_lib.accumulate` gives it) of a Bedrock
    stream given as byte chunks cut anywhere (or one bytes object): frames (this
    module) in, Messages API events out, fed to the course's own `MessageAccumulator`.

    Raises `FrameError`, `ProviderStreamError` (an exception frame) and the
    accumulator's errors, each with `.partial`: the message so far.

        >>> from streaming_lib.tools.provider_fixtures import read_fixture
        >>> accumulate([read_fixture("bedrock", "text_only")])["stop_reason"]
        'end_turn'
    """
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        chunks = [bytes(chunks)]
    reader = _EventReader()
    with keep_partial(reader.acc, reader.events):
        for chunk in chunks:
            if reader.feed(chunk):
                break
        else:
            reader.close()
        return reader.acc.final_message()


async def aaccumulate(chunks: AsyncIterable[bytes]) -> dict[str, Any]:
    """`accumulate` over async byte chunks: the same message, or the same error, by the
    same work per chunk; it asks for no chunk after `message_stop`.

        >>> import asyncio
        >>> from streaming_lib.tools.provider_fixtures import read_fixture
        >>> async def body():
        ...     yield read_fixture("bedrock", "text_only")
        >>> asyncio.run(aaccumulate(body()))["stop_reason"]
        'end_turn'
    """
    reader = _EventReader()
    with keep_partial(reader.acc, reader.events):
        async for chunk in chunks:
            if reader.feed(chunk):
                break
        else:
            reader.close()
        return reader.acc.final_message()


class _EventReader:
    """Frames to events to the `MessageAccumulator`, one chunk at a time."""

    def __init__(self) -> None:
        self.frames = FrameDecoder()
        self.acc = MessageAccumulator()
        self.events: list[Any] = []  # what keep_partial hands an error (kept empty here)
        self.number = 0

    def feed(self, chunk: bytes) -> bool:
        """Feed the frames `chunk` completes; True once the message has stopped."""
        return self._apply(self.frames.feed(bytes(chunk)))

    def close(self) -> None:
        self._apply(self.frames.flush())

    def _apply(self, frames: list[Frame]) -> bool:
        for frame in frames:
            event = frame_event(frame, self.number + 1)
            if event is not None:
                self.number += 1
                self.acc.feed(event)
                if self.acc.complete:
                    return True
        return False
