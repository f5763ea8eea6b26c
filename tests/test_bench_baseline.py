"""bench/baseline.py: what every benchmark prints to be read honestly (each figure beside its
same-run baseline and their ratio, the load average at both ends, and scale_bench's JSON line).
Scripts read those lines, so their shape is held here; no timing is asserted (the machine is
shared: a timed test proves nothing)."""

from __future__ import annotations

import io
import json
import math

import pytest

from bench import baseline
from bench.baseline import BenchRun, Measure, median_ms, ratio, timed


def test_ratio_is_figure_over_baseline_and_nan_when_the_baseline_is_missing() -> None:
    assert ratio(3.0, 1.5) == 2.0
    assert math.isnan(ratio(3.0, 0.0))
    assert math.isnan(ratio(float("nan"), 1.0))


def test_a_measure_prints_one_summary_line_with_figure_baseline_and_ratio() -> None:
    line = Measure("step_median", 14.2, 3.1, "ms", "GET /api/v1/me/ in-process").line()
    assert line == (
        "summary step_median: figure 14.2 ms, baseline 3.1 ms (GET /api/v1/me/ in-process), ratio 4.58"
    )
    assert Measure("x", 1.0, 0.0, "s", "nothing").line().endswith("ratio n/a")
    assert "figure 48,210 /s" in Measure("rate", 48_210.4, 60_000.0, "/s", "parse").line()


def test_a_run_prints_the_load_at_both_ends_then_the_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    loads = iter([(0.5, 0.25, 0.125), (2.0, 1.0, 0.5)])
    monkeypatch.setattr(baseline.os, "getloadavg", lambda: next(loads))
    out = io.StringIO()
    with BenchRun("demo", out=out) as run:
        run.add("a", figure=2.0, baseline=1.0, unit="s", baseline_label="raw read")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[demo] load average at start: 0.50 / 0.25 / 0.12")
    assert lines[1].startswith("[demo] load average at end: 2.00 / 1.00 / 0.50")
    assert lines[2] == "summary a: figure 2 s, baseline 1 s (raw read), ratio 2"
    assert len(lines) == 3


def test_the_json_line_is_last_and_names_each_baseline_and_ratio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(baseline.os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    out = io.StringIO()
    with BenchRun("scale_bench", json_line=True, out=out) as run:
        run.add("dashboard_7d", figure=0.05, baseline=0.5, unit="s", baseline_label="raw")
        run.add("verify_audit_full", figure=1.0, baseline=0.0, unit="s", baseline_label="raw")
        run.extra["coups"] = 20_000
    data = json.loads(out.getvalue().splitlines()[-1])
    assert data["bench"] == "scale_bench"
    assert data["dashboard_7d"] == 0.05
    assert data["dashboard_7d_baseline"] == 0.5
    assert data["dashboard_7d_ratio"] == pytest.approx(0.1)
    assert data["verify_audit_full_ratio"] is None  # JSON has no NaN
    assert data["coups"] == 20_000
    assert data["load_start"] == data["load_end"] == [1.0, 1.0, 1.0]


def test_the_summary_is_printed_even_when_the_run_fails() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError), BenchRun("broken", out=out) as run:
        run.add("half", figure=1.0, baseline=2.0, unit="s", baseline_label="raw")
        raise RuntimeError("the second half failed")
    assert "summary half: figure 1 s, baseline 2 s (raw), ratio 0.5" in out.getvalue()


def test_timed_and_median_ms_time_one_call_and_the_median_of_several() -> None:
    seconds, result = timed(lambda: 42)
    assert result == 42 and seconds >= 0
    calls: list[int] = []
    assert median_ms(lambda: calls.append(1), 5) >= 0
    assert len(calls) == 5
