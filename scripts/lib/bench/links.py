"""--section links: device links cached per GPU target (issue 36): a fresh build directory's link,
an added target and the miss's cost, each against the uncached link, paired rounds per stack.

Each stack runs links_stack.py (what it measures and how: its docstring): debian12 on the host
with BUILD_DIR's shimctl, sid and sid23 inside scripts/make-sid-root's root (scripts/sid-run)
with SID_BUILD_DIR's. Environment: BENCH_LINKS_ROUNDS (default 5, --quick 1), BENCH_LINKS_STACKS
(default "debian12 sid sid23"), SID_BUILD_DIR, SHIMCTL_SID_ROOT. Nothing is gated on time.
"""
import os

from .common import BenchError, loadavg, log, run_in_sid, run_stack, sid_build_binds, sid_paths, stack_module, tsv
from .report_util import fmt_median, spread, write_report

STEPS = [  # (step, what, goal)
    ("fresh", "a fresh build directory, {A,B}: every device link a hit", "<= 0.05"),
    ("add", "a third target, {A,B,C}: A, B hits, C linked", "<= 1/3 + the fixed steps"),
    ("miss", "the first link, {A,B}: every device link linked and kept (the miss's cost)", "~ 1.00"),
]


def section_links(b):
    rounds = int(os.environ.get("BENCH_LINKS_ROUNDS") or (1 if b.quick else 5))
    stacks = os.environ.get("BENCH_LINKS_STACKS", "debian12 sid sid23").split()
    load_start = loadavg()
    for stack in stacks:
        work = b.W / f"links-{stack}"
        if stack == "debian12":
            log(f"links: debian12, {rounds} rounds (shimctl: {b.build})")
            run_stack("links", ["env", *stack_module(b, "links_stack", stack, work, b.shimctl, rounds)])
        elif stack in ("sid", "sid23"):
            sid_root, sid_build = sid_paths(b)
            if not os.access(sid_build / "installer/shimctl", os.X_OK):
                raise BenchError(f"no shimctl build in {sid_build} (SID_BUILD_DIR)")
            log(f"links: {stack}, {rounds} rounds (shimctl: {sid_build}, root {sid_root})")
            run_in_sid(b, "links", sid_build_binds(b, sid_build),
                       stack_module(b, "links_stack", stack, work, sid_build / "installer/shimctl", rounds))
        else:
            raise BenchError(f"BENCH_LINKS_STACKS: unknown stack {stack} (debian12, sid, sid23)")
    info = {"started": b.get("bench.started"), "load_start": load_start, "load_end": loadavg(),
            "machine": f"{os.cpu_count()} cores, {b.get('machine.cpu')}", "rounds": rounds}
    md = report(info, [read_stack(b.W / f"links-{s}", s) for s in stacks if (b.W / f"links-{s}").is_dir()])
    title = f"# Device links per GPU target (scripts/bench --section links{' --quick' if b.quick else ''}, {info['started']})\n\n"
    write_report(b.out, "LINKS.md", title, md)
    return md


def read_stack(work, stack):
    info = dict(l[:2] for l in tsv(work / "info") if len(l) >= 2)
    times, links, cmp = {}, {}, {}
    for step, r, side, s in (l[:4] for l in tsv(work / "times.tsv") if len(l) >= 4):
        times.setdefault((step, side), {})[r] = float(s)
    for step, r, h, m in (l[:4] for l in tsv(work / "links.tsv") if len(l) >= 4):
        links.setdefault(step, []).append(f"{h} hit / {m} linked")
    for step, r, v in (l[:3] for l in tsv(work / "cmp.tsv") if len(l) >= 3):
        cmp.setdefault(step, []).append(v)
    return {"stack": stack, "info": info, "times": times, "links": links, "cmp": cmp}


def report(info, stacks):
    L = [f"{info['machine']}; load (1/5/15 min) {info['load_start']} at the start, {info['load_end']} at the end. "
         f"Paired rounds ({info['rounds']}; both sides in every round, the order alternating): wall seconds, medians "
         "over rounds; ratio: the median of the per-round ratios shim / uncached (p25-p75). Uncached: the same "
         "prefix's clang++ with `SHIMCTL_DISABLE=1`. Device links: the shim side's, from its trace. cmp: the shim's "
         "program against the uncached one of the same round and step.", ""]
    for s in stacks:
        i = s["info"]
        L.append(f"- {s['stack']}: {i.get('toolchain', '?')}; targets A B C = {i.get('targets', '?')}; "
                 f"{i.get('program', '?')}")
    L += ["", "| stack | step | shim s | uncached s | shim / uncached (p25-p75) | goal | device links | cmp |",
          "|---|---|---|---|---|---|---|---|"]
    for s in stacks:
        for step, what, goal in STEPS:
            a, u = s["times"].get((step, "shim"), {}), s["times"].get((step, "uncached"), {})
            if not a or not u:
                continue
            ratios = [a[r] / u[r] for r in a if r in u and u[r] > 0]
            kinds = sorted(set(s["links"].get(step, [])))
            c = s["cmp"].get(step, [])
            L.append(f"| {s['stack']} | {what} | {fmt_median(a.values())} | "
                     f"{fmt_median(u.values())} | {spread(ratios, '{:.3f}')} | {goal} | {', '.join(kinds) or '-'} | "
                     f"{c.count('same')}/{len(c)} same |")
    return "\n".join(L) + "\n"
