"""Where the CPU goes during a benchmark window, read from Linux's /proc (no dependency): the CPU
seconds (user + system) of the processes of each group, and of the whole machine.

A wall-clock figure on a shared machine says how busy the machine was as much as how fast the
code is; CPU seconds per request do not depend on the other jobs (to a first approximation: caches
and frequency aside). With them, ``cores / CPU per request`` is the most requests a second the
machine could serve, whatever the concurrency, and the ratio of that to what one client gets
explains a benchmark's scaling.

The groups, for bench/multitable_bench.py:

- ``gunicorn``: the server's master and its workers (their children on /proc);
- ``postgres``: the PostgreSQL backends connected to the benchmark's database;
- ``pg shared``: PostgreSQL's own processes (WAL writer, checkpointer, autovacuum...), which work
  for every database of the server: attributed to no one, shown apart;
- ``client``: this process (the benchmark's client threads);
- ``others``: the rest of the machine (other jobs, the kernel's own threads), from /proc/stat.

A process that ends inside the window would take its CPU of the window with it: a persistent
database connection is closed once it is ``CONN_MAX_AGE`` old (60 s, as production keeps them),
inside a window as long, and its backend's CPU went to ``others``. So the window is followed
(``CpuMeter.follow``): sampled every half second, each process counted as last seen, so that
one that ends loses at most its last half second.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
GROUPS = ("gunicorn", "postgres", "pg shared", "client")


def _stat(pid: str) -> tuple[str, int, float] | None:
    """(command name, parent pid, CPU seconds) of a process; None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the name is in parentheses and may hold spaces: the fields after the last ")" are fixed
    name = text[text.index("(") + 1 : text.rindex(")")]
    rest = text[text.rindex(")") + 2 :].split()
    # rest[0] is field 3 (state): ppid is field 4, utime 14, stime 15
    return name, int(rest[1]), (int(rest[11]) + int(rest[12])) / TICK


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def machine_ticks() -> tuple[float, float]:
    """(busy, total) CPU seconds of every core since boot (/proc/stat's first line). Busy is what
    ran here (user, nice, system, interrupts); not idle, waiting for I/O, or stolen by the host."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
    return busy / TICK, sum(fields) / TICK


@dataclass
class Sample:
    per_pid: dict[tuple[str, str], float] = field(default_factory=dict)  # (group, pid) -> CPU s
    busy: float = 0.0
    total: float = 0.0


class CpuMeter:
    """Samples the groups' CPU; ``window(before, after)`` gives each group's seconds in between."""

    def __init__(self, *, server_pid: int, db_name: str) -> None:
        self.server_pid = server_pid
        self.db_marker = f" {db_name} "  # a backend's title: "postgres: 15/main: user db host(port) state"
        self.me = os.getpid()

    def _group(self, pid: str, name: str, ppid: int) -> str | None:
        number = int(pid)
        if number == self.me:
            return "client"
        if number == self.server_pid or ppid == self.server_pid:
            return "gunicorn"
        if name.startswith("postgres") or name.startswith("postmaster"):
            title = _cmdline(pid)
            if not title.startswith("postgres: "):
                return "pg shared"  # the postmaster itself
            if self.db_marker in title:
                return "postgres"
            # another database's backend is another job's; PostgreSQL's own processes have no
            # database in their title ("postgres: 15/main: walwriter")
            if "(" in title or "[local]" in title:
                return None
            return "pg shared"
        return None

    def sample(self) -> Sample:
        sample = Sample()
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            stat = _stat(pid)
            if stat is None:
                continue
            group = self._group(pid, stat[0], stat[1])
            if group is not None:
                sample.per_pid[(group, pid)] = stat[2]
        sample.busy, sample.total = machine_ticks()
        return sample

    @contextmanager
    def follow(self, *, every: float = 0.5) -> Iterator[Sample]:
        """Sample until the block ends, every ``every`` seconds, into the one ``Sample`` yielded
        (as ``after`` for ``window``): a process keeps the CPU it was last seen with after it is
        gone, and a new one counts from its start. Its ``busy`` and ``total`` are the last
        sample's, taken as the block ends."""
        followed = Sample()
        stop = threading.Event()

        def keep(latest: Sample) -> None:
            followed.per_pid.update(latest.per_pid)  # a pid gone keeps its last value
            followed.busy, followed.total = latest.busy, latest.total

        def run() -> None:
            while not stop.wait(every):
                keep(self.sample())

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        try:
            yield followed
        finally:
            stop.set()
            thread.join()
            keep(self.sample())

    @staticmethod
    def window(before: Sample, after: Sample, *, wall: float) -> dict[str, float]:
        """CPU seconds per group in the window, ``others`` (the rest of the machine's busy time),
        ``machine`` (all busy time) and ``cores`` (how many cores the machine has, as counted by
        /proc/stat over the window)."""
        spent = dict.fromkeys(GROUPS, 0.0)
        for key, seconds in after.per_pid.items():
            spent[key[0]] += max(0.0, seconds - before.per_pid.get(key, 0.0))
        machine = after.busy - before.busy
        spent["others"] = max(0.0, machine - sum(spent[g] for g in GROUPS))
        spent["machine"] = machine
        spent["cores"] = (after.total - before.total) / wall if wall > 0 else float(os.cpu_count() or 1)
        return spent
