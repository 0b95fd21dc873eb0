"""Command line: `python -m streaming_lib COMMAND`.

trace [FILE|NAME] [--chunk-size N] [--sdk] [--lang zh]
                                        one row per event of a stream: an .sse file or a
                                        fixture's name (tools/trace.py); --lang zh: column
                                        headers and messages in Chinese
serve [--fixture F] [--port P] [--pace SECONDS]
                                        replay a stream as a local Messages API (lab/server.py)
record --out FILE [--model M]           save a real API stream (needs ANTHROPIC_API_KEY;
                                        lab/record.py)
progress [NN ...] [--dir DIR] [--lang zh] [--json]
                                        run the exercises' checks; one row per exercise
                                        (tools/progress.py); --lang zh: exercises/zh/, in Chinese;
                                        --json: the same as one JSON object
chat [--port P] [--fixture F] [--pace SECONDS] [--host H] [--lang zh]
                                        the chat page and its relay, on 127.0.0.1 (chat/);
                                        --lang zh: the page in Chinese
my-client [--dir DIR] [--reference] [--summary] [--lang zh] [--json]
                                        your own client (my_client/) stage by stage on every
                                        fixture at chunk sizes 1, 7 and whole, against the
                                        library and the SDK (tools/my_client/chain.py); exit 1
                                        below all, with --summary too; --json: the report as
                                        one JSON object
my-client --live [--dir DIR] [--reference] [--summary] [--base-url URL] [--json]
                                        your client.py over a socket, against the replay
                                        server's faults, the SDK beside it
                                        (tools/my_client/live.py); --base-url URL: one real
                                        request with your client (key: ANTHROPIC_API_KEY)
class-link --hub URL [--repo URL] [--branch B] [--lesson NN] [--folder NAME] [--lang zh]
                                        the nbgitpuller link that pulls the course into each
                                        learner's home on a JupyterHub (tools/classroom.py)
class-report HOMES_DIR [--out DIR] [--lang zh] [--timeout SECONDS]
                                        one row per learner's home: lessons done, exercises
                                        passing, my-client N of M, first failing stage; CSV
                                        and HTML (tools/class_report.py)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

from .lab.api import DEFAULT_MODEL
from .language import _, current_language, languages, use_language
from .tools.fixtures import MAIN_FIXTURE, stream_path


def port_number(text: str) -> int:
    """A TCP port (int, 0 to 65535; 0: any free one) for `--port`; a usage error otherwise."""
    if not (text.isascii() and text.isdigit() and int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give a number from 0 to 65535")
    return int(text)


class CommandsFormatter(argparse.HelpFormatter):
    """argparse's formatter, with the commands' help column placed after the longest
    command name (argparse measures the names without their indent, so a command
    longer than the others had its help pushed onto the next line)."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            longest = max(map(len, action.choices)) + self._current_indent
            indented = longest + 2 * self._indent_increment
            self._action_max_length = max(self._action_max_length, indented)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m streaming_lib",
        formatter_class=CommandsFormatter,
        description="Tools of the streaming course.",
        epilog="`python -m streaming_lib COMMAND --help` tells a command's options.",
    )
    # One line per command in --help: each help fits beside its name in 80 columns.
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", title="commands"
    )

    trace = commands.add_parser("trace", help="decode a stream, print one row per event")
    trace.add_argument(
        "file",
        nargs="?",
        default=MAIN_FIXTURE,
        metavar="FILE|NAME",
        help="an .sse file, or a fixture's name such as truncated (default: the course fixture)",
    )
    trace.add_argument(
        "--chunk-size", type=int, default=None, metavar="N", help="feed the bytes N at a time"
    )
    trace.add_argument(
        "--sdk", action="store_true", help="check the result against the real anthropic SDK"
    )
    trace.add_argument(
        "--lang",
        choices=languages(),
        default=None,
        help="the language of the column headers and messages (default: en, or "
        "$STREAMING_LIB_LANG); event names stay as on the wire",
    )

    # serve and record: an option left out is not passed on, so its default is
    # the one in lab/server.py / lab/record.py (imported only when the command runs).
    serve = commands.add_parser("serve", help="replay a stream as a Messages API on 127.0.0.1")
    serve.add_argument(
        "--fixture",
        default="fixture",
        metavar="F",
        help="a fixture name or an .sse file (default: fixture)",
    )
    serve.add_argument(
        "--port",
        type=port_number,
        default=argparse.SUPPRESS,
        metavar="P",
        help="the port (default: 8765)",
    )
    serve.add_argument(
        "--pace",
        type=float,
        default=argparse.SUPPRESS,
        metavar="SECONDS",
        help="seconds between events (default: 0.02)",
    )

    record = commands.add_parser(
        "record", help="save one real API stream's bytes (needs ANTHROPIC_API_KEY)"
    )
    record.add_argument(
        "--out", type=Path, required=True, metavar="FILE", help="where to write the stream's bytes"
    )
    record.add_argument(
        "--model", default=argparse.SUPPRESS, help=f"the model (default: {DEFAULT_MODEL})"
    )
    record.add_argument(
        "--prompt", default=argparse.SUPPRESS, help="the user message (default: a short question)"
    )

    progress = commands.add_parser("progress", help="run the exercises' checks: how far you are")
    progress.add_argument(
        "names",
        nargs="*",
        metavar="NN",
        help="only these exercises (03 or 03_partial_json; default: all)",
    )
    progress.add_argument(
        "--dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the exercises' folder (default: exercises/, or exercises/zh/ with --lang zh)",
    )
    progress.add_argument(
        "--lang",
        choices=languages(),
        default=None,
        help="the edition: zh runs the Chinese exercises (exercises/zh/) and prints the table "
        "in Chinese (default: en, or zh when --dir is a folder named zh)",
    )
    progress.add_argument(
        "--json",
        action="store_true",
        help="print the results as one JSON object (for class-report and scripts)",
    )

    chat = commands.add_parser("chat", help="serve the chat page and its relay on 127.0.0.1")
    chat.add_argument(
        "--port",
        type=port_number,
        default=argparse.SUPPRESS,
        metavar="P",
        help="the port (default: 8010)",
    )
    chat.add_argument(
        "--fixture",
        default="fixture",
        metavar="F",
        help="the replay server's fixture (default: fixture)",
    )
    chat.add_argument(
        "--pace",
        type=float,
        default=argparse.SUPPRESS,
        metavar="SECONDS",
        help="seconds between events (default: 0.02)",
    )
    chat.add_argument(
        "--host",
        default=argparse.SUPPRESS,
        metavar="H",
        help="the address to listen on (default: 127.0.0.1)",
    )
    chat.add_argument(
        "--lang",
        choices=languages(),
        default=None,
        help="the page's language (default: en, or $STREAMING_LIB_LANG); ?lang=zh on the "
        "page's URL chooses too",
    )
    add_my_client(commands)
    add_classroom(commands)
    return parser


def add_classroom(commands: argparse._SubParsersAction) -> None:
    link = commands.add_parser(
        "class-link", help="the nbgitpuller link: the course into every home on a hub"
    )
    link.add_argument(
        "--hub",
        required=True,
        metavar="URL",
        help="the JupyterHub's address, e.g. https://hub.example.edu",
    )
    link.add_argument(
        "--repo",
        default=None,
        metavar="URL",
        help="the course's git repository (default: this clone's origin remote)",
    )
    link.add_argument(
        "--branch",
        default=None,
        metavar="B",
        help="the branch to pull (default: the repository's default branch)",
    )
    link.add_argument(
        "--lesson", default="00", metavar="NN", help="the lesson to open (default: 00)"
    )
    link.add_argument(
        "--folder",
        default="streaming-course",
        metavar="NAME",
        help="the course's folder in each home, the hub configuration's COURSE_FOLDER "
        "(default: streaming-course)",
    )
    link.add_argument(
        "--lang",
        choices=languages(),
        default=None,
        help="the edition whose lesson opens (default: en)",
    )
    report = commands.add_parser(
        "class-report", help="one row per learner's home: how far each is (CSV and HTML)"
    )
    report.add_argument(
        "homes", type=Path, metavar="HOMES_DIR", help="a folder with one folder per learner"
    )
    report.add_argument(
        "--out",
        type=Path,
        default=Path("class-report"),
        metavar="DIR",
        help="where to write class-report.csv and class-report.html (default: class-report/)",
    )
    report.add_argument(
        "--lang",
        choices=languages(),
        default=None,
        help="the language of the table (default: en, or $STREAMING_LIB_LANG)",
    )
    report.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="the time limit of one learner's checks (default: 600)",
    )
    report.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="learners checked at a time (default: half the CPUs)",
    )


def add_my_client(commands: argparse._SubParsersAction) -> None:
    my_client = commands.add_parser(
        "my-client", help="your own client (my_client/) on every fixture, vs the SDK"
    )
    my_client.add_argument(
        "--dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="your client's folder (default: my_client/ at the repository's root)",
    )
    my_client.add_argument(
        "--reference",
        action="store_true",
        help="run the course's reference answers through the same path instead",
    )
    my_client.add_argument(
        "--lang",
        choices=languages(),
        default=None,
        help="the language of the report (default: en, or $STREAMING_LIB_LANG)",
    )
    my_client.add_argument(
        "--summary",
        action="store_true",
        help="print only the line 'N of M fixtures pass ...' (and what to do next)",
    )
    my_client.add_argument(
        "--live",
        action="store_true",
        help="run your client.py over a socket against the replay server's faults, vs the SDK",
    )
    my_client.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="with --live: send one real request with your client.py to URL "
        "(the key from ANTHROPIC_API_KEY), e.g. https://api.anthropic.com",
    )
    my_client.add_argument(
        "--json",
        action="store_true",
        help="print the report as one JSON object (for class-report and scripts); "
        "the exit status is as without it",
    )


def run_my_client(args: argparse.Namespace) -> int:
    if args.dir is not None and os.path.lexists(args.dir) and not args.dir.is_dir():
        refuse("my-client", _("{path} is not a folder", path=str(args.dir)))  # before the SDKs load
    from .tools.my_client import ensure
    from .tools.my_client.chain import run

    where = None
    if args.dir is not None and not args.reference:
        try:
            where = ensure(args.dir)
        except OSError as error:
            why = error.strerror or type(error).__name__
            refuse("my-client", _("cannot make {path}: {why}", path=str(args.dir), why=why))
    if args.live or args.base_url:
        from .tools.my_client import live

        if args.base_url:
            if args.json:
                refuse("my-client", _("--json does not go with --base-url"))
            return live.one_request(args.base_url, where, reference=args.reference)
        if args.json:
            return live.run_json(where, reference=args.reference)
        return live.run(where, reference=args.reference, summary_only=args.summary)
    if args.json:
        from .tools.my_client.chain import run_json

        return run_json(where, reference=args.reference)
    return run(where, reference=args.reference, summary_only=args.summary)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # --lang covers the library's own messages too (errors, verdicts), for this command only:
    # a caller in the same process (a notebook, a test) keeps its language afterwards.
    with use_language(getattr(args, "lang", None) or current_language()):
        return run_command(args)


def refuse(command: str, message: object) -> NoReturn:
    """Say why `command` cannot run, on one line of stderr, and exit with status 2 (as
    argparse does for a usage error, without repeating the usage)."""
    print(f"python -m streaming_lib {command}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def run_command(args: argparse.Namespace) -> int:
    """Run the command `args` names (parsed by `build_parser`); its exit status."""
    if args.command == "trace":
        from .tools.files import FileRefused
        from .tools.trace import run

        if args.chunk_size is not None and args.chunk_size < 1:
            build_parser().error("--chunk-size must be at least 1")
        try:
            path = stream_path(args.file)
        except ValueError as error:
            refuse("trace", error)
        lang = current_language()
        try:
            return run(path, chunk_size=args.chunk_size, with_sdk=args.sdk, lang=lang)
        except FileRefused as error:
            refuse("trace", error)
    if args.command == "serve":
        from .lab.server import seconds, serve

        try:
            seconds(getattr(args, "pace", 0))
        except ValueError as error:
            build_parser().error(f"--pace {args.pace}: {error}")
        given = {name: getattr(args, name) for name in ("port", "pace") if hasattr(args, name)}
        return serve(args.fixture, **given)
    if args.command == "record":
        from .lab.record import run as run_record

        given = {name: getattr(args, name) for name in ("model", "prompt") if hasattr(args, name)}
        return run_record(args.out, **given)
    if args.command == "chat":
        from .chat import serve as serve_chat
        from .lab.server import seconds

        try:
            seconds(getattr(args, "pace", 0))
        except ValueError as error:
            build_parser().error(f"--pace {args.pace}: {error}")
        given = {
            name: getattr(args, name) for name in ("port", "pace", "host") if hasattr(args, name)
        }
        return serve_chat(args.fixture, **given)
    if args.command == "progress":
        # A --dir that is not a folder is refused before nbclient loads (seconds on a busy machine).
        if args.dir is not None and os.path.lexists(args.dir) and not args.dir.is_dir():
            refuse("progress", _("{path} is not a folder", path=str(args.dir)))
        if args.dir is not None and not args.dir.is_dir():
            refuse(
                "progress", f"no such folder: {args.dir} (pass the exercises' folder with --dir)"
            )
        from .tools.progress import EXERCISES_DIR, table
        from .tools.progress import run as run_progress

        # The repository's exercises (an editable install), else those of the current folder;
        # the Chinese edition's are in their zh/ folder.
        lang = args.lang or ("zh" if args.dir is not None and args.dir.name == "zh" else "en")
        folder = args.dir or (EXERCISES_DIR if EXERCISES_DIR.is_dir() else Path("exercises"))
        if args.dir is None and lang == "zh":
            folder = folder / "zh"
        if not folder.is_dir():
            refuse("progress", f"no such folder: {folder} (pass the exercises' folder with --dir)")
        try:
            results = run_progress(folder, args.names, lang)
        except ValueError as error:
            refuse("progress", error)
        if args.json:
            from .tools.progress import as_json

            print(as_json(results))
        else:
            print(table(results, lang))
        return 0
    if args.command == "my-client":
        return run_my_client(args)
    if args.command == "class-link":
        from .tools.classroom import BadLink, NoOrigin, class_link

        try:
            link = class_link(
                args.hub, args.repo, args.branch, args.lesson, args.lang or "en", folder=args.folder
            )
            print(link)
        except (BadLink, NoOrigin) as error:
            refuse("class-link", error)
        return 0
    if args.command == "class-report":
        from .tools import class_report

        if args.timeout is not None and args.timeout <= 0:
            build_parser().error("--timeout must be more than 0")
        if args.jobs is not None and args.jobs < 1:
            build_parser().error("--jobs must be at least 1")
        try:
            rows = class_report.run(
                args.homes,
                args.out,
                lang=current_language(),
                timeout=args.timeout or class_report.TIMEOUT,
                jobs=args.jobs,
            )
        except class_report.NotHomes as error:
            refuse("class-report", error)
        for name in (class_report.CSV_NAME, class_report.HTML_NAME):
            print(args.out / name)
        print(_("{count} learners", count=len(rows)))
        return 0
    return 2


def run_main() -> int:
    """`main()`, quiet when its reader goes away (`... | head`): no traceback, status 141
    as a shell gives a command killed by SIGPIPE; on Ctrl-C, one line and status 130."""
    try:
        status = main()
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except KeyboardInterrupt:  # Ctrl-C: one line, and the status a shell gives SIGINT
        print(_("interrupted (Ctrl-C)"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Python flushes stdout again at exit; point it at /dev/null so that cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(run_main())
