"""README.zh-CN.md stands on its own: every command README.md shows is in it too, and it
sends a Chinese reader to English only through the language switch at its top."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
CHINESE = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
# Commands the English README shows that the Chinese one gives in its Chinese form.
IN_CHINESE_FORM = {
    "make progress": "make progress-zh",
    ".venv/bin/python scripts/make_exercises.py --reset 03": (
        ".venv/bin/python scripts/make_exercises.py --reset 03 --edition zh"
    ),
    ".venv/bin/pytest --nbval-lax exercises/01_line_splitter.ipynb": (
        ".venv/bin/pytest --nbval-lax exercises/zh/01_line_splitter.ipynb"
    ),
}


def commands(markdown: str) -> list[str]:
    """Each command line of the ```bash blocks of `markdown`, its comment left out."""
    blocks = re.findall(r"(?ms)^```bash\n(.*?)^```", markdown)
    lines = (line.split("  #", 1)[0].strip() for block in blocks for line in block.splitlines())
    return [line for line in lines if line]


def test_every_command_the_english_readme_shows_is_in_the_chinese_one():
    chinese = set(commands(CHINESE))
    missing = [
        command
        for command in commands(README)
        if command not in chinese
        and IN_CHINESE_FORM.get(command) not in chinese
        and not command.startswith(
            (
                "mamba ",
                "conda ",
                "python scripts/course.py settings",
                "jupyter lab",
                "pytest tests",
                ".venv/bin/python -m benchmarks",
                "make bench",
                ".venv/bin/python scripts/slides.py mark",
                ".venv/bin/python scripts/chat_screenshot.py",
                ".venv/bin/python scripts/make_exercises.py --execute",
            )
        )
    ]
    assert not missing, missing


def test_the_chinese_readme_has_the_trace_the_replay_server_the_chat_page_and_the_teachers_kit():
    for needed in (
        "python -m streaming_lib trace",
        "python -m streaming_lib serve",
        "python -m streaming_lib chat",
        "](TEACHING.zh-CN.md)",
        "](teaching/zh/)",
        "?error_after=5",
        "?status=529&fail_times=2",
        "ANTHROPIC_API_KEY",
    ):
        assert needed in CHINESE, needed


def test_the_chinese_readme_sends_to_english_only_from_its_language_switch():
    links = re.findall(r"\]\((README\.md|TEACHING\.md)[)#]", CHINESE)
    assert links == ["README.md"], links
    assert "[English](README.md)" in CHINESE.split("\n\n", 2)[1]
    assert not re.search(r"见英文|英文的 ?\[?README", CHINESE), "a pointer to the English text"
