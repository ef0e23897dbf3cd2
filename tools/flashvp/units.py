# SPDX-License-Identifier: BSD-3-Clause
"""Values with units as vp-server spells them (3us, 4KiB, 800MHz, 8GT/s),
exact arithmetic on them for ranges, and the range forms a grid accepts:

- ``"3us..9us step 1us"``: from, to (inclusive), step; a unitless
  ``"1..8"`` steps by 1;
- a list with ``...``: ``[1, 2, 4, ..., 256]`` continues the difference
  (or else the ratio) of the terms before it up to the last term, which it
  must reach exactly; two terms are read as a difference (``[1, 2, ..., 8]``
  is 1 to 8), so a doubling needs three (``[1, 2, 4, ...]``).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

# unit -> (dimension, factor to the dimension's base unit)
UNITS: dict[str, tuple[str, Fraction]] = {
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
    "MT/s": ("rate", Fraction(10**6)),
    "GT/s": ("rate", Fraction(10**9)),
}

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]*)\s*$")
_RANGE = re.compile(r"^\s*(\S+?)\s*\.\.\s*(\S+?)(?:\s+step\s+(\S+))?\s*$")
ELLIPSIS = "..."


class UnitError(ValueError):
    """A value or range that cannot be read; the message says why."""


@dataclass(frozen=True)
class Quantity:
    value: Fraction  # in the unit below
    unit: str  # "" for a plain number

    @property
    def dimension(self) -> str:
        return UNITS[self.unit][0] if self.unit else ""

    @property
    def base(self) -> Fraction:
        return self.value * (UNITS[self.unit][1] if self.unit else 1)

    def in_unit(self, unit: str) -> "Quantity":
        return Quantity(self.base / (UNITS[unit][1] if unit else 1), unit)

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


def parse_quantity(text: object) -> Quantity:
    """A number, or a number and one of UNITS; UnitError otherwise."""
    if isinstance(text, bool):
        raise UnitError(f"{text!r} is not a number")
    if isinstance(text, int):
        return Quantity(Fraction(text), "")
    if isinstance(text, float):
        if not math.isfinite(text):  # YAML's .inf and .nan: no Fraction, no vp-server value
            raise UnitError(f"{text!r} is not a finite number")
        return Quantity(Fraction(str(text)), "")
    m = _QUANTITY.match(str(text))
    if not m:
        raise UnitError(f"{str(text)!r} is not a number with an optional unit")
    number, unit = m.groups()
    if unit and unit not in UNITS:
        raise UnitError(f"{str(text)!r}: unknown unit {unit!r} (known: {', '.join(UNITS)})")
    return Quantity(Fraction(number), unit)


def to_number(text: object) -> float | None:
    """The value of a quantity in its dimension's base unit (ps, bytes,
    Hz, transfers/s) or as a plain number; None when it is not one."""
    try:
        return float(parse_quantity(text).base)
    except UnitError:
        return None


def is_range(text: object) -> bool:
    return isinstance(text, str) and _RANGE.match(text) is not None and ".." in text


def expand_range(text: str) -> list[str | int | float]:
    """``"3us..9us step 1us"`` -> ["3us", "4us", ..., "9us"] (in the first
    value's unit); ``"1..4"`` -> [1, 2, 3, 4]."""
    m = _RANGE.match(text)
    if not m:
        raise UnitError(f"{text!r} is not a range like 3us..9us step 1us")
    start, end = parse_quantity(m.group(1)), parse_quantity(m.group(2))
    if m.group(3) is None:
        if start.unit:
            raise UnitError(f"{text!r}: a range with units needs a step (3us..9us step 1us)")
        step = Quantity(Fraction(1), "")
    else:
        step = parse_quantity(m.group(3))
    dims = {start.dimension, end.dimension, step.dimension}
    if len(dims) != 1:
        raise UnitError(f"{text!r}: from, to and step must be of one kind (got {', '.join(sorted(d or 'plain number' for d in dims))})")
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
    if not start.unit:
        return Quantity(base, "").plain()
    try:
        return Quantity(base / UNITS[start.unit][1], start.unit).text()
    except UnitError:  # not short in the start's unit: its base unit is exact
        return Quantity(base, _base_unit(start.dimension)).text()


def _base_unit(dimension: str) -> str:
    return next(u for u, (d, f) in UNITS.items() if d == dimension and f == 1)


def expand_list(items: list) -> list:
    """A list, with ``...`` continued geometrically or arithmetically."""
    if ELLIPSIS not in items:
        return list(items)
    at = items.index(ELLIPSIS)
    if items.count(ELLIPSIS) > 1 or at < 2 or at != len(items) - 2:
        raise UnitError("'...' goes once, after at least two terms and before the last one ([1, 2, 4, ..., 256])")
    terms = [parse_quantity(x) for x in items[:at]]
    end = parse_quantity(items[-1])
    if len({q.dimension for q in terms + [end]}) != 1:
        raise UnitError("the terms around '...' must be of one kind")
    b = [q.base for q in terms]
    ratios = {b[i + 1] / b[i] for i in range(len(b) - 1)} if all(b) else set()
    diffs = {b[i + 1] - b[i] for i in range(len(b) - 1)}
    if len(diffs) == 1 and next(iter(diffs)) > 0:
        nxt = lambda v, d=next(iter(diffs)): v + d  # noqa: E731
    elif len(ratios) == 1 and next(iter(ratios)) > 1:
        nxt = lambda v, r=next(iter(ratios)): v * r  # noqa: E731
    else:
        raise UnitError(f"the terms {items[:at]} before '...' have neither one ratio above 1 nor one difference above 0")
    seq = list(b)
    while seq[-1] < end.base:
        seq.append(nxt(seq[-1]))
        if len(seq) > 100000:
            raise UnitError("more than 100,000 values")
    if seq[-1] != end.base:
        raise UnitError(f"the sequence {items[:at]} ... does not reach {items[-1]} exactly")
    return list(items[:at]) + [_in_start_unit(v, terms[0]) for v in seq[at:]]
