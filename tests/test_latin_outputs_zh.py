"""What a Chinese learner reads in a Chinese notebook's outputs is Chinese, or a code name.

Every Latin-script word in the outputs of the Chinese edition (notebooks/zh, solutions/zh,
exercises/zh, as committed) must be one of:

- shaped like code: it holds `_`, `.`, `/`, `-`, `+`, `:`-joined parts or a digit, or a capital
  after its first letter (`content_block_delta`, `my_client/lines.py`, `x-api-key`, `4xx`,
  `APIStreamError`, `HTTP`);
- a name of the code the learner reads: an identifier or a string literal of the notebook's own
  code cells, a code span or code block of its own Chinese text, a name defined by the library
  (functions, classes, arguments, attributes, one-word string constants: `runnable`,
  `library`), a term of the glossary that stays as on the wire (`token`, `ping`);
- data: the fixtures' bytes (the streams and their verdicts, every provider's), the tool
  definition the chat relay sends, one letter (`x`, `'d'`) or one letter repeated
  (`xxxxxxxx`), or a piece of such a word cut at a quote or a line's end (`'con` of
  `content`: a stream split into chunks);
- in a printed source listing (`LISTINGS`) or a line IPython writes itself (`TOOL_LINES`).

Anything else (English prose: "saved", "gave up after 3 tries") fails, named with its line.
"""

import ast
import html
import io
import json
import re
import tokenize
from functools import cache
from pathlib import Path

import pytest
import yaml
from committed import read as read_committed

ROOT = Path(__file__).resolve().parent.parent

CHINESE = sorted(
    [
        *(ROOT / "notebooks" / "zh").rglob("*.ipynb"),
        *(ROOT / "solutions" / "zh").glob("*.ipynb"),
        *(ROOT / "exercises" / "zh").glob("*.ipynb"),
    ]
)

# A word: letters, digits and `_`, parts joined by . / - + = (a path, a header, a key name,
# an argument with its value).
# Latin letters with their accents (café) are letters of the same word.
LETTER = "A-Za-z\u00c0-\u024f"
WORD = re.compile(rf"[{LETTER}0-9_]*[{LETTER}][{LETTER}0-9_]*(?:[./\-+=][{LETTER}0-9_]+)*")
# A character escaped in a printed repr (\n, \x00, \u2028): its letter is not a word's.
ESCAPE = re.compile(r"\\+(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[nrtvfab0\\'\"])")
QUOTES = "'\"`"

# Outputs that print source code to be read as code (its comments are the code's own): the
# output's lines from the first that matches on are the listing.
LISTINGS = {
    # the SDK's retry rules, from its own source
    ("notebooks/zh/06_in_production.ipynb", "sdk-rules"): re.compile(r"^--- \w+\.py"),
    # the course's Node script, the whole output
    ("notebooks/zh/bonus/05_node_sidebar.ipynb", "node-listing"): re.compile(r"^"),
}
# Lines a tool writes itself, not the course: IPython's answer to `%xmode Minimal`.
TOOL_LINES = re.compile(r"^Exception reporting mode: \w+$", re.MULTILINE)
# Other libraries' own messages, which the lessons show as they are said (and explain):
# what Python, json, jsonschema, pydantic, httpx and the SDK raise.
THEIRS = re.compile(
    "|".join(
        [
            r"'utf-8' codec can't decode bytes? in position [\d-]+: [\w ]+",  # codecs
            r"(?:Unterminated string starting at|Extra data|Expecting value|Expecting "
            r"property name enclosed in double quotes)(?:: line \d+ column \d+ \(char \d+\))?",
            r"EOF while parsing a value at line \d+ column \d+",  # jiter
            r"list index out of range",  # Python
            r"Failed to parse response as JSON\. Raw response:",  # google-genai
            r"Additional properties are not allowed \(.*? was unexpected\)",  # jsonschema
            r"is a required property",  # jsonschema
            r"Input should be a valid dictionary",  # pydantic, in the SDK
            r"peer closed connection without sending complete message body"
            r" \(incomplete chunked read\)",  # httpx (h11)
            r"Streaming is required for operations that may take longer than 10 minutes\."
            r" See \S+ for more details",  # the anthropic SDK
        ]
    )
)
# Python's constants, which a repr prints.
CONSTANTS = {"None", "True", "False"}
# The names of the APIs the course reads, as their makers write them.
PRODUCTS = {"Messages", "Chat", "Completions", "Responses", "Bedrock", "Gemini", "OpenAI"}


def code_shaped(word):
    """A word shaped like code: a joined name, a digit in it, or a capital after its start."""
    return (
        any(mark in word for mark in "_./-+=")
        or any(c.isdigit() for c in word)
        or any(c.isupper() for c in word[1:])
    )


def filler(word):
    """One letter, or one letter repeated: data made up to fill a line (`x`, `yyyyyyyy`)."""
    return len(set(word.lower())) == 1


# A unit after a number ("0.5 s", "4.4 ms", one or two small letters) is a word of the
# sentence, in Chinese 秒, 毫秒, whatever names the notebook uses.
AFTER_A_NUMBER = re.compile(r"\d ?$")


def stray_words(text, allowed):
    """The Latin-script words of `text` (an output) that are neither code-shaped, nor in
    `allowed` (a set of names and data words), nor filler, nor a piece of an allowed word
    cut at a quote or at the text's line ends; in the order they appear.

    >>> stray_words("my_client/lines.py saved", {"my_client"})
    ['saved']
    """
    text = ESCAPE.sub(" ", THEIRS.sub(" ", text))
    stray = []
    for found in WORD.finditer(text):
        word = found.group()
        before = text[found.start() - 1] if found.start() > 0 else "\n"
        after = text[found.end()] if found.end() < len(text) else "\n"
        if AFTER_A_NUMBER.search(text[: found.start()]) and re.fullmatch(r"[a-zµ]{1,2}", word):
            stray.append(word)  # a unit after a number ("0.5 s", "5 ms"): 秒, 毫秒 in Chinese
            continue
        if code_shaped(word) or word in allowed or filler(word) or after == "(":
            continue  # after == "(": a call or a repr, `Timeout(connect=5.0)`, `set()`
        if (after in QUOTES or after == "\n") and any(
            name.startswith(word) for name in allowed if len(name) > len(word)
        ):
            continue  # the start of a word cut off at the end of a piece
        if (before in QUOTES or before == "\n") and any(
            name.endswith(word) for name in allowed if len(name) > len(word)
        ):
            continue  # the rest of a word cut off at the start of a piece
        stray.append(word)
    return stray


def shown(output):
    """What a learner sees of one output, as text: a stream's text, an error's line, HTML
    without its tags and scripts, or the plain text when nothing richer (an image, a widget)
    is shown instead."""
    kind = output["output_type"]
    if kind == "stream":
        return output["text"]
    if kind == "error":
        return f"{output['ename']}: {output['evalue']}"
    data = output.get("data", {})
    if "text/html" in data:
        page = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", data["text/html"])
        return html.unescape(re.sub(r"<[^>]+>", " ", page))
    if any(key.startswith(("image/", "application/vnd.jupyter.widget")) for key in data):
        return ""
    return data.get("text/plain", "")


def code_names(source):
    """The identifiers of a code cell and its one-word string literals (a key, a name, a
    value); a literal of several words is prose or data a cell prints, checked as output."""
    lines = source.splitlines()
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)
    names = set()
    literal_kinds = (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING))
    try:
        for token in tokenize.generate_tokens(io.StringIO(code + "\n").readline):
            if token.type == tokenize.NAME:
                names.add(token.string)
            elif token.type in literal_kinds and data_literal(token):
                names.update(WORD.findall(ESCAPE.sub(" ", token.string)))
    except (tokenize.TokenError, SyntaxError):  # a cell of another language (%%bash...)
        names.update(WORD.findall(code))
    return names


def literal(token):
    """The text of a string literal's token, without its prefix and quotes."""
    found = re.fullmatch(r"[rbfuRBFU]*('''|\"\"\"|'|\")(.*)\1", token, re.DOTALL)
    return found.group(2) if found else token


def data_literal(token):
    """A string literal that is a name or data, not a sentence: one word, bytes, or text
    holding JSON's or SSE's marks ({, [, ", :, =, an escaped line end). An f-string's text
    and a plain sentence are what a cell prints: checked as output."""
    text = literal(token.string)
    prefix = re.match(r"[rbfuRBFU]*", token.string).group().lower()
    if token.type != tokenize.STRING or "f" in prefix:
        return not re.search(r"\s", text)
    return "b" in prefix or not re.search(r"\s", text) or bool(re.search(r'[{}\[\]":=]|\\n', text))


def markdown_code(source):
    """The words of a markdown cell's code spans and code blocks."""
    spans = re.findall(r"```.*?```|`[^`\n]+`", source, re.DOTALL)
    return {word for span in spans for word in WORD.findall(span)}


@cache
def library_names():
    """The names the library defines (functions, classes), its one-word string constants (a
    key or a value of its data: `"library"`, `"yours"`) and the words of its pages' markup
    (their own words come from the catalogue; what is left is markup and sample data)."""
    names = set()
    for path in (ROOT / "streaming_lib").rglob("templates/*.html"):
        names.update(WORD.findall(path.read_text(encoding="utf-8")))
    for path in (ROOT / "streaming_lib").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # The keys of the words' tables (`word("tries", ...)`) name an entry, never shown.
        keys = {
            id(node.args[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "word"
            and node.args
        }
        for node in ast.walk(tree):
            if id(node) in keys:
                continue
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and re.fullmatch(r"[A-Za-z_]\w*", node.value)
            ):
                names.add(node.value)
    return frozenset(names)


@cache
def data_words():
    """The words of the fixtures' streams (not their verdicts, which hold the library's
    sentences) and their names, of the tool definition the chat relay sends, and the
    glossary's terms that stay as on the wire."""
    from streaming_lib.chat.app import WRITE_FILE

    words = set(WORD.findall(repr(WRITE_FILE))) | CONSTANTS | PRODUCTS
    for path in (ROOT / "fixtures").rglob("*"):
        if path.is_file() and path.suffix in (".sse", ".ndjson", ".bin"):
            stream = path.read_text(encoding="utf-8", errors="replace")
            words.update(WORD.findall(ESCAPE.sub(" ", stream)))
            words.update(WORD.findall(path.stem))
        elif path.name.endswith(".expected.json"):  # the message the stream makes, whole
            message = json.loads(path.read_text(encoding="utf-8")).get("message")
            words.update(WORD.findall(ESCAPE.sub(" ", json.dumps(message, ensure_ascii=False))))
    glossary = yaml.safe_load((ROOT / "i18n" / "glossary.yml").read_text(encoding="utf-8"))
    words.update(word for term in glossary["terms"] for word in WORD.findall(term))
    return frozenset(words)


def allowed_in(notebook):
    """The names and data words a notebook's outputs may show."""
    allowed = set(library_names()) | set(data_words())
    for cell in notebook.cells:
        if cell.cell_type == "code":
            allowed |= code_names(cell.source)
        elif cell.cell_type == "markdown":
            allowed |= markdown_code(cell.source)
    return allowed


def stray_lines(path):
    """Each output line of the committed notebook at `path` with a stray word:
    (cell id, line, [words])."""
    notebook = read_committed(path)
    relative = path.relative_to(ROOT).as_posix()
    allowed = allowed_in(notebook)
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        listing = LISTINGS.get((relative, cell.get("id")))
        for output in cell.get("outputs", []):
            lines = TOOL_LINES.sub("", shown(output)).splitlines()
            starts = [n for n, line in enumerate(lines) if listing and listing.match(line)]
            for line in lines[: starts[0]] if starts else lines:
                words = stray_words(line, allowed)
                if words:
                    found.append((cell.get("id"), line.strip()[:160], words))
    return found


# ---- The rule itself ---------------------------------------------------------------------------


def test_an_english_sentence_is_caught_word_by_word_and_code_names_are_not():
    allowed = {"my_client", "content", "error"}
    assert stray_words("gave up after 3 tries", allowed) == ["gave", "up", "after", "tries"]
    assert stray_words("my_client/client.py saved", allowed) == ["saved"]
    assert stray_words("HTTP 429 asked for by the request", allowed) == [
        "asked",
        "for",
        "by",
        "the",
        "request",
    ]
    # Code names pass by their shape; names the notebook or the library uses pass by name.
    code = "content_block_delta x-api-key my_client/lines.py APIStreamError 5xx error content"
    assert stray_words(code, allowed) == []
    assert stray_words("第 1 块：content", allowed) == []
    # A unit after a number is a word of the sentence, whatever its length.
    assert stray_words("等了 0.5 s，最多 8.0 s；4.4 ms", allowed) == ["s", "s", "ms"]
    assert stray_words("Timeout(connect=5.0) set()", allowed) == []


def test_a_piece_of_a_word_cut_at_a_quote_passes_only_as_a_piece_of_an_allowed_word():
    allowed = {"content", "city", "calc", "path"}
    assert stray_words("""'{"path": "ca', 'lc.py", "con'""", allowed) == []
    assert stray_words("'ty\": 1'", allowed) == []  # the end of "city"
    assert stray_words("'ty\": 1'", {"content"}) == ["ty"]
    assert stray_words("tries left", allowed) == ["tries", "left"]  # not at a quote


def test_another_librarys_message_is_left_out_but_not_the_words_around_it():
    line = "JSONDecodeError: Unterminated string starting at: line 1 column 10 (char 9) saved"
    assert stray_words(line, set()) == ["saved"]
    said = "连接: peer closed connection without sending complete message body"
    said += " (incomplete chunked read)"
    assert stray_words(said, set()) == []


def test_a_source_listing_and_a_line_ipython_writes_are_the_only_outputs_left_out():
    assert all((ROOT / path).exists() for path, _ in LISTINGS)
    assert TOOL_LINES.sub("", "Exception reporting mode: Minimal\nsaved").split() == ["saved"]


# ---- The Chinese edition -----------------------------------------------------------------------


# Lines the Chinese solutions still print in English, translated in their own files
# (i18n/zh/solutions/): strict, so the mark must go as soon as they are Chinese.
NOT_YET: dict[str, str] = {}  # notebook -> why its outputs still hold English (none now)


def chinese_notebooks():
    for path in CHINESE:
        name = path.relative_to(ROOT).as_posix()
        marks = [pytest.mark.xfail(strict=True, reason=NOT_YET[name])] if name in NOT_YET else []
        yield pytest.param(path, id=name, marks=marks)


@pytest.mark.parametrize("path", list(chinese_notebooks()))
def test_every_latin_word_in_a_chinese_notebooks_outputs_is_a_code_name_or_data(path):
    stray = stray_lines(path)
    assert not stray, "English in the outputs:\n" + "\n".join(
        f"  cell {cell}: {words} in {line!r}" for cell, line, words in stray
    )
