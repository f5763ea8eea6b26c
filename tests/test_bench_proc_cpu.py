"""bench/proc_cpu.py: a process that ends inside a measured window keeps the CPU it spent there
(a kept database connection closed at CONN_MAX_AGE, inside the multitable bench's 60-s window,
used to take its backend's CPU with it). Linux's /proc is read; the bound asserted is a floor of
CPU the child certainly burnt, not a timing."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from bench.proc_cpu import CpuMeter

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads Linux's /proc")

#: a child that burns this much CPU and ends: counted as the "gunicorn" group (a child of the pid
#: the meter is told is the server's)
BURN = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass\n"


def _child_cpu(meter: CpuMeter, *, followed: bool) -> float:
    before = meter.sample()
    started = time.perf_counter()
    if followed:
        with meter.follow(every=0.05) as after:
            subprocess.run([sys.executable, "-c", BURN], check=True)
            time.sleep(0.1)
    else:
        subprocess.run([sys.executable, "-c", BURN], check=True)
        after = meter.sample()
    return meter.window(before, after, wall=time.perf_counter() - started)["gunicorn"]


def test_a_process_that_ends_inside_a_followed_window_keeps_the_cpu_it_spent_there() -> None:
    meter = CpuMeter(server_pid=os.getpid(), db_name="no-such-database")
    # its last sample was at most 0.05 s of CPU before it ended: at least 0.3 s of its 0.4 s
    assert _child_cpu(meter, followed=True) >= 0.3
    # sampled only at the ends, the same child is gone by the second sample and counts for nothing
    assert _child_cpu(meter, followed=False) == 0.0
