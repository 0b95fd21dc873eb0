"""Other wires, same stages: what changes, and what stays, from one provider to the next.

| wire | stage 1: framing | stage 2: events | stage 3: state machine |
|---|---|---|---|
| `openai_chat` | SSE lines | data-only; `[DONE]` ends | `choices[i].delta`, calls by `index` |
| `openai_responses` | SSE lines | named, numbered | output items by `output_index` |
| `gemini` | SSE lines | data-only, each a whole chunk | none in the SDK: joined here |
| `bedrock` | binary frames, two CRC32s | a Messages API event each | `MessageAccumulator` |

Each module has `accumulate(chunks) -> dict` (bytes cut anywhere in, the final
result out, typed errors from `errors.py` with the partial result); `bedrock`
also `iter_frames(chunks)`; each has `aaccumulate(chunks)` too, over async byte
chunks, with the same result or error. None needs a provider's SDK: the SDKs are
only the referees, front-end tools as the Messages API's is
(`streaming_lib.tools.provider_sdk`, with the optional extra `providers`; the
fixtures: `streaming_lib.tools.provider_fixtures`). This package imports only the
pipeline and the errors.

    >>> from streaming_lib.providers import bedrock, gemini, openai_chat, openai_responses
    >>> sorted(WIRES)
    ['bedrock', 'gemini', 'openai_chat', 'openai_responses']
"""

# The wires, in the order the lesson shows them.
WIRES = ("openai_chat", "openai_responses", "gemini", "bedrock")

__all__ = ["WIRES"]
