"""--section links: device links cached per GPU target (issue 36): a fresh build directory's link,
an added target and the miss's cost, each against the uncached link, paired rounds per stack.

Each stack runs links_stack.py (what it measures and how: its docstring): debian12 on the host
with BUILD_DIR's shimctl, sid and sid23 inside scripts/make-sid-root's root (scripts/sid-run)
with SID_BUILD_DIR's. Environment: BENCH_LINKS_ROUNDS (default 5, --quick 1), BENCH_LINKS_STACKS
(default "debian12 sid sid23"), SID_BUILD_DIR, SHIMCTL_SID_ROOT. Nothing is gated on time.
"""
import os
import statistics

from .common import BenchError, loadavg, log, run_in_sid, run_stack, sid_build_binds, sid_paths, tsv

STEPS = [  # (step, what, goal)
    ("fresh", "a fresh build directory, {A,B}: every device link a hit", "<= 0.05"),
    ("add", "a third target, {A,B,C}: A, B hits, C linked", "<= 1/3 + the fixed steps"),
    ("miss", "the first link, {A,B}: every device link linked and kept (the miss's cost)", "~ 1.00"),
]


def section_links(b):
    rounds = int(os.environ.get("BENCH_LINKS_ROUNDS") or (1 if b.quick else 5))
    stacks = os.environ.get("BENCH_LINKS_STACKS", "debian12 sid sid23").split()
    nice = ["nice", "-n", str(b.nice)]
    load_start = loadavg()
    module = ["env", f"PYTHONPATH={b.scripts / 'lib'}", *nice, "python3", "-m", "bench.links_stack"]
    for stack in stacks:
        work = b.W / f"links-{stack}"
        if stack == "debian12":
            log(f"links: debian12, {rounds} rounds (shimctl: {b.build})")
            run_stack("links", [*module, stack, work, b.shimctl, rounds])
        elif stack in ("sid", "sid23"):
            sid_root, sid_build = sid_paths(b)
            if not os.access(sid_build / "installer/shimctl", os.X_OK):
                raise BenchError(f"no shimctl build in {sid_build} (SID_BUILD_DIR)")
            log(f"links: {stack}, {rounds} rounds (shimctl: {sid_build}, root {sid_root})")
            run_in_sid(b, "links", sid_build_binds(b, sid_build),
                       [f"PYTHONPATH={b.scripts / 'lib'}", *nice, "python3", "-m", "bench.links_stack", stack, work,
                        sid_build / "installer/shimctl", rounds])
        else:
            raise BenchError(f"BENCH_LINKS_STACKS: unknown stack {stack} (debian12, sid, sid23)")
    info = {"started": b.get("bench.started"), "load_start": load_start, "load_end": loadavg(),
            "machine": f"{os.cpu_count()} cores, {b.get('machine.cpu')}", "rounds": rounds}
    md = report(info, [read_stack(b.W / f"links-{s}", s) for s in stacks if (b.W / f"links-{s}").is_dir()])
    title = f"# Device links per GPU target (scripts/bench --section links{' --quick' if b.quick else ''}, {info['started']})\n\n"
    print(title + md, end="", flush=True)
    (b.out / "LINKS.md").write_text(title + md)
    log(f"wrote {b.out}/LINKS.md")
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


def spread(v):
    if not v:
        return "-"
    if len(v) < 2:
        return f"{v[0]:.3f}"
    q = statistics.quantiles(v, n=4)
    return f"{statistics.median(v):.3f} ({q[0]:.3f}-{q[2]:.3f})"


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
            L.append(f"| {s['stack']} | {what} | {statistics.median(a.values()):.2f} | "
                     f"{statistics.median(u.values()):.2f} | {spread(ratios)} | {goal} | {', '.join(kinds) or '-'} | "
                     f"{c.count('same')}/{len(c)} same |")
    return "\n".join(L) + "\n"
