"""The other wires' hand-made streams, and the encoder that builds Bedrock's frames.

`fixtures/providers/<wire>/NAME.sse` (or `NAME.bin` for Bedrock's binary frames) holds
the bytes of one stream; `NAME.sdk.json` beside it the provider SDK's verdict on them
(`python -m streaming_lib.tools.provider_sdk regenerate` rewrites both the verdicts and
the `.bin` files). A front-end tool, as `tools/fixtures.py` is for the Messages API:
the wires themselves (`streaming_lib.providers`) never read a fixture.

The SSE streams are written by hand from each provider's documented format
(fixtures/README.md cites the pages). Bedrock's are built here: `BEDROCK_STREAMS` says,
for each, which Messages API fixture's events it carries and what goes wrong, and
`encode_frame` writes each frame as AWS documents it ("Event stream encoding"). Only
the encoder lives here: decoding is `bedrock.FrameDecoder`'s job.

    >>> encode_frame({}, b"").hex(" ", 4)      # the smallest frame: 16 bytes
    '00000010 00000000 05c248eb 7d98c8ff'
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..events import iter_events
from ..providers import WIRES
from .fixtures import FIXTURES_DIR
from .fixtures import read_fixture as read_messages_fixture

__all__ = [
    "BEDROCK_STREAMS",
    "PROVIDERS_DIR",
    "WIRES",
    "build_bedrock",
    "chunk_frame",
    "encode_frame",
    "encode_header",
    "exception_frame",
    "fixture_names",
    "read_fixture",
    "wire_dir",
]

PROVIDERS_DIR = FIXTURES_DIR / "providers"
SUFFIX = {"bedrock": ".bin"}  # every other wire is SSE

# Each Bedrock fixture: the Messages API fixture whose events it carries, and how the
# stream goes wrong, if it does: "exception" after how many events (a throttling
# exception frame), "bad_crc" in which frame (its message CRC flipped), "cut" after
# how many events (the bytes stop in the middle of the next frame's prelude);
# "uuid_header": each frame also carries a header of type 9, a UUID (16 bytes).
BEDROCK_STREAMS: dict[str, dict[str, Any]] = {
    "text_only": {"events_of": "text_only"},
    "tool_use": {"events_of": "fixture"},
    "throttled": {"events_of": "text_only", "exception": 4},
    "bad_crc": {"events_of": "text_only", "bad_crc": 3},
    "cut_in_prelude": {"events_of": "text_only", "cut": 5},
    "uuid_header": {"events_of": "text_only", "uuid_header": True},
}


def wire_dir(wire: str) -> Path:
    return PROVIDERS_DIR / wire


def fixture_names(wire: str) -> list[str]:
    """Names (str, no suffix) of the fixtures of `wire` ("openai_chat", ...), sorted."""
    suffix = SUFFIX.get(wire, ".sse")
    return sorted(path.name[: -len(suffix)] for path in wire_dir(wire).glob(f"*{suffix}"))


def read_fixture(wire: str, name: str) -> bytes:
    """The raw bytes of fixture `name` of `wire`."""
    return (wire_dir(wire) / f"{name}{SUFFIX.get(wire, '.sse')}").read_bytes()


def encode_header(name: str, value: str | bytes | uuid.UUID) -> bytes:
    """One header: name length, name, type byte, value. A str is type 7 and a bytes type 6,
    each with a 2-byte length before it; a `uuid.UUID` is type 9, its 16 bytes.

    >>> encode_header("id", uuid.UUID(int=1)).hex(" ")
    '02 69 64 09 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01'
    """
    raw_name = bytes([len(name.encode("utf-8"))]) + name.encode("utf-8")
    if isinstance(value, uuid.UUID):
        return raw_name + b"\x09" + value.bytes
    kind, raw_value = (
        (b"\x07", value.encode("utf-8")) if isinstance(value, str) else (b"\x06", value)
    )
    return raw_name + kind + struct.pack(">H", len(raw_value)) + raw_value


def encode_frame(headers: Mapping[str, str | bytes | uuid.UUID], payload: bytes) -> bytes:
    """One eventstream frame (bytes): prelude, prelude CRC32, headers, payload, message CRC32.

    Lengths and CRCs are 4-byte big-endian integers; the total length counts every
    byte of the frame, both CRCs included. Source: AWS, "Event stream encoding"."""
    raw_headers = b"".join(encode_header(name, value) for name, value in headers.items())
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + raw_headers + payload
    return body + struct.pack(">I", zlib.crc32(body))


def chunk_frame(event: dict[str, Any], *, frame_id: uuid.UUID | None = None) -> bytes:
    """The frame Bedrock sends for one Messages API event: a `chunk` whose JSON payload
    holds the event's JSON, base64-encoded, under `bytes`; with `frame_id`, one more
    header, `frame-id`, of type 9 (a UUID)."""
    text = json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    payload = json.dumps({"bytes": base64.b64encode(text).decode("ascii")}).encode("utf-8")
    headers: dict[str, str | bytes | uuid.UUID] = {
        ":event-type": "chunk",
        ":content-type": "application/json",
        ":message-type": "event",
    }
    if frame_id is not None:
        headers["frame-id"] = frame_id
    return encode_frame(headers, payload)


def exception_frame(kind: str, message: str) -> bytes:
    """An exception frame, as Bedrock sends one midway (`throttlingException`, ...)."""
    headers = {
        ":exception-type": kind,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return encode_frame(headers, json.dumps({"message": message}).encode("utf-8"))


def build_bedrock(name: str) -> bytes:
    """The bytes of Bedrock fixture `name`, built from its entry in `BEDROCK_STREAMS`."""
    spec = BEDROCK_STREAMS[name]
    events = [
        e for e in iter_events([read_messages_fixture(spec["events_of"])]) if e["type"] != "ping"
    ]
    ids = [uuid.UUID(int=n + 1) if spec.get("uuid_header") else None for n in range(len(events))]
    frames = [
        chunk_frame(event, frame_id=frame_id) for event, frame_id in zip(events, ids, strict=True)
    ]
    if "exception" in spec:
        message = "Too many requests, please wait before trying again."
        frames[spec["exception"] :] = [exception_frame("throttlingException", message)]
    if "bad_crc" in spec:
        damaged = bytearray(frames[spec["bad_crc"]])
        damaged[-1] ^= 0xFF  # the last byte of the message CRC
        frames[spec["bad_crc"]] = bytes(damaged)
    if "cut" in spec:
        frames[spec["cut"] :] = [frames[spec["cut"]][:6]]  # 6 of the prelude's 12 bytes
    return b"".join(frames)
