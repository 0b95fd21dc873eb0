"""`python -m streaming_lib my-client --live`: the learner's client over a socket, vs the SDK.

The learner's `my_client/client.py` (`stream_message`, with their retry.py and their
stages) and the anthropic SDK each meet the same faults of the replay server on
127.0.0.1 (`retrying.SCENARIOS`: a clean stream, a 429 with `retry-after`, a 529 then
the stream, a 500 three times, a 200 that is no event stream, an `error` event after
200, a body cut midway, a stall past the read timeout, a connection refused, ...), each
on a fresh server, and the table sets the two outcomes side by side:

    scenario                 the SDK                     yours                       same
    -----------------------  --------------------------  --------------------------  ----
    429 with retry-after: 2  2 tries (2 s): message      2 tries (2 s): message      ✔
    a body cut midway        1 try: cut                  1 try: raised KeyError: 'x' ✘

    12 of 12 scenarios behave as the SDK (or as the course says, where its rule is stricter)

A scenario matches when the tries, the waits and the result are the SDK's. The SDK's
waits are recorded, never slept (`_calculate_retry_timeout` is wrapped, its jitter
held at none, in this referee only); the learner's are recorded through the client's
`sleep` parameter, and may be the SDK's or up to a quarter less (its jitter). Where the
course's rule asks more than the SDK (a 200 that is no event stream is refused from its
content-type; an error after 200 keeps the message so far), the course's outcome is the
one to match, and the table says so.

`--base-url URL` sends one request to a real Messages API with the learner's client
(the key from ANTHROPIC_API_KEY) and prints what came back: the very code the
scenarios ran.

    >>> sdk = Outcome(2, (0.5,), "message")     # 529, then the stream: one wait of 0.5 s
    >>> scenario = SCENARIOS[2]
    >>> behaves_as(Outcome(2, (0.4,), "message"), sdk, scenario)   # the SDK's jitter: fine
    True
    >>> behaves_as(Outcome(2, (1.0,), "message"), sdk, scenario)   # a wait the SDK never takes
    False
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from ...lab.settings import checked_key, checked_upstream, redacted
from ...language import _, current_language, word
from ..i18n import Table
from ..trace import cut
from ..trace import width as columns
from . import REFERENCE, load
from .relaying import closed_when_stopped, first_piece_in_time, stop_reaches_the_upstream
from .reports import named, stub_words
from .retrying import (
    KEEPS_PARTIAL,
    REQUEST,
    SCENARIOS,
    Outcome,
    Scenario,
    outcome,
    serving,
)

HEADERS = Table(
    word("live_scenario", "scenario"),
    word("live_sdk", "the SDK"),
    word("live_yours", "yours"),
    word("live_same", "same"),
)
JITTER = 0.25  # the SDK takes up to a quarter off each back-off, at random


@contextmanager
def sdk_waits_recorded() -> Iterator[list[float]]:
    """Inside: the SDK records each wait it chooses before a retry (no jitter), and sleeps 0."""
    from anthropic import _base_client

    chosen: list[float] = []
    calculate = _base_client.SyncAPIClient._calculate_retry_timeout

    def record(self: Any, *args: Any, **kwargs: Any) -> float:
        with mock.patch.object(_base_client, "random", lambda: 0.0):
            chosen.append(round(calculate(self, *args, **kwargs), 6))
        return 0.0

    with mock.patch.object(_base_client.SyncAPIClient, "_calculate_retry_timeout", record):
        yield chosen


def sdk_outcome(scenario: Scenario) -> Outcome:
    """What the anthropic SDK (`messages.stream`, max_retries 2) comes to in `scenario`."""
    import anthropic
    import httpx2

    from ..sdk import compare_messages
    from .retrying import _fixture

    result: str
    with sdk_waits_recorded() as waits, serving(scenario) as (url, server):
        base = url.partition("?")[0]
        sdk = anthropic.Anthropic(
            base_url=base, api_key="test", max_retries=2, timeout=scenario.read_timeout
        )
        try:
            with sdk.messages.stream(**REQUEST, extra_query=scenario.fault or {}) as stream:
                message = stream.get_final_message().to_dict()
            differs = compare_messages(message, _fixture())
            result = _("message")
            if differs:
                result = _("a message, but {difference}", difference=differs[0])
        except anthropic.APIStatusError as error:
            result = _("HTTP {status}", status=error.status_code)
            if error.status_code == 200:  # an error event: the stream had begun
                result = _("error event")
        except anthropic.APIConnectionError:
            result = _("no connection")
        except httpx2.TimeoutException:
            result = _("timeout")
        except httpx2.TransportError:
            result = _("cut")
        except Exception as error:  # what the SDK does where it has no rule (an HTML page)
            result = _("raised {error}", error=type(error).__name__)
        finally:
            sdk.close()
        tries = server.requests if server is not None else len(waits) + 1
    return Outcome(tries, tuple(waits), result)


def behaves_as(mine: Outcome, sdk: Outcome, scenario: Scenario) -> bool:
    """Whether the learner's outcome is the SDK's (or the course's, where it is stricter):
    the same tries and result, each wait the SDK's or up to JITTER less."""
    wanted = scenario.course if scenario.stricter else sdk
    if (mine.tries, mine.result) != (wanted.tries, wanted.result):
        return False
    if len(mine.waits) != len(sdk.waits):
        return False
    return all(
        isinstance(got, (int, float)) and (1 - JITTER) * theirs - 1e-6 <= got <= theirs + 1e-6
        for got, theirs in zip(mine.waits, sdk.waits, strict=True)
    )


@dataclass(frozen=True)
class Row:
    """One line of the report: what was tried, the SDK's outcome ("—" where the SDK has no
    part, as for a relay), the learner's, whether the learner's is right, a note (the
    course's rule where it is stricter) and `next`: the function to write first, or the
    file that does not load, if that is what stopped it."""

    name: str
    sdk: str
    mine: str
    same: bool
    note: str = ""
    next: str = ""


def client_of(where: Path | None, quiet: bool = False) -> tuple[Callable[..., Any] | None, str]:
    """The learner's `stream_message` from `where` (None: my_client/), or None and why not.
    Loading it prints which earlier stages it uses (`stage_module`), unless `quiet`."""
    try:
        with contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext():
            return load("client", where).stream_message, ""
    except NotImplementedError as error:  # a stage's stub raised while client.py loaded it
        return None, stub_words(str(error))
    except Exception as error:  # a file that does not load: reported, never raised
        return None, _("my_client/client.py does not load: {error}", error=named(error))


def _to_do(result: str) -> str:
    return result if result.startswith("write ") or " does not load: " in result else ""


# The SDK's outcome of each scenario, by name: the SDK is the same for every client, so a
# process judging many (the mutant test) asks it once.
_SDK_SEEN: dict[str, Outcome] = {}


def scenario_rows(where: Path | None, quiet: bool = False) -> list[Row]:
    """One row per client scenario: the SDK's outcome and the learner's client's."""
    client, why = client_of(where, quiet)
    found = []
    for scenario in SCENARIOS:
        sdk = _SDK_SEEN.get(scenario.name) or _SDK_SEEN.setdefault(
            scenario.name, sdk_outcome(scenario)
        )
        mine = outcome(client, scenario) if client is not None else Outcome(0, (), why)
        note = ""
        if scenario.stricter:
            note = _(
                "the course: {outcome} ({why})", outcome=str(scenario.course), why=scenario.stricter
            )
        shown = str(mine)
        same = behaves_as(mine, sdk, scenario)
        found.append(Row(scenario.name, str(sdk), shown, same, note, _to_do(mine.result)))
    return found


def relay_rows(where: Path | None) -> list[Row]:
    """One row per socket check of the learner's relay (lesson 07): no SDK has a part here."""
    try:
        relay = load("relay", where).relay
    except Exception as error:  # a file that does not load: every row says so
        why = _("my_client/relay.py does not load: {error}", error=named(error))
        return [Row(name, "—", why, False, "", why) for name, _check in RELAY_CHECKS]
    found = []
    for name, check in RELAY_CHECKS:
        try:
            got = check(relay)
        except NotImplementedError as error:
            got = stub_words(str(error))
        except Exception as error:  # the learner's relay: reported, never raised
            got = _("raised {error}", error=named(error))
        said = _("as it should") if got is True else _("it does not") if got is False else str(got)
        found.append(
            Row(name, "—", said, got is True, "", _to_do(str(got)) if got is not True else "")
        )
    return found


PIECES = [b"event: ping\n", b"data: {", b'"type": "ping"}\n\n']
RELAY_CHECKS: list[tuple[str, Callable[[Any], Any]]] = [
    (_("relay: stopped, it closes the upstream"), lambda run: closed_when_stopped(run, PIECES)),
    (_("relay: the first piece before the upstream's last"), first_piece_in_time),
    (_("relay: on Stop the upstream sees the disconnect"), stop_reaches_the_upstream),
]


def rows(where: Path | None, quiet: bool = False) -> list[Row]:
    """The client's scenarios, then the relay's checks, for the files in `where` (`quiet`:
    without the lines saying which earlier stages the client uses)."""
    return scenario_rows(where, quiet) + relay_rows(where)


def summary(results: list[Row]) -> str:
    """`N of M scenarios behave as the SDK ...`, and what to write or fix next, if anything."""
    done = sum(row.same for row in results)
    line = str(
        _(
            "{done} of {count} scenarios behave as the SDK "
            "(or as the course says, where its rule is stricter)",
            done=done,
            count=len(results),
        )
    )
    if step := next_step(results):
        line += "\n" + str(_("Next: {what}.", what=step))
    return line


def next_step(results: list[Row]) -> str | None:
    """What to write or fix first (a function still a stub, a file that does not load, else
    the first row that does not behave), or None when every row behaves."""
    to_do = [row.next for row in results if row.next and not row.same]
    if to_do:
        return str(to_do[0])
    if differs := [row for row in results if not row.same]:  # answers, but not yet right
        return _fix(differs[0])
    return None


def _fix(row: Row) -> str:
    """What to fix first, for a row that does not behave: its file, its lesson, and how."""
    if row.sdk == "—":  # a relay check: no SDK has a part there
        return str(_("fix my_client/relay.py (lesson 07): {check}", check=row.name))
    wanted = row.note or _("the SDK: {outcome}", outcome=row.sdk)
    return str(
        _(
            "fix my_client/retry.py or client.py (lesson 06): {scenario}, {yours} ({wanted})",
            scenario=row.name,
            yours=row.mine,
            wanted=wanted,
        )
    )


def table(results: list[Row], width: int = 38) -> str:
    """The report: one row per scenario, the SDK's outcome and the learner's, then `summary`."""
    headers = list(HEADERS[current_language()].values())
    names = max([columns(headers[0]), *(columns(str(row.name)) for row in results)])
    lines = [
        "  ".join(
            [pad(headers[0], names), pad(headers[1], width), pad(headers[2], width), headers[3]]
        ),
        "  ".join(["-" * names, "-" * width, "-" * width, "-" * columns(headers[3])]),
    ]
    for row in results:
        cells = [pad(str(row.name), names), pad(cut(row.sdk, width), width)]
        cells += [pad(cut(row.mine, width), width), "✔" if row.same else "✘"]
        lines.append("  ".join(cells))
        if row.note:
            lines.append(" " * (names + 2) + str(row.note))
    return "\n".join([*lines, "", summary(results)])


def pad(text: str, size: int) -> str:
    """`text` and spaces to fill `size` terminal columns (a CJK character takes two)."""
    return text + " " * max(size - columns(text), 0)


def run(where: Path | None = None, *, reference: bool = False, summary_only: bool = False) -> int:
    """Print the report for my_client/ (or `where`, or the reference answers); 0 if every
    scenario behaves as it should, else 1."""
    results = rows(REFERENCE if reference else where, quiet=summary_only)
    print(summary(results) if summary_only else table(results))
    return 0 if all(row.same for row in results) else 1


def report(where: Path | None = None, *, reference: bool = False) -> dict[str, Any]:
    """The report of `run` as data (JSON-ready): `scenarios` (one entry per row: its `name`,
    the `sdk`'s outcome, `mine`, whether it behaves the `same`, the course's `note`, and
    `next`), `passed` of `count`, and `next` (what to write or fix first, or null). What the
    learner's code prints on the way goes to stderr, never into the report."""
    with contextlib.redirect_stdout(sys.stderr):
        results = rows(REFERENCE if reference else where, quiet=True)
    return {
        "scenarios": [
            {
                "name": str(row.name),
                "sdk": str(row.sdk),
                "mine": str(row.mine),
                "same": row.same,
                "note": str(row.note),
                "next": str(row.next),
            }
            for row in results
        ],
        "passed": sum(row.same for row in results),
        "count": len(results),
        "next": next_step(results),
    }


def run_json(where: Path | None = None, *, reference: bool = False) -> int:
    """`my-client --live --json`: print `report` as one JSON object; the status of `run`."""
    found = report(where, reference=reference)
    print(json.dumps(found, ensure_ascii=False, sort_keys=True, indent=1))
    return 0 if found["passed"] == found["count"] else 1


def below_m(where: Path, capsys: Any = None) -> str | None:
    """For the mutant test: the summary line when the client in `where` falls below M of M
    (what caught the mutant: `--live`), else None. Prints nothing (`capsys`: unused, so
    that it has the shape of the test's other judges)."""
    results = rows(where, quiet=True)
    if all(row.same for row in results):
        return None
    failed = "; ".join(f"{row.name}: {row.mine}" for row in results if not row.same)
    return f"{summary(results).splitlines()[0]} ({failed})"


def one_request(base_url: str, where: Path | None = None, *, reference: bool = False) -> int:
    """Send one request to `base_url` with the learner's client (the key: ANTHROPIC_API_KEY)
    and print the answer's text, its stop reason and usage; 0 on a message, else 1 (2: no
    key, or a key or URL refused before sending, `lab.settings`). The key is never printed:
    a server quoting it (in an error, in the text) is shown REDACTED."""
    api_key = os.environ.get("ANTHROPIC_API_KEY")
    if not api_key:
        print(_("--base-url needs the API key in the environment variable ANTHROPIC_API_KEY"))
        return 2
    try:
        checked_key(api_key)
        base_url = checked_upstream(base_url)
    except ValueError as error:
        print(_("--base-url: {error}", error=str(error)))
        return 2
    client, why = client_of(REFERENCE if reference else where)
    if client is None:
        print(_("Next: {what}.", what=why))
        return 1
    request = {**REQUEST, "max_tokens": 200}
    request["messages"] = [{"role": "user", "content": "Say hello in one short sentence."}]
    try:
        message = client(request, base_url=base_url, api_key=api_key)
    except Exception as error:  # the learner's client: its error said, never a traceback
        print(redacted(str(_("your client raised {error}", error=named(error))), api_key))
        partial = getattr(error, "partial", None)
        if partial:
            said = _("the message so far: {content}", content=partial.get("content"))
            print(redacted(str(said), api_key))
        return 1
    text = "".join(block.get("text", "") for block in message.get("content", []))
    print(redacted(text, api_key))
    said = _(
        "stop_reason: {reason}, usage: {usage}",
        reason=message.get("stop_reason"),
        usage=message.get("usage"),
    )
    print(redacted(str(said), api_key))
    return 0


__all__ = ["KEEPS_PARTIAL", "below_m", "one_request", "run", "sdk_outcome"]
