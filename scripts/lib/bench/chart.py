"""BENCHMARKS.svg, written directly: three panels of horizontal bars with whiskers — the workloads
cold vs warm (seconds, log scale, whiskers min-max over the runs), one warm hit through each way of
calling the cache (ms, whiskers p10-p90), and the floor."""
import math
from xml.sax.saxutils import escape

from .report_util import num

WIDTH, X0, X1 = 920, 331, 773  # the plot area between 36 % and 84 % of the width
FONT = 'font-family="DejaVu Sans, sans-serif"'


def nice_ticks(hi):
    raw = hi / 6
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    return [i * step for i in range(int(hi / step) + 1)]


def panel(y0, title, rows, log, lo, hi, unit):
    """One panel at y0: title, grid, bars (from the axis to the median), whiskers, values."""
    h = 80 + 26 * len(rows)
    top, bottom = y0 + 32, y0 + h - 26
    step = (bottom - top) / max(len(rows), 1)
    if log:
        x = lambda v: X0 + (X1 - X0) * (math.log10(max(v, lo)) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        ticks = [10 ** e for e in range(round(math.log10(lo)), round(math.log10(hi)) + 1)]
    else:
        x = lambda v: X0 + (X1 - X0) * min(v, hi) / hi
        ticks = nice_ticks(hi)
    s = [f'<text x="{(X0 + X1) / 2:.1f}" y="{y0 + 18}" text-anchor="middle" font-size="13" fill="#222222">{escape(title[0])}</text>']
    if len(title) > 1:
        s.append(f'<text x="{(X0 + X1) / 2:.1f}" y="{y0 + 31}" text-anchor="middle" font-size="12" fill="#222222">{escape(title[1])}</text>')
        top += 8
        step = (bottom - top) / max(len(rows), 1)
    for t in ticks:
        xt = x(t)
        s.append(f'<line x1="{xt:.1f}" y1="{top}" x2="{xt:.1f}" y2="{bottom}" stroke="#dddddd" stroke-width="1" stroke-dasharray="2,3"/>')
        s.append(f'<text x="{xt:.1f}" y="{bottom + 15}" text-anchor="middle" font-size="11" fill="#222222">{t:g} {unit}</text>')
    s.append(f'<polyline points="{X0},{top} {X0},{bottom} {X1},{bottom}" fill="none" stroke="#888888" stroke-width="1"/>')
    for i, (label, med, low, high, color, text) in enumerate(rows):
        yc = top + step * (i + 0.5)
        bh = min(step * 0.72, 20)
        x_base = X0 if not log else x(lo)
        s.append(f'<rect x="{x_base:.1f}" y="{yc - bh / 2:.1f}" width="{max(x(med) - x_base, 0.5):.1f}" height="{bh:.1f}" '
                 f'fill="{color}" fill-opacity="0.9" stroke="none"/>')
        low, high = (low if low is not None else med), (high if high is not None else med)
        xl, xh = x(low), x(high)
        s.append(f'<path d="M{xl:.1f},{yc:.1f}H{xh:.1f}M{xl:.1f},{yc - 4:.1f}V{yc + 4:.1f}M{xh:.1f},{yc - 4:.1f}V{yc + 4:.1f}" '
                 f'stroke="#333333" stroke-width="1" fill="none"/>')
        s.append(f'<text x="{xh + 6:.1f}" y="{yc + 4:.1f}" font-size="10" fill="#222222">{escape(text)}</text>')
        s.append(f'<text x="{X0 - 8}" y="{yc + 4:.1f}" text-anchor="end" font-size="11" fill="#222222">{escape(label)}</text>')
    return h, s


def chart(r, path):
    v = lambda k: num(r.get(k))
    sec = lambda k: v(k) / 1000 if v(k) is not None else None
    work = []
    for label, k, color in [
            (f"project, {r.get('build.units', '?')} units: cold (empty cache)", "build.cold", "#c0504d"),
            ("project: warm, fresh build dir", "build.warm", "#4f81bd"),
            (f"project: after a header change ({r.get('build.header.misses', '?')} misses)", "build.header", "#9bbb59"),
            (f"JIT, {r.get('jit.kernels', '?')} kernels: pass 1 (cold)", "jit.pass1", "#c0504d"),
            ("JIT: pass 2 (fresh temp dirs)", "jit.pass2", "#4f81bd"),
            ("JIT: pass 3 (absolute paths, base_dir)", "jit.pass3", "#8064a2"),
            ("install with verification", "install.install_verify", "#7f7f7f"),
            ("install --no-verify", "install.install_noverify", "#a5a5a5"),
            ("rollback", "install.rollback", "#a5a5a5")]:
        if sec(k + ".median") is None:
            continue
        work.append((label, sec(k + ".median"), sec(k + ".min"), sec(k + ".max"), color,
                     f"{sec(k + '.median'):.2f} s (n={r.get(k + '.n', '?')})"))
    vals = [x for row in work for x in row[1:4] if x]
    lo = 10 ** math.floor(math.log10(min(vals) * 0.8)) if vals else 0.01
    hi = 10 ** math.ceil(math.log10(max(vals) * 1.6)) if vals else 100
    hits = []
    for label, k, color in [
            ("(a) ccache hipcc.real, no identity", "hit.a", "#7f7f7f"),
            ("(a0) (a) without the inode cache", "hit.a0", "#d0d0d0"),
            ("(a') ccache hipcc.real + EXTRAFILES", "hit.a_id", "#a5a5a5"),
            ("(b) shim, identity off", "hit.b", "#4f81bd"),
            ("(c) bash wrapper exec ccache", "hit.c", "#c0504d"),
            ("(d) shim as installed: snapshot guard", "hit.d", "#1f497d"),
            ("(e) shim + EXTRAFILES (mechanism b)", "hit.e", "#8064a2")]:
        w = v(k + ".wall")
        if w is None:
            continue
        p = v(k + ".paired_wall")
        hits.append((label, w, v(k + ".wall_p10"), v(k + ".wall_p90"), color,
                     f"{w:.2f} ms" + (f", {p:.3f}x (a)" if p and k != "hit.a" else "")))
    floor = []
    for label, k, color in [
            ("static true, exec'd directly", "floor.true", "#bbbbbb"),
            ("exec-only static stub -> true", "floor.stub", "#999999"),
            ("shim (real config) -> true", "floor.shim", "#4f81bd"),
            ("shim + snapshot guard -> true", "floor.shim_id", "#1f497d")]:
        w = v(k + ".wall")
        if w is not None:
            floor.append((label, w, v(k + ".wall_p10"), v(k + ".wall_p90"), color, f"{w:.3f} ms"))
    t2 = ["One warm hit of a HIP compile (median ms, p10-p90; paired ratio to (a))"]
    db, eb = v("hit_vs_b.d.paired_wall"), v("hit_vs_b.e.paired_wall")
    if db and eb:
        t2.append(f"identity, paired to (b): snapshot guard (d) {db:.3f}x, EXTRAFILES (e) {eb:.3f}x")
    xmax = lambda rows, f: max([(row[3] or row[1]) for row in rows] + [0.001]) * f
    body, y = [], 0
    for title, rows, log, a, b_, unit in (
            (["Wall time (seconds, log scale; median, whiskers min-max)"], work, True, lo, hi, "s"),
            (t2, hits, False, 0, xmax(hits, 1.45), "ms"),
            (["The floor: the shim on its own (median ms, p10-p90)"], floor, False, 0, xmax(floor, 1.3), "ms")):
        if not rows:
            continue
        h, s = panel(y, title, rows, log, a or 1e-3, b_, unit)
        body += s
        y += h
    height = y + 30
    footer = f"{r.get('machine.summary', '')}; {r.get('bench.mode', '')}"
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" {FONT}>',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>', *body,
           f'<text x="9" y="{height - 12}" font-size="9" fill="#666666">{escape(footer)}</text>', "</svg>"]
    path.write_text("\n".join(svg) + "\n")
