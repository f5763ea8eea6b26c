"""What every benchmark prints to be read honestly: each figure beside a baseline measured in the
same run, their ratio, and the machine's load average at the start and at the end.

Why: the reference machine has 2 cores shared with other jobs, so an absolute figure says how busy
the machine was as much as how fast the code is. A baseline timed the same way, in the same
process and the same minute (a raw SQL read of the same rows, ``GET /api/v1/me/`` through the same
stack, the validator on the same file...), moves with the machine; the ratio does not, or much
less. The load average at both ends says how noisy the run was.

One copy for every script of bench/ (not one a script):

    with BenchRun("step_bench") as run:          # prints the load average now
        ...
        run.add("step_median", figure=14.2, baseline=3.1, unit="ms",
                baseline_label="GET /api/v1/me/ in-process, median")
    # on leaving: the load average again, then one ``summary`` line per measure:
    #   summary step_median: figure 14.2 ms, baseline 3.1 ms (GET /api/v1/me/ ...), ratio 4.58

``BenchRun(..., json_line=True)`` also prints, last, one JSON line with every figure, its
``<name>_baseline`` and ``<name>_ratio`` and both load averages (scripts read it).
The ratio is always figure / baseline: for times it is "how many baselines the figure costs",
for rates "how many of the baseline's operations one of the figure's is worth".
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TextIO


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages (``os.getloadavg``): how many jobs shared the cores."""
    one, five, fifteen = os.getloadavg()
    return (round(one, 2), round(five, 2), round(fifteen, 2))


def load_text(load: tuple[float, float, float]) -> str:
    """``1.23 / 0.98 / 0.50 (2 CPUs)``: the figures with what they divide."""
    return " / ".join(f"{x:.2f}" for x in load) + f" ({os.cpu_count()} CPUs)"


def ratio(figure: float, baseline: float) -> float:
    """figure / baseline; NaN (not a crash, not infinity) when the baseline is zero or missing, so
    that one unmeasurable baseline does not lose the rest of a long run's figures."""
    if not baseline or math.isnan(baseline) or math.isnan(figure):
        return float("nan")
    return figure / baseline


@dataclass(frozen=True)
class Measure:
    """One figure and its same-run baseline, in the same unit."""

    name: str
    figure: float
    baseline: float
    unit: str
    baseline_label: str

    @property
    def ratio(self) -> float:
        return ratio(self.figure, self.baseline)

    def line(self) -> str:
        """``summary NAME: figure F UNIT, baseline B UNIT (WHAT), ratio R``: one grep-able line."""
        return (
            f"summary {self.name}: figure {_number(self.figure)} {self.unit}, "
            f"baseline {_number(self.baseline)} {self.unit} ({self.baseline_label}), "
            f"ratio {_number(self.ratio, ratio=True)}"
        )


def _number(value: float, *, ratio: bool = False) -> str:
    """Enough digits to compare two runs, no more (``0.0123``, ``14.2``, ``48,210``)."""
    if math.isnan(value):
        return "n/a"
    if ratio:
        return f"{value:.3g}" if abs(value) < 10 else f"{value:,.1f}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3g}"


@dataclass
class BenchRun:
    """A benchmark's run: the load average printed on entering and on leaving, and the measures
    added in between printed as ``summary`` lines (then the JSON line, if asked) on leaving.

    The summary is printed even if the run fails half-way (what was measured is not lost), and
    the exception then goes on."""

    name: str
    json_line: bool = False
    out: TextIO = field(default_factory=lambda: sys.stdout)
    measures: list[Measure] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    load_start: tuple[float, float, float] = (0.0, 0.0, 0.0)
    load_end: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def __enter__(self) -> BenchRun:
        self.load_start = load_average()
        print(f"[{self.name}] load average at start: {load_text(self.load_start)}", file=self.out, flush=True)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.finish()

    def add(self, name: str, *, figure: float, baseline: float, unit: str, baseline_label: str) -> Measure:
        """Record one figure with its baseline (printed at the end, with the others)."""
        measure = Measure(name, float(figure), float(baseline), unit, baseline_label)
        self.measures.append(measure)
        return measure

    def as_dict(self) -> dict[str, Any]:
        """``{name: figure, name_baseline: baseline, name_ratio: ratio, ..., load_start, load_end}``;
        NaN becomes None (JSON has no NaN)."""
        data: dict[str, Any] = {"bench": self.name}
        for m in self.measures:
            data[m.name] = _json_number(m.figure)
            data[f"{m.name}_baseline"] = _json_number(m.baseline)
            data[f"{m.name}_ratio"] = _json_number(m.ratio)
            data[f"{m.name}_unit"] = m.unit
        data.update(self.extra)
        data["load_start"] = list(self.load_start)
        data["load_end"] = list(self.load_end)
        return data

    def finish(self) -> None:
        self.load_end = load_average()
        print(f"[{self.name}] load average at end: {load_text(self.load_end)}", file=self.out)
        for measure in self.measures:
            print(measure.line(), file=self.out)
        if self.json_line:
            print(json.dumps(self.as_dict(), sort_keys=True), file=self.out)
        self.out.flush()


def _json_number(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(wall seconds, result) of one call: a figure and its baseline are timed by the same clock."""
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def median_ms(fn: Callable[[], Any], repeat: int) -> float:
    """Median wall milliseconds of ``repeat`` calls (the median, not the mean: one call delayed by
    another job on the machine does not move it)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def me_in_process(client: Any, repeat: int) -> tuple[list[float], list[float]]:
    """``GET /api/v1/me/`` ``repeat`` times through ``client`` (Django's test ``Client`` with the
    benchmark's token in its headers): per request, the wall ms and this process's CPU ms.

    Why this baseline for a step: it goes through the same middleware, DRF, token authentication
    and throttles as a step and reads one row of its own, but writes nothing, locks nothing and
    replays no coup; a step's figure over it is what the game itself adds to a request."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        started, cpu0 = time.perf_counter(), time.process_time()
        response = client.get("/api/v1/me/")
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu0) * 1000)
        assert response.status_code == 200, (response.status_code, response.content[:300])
    return wall, cpu
