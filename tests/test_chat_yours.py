"""Lesson 07's app on the learner's code: their relay core, and their client beside the page
reading the same bytes (`tools/my_client/beside.py`), its report at `GET /yours/N`.

Every test works on a my_client/ folder of its own (tmp_path), with the chat app and the
replay server on 127.0.0.1.
"""

import shutil
import time

import httpx
import pytest
from test_server import error_log  # noqa: F401, F811 (a fixture)

from streaming_lib.chat import ChatServer
from streaming_lib.chat.app import KEPT_REPORTS
from streaming_lib.tools import my_client
from streaming_lib.tools.fixtures import chunked, read_fixture
from streaming_lib.tools.my_client import REFERENCE, load, stage
from streaming_lib.tools.my_client.beside import BESIDE_STAGES, Reading, readings


@pytest.fixture
def reference(tmp_path):
    where = tmp_path / "my_client"
    shutil.copytree(REFERENCE, where)
    (where / "__init__.py").write_text("", encoding="utf-8")
    return where


def answer_and_report(where, query="", fixture="fixture"):
    """(the bytes the page got, the report of the learner's client) for one prompt."""
    reader = readings(where)
    core = stage("relay", where).run
    with ChatServer(fixture, pace=0.001, environ={}, core=core, reader=reader) as chat:
        page = {"origin": chat.url}
        url = f"{chat.url}/chat{query}"
        with httpx.stream("POST", url, json={"prompt": "hi"}, headers=page) as reply:
            try:
                body = b"".join(reply.iter_raw())
            except httpx.RemoteProtocolError:  # a cut passed on as a cut
                body = None
            number = reply.headers["x-your-client"]
        report = httpx.get(f"{chat.url}/yours/{number}", timeout=10).json()
    return body, report


def test_the_reference_answers_read_the_answer_as_the_library_does_and_give_the_verdict(reference):
    body, report = answer_and_report(reference)
    assert body is not None and body.startswith(b"event: message_start")
    assert report["stages"] == dict.fromkeys(BESIDE_STAGES, "yours")
    assert report["message"] == {"matches": True, "said": "your client: the message matches"}
    assert report["verdicts"] == {"1": True} and report["cut"] is False


def test_with_the_stubs_every_stage_is_the_librarys_and_the_report_says_none_is_yours(tmp_path):
    where = my_client.ensure(tmp_path / "my_client")
    _, report = answer_and_report(where)
    assert report["stages"] == dict.fromkeys(BESIDE_STAGES, "library")
    assert report["message"]["said"] == "no stage of your client is yours yet"
    assert report["verdicts"] == {"1": True}  # the library's verdict, said as such by the page


def test_a_learners_verdict_is_the_one_reported_even_where_the_library_would_say_yes(reference):
    path = reference / "verdict.py"
    # A verdict that passes its checks yet says no where the library says yes: a schema
    # without "additionalProperties" (the chat app's; the lesson's checks give another).
    text = path.read_text(encoding="utf-8").replace(
        '    block = acc.message["content"][index]\n',
        '    block = acc.message["content"][index]\n'
        '    if schema is not None and "additionalProperties" not in schema:\n'
        "        return False\n",
    )
    path.write_text(text, encoding="utf-8")
    assert stage("verdict", reference).mine
    _, report = answer_and_report(reference)
    assert report["stages"]["verdict"] == "yours" and report["verdicts"] == {"1": False}


def test_a_learners_message_that_differs_from_the_librarys_is_named_by_its_first_difference(
    reference,
):
    path = reference / "accumulator.py"
    text = path.read_text(encoding="utf-8").replace(
        'acc.message["usage"].update(totals)',
        'acc.message["usage"].update(\n'
        '        {k: acc.message["usage"].get(k, 0) + v for k, v in totals.items()}\n    )',
    )
    path.write_text(text, encoding="utf-8")
    runs = {
        "lines": (True, my_client.lines_of(load("lines", reference).feed)),
        "sse": (True, my_client.events_of(load("sse", reference).feed_line)),
        "verdict": (True, load("verdict", reference).may_run),
    }
    reading = Reading(runs, my_client.accumulator_of(load("accumulator", reference)))
    raw = read_fixture("fixture")
    for piece in chunked(raw, 7):
        reading.feed(piece)
    report = reading.finish(False, {})
    assert report["message"]["matches"] is False
    assert report["message"]["said"] == (
        "your client: the message differs: message.usage.output_tokens: 59 here, 58 in the"
        " library's"
    )


def test_a_cut_stream_is_reported_as_cut_and_both_clients_end_the_same_way(reference):
    body, report = answer_and_report(reference, "?drop_at=900")
    assert body is None and report["cut"] is True
    assert report["message"]["matches"] is True
    assert "IncompleteStreamError" in report["message"]["said"]


def test_an_error_event_after_200_ends_both_clients_with_the_servers_error(reference):
    _, report = answer_and_report(reference, "?error_after=5")
    assert report["message"]["matches"] is True and report["cut"] is False
    assert "APIStreamError: overloaded_error" in report["message"]["said"]


def test_without_a_reader_the_answer_names_no_reading_and_there_is_none_to_fetch():
    with ChatServer("fixture", pace=0.001, environ={}) as chat:
        page = {"origin": chat.url}
        reply = httpx.post(f"{chat.url}/chat", json={"prompt": "hi"}, headers=page, timeout=10)
        assert reply.status_code == 200 and "x-your-client" not in reply.headers
        assert httpx.get(f"{chat.url}/yours/1", timeout=10).status_code == 404


class Counting:
    """A reader that reads nothing and counts the readings finished."""

    finished: list[bool] = []

    def feed(self, piece):
        pass

    def finish(self, cut, schemas):
        Counting.finished.append(cut)
        return {"cut": cut}


def test_a_reading_dropped_from_the_table_while_it_streams_still_ends_cleanly(error_log):  # noqa: F811
    # The first stream stays open (hold_open) while KEPT_REPORTS newer readings push it
    # out of the relay's table of reports; then the page stops it.
    Counting.finished = []
    with ChatServer("fixture", pace=0, environ={}, reader=Counting) as chat:
        page = {"origin": chat.url}
        with httpx.stream(
            "POST", f"{chat.url}/chat?hold_open=60", json={"prompt": "hi"}, headers=page
        ) as first:
            assert first.headers["x-your-client"] == "1"
            for number in range(2, KEPT_REPORTS + 2):
                reply = httpx.post(f"{chat.url}/chat", json={"prompt": "hi"}, headers=page)
                assert reply.headers["x-your-client"] == str(number)
            assert httpx.get(f"{chat.url}/yours/1").status_code == 404  # dropped
        for _ in range(500):  # the page's Stop: the relay ends the reading (5 s at most)
            if len(Counting.finished) == KEPT_REPORTS + 1:
                break
            time.sleep(0.01)
        assert Counting.finished.count(True) == 1  # the first one, stopped
        assert httpx.get(f"{chat.url}/yours/{KEPT_REPORTS + 1}").json() == {"cut": False}
    assert error_log == []
