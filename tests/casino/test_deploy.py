"""Production settings pass Django's deployment checklist with no warning at all."""

from __future__ import annotations

import os
import secrets
import string
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "SECRET_KEY"))
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean() -> None:
    secret = "".join(
        secrets.choice(string.ascii_letters + string.digits + "!@#%^&*(-_=+)") for _ in range(50)
    )
    result = run_manage(
        "check",
        "--deploy",
        DJANGO_SETTINGS_MODULE="casino.settings.production",
        SECRET_KEY=secret,
        ALLOWED_HOSTS="casino.example",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."
    assert result.stderr == ""


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = run_manage(
        "check", DJANGO_SETTINGS_MODULE="casino.settings.production", ALLOWED_HOSTS="casino.example"
    )
    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable" in result.stderr
