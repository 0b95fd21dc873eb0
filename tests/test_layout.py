"""One path per module: the pipeline at the top, the lab and the tools below it, no aliases.

Every module has the one name its file gives it; no module stands in for another
(no `sys.modules` alias). Every import a notebook, an exercise, a solution or a
document shows resolves, and so does every `streaming_lib.…` name they mention.
"""

import argparse
import ast
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import streaming_lib

REPO = Path(__file__).resolve().parent.parent
PACKAGE = Path(streaming_lib.__file__).parent
PIPELINE = ["lines", "sse", "events", "accumulator", "partial_json", "tool_calls", "errors"]
# The top of the package: the pipeline, its async face and speed paths, the command line.
TOP_MODULES = {
    *PIPELINE,
    "__init__",
    "__main__",
    "aio",
    "language",  # the language the words of errors and verdicts are shown in (locale/)
    "fast",
    "partial_json_strings",
}
SUBPACKAGES = {"chat", "lab", "providers", "tools"}

# What a learner or a reader sees: notebooks (both editions), exercises, solutions, docs.
NOTEBOOKS = sorted(
    path
    for folder in ("notebooks", "solutions", "exercises")
    for path in (REPO / folder).rglob("*.ipynb")
    if ".ipynb_checkpoints" not in path.parts
)
DOCS = sorted(
    [
        *REPO.glob("*.md"),
        *(REPO / "teaching").rglob("*.md"),
        *(REPO / "fixtures").glob("*.md"),
        *(REPO / "benchmarks").glob("*.md"),
        *(REPO / "i18n").rglob("*.yml"),
    ]
)
# A name, not a file in a path (streaming_lib/locale/zh/LC_MESSAGES/streaming_lib.po).
MENTION = re.compile(r"(?<![/\w])streaming_lib(?:\.[A-Za-z_][A-Za-z_0-9]*)+")


def package_sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def code_of(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def imports_in(code: str) -> list[tuple[str, str | None]]:
    """Each (module, name) a piece of Python imports from streaming_lib (name None for
    `import module`); IPython's magics and shell lines are left out."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:  # an exercise's blank to fill in: read its import lines alone
        tree = ast.parse(
            "\n".join(line for line in lines if re.match(r"(from|import) streaming_lib", line))
        )
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.module, alias.name) for alias in node.names]
    return [(module, name) for module, name in found if module.split(".")[0] == "streaming_lib"]


def resolves(dotted: str) -> bool:
    """Whether `dotted` ("streaming_lib.tools.sdk.compare_messages") names a module, or
    an attribute of the longest module it starts with."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        if not can_find_spec(module_name):
            continue
        value: object = importlib.import_module(module_name)
        for attribute in parts[cut:]:
            if not hasattr(value, attribute):
                return False
            value = getattr(value, attribute)
        return True
    return False


def can_find_spec(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent that is not a package
        return False


def test_the_top_of_the_package_holds_only_the_pipeline_and_its_four_subpackages():
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    folders = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert modules == TOP_MODULES
    assert folders == SUBPACKAGES


@pytest.mark.parametrize("name", PIPELINE)
def test_the_pipeline_modules_sit_at_the_top_of_the_package(name):
    assert (PACKAGE / f"{name}.py").is_file()


@pytest.mark.parametrize(
    "old",
    [
        "server",
        "network",
        "proxy_lab",
        "record",
        "sdk",
        "trace",
        "fixtures",
        "stepper",
    ],
)
def test_a_moved_module_has_no_second_path_at_the_top(old):
    assert not can_find_spec(f"streaming_lib.{old}")
    assert not hasattr(importlib.import_module("streaming_lib"), old)


@pytest.mark.parametrize(
    "source", package_sources(), ids=lambda path: str(path.relative_to(PACKAGE))
)
def test_no_module_of_the_package_stands_in_for_another(source):
    tree = ast.parse(source.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            assert ast.unparse(node.value) != "sys.modules", f"{source}:{node.lineno}"


def test_the_package_exports_only_the_pipeline():
    for name in streaming_lib.__all__:
        home = getattr(streaming_lib, name).__module__
        assert home.split(".")[1] in TOP_MODULES, (name, home)


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: str(path.relative_to(REPO)))
def test_every_import_of_a_notebook_resolves(notebook):
    for code in code_of(notebook):
        for module, name in imports_in(code):
            assert can_find_spec(module), f"{notebook.name}: no module {module}"
            if name is not None:
                assert resolves(f"{module}.{name}"), f"{notebook.name}: {module} has no {name}"


@pytest.mark.parametrize(
    "document", [*DOCS, *NOTEBOOKS], ids=lambda path: str(path.relative_to(REPO))
)
def test_every_streaming_lib_name_a_document_mentions_resolves(document):
    text = document.read_text(encoding="utf-8")
    unknown = sorted({name for name in MENTION.findall(text) if not resolves(name)})
    assert not unknown, f"{document.relative_to(REPO)} mentions {unknown}"


def test_importing_the_pipeline_loads_neither_the_lab_nor_the_tools():
    code = (
        "import sys, streaming_lib\n"
        "heavy = ('streaming_lib.lab', 'streaming_lib.tools', 'uvicorn', 'starlette')\n"
        "loaded = [m for m in sys.modules if m.startswith(heavy)]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


def test_the_command_line_help_lists_every_command_on_one_line_each():
    from streaming_lib.__main__ import build_parser

    (commands,) = [
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    names = list(commands.choices)
    done = subprocess.run(
        [sys.executable, "-m", "streaming_lib", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in names:
        (line,) = [line for line in lines if line.split()[:1] == [name]]
        at = lines.index(line)
        assert len(line.split()) > 2, f"{name} has no help on its line"
        follower = lines[at + 1] if at + 1 < len(lines) else ""
        assert follower.split()[:1] in ([], *([other] for other in names)), follower


def test_the_wires_import_only_the_pipeline_and_the_errors():
    # The providers' referee and fixtures are front-end tools (tools/provider_sdk.py,
    # tools/provider_fixtures.py), beside the Messages API's; the wires lean on nothing above them.
    allowed = {*PIPELINE, "language"}  # language: the words of the errors
    for source in sorted((PACKAGE / "providers").glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                assert node.module in allowed, f"{source.name} imports ..{node.module}"
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                assert not (node.module or "").startswith("streaming_lib"), source.name
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("streaming_lib") for a in node.names), source.name


@pytest.mark.parametrize("old", ["sdk", "fixtures"])
def test_the_providers_referee_and_fixtures_have_one_path_with_the_tools(old):
    assert not can_find_spec(f"streaming_lib.providers.{old}")
    assert can_find_spec(f"streaming_lib.tools.provider_{old}")
