"""Where report runs' files are kept: the storage named "reports" (settings.STORAGES), a folder
under var/reports by default, any Django storage (django-storages' S3 backend) in production.

A run writes under a temporary name and moves the file into its final name only once it is whole
(reports.services.report_run_execute): nothing ever reads a truncated report under a final name.
Django's storage API has no rename, so :func:`storage_move` renames on a local filesystem (one
atomic ``os.replace``) and copies then deletes elsewhere (an object store's key appears whole).
"""

from __future__ import annotations

import os

from django.core.files.storage import FileSystemStorage, Storage, storages

#: temporary names live in their own folder, never under a final name's
TEMP_DIR = "tmp"


def reports_storage() -> Storage:
    return storages["reports"]


def temp_prefix(run_id: int) -> str:
    return f"run-{run_id}-"


def temp_name(run_id: int, attempt: int) -> str:
    return f"{TEMP_DIR}/{temp_prefix(run_id)}attempt-{attempt}.part"


def temp_names(storage: Storage, run_id: int) -> list[str]:
    """The temporary files earlier attempts of a run left (their worker died mid-write)."""
    try:
        _, files = storage.listdir(TEMP_DIR)
    except (FileNotFoundError, NotImplementedError):
        return []
    return [f"{TEMP_DIR}/{name}" for name in files if name.startswith(temp_prefix(run_id))]


def storage_create(storage: Storage, name: str) -> str:
    """Create an empty file ``name`` (its folders too), so it can be opened for writing; returns
    the name the storage chose (the same, unless one existed)."""
    from django.core.files.base import ContentFile

    return storage.save(name, ContentFile(b""))


def storage_move(storage: Storage, source: str, target: str) -> str:
    """Give the whole file ``source`` the name ``target`` (replacing one left by a dead attempt)."""
    if storage.exists(target):
        storage.delete(target)
    if isinstance(storage, FileSystemStorage):
        path = storage.path(target)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.replace(storage.path(source), path)
        return target
    with storage.open(source, "rb") as whole:
        saved = storage.save(target, whole)
    storage.delete(source)
    return saved
