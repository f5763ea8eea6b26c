"""A faster constructor for the engine's hot frozen dataclasses.

A frozen dataclass's generated ``__init__`` sets every field with ``object.__setattr__(self,
"name", value)``: a generic attribute lookup per field, which dominates the cost of building the
records and verdicts the validator makes by the million. With ``slots=True`` each field is a slot
whose descriptor can be called directly; :func:`fast_init` swaps in an ``__init__`` doing exactly
that, roughly halving the construction cost. Everything else stays the dataclass's own: the
instances are still frozen (assignment raises ``FrozenInstanceError``), compare, hash and print
the same. Only for classes without ``__post_init__`` (validation stays where it is).
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def fast_init(cls: type[T]) -> type[T]:
    """Replace the ``__init__`` of a frozen, slotted dataclass with one that fills the slots
    directly (same parameters, same defaults and default factories)."""
    if not is_dataclass(cls) or not getattr(cls, "__dataclass_params__").frozen:  # noqa: B009
        raise TypeError(f"{cls.__name__} is not a frozen dataclass")
    if "__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} needs slots and no __post_init__")
    namespace: dict[str, Any] = {"_MISSING": MISSING}
    params: list[str] = []
    body: list[str] = []
    for f in fields(cls):
        setter = f"_set_{f.name}"
        namespace[setter] = cls.__dict__[f.name].__set__
        if f.default is not MISSING:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
            body.append(f"    {setter}(self, {f.name})")
        elif f.default_factory is not MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    {setter}(self, _factory_{f.name}() if {f.name} is _MISSING else {f.name})")
        else:
            params.append(f.name)
            body.append(f"    {setter}(self, {f.name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass")
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    # replacing the generated __init__ is this decorator's whole purpose
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
