"""A coup's rows vouched for before its money moves (audit.vouch): the refusal, in words."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import models

from audit.vouch import CHANGED, GONE, UNBOUND, Unvouched, rows_vouch
from core.sentence import Listing, Sentence, said
from tables.lifecycle import CoupRecordsChanged

logger = logging.getLogger(__name__)


def _change_said(found: Unvouched, index_of: dict[int, int], subject: type[models.Model]) -> Sentence:
    if found.what == GONE:
        return said("a step was deleted")
    if found.model is subject:
        return said("the coup itself was changed")
    index = index_of.get(found.pk, 0)
    if found.what == UNBOUND:
        return said("step {index} was never recorded at the table", index=index)
    assert found.what == CHANGED, found
    return said("step {index} was changed", index=index)


def coup_rows_vouch(
    *,
    coup: models.Model,
    steps: Sequence[models.Model],
    step_model: type[models.Model],
    steps_are_subjects: bool = False,
    current_step: int | None = None,
) -> None:
    """Refuse (:class:`CoupRecordsChanged`, nothing settled) when the coup's row or its steps
    (instances as loaded, each with an ``index``) differ from what their events bound, or a bound
    step is gone. ``steps_are_subjects``: each step's event is about the step (the older games'),
    not about the coup (chemin de fer's)."""
    found = rows_vouch(
        subject=coup,
        held=[coup, *steps],
        about=steps if steps_are_subjects else (),
        whole=[step_model],
    )
    if not found:
        return
    logger.warning(
        "coup %s: rows not vouched for by their events, nothing settled: %s",
        coup.pk,
        "; ".join(f"{f.model._meta.db_table} {f.pk} {f.what} {','.join(f.columns)}" for f in found),
    )
    index_of = {int(step.pk): int(step.index) for step in steps}  # type: ignore[attr-defined]
    changes = Listing([_change_said(f, index_of, type(coup)) for f in found])
    raise CoupRecordsChanged(
        said(
            "This coup's record was changed outside the application ({changes}): nothing was "
            "settled. Call the pit boss: the coup can only be voided.",
            changes=changes,
        ),
        current_step=current_step,
    )
