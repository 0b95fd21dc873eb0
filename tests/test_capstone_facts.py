"""What lesson 07 says about Stop is what is known, with its sources (issue 25, fact 2).

Known: closing the upstream response ends the relay's reading, and the upstream sees the
disconnect (the replay server counts it). Not found in the API's documentation: whether the
API then stops generating, and what it bills. The course must not claim either.
"""

from pathlib import Path

import pytest
from committed import read, text

ROOT = Path(__file__).resolve().parent.parent
STREAMING_GUIDE = "https://docs.claude.com/en/docs/build-with-claude/streaming"
SDK_HELPERS = "`helpers.md` of anthropics/anthropic-sdk-typescript"
EDITIONS = [
    ROOT / "notebooks" / "07_capstone.ipynb",
    ROOT / "notebooks" / "zh" / "07_capstone.ipynb",
]


def stop_cell(path):
    (cell,) = [cell for cell in read(path).cells if cell.id == "ef6253a5"]
    return cell.source


@pytest.mark.parametrize("path", EDITIONS, ids=["en", "zh"])
def test_the_capstone_never_says_that_closing_stops_the_api_generating_and_billing(path):
    whole = text(path)
    assert "so the API stops generating (and billing) at once" not in whole
    assert "于是 API 立即停止生成（和计费）" not in whole


@pytest.mark.parametrize("path", EDITIONS, ids=["en", "zh"])
def test_the_stop_step_cites_the_streaming_guide_and_the_sdks_word_on_cancelling(path):
    source = stop_cell(path)
    assert STREAMING_GUIDE in source
    assert "helpers.md" in source and "stream.abort()" in source


def test_the_english_stop_step_says_what_is_known_and_what_the_docs_do_not_say():
    source = stop_cell(EDITIONS[0])
    assert "closing ends the relay's reading, and the upstream sees the disconnect" in source
    assert "we found stated nowhere in its documentation" in source
    assert SDK_HELPERS in source


def test_the_teachers_notes_give_the_same_facts_and_sources():
    notes = text(ROOT / "teaching" / "07_capstone.md")
    assert "Closing the upstream response at once stops generation" not in notes
    assert "keeps generating, and billing" not in notes
    assert STREAMING_GUIDE in notes and "helpers.md" in notes
