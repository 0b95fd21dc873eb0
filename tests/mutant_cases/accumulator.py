"""Single-fault mutants of the reference `my_client/accumulator.py` (lesson 03)."""

from . import Mutant

FILE = "accumulator.py"

MUTANTS = [
    Mutant(
        "usage added instead of overwritten",
        FILE,
        'acc.message["usage"].update(totals)',
        'acc.message["usage"].update(\n'
        "        {k: acc.message['usage'].get(k, 0) + v if isinstance(v, int) else v"
        " for k, v in totals.items()}\n    )",
    ),
    Mutant(
        "the message shared, not copied",
        FILE,
        'acc.message = json.loads(json.dumps(event["message"]))',
        'acc.message = dict(event["message"])',
    ),
    Mutant(
        "every delta sent to block 0",
        FILE,
        'index, delta = event["index"], event["delta"]',
        'index, delta = 0, event["delta"]',
    ),
    Mutant(
        "a second message_start accepted",
        FILE,
        "    if acc.message is not None:\n        raise EventOrderError",
        "    if False:\n        raise EventOrderError",
    ),
    Mutant(
        "events after message_stop accepted",
        FILE,
        '        if acc.complete:\n            raise EventOrderError(f"{kind} after message_stop")',
        "        pass",
    ),
    Mutant(
        "a block's index not checked",
        FILE,
        "    if index != len(content):\n",
        "    if False:\n",
    ),
    Mutant(
        "an unknown event type refused",
        FILE,
        "    if handler is None:\n        return",
        "    if handler is None:\n        raise EventOrderError(kind)",
    ),
    Mutant(
        "the error event ignored",
        FILE,
        '    "error": on_error,\n',
        '    "error": on_ping,\n',
    ),
    Mutant(
        "a message without message_stop accepted",
        FILE,
        "    if not acc.complete:\n",
        "    if False:\n",
    ),
    Mutant(
        "a bad tool input always forgiven",
        FILE,
        'if acc.input_errors and acc.message["stop_reason"] not in CUT_OFF_STOP_REASONS:',
        "if False:",
    ),
    Mutant(
        "a delta for a stopped block accepted",
        FILE,
        'index, delta = event["index"], event["delta"]\n    block = open_block(acc, index)',
        'index, delta = event["index"], event["delta"]\n    block = acc.message["content"][index]',
    ),
    Mutant(
        "a tool's input set from its last fragment only",
        FILE,
        'block["input"] = acc.tool_input(acc.json_parts[index], index)',
        'block["input"] = acc.tool_input(acc.json_parts[index][-1:], index)',
    ),
]
