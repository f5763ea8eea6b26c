"""Production settings pass Django's deployment checklist with no warning at all."""

from __future__ import annotations

import os
import secrets
import string
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args: str, **env: str | None) -> subprocess.CompletedProcess:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "SECRET_KEY", "AUDIT_"))
    }
    # the audit chain's key and anchor file, which production requires (a test may drop them)
    base.update(AUDIT_HMAC_KEY="k" * 64, AUDIT_ANCHOR_FILE="/var/lib/chemin-anchors/anchors.jsonl")
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={k: v for k, v in {**base, **env}.items() if v is not None},
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


def test_production_refuses_to_start_without_the_audit_key_or_the_anchor_file() -> None:
    for missing in ("AUDIT_HMAC_KEY", "AUDIT_ANCHOR_FILE"):
        result = run_manage(
            "check",
            DJANGO_SETTINGS_MODULE="casino.settings.production",
            SECRET_KEY="s" * 50,
            ALLOWED_HOSTS="casino.example",
            **{missing: None},
        )
        assert result.returncode != 0
        assert f"Set the {missing} environment variable" in result.stderr


def test_production_warns_of_a_short_audit_key() -> None:
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SETTINGS_MODULE="casino.settings.production",
        SECRET_KEY="".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(50)),
        ALLOWED_HOSTS="casino.example",
        AUDIT_HMAC_KEY="too-short",
    )
    assert result.returncode != 0
    assert "(audit.W001) audit key 'dev' is shorter than 32 characters." in result.stderr
