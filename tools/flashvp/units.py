# SPDX-License-Identifier: BSD-3-Clause
"""Values with units as vp-server spells them (3us, 4KiB, 800MHz, 8GT/s),
exact arithmetic on them for ranges, and the range forms a grid accepts:

- ``"3us..9us step 1us"``: from, to (inclusive), step; a unitless
  ``"1..8"`` steps by 1;
- a list with ``...``: ``[1, 2, 4, ..., 256]`` continues the difference
  (or else the ratio) of the terms before it up to the last term, which it
  must reach exactly; two terms are read as a difference (``[1, 2, ..., 8]``
  is 1 to 8), so a doubling needs three (``[1, 2, 4, ...]``).

Which units there are, and their factors, is vp-server's to say: a
UnitTable made from its ``--list-params --json`` (flashvp.server.unit_table)
when the binary lists them, else BUILTIN.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]*)\s*$")
_RANGE = re.compile(r"^\s*(\S+?)\s*\.\.\s*(\S+?)(?:\s+step\s+(\S+))?\s*$")
ELLIPSIS = "..."

# The unit types of vp-server's parameters (the ``type`` of --list-params --json).
UNIT_TYPES = ("time", "size", "frequency", "transfer rate", "bandwidth")


class UnitError(ValueError):
    """A value or range that cannot be read; the message says why."""


@dataclass(frozen=True)
class UnitTable:
    """The units vp-server reads: suffix -> (dimension, factor to the
    dimension's base unit, the suffix whose factor is 1).

    ``from_params`` builds it from the binary's own answer (``vp-server
    --list-params --json``), each parameter of a unit type listing the
    suffixes its parser takes in a ``units`` field; ``BUILTIN`` stands in
    where no binary is at hand (a table plotted elsewhere, a grid checked
    alone) or where the binary does not list them yet."""

    units: Mapping[str, tuple[str, Fraction]]
    source: str = "built in"

    @classmethod
    def from_params(cls, params: Iterable[Mapping[str, Any]], source: str = "vp-server") -> UnitTable | None:
        """The table of the parameters' ``units`` fields ({suffix: factor to
        the base unit}, for the parameters of a unit type), by their
        ``type``; None when no parameter has one (a binary from before the
        field), or when they disagree (UnitError)."""
        table: dict[str, tuple[str, Fraction]] = {}
        for p in params:
            units = p.get("units")
            if not isinstance(units, Mapping) or not units:
                continue
            dimension = str(p.get("type", ""))
            for suffix, factor in units.items():
                entry = (dimension, Fraction(str(factor)))
                if table.setdefault(str(suffix), entry) != entry:
                    raise UnitError(f"{source}: unit {suffix!r} is {table[str(suffix)]} and {entry}")
        return cls(table, source) if table else None

    def base_unit(self, dimension: str) -> str:
        return next(u for u, (d, f) in self.units.items() if d == dimension and f == 1)

    def dimension(self, unit: str) -> str:
        return self.units[unit][0] if unit else ""

    def factor(self, unit: str) -> Fraction:
        return self.units[unit][1] if unit else Fraction(1)


# What vp-server's parsers (vp/core/Units.cpp) took when this was written;
# used only without a binary whose --list-params --json lists its units.
BUILTIN = UnitTable({
    "ps": ("time", Fraction(1)),
    "ns": ("time", Fraction(10**3)),
    "us": ("time", Fraction(10**6)),
    "ms": ("time", Fraction(10**9)),
    "s": ("time", Fraction(10**12)),
    "B": ("size", Fraction(1)),
    "KiB": ("size", Fraction(2**10)),
    "MiB": ("size", Fraction(2**20)),
    "GiB": ("size", Fraction(2**30)),
    "TiB": ("size", Fraction(2**40)),
    "KB": ("size", Fraction(10**3)),
    "MB": ("size", Fraction(10**6)),
    "GB": ("size", Fraction(10**9)),
    "TB": ("size", Fraction(10**12)),
    "Hz": ("frequency", Fraction(1)),
    "kHz": ("frequency", Fraction(10**3)),
    "MHz": ("frequency", Fraction(10**6)),
    "GHz": ("frequency", Fraction(10**9)),
    "T/s": ("transfer rate", Fraction(1)),
    "MT/s": ("transfer rate", Fraction(10**6)),
    "GT/s": ("transfer rate", Fraction(10**9)),
    "B/s": ("bandwidth", Fraction(1)),
    "KB/s": ("bandwidth", Fraction(10**3)),
    "MB/s": ("bandwidth", Fraction(10**6)),
    "GB/s": ("bandwidth", Fraction(10**9)),
    "KiB/s": ("bandwidth", Fraction(2**10)),
    "MiB/s": ("bandwidth", Fraction(2**20)),
    "GiB/s": ("bandwidth", Fraction(2**30)),
})


@dataclass(frozen=True)
class Quantity:
    value: Fraction  # in the unit below
    unit: str  # "" for a plain number
    table: UnitTable = BUILTIN

    @property
    def dimension(self) -> str:
        return self.table.dimension(self.unit)

    @property
    def base(self) -> Fraction:
        return self.value * self.table.factor(self.unit)

    def in_unit(self, unit: str) -> Quantity:
        return Quantity(self.base / self.table.factor(unit), unit, self.table)

    def text(self) -> str:
        """As vp-server reads it: 3us, 0.5us, 4KiB, 12."""
        return format_number(self.value) + self.unit

    def plain(self) -> int | float:
        """A unitless value as a Python number (an int when whole)."""
        return int(self.value) if self.value.denominator == 1 else float(self.value)


def format_number(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    text = f"{float(v):.12g}"
    if Fraction(text) != v:
        raise UnitError(f"{v} has no short decimal form")
    return text


def parse_quantity(text: object, table: UnitTable = BUILTIN) -> Quantity:
    """A number, or a number and one of the table's units; UnitError otherwise."""
    if isinstance(text, bool):
        raise UnitError(f"{text!r} is not a number")
    if isinstance(text, int):
        return Quantity(Fraction(text), "", table)
    if isinstance(text, float):
        if not math.isfinite(text):  # YAML's .inf and .nan: no Fraction, no vp-server value
            raise UnitError(f"{text!r} is not a finite number")
        return Quantity(Fraction(str(text)), "", table)
    m = _QUANTITY.match(str(text))
    if not m:
        raise UnitError(f"{str(text)!r} is not a number with an optional unit")
    number, unit = m.groups()
    if unit and unit not in table.units:
        raise UnitError(f"{str(text)!r}: unknown unit {unit!r} (known: {', '.join(table.units)})")
    return Quantity(Fraction(number), unit, table)


def to_number(text: object, table: UnitTable = BUILTIN) -> float | None:
    """The value of a quantity in its dimension's base unit (ps, bytes,
    Hz, transfers/s, bytes/s) or as a plain number; None when it is not one."""
    try:
        return float(parse_quantity(text, table).base)
    except UnitError:
        return None


def is_range(text: object) -> bool:
    return isinstance(text, str) and _RANGE.match(text) is not None and ".." in text


def expand_range(text: str, table: UnitTable = BUILTIN) -> list[str | int | float]:
    """``"3us..9us step 1us"`` -> ["3us", "4us", ..., "9us"] (in the first
    value's unit); ``"1..4"`` -> [1, 2, 3, 4]."""
    m = _RANGE.match(text)
    if not m:
        raise UnitError(f"{text!r} is not a range like 3us..9us step 1us")
    start, end = parse_quantity(m.group(1), table), parse_quantity(m.group(2), table)
    if m.group(3) is None:
        if start.unit:
            raise UnitError(f"{text!r}: a range with units needs a step (3us..9us step 1us)")
        step = Quantity(Fraction(1), "", table)
    else:
        step = parse_quantity(m.group(3), table)
    dims = {start.dimension, end.dimension, step.dimension}
    if len(dims) != 1:
        kinds = ", ".join(sorted(d or "plain number" for d in dims))
        raise UnitError(f"{text!r}: from, to and step must be of one kind (got {kinds})")
    if step.base <= 0:
        raise UnitError(f"{text!r}: the step must be above 0")
    if end.base < start.base:
        raise UnitError(f"{text!r}: the end is below the start")
    count = (end.base - start.base) / step.base
    if count.denominator != 1:
        raise UnitError(f"{text!r}: the steps from {start.text()} do not reach {end.text()}")
    if count > 100000:
        raise UnitError(f"{text!r}: {count + 1} values (at most 100,001)")
    return [_in_start_unit(start.base + i * step.base, start) for i in range(int(count) + 1)]


def _in_start_unit(base: Fraction, start: Quantity) -> str | int | float:
    table = start.table
    if not start.unit:
        return Quantity(base, "", table).plain()
    try:
        return Quantity(base / table.factor(start.unit), start.unit, table).text()
    except UnitError:  # not short in the start's unit: its base unit is exact
        return Quantity(base, table.base_unit(start.dimension), table).text()


def expand_list(items: list[Any], table: UnitTable = BUILTIN) -> list[Any]:
    """A list, with ``...`` continued geometrically or arithmetically."""
    if ELLIPSIS not in items:
        return list(items)
    at = items.index(ELLIPSIS)
    if items.count(ELLIPSIS) > 1 or at < 2 or at != len(items) - 2:
        raise UnitError("'...' goes once, after at least two terms and before the last one ([1, 2, 4, ..., 256])")
    terms = [parse_quantity(x, table) for x in items[:at]]
    end = parse_quantity(items[-1], table)
    if len({q.dimension for q in [*terms, end]}) != 1:
        raise UnitError("the terms around '...' must be of one kind")
    b = [q.base for q in terms]
    ratios = {b[i + 1] / b[i] for i in range(len(b) - 1)} if all(b) else set()
    diffs = {b[i + 1] - b[i] for i in range(len(b) - 1)}
    if len(diffs) == 1 and next(iter(diffs)) > 0:
        diff = next(iter(diffs))

        def nxt(v: Fraction) -> Fraction:
            return v + diff
    elif len(ratios) == 1 and next(iter(ratios)) > 1:
        ratio = next(iter(ratios))

        def nxt(v: Fraction) -> Fraction:
            return v * ratio
    else:
        raise UnitError(f"the terms {items[:at]} before '...' have neither one ratio above 1 nor one difference "
                        "above 0")
    seq = list(b)
    while seq[-1] < end.base:
        seq.append(nxt(seq[-1]))
        if len(seq) > 100000:
            raise UnitError("more than 100,000 values")
    if seq[-1] != end.base:
        raise UnitError(f"the sequence {items[:at]} ... does not reach {items[-1]} exactly")
    return list(items[:at]) + [_in_start_unit(v, terms[0]) for v in seq[at:]]
