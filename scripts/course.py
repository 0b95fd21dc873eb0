"""The README's two commands without `make` (Windows, or any machine without it).

    python scripts/course.py lab        # set up .venv on first use, then open the course
    python scripts/course.py lab --zh   # the same, opening the Chinese edition (中文版)
    python scripts/course.py test       # set up .venv on first use, then run every test
    python scripts/course.py settings   # write JupyterLab's settings for this environment

It does what the Makefile does, with the standard library only: a virtual
environment in `.venv/` with the exact versions of `constraints.txt`, then
JupyterLab or pytest from it. `settings` is run by the set-up (and by Binder's
postBuild): it turns off JupyterLab's news and update pop-ups, which would cover
the first notebook, for the environment that runs it (its `overrides.json`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
FIRST_NOTEBOOK = "notebooks/00_start_here.ipynb"
FIRST_NOTEBOOK_ZH = "notebooks/zh/00_start_here.ipynb"  # the Chinese edition's (`lab --zh`)
# JupyterLab reads overrides.json from <environment>/share/jupyter/lab/settings.
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    }
}


def venv_python() -> Path:
    """The interpreter of .venv: bin/python, or Scripts\\python.exe on Windows."""
    scripts = "Scripts" if os.name == "nt" else "bin"
    return VENV / scripts / ("python.exe" if os.name == "nt" else "python")


def run(*command: str | Path) -> None:
    """Run a command from the repository root; stop with its exit status if it fails."""
    status = subprocess.call([str(part) for part in command], cwd=ROOT)
    if status != 0:
        sys.exit(status)


def setup() -> Path:
    """Create .venv and install the course into it, once (as `make` does); its python."""
    python = venv_python()
    marker = VENV / ".installed"
    inputs = [ROOT / "pyproject.toml", ROOT / "constraints.txt"]
    if marker.exists() and all(marker.stat().st_mtime >= p.stat().st_mtime for p in inputs):
        return python
    print("Setting up .venv: JupyterLab, the anthropic, openai, google-genai and Bedrock SDKs")
    print("and about 145 other packages,")
    print("at the versions in constraints.txt. Once only; a few minutes.", flush=True)
    venv.create(VENV, with_pip=True)
    run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    extras = ".[dev,providers]"  # providers: the other wires' SDKs (the bonus lesson's referees)
    run(python, "-m", "pip", "install", "--quiet", "-c", "constraints.txt", "-e", extras)
    run(python, "scripts/course.py", "settings")
    marker.touch()
    return python


def write_settings(prefix: Path) -> Path:
    """Write JupyterLab's overrides.json under the environment `prefix`; its path."""
    path = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    current.update(LAB_OVERRIDES)  # keep whatever else is set there
    path.write_text(json.dumps(current, indent=2) + "\n", encoding="utf-8")
    return path


def lab_command(python: Path, first: str = FIRST_NOTEBOOK) -> list[str]:
    """JupyterLab serving the whole repository, opening `first` (root may run it)."""
    command = [str(python), "-m", "jupyterlab", "--ServerApp.root_dir=."]
    command.append(f"--LabApp.default_url=/lab/tree/{first}")
    if hasattr(os, "getuid") and os.getuid() == 0:  # as in a container
        command.append("--allow-root")
    return command


def test_commands(python: Path) -> list[list[str]]:
    """The README's test command: the tests, then every stored notebook output compared."""
    return [
        [str(python), "-m", "pytest", "tests"],
        [
            str(python),
            "-m",
            "pytest",
            "--nbval",
            "notebooks",
            "solutions",
            "--nbval-sanitize-with",
            "notebooks/sanitize.cfg",
        ],
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["lab", "test", "settings"])
    parser.add_argument(
        "--zh", action="store_true", help="lab: open the Chinese edition (notebooks/zh/)"
    )
    args = parser.parse_args(argv)
    if args.command == "settings":
        print(f"wrote {write_settings(Path(sys.prefix)).relative_to(sys.prefix)}")
        return
    python = setup()
    if args.command == "lab":
        run(*lab_command(python, FIRST_NOTEBOOK_ZH if args.zh else FIRST_NOTEBOOK))
    else:
        for command in test_commands(python):
            run(*command)


if __name__ == "__main__":
    main()
