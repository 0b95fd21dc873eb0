"""Command line: `python -m streaming_lib COMMAND`.

    trace [FILE] [--chunk-size N] [--sdk]   one row per event of a stream
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .fixtures import MAIN_FIXTURE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m streaming_lib", description="Tools of the streaming course.")
    commands = parser.add_subparsers(dest="command", required=True)

    trace = commands.add_parser("trace", help="decode a stream and print one row per event")
    trace.add_argument("file", nargs="?", type=Path, default=MAIN_FIXTURE, help="an .sse file (default: the course fixture)")
    trace.add_argument("--chunk-size", type=int, default=None, metavar="N", help="feed the bytes N at a time")
    trace.add_argument("--sdk", action="store_true", help="check the result against the real anthropic SDK")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "trace":
        from .trace import run

        if args.chunk_size is not None and args.chunk_size < 1:
            build_parser().error("--chunk-size must be at least 1")
        return run(args.file, chunk_size=args.chunk_size, with_sdk=args.sdk)
    return 2


if __name__ == "__main__":
    sys.exit(main())
