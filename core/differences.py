"""What a verification found, told the same way by every check of the house (the audit rows', the
books'): every difference counted, the first ones kept for the report, each handed on as it is
found, so that a command can print it at once and a long run need not hold them all."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

D = TypeVar("D")


@dataclass
class DifferenceTally(Generic[D]):
    """The differences a check found: ``difference_count`` counts them all, ``differences`` keeps
    the first ``kept`` (a broken night must not fill the memory), ``on_difference`` hears each one."""

    kept: ClassVar[int] = 1000

    difference_count: int = 0
    differences: list[D] = field(default_factory=list)
    on_difference: Callable[[D], None] | None = None

    @property
    def ok(self) -> bool:
        return self.difference_count == 0

    def add(self, difference: D) -> None:
        self.difference_count += 1
        if len(self.differences) < self.kept:
            self.differences.append(difference)
        if self.on_difference is not None:
            self.on_difference(difference)
