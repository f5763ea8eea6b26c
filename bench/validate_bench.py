"""Benchmark: the offline validator, end to end and engine alone.

    .venv/bin/python bench/validate_bench.py [N]

Prints records/s for (1) ``manage.py validate_coups FILE`` as a subprocess, Django start-up
included, pinned to one core; (2) the same pipeline in-process (JSON in, JSON out); (3) the
engine alone: ``judge_coup`` on records already parsed. Targets (issue): (1) >= 40,000/s,
(3) >= 150,000/s.

Baseline, same file, same run: the plain parse of every line (``orjson.loads``), the floor of any
JSON-in validator: in a subprocess pinned to the same core, interpreter start included, for (1)
and the stdin run; in-process, best of 3, for (2) and (3). Why: the validator cannot read its
records faster than parsing them, so records/s ÷ parses/s is the share of the time that is the
parse (1 would be "judging is free"), and it moves far less with the machine's load than
records/s. The final ``summary`` lines (bench/baseline.py) give each rate beside its baseline and
the ratio, with the load average at the start and the end.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.baseline import BenchRun  # noqa: E402
from bench.coupgen import write_jsonl  # noqa: E402
from chemin_de_fer.engine.interchange import record_from_dict  # noqa: E402
from chemin_de_fer.engine.judge import Rules, judge_coup  # noqa: E402
from chemin_de_fer.engine.profiles import BUILTIN  # noqa: E402
from chemin_de_fer.engine.validator import validate_lines  # noqa: E402
from core.records import RecordError, stream_lines  # noqa: E402


def _feed(child: subprocess.Popen, path: Path, repeat: int) -> None:
    assert child.stdin is not None
    for _ in range(repeat):
        with path.open("rb") as f:
            while block := f.read(1 << 20):
                child.stdin.write(block)
    child.stdin.close()


# the baseline's subprocess: every line parsed, nothing judged (the same interpreter, the same core)
PARSE_ONLY = (
    "import sys, orjson\n"
    "for line in open(sys.argv[1], 'rb'):\n"
    "    try:\n        orjson.loads(line)\n    except orjson.JSONDecodeError:\n        pass\n"
)


def parse_all(path: Path) -> int:
    """Parse every line of ``path`` (a deliberately malformed one fails like any other): the
    in-process baseline."""
    lines = 0
    with path.open("rb") as f:
        for line in f:
            with contextlib.suppress(orjson.JSONDecodeError):
                orjson.loads(line)
            lines += 1
    return lines


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    with BenchRun("validate_bench") as bench:
        measure(n, bench)


def measure(n: int, bench: BenchRun) -> None:
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(0, {0})  # one core, as the target says; children inherit it
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "coups.jsonl"
        t0 = time.perf_counter()
        write_jsonl(str(path), n)
        size = path.stat().st_size
        print(f"generated {n:,} records ({size / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f} s")

        # (1) the command, as an auditor runs it
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "validate_coups", str(path)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            cwd=ROOT,
        )
        wall = time.perf_counter() - t0
        rate = n / wall
        print(f"validate_coups (subprocess, 1 core): {rate:,.0f} records/s ({wall:.2f} s)")
        print(f"  exit status {done.returncode} (1 expected: the generator writes malformed lines)")
        print(f"  summary: {done.stderr.strip()}")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", PARSE_ONLY, str(path)], check=True, cwd=ROOT)
        parse_rate = n / (time.perf_counter() - t0)
        print(f"  baseline: plain parse of the same file (subprocess, 1 core): {parse_rate:,.0f} lines/s")
        sub_label = "orjson.loads of every line, subprocess on the same core, interpreter start included"
        bench.add(
            "validate_coups_per_s", figure=rate, baseline=parse_rate, unit="/s", baseline_label=sub_label
        )

        # (1b) constant memory: the same file five times through stdin (a million lines at 200k)
        repeat = 5
        t0 = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "validate_coups", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        feeder = threading.Thread(target=_feed, args=(child, path, repeat))
        feeder.start()
        assert child.stderr is not None
        err = child.stderr.read()
        child.wait()
        feeder.join()
        wall = time.perf_counter() - t0
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(
            f"validate_coups on {repeat * n:,} lines from stdin: {repeat * n / wall:,.0f} records/s,"
            f" peak RSS of the command {peak_mb:.0f} MB ({err.decode().strip()})"
        )
        bench.add("validate_stdin_per_s", figure=repeat * n / wall, baseline=parse_rate, unit="/s",
                  baseline_label=sub_label)  # fmt: skip

        parse_best = None
        for _ in range(3):
            t0 = time.perf_counter()
            parse_all(path)
            dt = time.perf_counter() - t0
            parse_best = dt if parse_best is None else min(parse_best, dt)
        assert parse_best is not None
        parsed = n / parse_best
        print(f"baseline: plain parse of the same file in-process: {parsed:,.0f} lines/s (best of 3)")
        in_label = "orjson.loads of every line in-process, best of 3"

        # (2) the same pipeline in-process
        best = None
        for _ in range(3):
            out = io.BytesIO()
            with path.open("rb") as f:
                t0 = time.perf_counter()
                validate_lines(stream_lines(f), out)
                dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        assert best is not None
        print(f"validate_lines in-process (JSON in, JSON out): {n / best:,.0f} records/s (best of 3)")
        bench.add(
            "validate_lines_per_s", figure=n / best, baseline=parsed, unit="/s", baseline_label=in_label
        )

        # (3) the engine alone
        rules = {s: Rules.for_profile(p) for s, p in BUILTIN.items()}
        records = []
        with path.open("rb") as f:
            for line in f:
                with contextlib.suppress(RecordError):  # the generator's deliberate bad lines
                    records.append(record_from_dict(orjson.loads(line), known_profiles=rules))
        # the records are the benchmark's own data: freeze them out of the cyclic collector's
        # scans, which would otherwise be timed as if the engine made them
        gc.collect()
        gc.freeze()
        best = None
        flagged = 0
        for _ in range(3):
            t0 = time.perf_counter()
            flagged = 0
            for rec in records:
                if judge_coup(rec, rules[rec.profile]).violations:
                    flagged += 1
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        assert best is not None
        print(
            f"engine alone (judge_coup): {len(records) / best:,.0f} coups/s (best of 3;"
            f" {flagged:,} of {len(records):,} flagged)"
        )
        bench.add(
            "judge_coup_per_s",
            figure=len(records) / best,
            baseline=parsed,
            unit="/s",
            baseline_label=in_label,
        )


if __name__ == "__main__":
    main()
