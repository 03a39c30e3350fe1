"""Number formatting shared by every section's report, the callers' table and the chart: figures
with their quartiles (spread, on common.py's median and quartiles) and the one report writer
(write_report)."""
from .common import log, median, quartiles


def num(v):
    """v as a float, or None (missing, "", "n/a", "1-2")."""
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def f3(v):
    """A figure as the report prints it: floats with 3 decimals, the rest as they are."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def ratio(a, b):
    a, b = num(a), num(b)
    return a / b if a is not None and b else None


def check(v, op, target):
    """"met" or "**missed**" (op: le, ge, eq); "n/a" without a value."""
    v = num(v)
    if v is None:
        return "n/a"
    ok = v <= target if op == "le" else v >= target if op == "ge" else v == target
    return "met" if ok else "**missed**"


def pct(v):
    """A ratio as a signed percentage: 1.038 -> "+3.8 %"."""
    v = num(v)
    return "n/a" if v is None else f"{(v - 1) * 100:+.1f} %"


def fold(text, width=100):
    """Lines broken at spaces as `fold -s -w WIDTH` breaks them (a line holds at most width
    characters with the space after it, the last at most width)."""
    lines, line = [], ""
    words = text.split(" ")
    for i, word in enumerate(words):
        limit = width if i == len(words) - 1 else width - 1
        if line and len(line) + 1 + len(word) > limit:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)


def spread(values, fmt="{:.2f}"):
    """"MEDIAN (P25-P75)" of VALUES, each number as FMT; one value alone; "-" for none."""
    v = list(values)
    if not v:
        return "-"
    q = quartiles(v)
    return fmt.format(median(v)) + (f" ({fmt.format(q[0])}-{fmt.format(q[1])})" if q else "")


def fmt_median(values, fmt="{:.2f}"):
    """The median of VALUES as FMT, "-" for none."""
    m = median(values)
    return "-" if m is None else fmt.format(m)


def write_report(out, name, title, md, write=True):
    """A section's report: TITLE + MD printed, and (with WRITE) written to the file NAME in the
    directory OUT."""
    print(title + md, end="", flush=True)
    if write:
        (out / name).write_text(title + md)
        log(f"wrote {out}/{name}")
