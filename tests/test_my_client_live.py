"""The learner's client over a socket: retry.py and client.py (lesson 06), `my-client --live`.

Every request here goes to a replay server on 127.0.0.1 (or to a port nothing listens
on); none leaves the machine. Each test works in a folder of its own (tmp_path).
"""

import shutil

import httpx
import pytest

from streaming_lib import APIStatusError, IncompleteStreamError, NotAnEventStreamError
from streaming_lib.__main__ import main
from streaming_lib.lab.server import ReplayServer
from streaming_lib.tools import my_client
from streaming_lib.tools.my_client import REFERENCE, STAGES, given, live, retrying

M = len(retrying.SCENARIOS) + len(live.RELAY_CHECKS)


def reference_copy(tmp_path):
    """A folder holding the course's reference answers, as a learner who did every lesson."""
    where = tmp_path / "my_client"
    shutil.copytree(REFERENCE, where)
    return my_client.ensure(where)


def run_live(capsys, *arguments):
    status = main(["my-client", "--live", *arguments])
    return status, capsys.readouterr().out


def test_with_the_stubs_no_scenario_passes_and_the_client_is_named_next(tmp_path, capsys):
    status, out = run_live(capsys, "--dir", str(tmp_path / "my_client"))
    assert status == 1 and "Traceback" not in out
    assert f"\n0 of {M} scenarios behave as the SDK" in out
    assert out.endswith("Next: write stream_message in my_client/client.py (lesson 06).\n")
    assert "1 try: message" in out  # the SDK's column is filled all the same


def test_the_reference_answers_behave_as_the_sdk_in_every_scenario(capsys):
    status, out = run_live(capsys, "--reference")
    assert status == 0 and "✘" not in out
    assert f"\n{M} of {M} scenarios behave as the SDK" in out
    # where the course asks more than the SDK, the table says what and why
    assert "raised AssertionError" in out and "the course: 1 try: not an event stream" in out


def test_a_client_that_retries_after_the_body_began_falls_below_m_and_is_named(tmp_path):
    where = reference_copy(tmp_path)
    text = (where / "client.py").read_text(encoding="utf-8")
    wrong = text.replace(
        "                    return read_message(response)\n",
        "                    try:\n"
        "                        return read_message(response)\n"
        "                    except StreamError as error:\n"
        "                        failure, error_if_last = httpx.ReadError('cut'), error\n"
        "                        sleep(0.5)\n"
        "                        continue\n",
    )
    assert wrong != text
    (where / "client.py").write_text(wrong, encoding="utf-8")
    caught = live.below_m(where)
    assert caught is not None and "a body cut midway: 2 tries (0.5 s): message" in caught


def test_a_wrong_answer_is_named_next_with_its_file_and_what_it_did():
    rows = [
        live.Row("a clean stream", "1 try: message", "1 try: message", True),
        live.Row("429 with retry-after: 2", "2 tries (2 s): message", "2 tries (0.5 s): message",
                 False),
        live.Row("relay: stopped, it closes the upstream", "—", "it does not", False),
    ]
    assert live.summary(rows).endswith(
        "\nNext: fix my_client/retry.py or client.py (lesson 06): 429 with retry-after: 2, "
        "2 tries (0.5 s): message (the SDK: 2 tries (2 s): message)."
    )
    assert live.summary(rows[2:]).endswith(
        "\nNext: fix my_client/relay.py (lesson 07): relay: stopped, it closes the upstream."
    )
    assert "Next:" not in live.summary(rows[:1])


def test_the_summary_is_one_line_and_exits_1_below_m(tmp_path, capsys):
    status, out = run_live(capsys, "--dir", str(tmp_path / "my_client"), "--summary")
    assert status == 1 and out.startswith(f"0 of {M} scenarios") and "scenario " not in out


def test_base_url_sends_one_request_with_the_learners_client(capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    with ReplayServer("text_only", pace=0.001) as server:
        status = main(["my-client", "--reference", "--base-url", server.url])
        assert server.requests == 1
    out = capsys.readouterr().out
    assert status == 0 and "stop_reason: end_turn" in out


def test_base_url_without_a_key_says_so(capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["my-client", "--reference", "--base-url", "http://127.0.0.1:9"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().out


# -- the parts given to the learner ---------------------------------------------------


def test_send_keeps_the_query_of_the_base_url_and_streams_with_the_key():
    seen = []

    def answer(request):
        seen.append(request)
        return httpx.Response(200, text="")

    with httpx.Client(transport=httpx.MockTransport(answer)) as client:
        given.send(client, {"model": "m"}, base_url="http://h.test/x/?status=529", api_key="k")
    assert str(seen[0].url) == "http://h.test/x/v1/messages?status=529"
    assert seen[0].headers["x-api-key"] == "k" and b'"stream":true' in seen[0].content


def test_an_error_status_keeps_the_apis_error_type_and_request_id():
    with ReplayServer("fixture", pace=0.001) as server, httpx.Client() as client:
        response = given.send(client, {}, base_url=server.url + "?status=529", api_key="k")
        error = given.status_error(response)
    assert isinstance(error, APIStatusError) and error.partial is None
    assert (error.status_code, error.error_type, error.error_message) == (
        529,
        "overloaded_error",
        "Overloaded",
    )
    assert error.request_id == "req_replay_0001" and response.is_closed


# -- the reference client, case by case -----------------------------------------------


def stream(fault, **options):
    client = STAGES["client"].build(my_client.load("client", REFERENCE))
    waits = []
    with ReplayServer("fixture", pace=0.001) as server:
        try:
            return client(
                retrying.REQUEST,
                base_url=server.url + fault,
                api_key="k",
                sleep=waits.append,
                **options,
            )
        finally:
            stream.requests, stream.waits = server.requests, waits


def test_a_cut_keeps_the_text_so_far_and_is_not_retried():
    with pytest.raises(IncompleteStreamError) as caught:
        stream("?drop_at=900&fail_times=1")
    assert stream.requests == 1 and stream.waits == []
    assert caught.value.partial["content"][0]["text"].startswith("找到原因了")


def test_a_200_that_is_an_html_page_is_refused_from_its_content_type():
    with pytest.raises(NotAnEventStreamError) as caught:
        stream("?page=html")
    assert caught.value.content_type.startswith("text/html") and stream.requests == 1


def test_max_retries_0_gives_up_at_once():
    with pytest.raises(APIStatusError):
        stream("?status=529", max_retries=0)
    assert stream.requests == 1 and stream.waits == []


def test_base_url_never_prints_the_key_a_server_quotes(capsys, monkeypatch):
    key = "sk-ant-quoted-back"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)

    def answer(request):  # an error quoting the key it was sent
        message = f"invalid x-api-key: {request.headers['x-api-key']}"
        return httpx.Response(
            401, json={"type": "error", "error": {"type": "x", "message": message}}
        )

    real_client = httpx.Client
    monkeypatch.setattr(
        httpx, "Client", lambda **given: real_client(**given, transport=httpx.MockTransport(answer))
    )
    assert main(["my-client", "--reference", "--base-url", "http://api.test"]) == 1
    out = capsys.readouterr().out
    assert "invalid x-api-key: [key redacted]" in out and key not in out


@pytest.mark.parametrize("url", ["ftp://api.test", "http://api.test/\r", "http://[bad"])
def test_base_url_that_is_no_http_url_is_refused_before_sending(capsys, monkeypatch, url):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    assert main(["my-client", "--reference", "--base-url", url]) == 2
    assert "--base-url: the upstream must be an http(s) URL" in capsys.readouterr().out
