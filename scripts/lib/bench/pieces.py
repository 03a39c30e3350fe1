"""--section pieces: what the per-GPU-target pieces (issue 25) save when a HIP source is compiled
again for another target set, and what they cost on a whole hit and on a cold miss.

Each stack runs pieces_stack.py (what it measures and how: its docstring): debian12 on
the host with BUILD_DIR's shimctl (make-rocm-prefix --llvm 15: clang-15, ccache 4.7.5; targets
gfx908,gfx90a + gfx1030), sid and sid23 inside scripts/make-sid-root's root (scripts/sid-run) with
SID_BUILD_DIR's (sid: clang-21, the old offload driver; sid23: clang-23, the new one; ccache
4.14.2; gfx90a,gfx942 + gfx1100). Kernels: small (one math kernel) and heavy (15 instantiations
of a templated kernel), and project (issue 44: a generated CMake HIP project with two TUs without
kernels, {A,B} then a fresh build dir for {A,B,C}; pieces_project.py). The bytes table (issue 44;
pieces_bytes.py): one compile per empty cache directory, pieces on / SHIMCTL_PIECES=0, for 2, 3
and 8 targets of each kernel.

Reported per stack, kernel and step: the median of each side over the paired rounds, the median of
the per-round ratios shim / reference with p25-p75, the pieces' counts of the shim side (hit/miss
per compile, from CACHE/shimctl-pieces) and cmp of every shim object with the reference's. The
whole hit: paired hyperfine rounds, pieces on / SHIMCTL_PIECES=0, and ccache's stats_log counts.

Environment: BENCH_PIECES_ROUNDS (default 5, --quick 1), BENCH_PIECES_KERNELS (default "small
heavy project", --quick "small"), BENCH_PIECES_HIT_RUNS (default 5, --quick 3), BENCH_PIECES_STACKS
(default "debian12 sid sid23"), BENCH_PIECES_BYTES (the bytes table's kernels: default "small
heavy", --quick "small"; "none": no table), BENCH_PIECES_BYTES_TARGETS (default "2 3 8"),
BENCH_PIECES_PROJECT_UNITS (the project's kernel TUs, default 12), BENCH_PIECES_PROJECT_JOBS
(ninja -j, default the CPUs), SID_BUILD_DIR (default <repo>/build-sid; a build outside the checkout is
bound into the root with its sources), SHIMCTL_SID_ROOT (default /var/cache/shimctl/sid-root).
Not measured here: ggml (issue 15's --section ggml) for two target sets. Nothing is gated on time.
"""
import json
import os

from . import pieces_bytes
from .common import (BenchError, host_hyperfine, loadavg, log, run_in_sid, run_stack, sid_build_binds, sid_paths,
                     stack_module, tsv)
from .report_util import fmt_median, spread, write_report

STEPS = [  # (step, reference side, what)
    ("add", "uncached", "add one target: {A,B} cached, then {A,B,C}; shim / uncached {A,B,C}"),
    ("overlap", "uncached", "overlapping set: {A,B} cached, then {B,C}; shim / uncached {B,C}"),
    ("grow", "uncached", "grow a set: {A} cached, then {A,B}; shim / uncached {A,B}"),
    ("cold", "cold-nopieces", "cold miss {A,B}: pieces on / SHIMCTL_PIECES=0 (both through the shim, empty caches)"),
]


def settings(quick):
    env = lambda k, d: os.environ.get(k) or d
    return (int(env("BENCH_PIECES_ROUNDS", 1 if quick else 5)),
            env("BENCH_PIECES_KERNELS", "small" if quick else "small heavy project"),
            int(env("BENCH_PIECES_HIT_RUNS", 3 if quick else 5)))


def bytes_settings(quick):
    """The bytes table's kernels ("none": no table) and target counts."""
    kernels = os.environ.get("BENCH_PIECES_BYTES") or ("small" if quick else "small heavy")
    counts = os.environ.get("BENCH_PIECES_BYTES_TARGETS") or "2 3 8"
    if kernels == "none":
        return [], []
    if any(k not in ("small", "heavy") for k in kernels.split()):
        raise BenchError(f"BENCH_PIECES_BYTES: {kernels} (small, heavy or none)")
    if any(not c.isdigit() or not 2 <= int(c) <= 8 for c in counts.split()):
        raise BenchError(f"BENCH_PIECES_BYTES_TARGETS: {counts} (numbers from 2 to 8)")
    return kernels.split(), counts.split()


def section_pieces(b):
    rounds, kernels, hit_runs = settings(b.quick)
    bytes_kernels, bytes_counts = bytes_settings(b.quick)
    extra = [" ".join(bytes_kernels), " ".join(bytes_counts)] if bytes_kernels else []
    stacks = os.environ.get("BENCH_PIECES_STACKS", "debian12 sid sid23").split()
    load_start = loadavg()
    for stack in stacks:
        work = b.W / f"pieces-{stack}"
        if stack == "debian12":
            log(f"pieces: debian12, {rounds} rounds of {kernels}, bytes of {bytes_kernels or 'none'} (shimctl: {b.build})")
            run_stack("pieces", ["env", *stack_module(b, "pieces_stack", stack, work, b.shimctl, rounds, kernels,
                                                      hit_runs, *extra)])
        elif stack in ("sid", "sid23"):
            run_sid(b, stack, work, rounds, kernels, hit_runs, extra)
        else:
            raise BenchError(f"BENCH_PIECES_STACKS: unknown stack {stack} (debian12, sid, sid23)")
    info = {"started": b.get("bench.started"), "load_start": load_start, "load_end": loadavg(),
            "machine": f"{os.cpu_count()} cores, {b.get('machine.cpu')}", "rounds": rounds, "hit_runs": hit_runs}
    md = report(info, [read_stack(b.W / f"pieces-{s}", s) for s in stacks if (b.W / f"pieces-{s}").is_dir()])
    b.put("pieces.md", md)
    title = f"# Per-target pieces (scripts/bench --section pieces{' --quick' if b.quick else ''}, {info['started']})\n\n"
    write_report(b.out, "PIECES.md", title, md)
    return md


def run_sid(b, stack, work, rounds, kernels, hit_runs, extra):
    sid_root, sid_build = sid_paths(b)
    if not os.access(sid_root / "bin/sh", os.X_OK):
        raise BenchError(f"no sid root at {sid_root}: run scripts/make-sid-root {sid_root}")
    if not os.access(sid_build / "installer/shimctl", os.X_OK):
        raise BenchError(f"no shimctl build in {sid_build} (SID_BUILD_DIR; see scripts/lib/bench/cold.py, 'Builds')")
    binds = sid_build_binds(b, sid_build)
    log(f"pieces: {stack}, {rounds} rounds of {kernels} (shimctl: {sid_build}, root {sid_root})")
    run_in_sid(b, "pieces", binds, [host_hyperfine(b), *stack_module(b, "pieces_stack", stack, work,
                                                                     sid_build / "installer/shimctl", rounds, kernels,
                                                                     hit_runs, *extra)])


def read_stack(work, stack):
    """One stack: info, times {(kernel, step, side): {round: s}}, pieces, cmp, whole-hit times and counts."""
    info = dict(l[:2] for l in tsv(work / "info") if len(l) >= 2)
    times, pieces, cmp = {}, {}, {}
    for k, step, r, side, s in (l[:5] for l in tsv(work / "times.tsv") if len(l) >= 5):
        times.setdefault((k, step, side), {})[r] = float(s)
    for l in (l for l in tsv(work / "pieces.tsv") if len(l) >= 6):
        k, step, r, h, m, sp = l[:6]
        dv, tc = (int(l[6]), int(l[7])) if len(l) >= 8 else (0, 0)
        pieces.setdefault((k, step), []).append((int(h), int(m), int(sp), dv, tc))
    cmp_round = {}
    for k, step, r, v in (l[:4] for l in tsv(work / "cmp.tsv") if len(l) >= 4):
        cmp.setdefault((k, step), []).append(v)
        cmp_round.setdefault((k, step, r), []).append(v)
    hits = {}
    for d in sorted(work.glob("hit-*")):
        k = d.name[4:]
        t, ratios = {}, []
        for f in sorted((d / "json").glob("r*.json")):
            med = {}
            for res in json.loads(f.read_text())["results"]:
                t.setdefault(res["command"], []).extend(x * 1e3 for x in res["times"])
                med[res["command"]] = res["median"]
            if "pieces" in med and "nopieces" in med:
                ratios.append(med["pieces"] / med["nopieces"])
        hits[k] = {"times": t, "ratios": ratios}
    hitcounts = {(l[0], l[1]): l[2].split() for l in tsv(work / "hitcounts.tsv") if len(l) >= 3}
    project = [l for l in tsv(work / "project.tsv") if len(l) >= 5]
    return {"stack": stack, "info": info, "times": times, "pieces": pieces, "cmp": cmp, "hits": hits,
            "hitcounts": hitcounts, "cmp_round": cmp_round, "project": project, "bytes": [l for l in tsv(work / "bytes.tsv") if len(l) >= 14]}


def pieces_text(p):
    """The shim side's piece counts: per-compile hit/miss, as 'HhMm' with how many compiles."""
    if not p:
        return "-"
    kinds = {}
    for x in p:
        kinds[x] = kinds.get(x, 0) + 1
    return ", ".join(f"{n}x derived, {tc} compiled" if dv else f"{n}x {h} hit / {m} miss{'' if s else ', not split'}"
                     for (h, m, s, dv, tc), n in sorted(kinds.items()))


def report(info, stacks):
    L = [f"{info['machine']}; load (1/5/15 min) {info['load_start']} at the start, {info['load_end']} at the end: "
         "the machine is shared, so each time is noisy; the pairing (both sides in every round, the order "
         "alternating) is what makes the ratios comparable.", ""]
    for s in stacks:
        i = s["info"]
        L.append(f"- {s['stack']}: {i.get('toolchain', '?')}; {i.get('ccache', '?')}; {i.get('shimctl', '?')}; "
                 f"targets A B C = {i.get('targets', '?')}; compile `{i.get('compile', '?')}`; the warm-up's "
                 f"{i.get('check', 'first split: no check line')}")
    L += ["", "### Another target set for a cached source", "",
          f"Paired rounds ({info['rounds']} per kernel, a new source each round): wall seconds, medians over rounds; "
          "ratio: the median of the per-round ratios (p25-p75). Uncached: the same prefix's clang++ with "
          "`SHIMCTL_DISABLE=1`. Pieces: the shim side's counts per compile (CACHE/shimctl-pieces). cmp: the shim's "
          "object against the reference's of the same target set. Floor: the new target's device code alone, "
          "uncached (`--cuda-device-only`, measured in the same round): what any per-target cache must still "
          "compile; floor / reference is the least ratio a cache can reach for that step. Driver's floor (the new "
          "offload driver, sid23): the new target's jobs as its one-step compile runs them (device bitcode, then the "
          "linker wrapper's LTO link and bundle; the uncached one-step compile for that target less its "
          "`--cuda-host-only` compile, the same round): what a cache that gives the one-step compile's bytes must "
          "still run.", "",
          "| stack | kernel | step | shim s | reference s | shim / reference (p25-p75) | floor s | floor / reference "
          "| driver's floor s | driver's floor / reference | pieces | cmp |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in stacks:
        kernels = sorted({k for (k, _, _) in s["times"] if k}, key=lambda k: ("small", "heavy", "project").index(k)
                         if k in ("small", "heavy", "project") else 9)
        for k in kernels:
            for step, ref, what in STEPS:
                a = s["times"].get((k, step, "shim"), {})
                r = s["times"].get((k, ref if ref != "uncached" else step, "shim" if ref != "uncached" else "uncached"), {})
                if not a or not r:
                    continue
                ratios = [a[x] / r[x] for x in a if x in r and r[x] > 0]
                c = s["cmp"].get((k, step), [])
                f = s["times"].get((k, step, "floor"), {})
                floor_ratios = [f[x] / r[x] for x in f if x in r and r[x] > 0]
                g = s["times"].get((k, step, "driver-floor"), {})
                driver_ratios = [g[x] / r[x] for x in g if x in r and r[x] > 0]
                driver = f"{fmt_median(g.values())} | {spread(driver_ratios)}" if g else "- | -"
                if k == "project":
                    what = PROJECT_WHAT
                L.append(f"| {s['stack']} | {k} | {what} | {fmt_median(a.values())} | "
                         f"{fmt_median(r.values())} | {spread(ratios)} | {fmt_median(f.values())} | {spread(floor_ratios)} | "
                         f"{driver} | "
                         f"{pieces_text(s['pieces'].get((k, step)))} | {c.count('same')}/{len(c)} same |")
    if any(h["times"] for s in stacks for h in s["hits"].values()):
        L += whole_hit_report(info, stacks)
    L += project_report(stacks)
    L += pieces_bytes.report(stacks)
    return "\n".join(L) + "\n"


def whole_hit_report(info, stacks):
    L = ["", "### A whole-object hit: pieces on / SHIMCTL_PIECES=0", "",
          f"The last round's {{A,B,C}} compile again (a hit in its cache), paired hyperfine rounds ({info['rounds']} "
          f"rounds, {info['hit_runs']} runs and a warm-up of each side per round, the order alternating): ms, "
          "medians over all runs; ratio: the median of the per-round ratios (p25-p75). Counts: compiles / hits / "
          "misses in ccache's stats_log over all runs, warm-ups included.", "",
          "| stack | kernel | pieces on ms | SHIMCTL_PIECES=0 ms | on / off (p25-p75) | counts on | counts off |",
          "|---|---|---|---|---|---|---|"]
    for s in stacks:
        for k, h in s["hits"].items():
            t = h["times"]
            if not t.get("pieces") or not t.get("nopieces"):
                continue
            c = lambda side: "/".join(s["hitcounts"].get((k, side), ["-"]))
            L.append(f"| {s['stack']} | {k} | {fmt_median(t['pieces'], '{:.0f}')} | {fmt_median(t['nopieces'], '{:.0f}')} | "
                     f"{spread(h['ratios'])} | {c('pieces')} | {c('nopieces')} |")
    return L


PROJECT_WHAT = ("a CMake project (hipcc -O3 -std=c++17 -MD -MT -MF, 2 TUs without kernels first) built for {A,B}, "
                "then a fresh build dir for {A,B,C}; shim / uncached {A,B,C} build")


def project_report(stacks):
    """The project kernel's own table: per stack, the rounds' ratios, whether every TU derived its object
    from its {A,B} one (trace and counters), the counters' delta of the {A,B,C} build."""
    rows = [(s, l) for s in stacks for l in s.get("project", [])]
    if not rows:
        return []
    L = ["", "### A CMake project: a third target from a fresh build directory", "",
         "scripts/gen-hip-project (kernel TUs src/unit_NNN.hip and 2 host-only TUs src/a_host_NN.hip, which compile "
         "first), configured with `-G Ninja -DBENCH_LANG=CXX -DCMAKE_CXX_COMPILER=PREFIX/bin/hipcc "
         "-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17`: built for {A,B} through the shim into an empty cache "
         "(fill), then, paired in alternating order, a fresh build dir for {A,B,C} through the shim against that cache "
         "and a fresh one uncached (`SHIMCTL_DISABLE=1`); the builds (ninja -j NPROC) timed, not the configures. "
         "Derived: from the {A,B,C} build's trace (each TU's lines under its ninja status line) and the delta of "
         "CACHE/shimctl-pieces: every kernel TU's trace says `object derived from the A,B object`, every kernel-less "
         "TU's `object: the A,B object as it is`, derived and target_compiled +TUs, lookup_miss +0.", "",
         "| stack | round | fill s | shim s | uncached s | shim / uncached | CPU s: shim / uncached | CPU ratio | "
         "every TU derived from its {A,B} object | trace | counters' delta | cmp |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s, l in rows:
        r, delta, traced, reused, fill = l[:5]
        a = s["times"].get(("project", "add", "shim"), {}).get(r)
        u = s["times"].get(("project", "add", "uncached"), {}).get(r)
        mine = s["cmp_round"].get(("project", "add", r), [])
        ac = s["times"].get(("project", "add", "shim-cpu"), {}).get(r)
        uc = s["times"].get(("project", "add", "uncached-cpu"), {}).get(r)
        if a is None or u is None:
            continue
        cpu = f"{ac:.1f} / {uc:.1f} | {ac / uc:.2f}" if ac and uc else "- | -"
        tr = dict(x.split("=", 1) for x in traced.split() if "=" in x)
        traced = (f"kernel TUs: {tr.get('kernel_derived', '?')}/{tr.get('kernel_tus', '?')} derived; without "
                  f"kernels: {tr.get('kernelless_as_it_was', '?')}/{tr.get('kernelless_tus', '?')} as they were")
        L.append(f"| {s['stack']} | {r} | {float(fill):.1f} | {a:.1f} | {u:.1f} | {a / u:.2f} | {cpu} | "
                 f"{'yes' if reused == 'yes' else '**NO**'} | {traced} | {delta} | {mine.count('same')}/{len(mine)} same |")
    for s in stacks:
        t = s["times"]
        ratio = lambda x, y: [t[("project", "add", x)][r] / t[("project", "add", y)][r]
                              for r in t.get(("project", "add", x), {}) if t.get(("project", "add", y), {}).get(r)]
        if len(s.get("project", [])) > 1:
            c = s["cmp"].get(("project", "add"), [])
            L.append(f"| {s['stack']} | median of {len(s['project'])} | - | {fmt_median(t[('project', 'add', 'shim')].values(), '{:.1f}')} | "
                     f"{fmt_median(t[('project', 'add', 'uncached')].values(), '{:.1f}')} | "
                     f"**{spread(ratio('shim', 'uncached'))}** | - | {spread(ratio('shim-cpu', 'uncached-cpu'))} | "
                     f"{sum(l[3] == 'yes' for l in s['project'])}/{len(s['project'])} rounds | - | - | "
                     f"{c.count('same')}/{len(c)} same |")
    return L


def section_md(r):
    """The section of BENCHMARKS.md (when a full run includes it)."""
    return f"\n## Per-target pieces (scripts/bench --section pieces)\n\n{r['pieces.md']}" if r.get("pieces.md") else ""
