"""Facts the course once stated wrongly or without a source stay put right, in both editions.

Each test names a sentence that was wrong, checks that it is gone from the
English and the Chinese text, and that the sentence now there cites its primary
source (an API documentation page, or the public reports it rests on).
"""

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent

REFUSALS_DOC = "https://platform.claude.com/docs/en/test-and-evaluate/strengthen-guardrails/handle-streaming-refusals"
CACHING_PRICES = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching#pricing"
CLI_REPORTS = (
    "https://github.com/anthropics/claude-code/issues/1546",
    "https://github.com/sesori-ai/sesori_apps_monorepo/pull/1045",
    "https://github.com/MiniMax-AI-Dev/parsar/pull/308",
)


def text(relative):
    """The whole text of a notebook (every cell's source) or of any other file."""
    path = ROOT / relative
    if path.suffix == ".ipynb":
        return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)
    return path.read_text(encoding="utf-8")


def editions(relative):
    """The English notebook at `relative` and its Chinese edition (its folder's zh/ counterpart:
    notebooks/zh/bonus/ for notebooks/bonus/)."""
    top, rest = relative.split("/", 1)
    return [relative, f"{top}/zh/{rest}"]


@pytest.mark.parametrize("notebook", editions("notebooks/bonus/06_claude_cli.ipynb"))
def test_the_cli_writes_one_assistant_line_per_content_block_as_public_reports_show(notebook):
    words = text(notebook)
    assert "here one line per message" not in words
    assert "这里每条消息一行" not in words
    assert "message.id" in words and all(report in words for report in CLI_REPORTS)


def test_no_fixture_note_blames_a_gateway_for_closing_a_block_max_tokens_cut():
    readme = text("fixtures/README.md")
    assert "a gateway closed the block" not in readme
    assert "fine-grained-tool-streaming" in readme and "build-with-claude/streaming" in readme


@pytest.mark.parametrize(
    "notebook",
    editions("solutions/06_usage_accounting.ipynb")
    + editions("exercises/06_usage_accounting.ipynb"),
)
def test_a_cache_write_costs_by_its_lifetime_and_the_pricing_docs_say_so(notebook):
    words = text(notebook)
    assert "a quarter more" not in words and "贵四分之一" not in words
    assert "1.25" in words and CACHING_PRICES in words
    assert "2 times for the 1-hour cache" in words or "1 小时缓存是 2 倍" in words


@pytest.mark.parametrize("notebook", editions("notebooks/00_start_here.ipynb"))
def test_the_refusal_is_explained_in_the_stream_and_taken_down_by_the_client(notebook):
    words = text(notebook)
    assert "nothing in the stream explains it" not in words
    assert "流里也没有任何东西向用户解释" not in words
    assert "Commentary can be withdrawn" not in words and "解说可以撤回" not in words
    assert REFUSALS_DOC in words and "stop_details" in words


@pytest.mark.parametrize("notebook", editions("notebooks/00_start_here.ipynb"))
def test_the_analogy_is_a_live_text_commentary_that_breaks_at_a_tool_input_fragment(notebook):
    words = text(notebook)
    assert "live text commentary" in words or "文字直播" in words
    assert '`{"path": "ca`' in words and "`input_json_delta`" in words


# Lesson 05's note on jiter and the empty buffer lives in its bonus notebook.
@pytest.mark.parametrize("notebook", editions("notebooks/bonus/05_sdk_more.ipynb"))
def test_the_partial_json_exercise_is_named_by_its_number_03(notebook):
    words = text(notebook)
    assert "Exercise 02 (partial JSON)" not in words and "练习 02（不完整的 JSON）" not in words
    assert "exercises/03_partial_json.ipynb" in words or "exercises/zh/03_partial_json" in words


@pytest.mark.parametrize("notebook", editions("notebooks/06_in_production.ipynb"))
def test_lesson_06_cites_the_docs_for_errors_caching_and_stream_recovery(notebook):
    words = text(notebook)
    assert "https://platform.claude.com/docs/en/api/errors" in words
    assert CACHING_PRICES in words
    assert "https://platform.claude.com/docs/en/build-with-claude/streaming#error-recovery" in words
    assert "bonus/06_gateways.ipynb" in words and "stream_of(" not in words  # the detail moved


@pytest.mark.parametrize("notebook", editions("notebooks/01_sse_wire_format.ipynb"))
def test_retry_sets_the_streams_reconnection_time_when_read_as_the_whatwg_rules_say(notebook):
    words = text(notebook)
    assert "so no event carries it" not in words  # retry is no field of an event
    assert "set the event stream's reconnection time to that integer" in words  # the rule, quoted
    assert "9.2.6" in words
