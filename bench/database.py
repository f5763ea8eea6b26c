"""What every benchmark does with its own database and memory figures (one copy, not one a script).

Each bench names its database (``chemin_<bench>``, or ``BENCH_DB_NAME`` when set: two runs side by
side need two databases) on the server ``BENCH_DATABASE_URL`` (default
``postgres://postgres@127.0.0.1:5432``) and drops and re-creates it on every run, so a run never
measures what an earlier one left behind.
"""

from __future__ import annotations

import os
import resource

SERVER = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432").rstrip("/")


def bench_db_name(default: str) -> str:
    """``BENCH_DB_NAME`` if set, else the bench's own ``default``: benches of two checkouts (or two
    people) on one server must not drop each other's database."""
    return os.environ.get("BENCH_DB_NAME") or default


def recreate_database(name: str) -> None:
    """Drop ``name`` (closing its connections) and create it empty."""
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")


def peak_mib() -> float:
    """This process's peak resident memory so far, in MiB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
