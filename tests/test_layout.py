"""Every module path that ever existed still works: a moved module keeps its old name.

The lab moved to `streaming_lib.lab`, the tools to `streaming_lib.tools`; code
outside the project still imports, monkeypatches and runs (`python -m`) the old
paths, and must reach the very same module, not a second copy of it.
"""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import streaming_lib

REPO = Path(__file__).resolve().parent.parent
MOVED = {
    "streaming_lib.server": "streaming_lib.lab.server",
    "streaming_lib.network": "streaming_lib.lab.network",
    "streaming_lib.proxy_lab": "streaming_lib.lab.proxy_lab",
    "streaming_lib.record": "streaming_lib.lab.record",
    "streaming_lib.trace": "streaming_lib.tools.trace",
    "streaming_lib.fixtures": "streaming_lib.tools.fixtures",
    "streaming_lib.sdk": "streaming_lib.tools.sdk",
    "streaming_lib.stepper": "streaming_lib.tools.stepper",
    "streaming_lib.stepper.frames": "streaming_lib.tools.stepper.frames",
    "streaming_lib.stepper.html": "streaming_lib.tools.stepper.html",
    "streaming_lib.stepper.widget": "streaming_lib.tools.stepper.widget",
}
PIPELINE = ["lines", "sse", "events", "accumulator", "partial_json", "tool_calls", "errors"]


@pytest.mark.parametrize(("old", "new"), MOVED.items(), ids=MOVED)
def test_an_old_module_path_is_the_same_module_as_the_new_one(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)


def test_a_moved_module_is_loaded_once_whichever_path_comes_first():
    # A fresh interpreter: the old paths first, so no alias can lean on an earlier import.
    code = (
        "import sys\n"
        "from streaming_lib.stepper.html import render_panels\n"
        "from streaming_lib.server import ReplayServer\n"
        "import streaming_lib.tools.stepper.html as html, streaming_lib.lab.server as server\n"
        "assert render_panels is html.render_panels and ReplayServer is server.ReplayServer\n"
        "# each module object once\n"
        "modules = {id(m): m for m in list(sys.modules.values())}.values()\n"
        "files = [m.__file__ for m in modules if getattr(m, '__file__', None)]\n"
        "assert len(files) == len(set(files)), 'a module was loaded twice'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


def test_python_dash_m_runs_a_moved_module_by_its_old_and_its_new_path():
    for name in ("streaming_lib.sdk", "streaming_lib.tools.sdk"):
        done = subprocess.run(
            [sys.executable, "-m", name, "--help"], cwd=REPO, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert "regenerate" in done.stdout


@pytest.mark.parametrize("name", PIPELINE)
def test_the_pipeline_modules_sit_at_the_top_of_the_package(name):
    assert (Path(streaming_lib.__file__).parent / f"{name}.py").is_file()


def test_importing_the_pipeline_loads_neither_the_lab_nor_the_tools():
    code = (
        "import sys, streaming_lib\n"
        "heavy = ('streaming_lib.lab', 'streaming_lib.tools', 'uvicorn', 'starlette')\n"
        "loaded = [m for m in sys.modules if m.startswith(heavy)]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
