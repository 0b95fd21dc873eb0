"""May this tool call run? An allow-list, with the reason.

A streamed tool call may be run by the client only when **all** of these hold
(source: the Messages API reference, "Streaming Messages" and "Tool use";
the stop reasons are those of the installed SDK's `StopReason`):

1. the block is a client `tool_use` block: the API runs `server_tool_use` and
   `mcp_tool_use` calls itself, and a `*_tool_result` block is a result;
2. its `content_block_stop` arrived, so its input is complete;
3. that input is valid JSON, a JSON object;
4. it matches the tool's input schema, when one is given;
5. the message got `message_stop`;
6. its `stop_reason` is `"tool_use"`: the model asked for the tool to run.

Anything else is "not runnable", and the verdict names one rule that fails:
rule 1 first, then, once the message is complete, rule 6 (the stop reason
decides before any detail of the block), then rules 2 to 5 in order. Rule 6
is an allow-list on purpose: `end_turn`, `max_tokens`,
`model_context_window_exceeded`, `stop_sequence`, `pause_turn`, `refusal`,
no stop reason at all, and any stop reason added to the API later all mean
"do not run".

    >>> message = {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
    ...            "stop_reason": "end_turn"}
    >>> verdict = tool_call_verdict(message, 0, complete=True, stopped=True)
    >>> verdict.runnable, verdict.reason
    (False, 'stop_reason is end_turn: the model finished its turn without asking for a tool to run')

Deliberately not handled here: reading the stream (`accumulator.py`, whose
`MessageAccumulator.tool_call_verdict(index)` fills in the arguments), and
running the tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .language import _

# The one stop reason under which the model asks the client to run its tool calls.
RUN_TOOLS = "tool_use"

# Stop reasons that mean the output was cut off: by the token limit, by the
# context window, or by a refusal that stopped the model mid-answer. A tool input
# that is not valid JSON at its stop is explained by them (the accumulator keeps
# the message); under any other stop reason it is an error.
CUT_OFF_STOP_REASONS = frozenset({"max_tokens", "model_context_window_exceeded", "refusal"})

# Why each known stop reason other than `tool_use` forbids running a call.
NOT_RUNNABLE_BECAUSE = {
    None: _("the message ended with no stop_reason"),
    "end_turn": _("the model finished its turn without asking for a tool to run"),
    "max_tokens": _("the output was cut off at max_tokens, so the call may be incomplete"),
    "model_context_window_exceeded": _(
        "the context window filled up and the output was cut off, so the call may be incomplete"
    ),
    "stop_sequence": _("a stop sequence ended the output; only tool_use asks for a tool to run"),
    "pause_turn": _("the API paused its own server-tool loop; send the turn back to let it go on"),
    "refusal": _("the model refused; run nothing, and withdraw the text already shown"),
}

# Call blocks that the API runs itself, on its own servers or an MCP server.
SERVER_RUN_BLOCKS = {
    "server_tool_use": _("a call the API runs itself"),
    "mcp_tool_use": _("a call the API makes to the MCP server itself"),
}


@dataclass(frozen=True)
class ToolCallVerdict:
    """Whether a tool call may run (`runnable`, bool) and why (`reason`, one
    sentence a UI can show as it is: a `language.Text`, English as a value, shown in the
    language in use)."""

    runnable: bool
    reason: str


def tool_call_verdict(
    message: dict[str, Any] | None,
    index: int,
    *,
    complete: bool,
    stopped: bool,
    input_error: str | None = None,
    schema: dict[str, Any] | None = None,
) -> ToolCallVerdict:
    """The verdict on block `index` of `message` (a Message dict, or None before
    `message_start`).

    `complete`: `message_stop` arrived. `stopped`: the block's
    `content_block_stop` arrived. `input_error`: why its input is not a valid
    JSON object, or None. `schema`: the tool's `input_schema` (a JSON Schema
    dict), or the whole tool definition that holds it (`{"name": ...,
    "input_schema": {...}}`), checked with `jsonschema` when given. Never raises
    for a bad block, index or schema: those are verdicts too.
    """
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or type(index) is not int or not 0 <= index < len(content):
        return _no(_("there is no block {index!r}", index=index))
    block = content[index]
    kind = block.get("type") if isinstance(block, dict) else None
    if kind != "tool_use":
        if kind in SERVER_RUN_BLOCKS:
            return _no(
                _(
                    "block {index} is {what} ({kind})",
                    index=index,
                    what=SERVER_RUN_BLOCKS[kind],
                    kind=kind,
                )
            )
        if isinstance(kind, str) and kind.endswith("_tool_result"):
            return _no(
                _("block {index} is a tool's result, not a call ({kind})", index=index, kind=kind)
            )
        return _no(_("block {index} is not a tool call ({kind})", index=index, kind=kind))
    reason = message.get("stop_reason")  # type: ignore[union-attr]
    if complete and reason != RUN_TOOLS:
        return _no(_stop_reason_sentence(reason))
    if not stopped:
        if complete:
            return _no(
                _(
                    "block {index} never got its content_block_stop: its input may be cut",
                    index=index,
                )
            )
        return _no(
            _("block {index} has no content_block_stop yet: its input may still grow", index=index)
        )
    if input_error is not None:
        return _no(_("block {index}'s input {problem}", index=index, problem=input_error))
    if not isinstance(block.get("input"), dict):  # e.g. a whole block in its start, not an object
        return _no(_("block {index}'s input is not a JSON object", index=index))
    if schema is not None:
        try:
            mismatch = schema_mismatch(block.get("input"), schema)
        except ValueError as bad:
            return _no(
                _(
                    "the tool's input schema cannot check block {index}'s input: {why}",
                    index=index,
                    why=str(bad),
                )
            )
        if mismatch is not None:
            return _no(
                _(
                    "block {index}'s input does not match the tool's input schema: {mismatch}",
                    index=index,
                    mismatch=mismatch,
                )
            )
    if not complete:
        return _no(
            _("the message has no message_stop yet: the stop_reason that allows a run comes last")
        )
    return ToolCallVerdict(
        True,
        _(
            "block {index} is a complete tool_use call, and the message stopped for tool_use",
            index=index,
        ),
    )


def schema_mismatch(value: Any, schema: dict[str, Any]) -> str | None:
    """What is wrong with `value` under the JSON Schema `schema` (the most relevant
    error, as `jsonschema.exceptions.best_match` picks it), or None if it matches.
    `schema` may also be a whole tool definition (its `input_schema` is used).
    Raises ValueError, saying why, for a schema that cannot be used."""
    import jsonschema  # imported here: it takes a second, and most callers give no schema

    if isinstance(schema, dict) and isinstance(schema.get("input_schema"), dict):
        schema = schema["input_schema"]  # a whole tool definition was given
    if not isinstance(schema, dict):
        raise ValueError(f"it is not a JSON Schema object but a {type(schema).__name__}")
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
        error = jsonschema.exceptions.best_match(cls(schema).iter_errors(value))
    except jsonschema.exceptions.SchemaError as bad:
        raise ValueError(f"it is not valid JSON Schema: {bad.message}") from None
    except (
        Exception
    ) as bad:  # a $ref that leads nowhere, and the like: the schema's fault, not the input's
        raise ValueError(f"{type(bad).__name__}: {bad}") from None
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{error.message} (at {where})" if where else error.message


def _stop_reason_sentence(reason: Any) -> str:
    if (reason is None or isinstance(reason, str)) and reason in NOT_RUNNABLE_BECAUSE:
        because = NOT_RUNNABLE_BECAUSE[reason]
        return (
            because
            if reason is None
            else _("stop_reason is {reason}: {because}", reason=reason, because=because)
        )
    return _(
        "stop_reason is {reason!r}, which this client does not know; "
        "only tool_use asks for a tool to run",
        reason=reason,
    )


def _no(reason: str) -> ToolCallVerdict:
    return ToolCallVerdict(False, reason)
