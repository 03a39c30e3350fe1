"""--section anywhere: a hit wherever the code sits (issue 42). Per stack, paired rounds of a fresh
checkout at another path against a fresh build dir in the same checkout, with the shim's
location-free paths and with SHIMCTL_ANYWHERE=0 (the absolute paths of before). What each stack
runs: anywhere_stack.py's docstring. Environment: BENCH_ANYWHERE_ROUNDS (default 5, --quick 1),
BENCH_ANYWHERE_STACKS (default "debian12:ccache sid:ccache sid:sccache"), SID_BUILD_DIR,
SHIMCTL_SID_ROOT. Nothing is gated on time.
"""
import os

from .common import BenchError, loadavg, log, run_in_sid, run_stack, sid_build_binds, sid_paths, stack_module, tsv
from .report_util import fmt_median, spread, write_report


def section_anywhere(b):
    rounds = int(os.environ.get("BENCH_ANYWHERE_ROUNDS") or (1 if b.quick else 5))
    legs = os.environ.get("BENCH_ANYWHERE_STACKS", "debian12:ccache sid:ccache sid:sccache").split()
    load_start = loadavg()
    done = []
    for leg in legs:
        stack, _, tool = leg.partition(":")
        work = b.W / f"anywhere-{stack}-{tool}"
        if stack == "debian12":
            log(f"anywhere: debian12 {tool}, {rounds} rounds (shimctl: {b.build})")
            run_stack("anywhere", ["env", *stack_module(b, "anywhere_stack", stack, work, b.shimctl, rounds, tool)])
        elif stack in ("sid", "sid23"):
            sid_root, sid_build = sid_paths(b)
            if not os.access(sid_build / "installer/shimctl", os.X_OK):
                raise BenchError(f"no shimctl build in {sid_build} (SID_BUILD_DIR)")
            log(f"anywhere: {stack} {tool}, {rounds} rounds (shimctl: {sid_build}, root {sid_root})")
            run_in_sid(b, "anywhere", sid_build_binds(b, sid_build),
                       stack_module(b, "anywhere_stack", stack, work, sid_build / "installer/shimctl", rounds, tool))
        else:
            raise BenchError(f"BENCH_ANYWHERE_STACKS: unknown stack {stack} (debian12, sid, sid23)")
        done.append((leg, work))
    info = {"started": b.get("bench.started"), "load_start": load_start, "load_end": loadavg(),
            "machine": f"{os.cpu_count()} cores, {b.get('machine.cpu')}", "rounds": rounds}
    md = report(info, [read_leg(leg, work) for leg, work in done])
    title = f"# A hit wherever the code sits (scripts/bench --section anywhere{' --quick' if b.quick else ''}, {info['started']})\n\n"
    write_report(b.out, "ANYWHERE.md", title, md)
    return md


def read_leg(leg, work):
    info = dict(l[:2] for l in tsv(work / "info") if len(l) >= 2)
    times, counts, cmp = {}, {}, {}
    for mode, r, side, s in (l[:4] for l in tsv(work / "times.tsv") if len(l) >= 4):
        times.setdefault((mode, side), {})[r] = float(s)
    for mode, r, side, h, m in (l[:5] for l in tsv(work / "counts.tsv") if len(l) >= 5):
        counts.setdefault((mode, side), set()).add(f"{h} hits / {m} misses")
    for mode, r, v in (l[:3] for l in tsv(work / "cmp.tsv") if len(l) >= 3):
        cmp.setdefault(mode, set()).add(v)
    return {"leg": leg, "info": info, "times": times, "counts": counts, "cmp": cmp}


def report(info, legs):
    L = [f"{info['machine']}; load (1/5/15 min) {info['load_start']} at the start, {info['load_end']} at the end. "
         f"Paired rounds ({info['rounds']}; both sides in every round, the order alternating): wall seconds of "
         "`ninja` (configure not timed), medians over rounds; ratio: the median of the per-round ratios "
         "elsewhere / here (p25-p75). Here: a fresh build dir in checkout A; elsewhere: a fresh checkout at "
         "another path and depth with its own build dir. anywhere: as installed; absolute: SHIMCTL_ANYWHERE=0 "
         "(the paths as before). cmp: every object of elsewhere against here's.", ""]
    for s in legs:
        i = s["info"]
        L.append(f"- {s['leg']}: {i.get('toolchain', '?')}; {i.get('tool', '?')}; {i.get('units', '?')} HIP units")
    L += ["", "| stack:tool | paths | here s | elsewhere s | elsewhere / here (p25-p75) | goal | here | elsewhere | cmp |",
          "|---|---|---|---|---|---|---|---|---|"]
    for s in legs:
        for mode, goal in (("anywhere", "<= 1.05"), ("absolute", "(as before)")):
            h, e = s["times"].get((mode, "here"), {}), s["times"].get((mode, "elsewhere"), {})
            if not h or not e:
                continue
            ratios = [e[r] / h[r] for r in e if r in h and h[r] > 0]
            L.append(f"| {s['leg']} | {mode} | {fmt_median(h.values())} | {fmt_median(e.values())} | "
                     f"{spread(ratios, '{:.2f}')} | {goal} | {', '.join(sorted(s['counts'].get((mode, 'here'), [])))} | "
                     f"{', '.join(sorted(s['counts'].get((mode, 'elsewhere'), [])))} | "
                     f"{', '.join(sorted(s['cmp'].get(mode, [])))} |")
    return "\n".join(L) + "\n"
