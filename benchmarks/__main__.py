"""`python -m benchmarks`: run the benchmarks, print the table, write results and plots."""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

from . import decode, frontends, overhead, pipeline, preview
from .plots import plot_decode, plot_preview
from .report import targets, text
from .streams import KiB, MiB

RESULTS_DIR = Path(__file__).parent / "results"
NAMES = ("preview", "pipeline", "decode", "frontends", "overhead")


@dataclass
class Settings:
    """Sizes and repetitions of one run."""

    preview_sizes: list[int] = field(default_factory=lambda: [16 * KiB, 64 * KiB, 256 * KiB, MiB])
    pipeline_size: int = MiB
    decode_size: int = 5 * MiB
    chunk_sizes: list[int] = field(default_factory=lambda: list(decode.CHUNK_SIZES))
    frontend_sizes: list[int] = field(default_factory=lambda: [64 * KiB, 256 * KiB, MiB])
    overhead_sizes: list[int] = field(default_factory=lambda: [64 * KiB, 256 * KiB, MiB])
    overhead_repeats: int = 15  # runs of 2 to 500 ms: many, so that the best escapes the load
    shape_size: int = 64 * KiB  # the tool input of benchmark 7's snapshot shapes
    repeats: int = 5  # runs per contender; the best one counts
    repeats_1_byte: int = 2  # 1-byte chunks are slow: fewer runs
    sdk_budget: float = 240.0  # seconds: a slower SDK run is extrapolated instead


FULL = Settings()
QUICK = Settings(
    pipeline_size=256 * KiB,
    decode_size=MiB,
    frontend_sizes=[16 * KiB, 64 * KiB, 256 * KiB],
    overhead_sizes=[16 * KiB, 64 * KiB, 256 * KiB],
    overhead_repeats=5,
    shape_size=16 * KiB,
    repeats=2,
    repeats_1_byte=1,
    sdk_budget=2.0,
)


def machine() -> dict[str, Any]:
    """What the numbers were measured on (no host names, no paths)."""
    return {
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "system": f"{platform.system()} {platform.machine()}",
        "anthropic": version("anthropic"),
        "jiter": version("jiter"),
        "httpx_sse": version("httpx-sse"),
        "httpx2": version("httpx2"),  # the SDK's HTTP client
    }


def _rounded(value: Any) -> Any:
    """Floats to 4 significant digits, so results.json diffs stay readable."""
    if isinstance(value, float):
        return float(f"{value:.4g}")
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value


def run(settings: Settings, names: tuple[str, ...] = NAMES, log: Any = print) -> dict[str, Any]:
    """Run the chosen benchmarks; return the results (dict, as written to results.json)."""
    started = time.perf_counter()
    # Everything alive now (modules, the SDK's classes) is left out of garbage
    # collection: the collections between and during runs then only walk what
    # the runs themselves create, the same for every contender.
    gc.freeze()
    try:
        return _run(settings, names, log, started)
    finally:
        gc.unfreeze()


def _run(settings: Settings, names: tuple[str, ...], log: Any, started: float) -> dict[str, Any]:
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "load_average_at_start": [round(load, 2) for load in os.getloadavg()],
        "settings": asdict(settings),
    }
    if "preview" in names:
        results["preview"] = preview.run(
            settings.preview_sizes,
            repeats=settings.repeats,
            sdk_budget=settings.sdk_budget,
            log=log,
        )
    if "pipeline" in names:
        results["pipeline"] = pipeline.run(
            settings.pipeline_size, repeats=settings.repeats, log=log
        )
    if "decode" in names:
        results["decode"] = decode.run(
            settings.decode_size,
            settings.chunk_sizes,
            repeats=settings.repeats,
            repeats_1_byte=settings.repeats_1_byte,
            log=log,
        )
    if "frontends" in names:
        results["frontends"] = frontends.run(
            settings.frontend_sizes, repeats=min(settings.repeats, 3), log=log
        )
    if "overhead" in names:
        results["overhead"] = overhead.run(
            settings.overhead_sizes, repeats=settings.overhead_repeats, log=log
        )
        results["overhead"]["shapes"] = overhead.run_shapes(
            settings.shape_size, repeats=settings.overhead_repeats, log=log
        )
    results["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    results["elapsed_s"] = time.perf_counter() - started
    results["targets"] = targets(results)
    return _rounded(results)


def write(results: dict[str, Any], directory: Path) -> list[Path]:
    """Write results.json and the plots present in `results` to `directory`; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / "results.json"]
    paths[0].write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if "preview" in results:
        paths.append(directory / "preview_scaling.png")
        plot_preview(results["preview"], paths[-1])
        paths.append(directory / "preview_scaling.zh.png")  # the Chinese edition's bonus 04
        plot_preview(results["preview"], paths[-1], lang="zh")
    if "decode" in results:
        paths.append(directory / "decode_throughput.png")
        plot_decode(results["decode"], paths[-1])
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="streaming_lib against the SDK, side by side."
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes and few runs (about 20 s); prints only unless --out",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=NAMES,
        help="run only this benchmark (repeatable); prints only unless --out",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="write results.json and plots here (default for a full run: benchmarks/results)",
    )
    parser.add_argument(
        "--sdk-budget", type=float, help="seconds; extrapolate an SDK run predicted to take longer"
    )
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    if args.sdk_budget is not None:
        settings = replace(settings, sdk_budget=args.sdk_budget)
    names = tuple(args.only) if args.only else NAMES
    out = args.out or (RESULTS_DIR if not args.quick and not args.only else None)
    print(
        f"benchmarks ({'quick' if args.quick else 'full'}): {', '.join(names)}; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results = run(settings, names, log=lambda line: print(line, flush=True))
    print()
    print(text(results))
    print(
        f"\n{results['elapsed_s']:.0f} s; "
        f"load average {results['load_average_at_start'][0]} at start, "
        f"{results['load_average_at_end'][0]} at end"
    )
    if out is not None:
        for path in write(results, out):
            print(f"wrote {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
