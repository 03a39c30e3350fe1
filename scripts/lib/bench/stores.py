"""--section stores: a remote hit from each team store against a local hit, and the fleet's hit
rates (issue 24 item 6).

Each stack runs stores_stack.py (what it measures and how: its docstring; the servers and the fleet
started by scripts/lib/bench-stores.bash): debian12 on
the host with BUILD_DIR's shimctl, sid inside scripts/make-sid-root's root (scripts/sid-run) with
SID_BUILD_DIR's. Stores: Debian 12 ccache 4.7.5 x {Redis, Redis with a password, three sharded
Redis, WebDAV}; sid ccache 4.14.2 x {Redis, WebDAV}; sid sccache 0.17, its local disk cache x
{Redis, WebDAV, S3, Redis Cluster}. Servers: tests/integration/lib-stores.bash on 127.0.0.1. The
fleet: tests/integration/lib-fleet.bash's fleet_test per tool and store (six machines).

Per store, paired rounds (one hyperfine invocation each, both sides, the order alternating):
reported are the median of each side over every run, the median over rounds of the ratio of the
round's medians remote / local (and its quartiles: this machine's noise), and the counts that
show each side was what it says (ccache's stats_log, sccache's server statistics). With the
debian12 stack, the probe's cost on a healthy store too (scripts/bench-store-health: store health
on against the same install without its store line, paired rounds).

Environment: BENCH_STORES_ROUNDS (default 10, --quick 3), BENCH_STORES_RUNS (runs of each side
per round, default 5, --quick 3), BENCH_STORES_FLEET (units of the fleet's project, default 8,
--quick 2; 0: no fleet), BENCH_STORES_FLEET_STORES (default "redis shards webdav s3", --quick
"redis": each tool on those it takes), BENCH_STORES_STACKS (default "debian12 sid"), BENCH_STORES_ONLY (store
ids: ccache-redis ... sccache-cluster, fleet-ccache-redis ...), SID_BUILD_DIR (default
<repo>/build-sid), SHIMCTL_SID_ROOT (default /var/cache/shimctl/sid-root). Nothing is gated on
time: a store that fails is reported as failed.
"""
import json
import os
import subprocess
from pathlib import Path

from .common import (BenchError, host_hyperfine, loadavg, log, run_in_sid, run_stack, sid_build_binds, sid_paths,
                     stack_module, tsv)
from .report_util import fmt_median, spread, write_report

STORE_NAMES = {"redis": "Redis", "redis-pw": "Redis, requirepass", "shards": "3 sharded Redis (ccache's shards)",
               "webdav": "WebDAV (nginx)", "s3": "S3 (s3rver)", "cluster": "Redis Cluster (3 masters)"}
S3RVER = Path("/var/cache/shimctl/s3rver")


def settings(quick):
    env = lambda k, d: int(os.environ.get(k) or d)
    return (env("BENCH_STORES_ROUNDS", 3 if quick else 10), env("BENCH_STORES_RUNS", 3 if quick else 5),
            env("BENCH_STORES_FLEET", 2 if quick else 8),
            os.environ.get("BENCH_STORES_FLEET_STORES") or ("redis" if quick else "redis shards webdav s3"))


def section_stores(b):
    """Runs the stacks, puts stores.md (the tables) into the results, writes STORES.md unless the
    full run (whose BENCHMARKS.md gets the same section); returns the markdown."""
    rounds, runs, fleet, fleet_stores = settings(b.quick)
    stacks = os.environ.get("BENCH_STORES_STACKS", "debian12 sid").split()
    only = [f"BENCH_STORES_ONLY={os.environ.get('BENCH_STORES_ONLY', '')}", f"BENCH_STORES_FLEET_STORES={fleet_stores}"]
    nice = ["nice", "-n", str(b.nice)]
    load_start = loadavg()
    for stack in stacks:
        work = b.W / f"stores-{stack}"
        if stack == "debian12":
            log(f"stores: debian12, {rounds} rounds x {runs} runs, fleet {fleet} units on {fleet_stores} (shimctl: {b.build})")
            run_stack("stores", ["env", *only, *stack_module(b, "stores_stack", stack, work, b.shimctl, rounds, runs,
                                                             fleet)])
        elif stack == "sid":
            why = sid_missing(b)
            if why and b.section == "all":  # the full run goes on without the sid leg
                log(f"stores: sid leg skipped: {why}")
                continue
            if why:
                raise BenchError(why)
            run_sid(b, work, rounds, runs, fleet, only)
        else:
            raise BenchError(f"BENCH_STORES_STACKS: unknown stack {stack} (debian12, sid)")
    info = {"started": b.get("bench.started"), "load_start": load_start, "load_end": loadavg(),
            "machine": f"{os.cpu_count()} cores, {b.get('machine.cpu')}", "rounds": rounds, "runs": runs}
    md = report(info, [read_stack(b.W / f"stores-{s}", s) for s in stacks if (b.W / f"stores-{s}").is_dir()])
    if "debian12" in stacks:
        md += health_cost(b, rounds, 5 if b.quick else 20, nice)
    b.put("stores.md", md)
    title = f"# Team stores (scripts/bench --section stores{' --quick' if b.quick else ''}, {info['started']})\n\n"
    write_report(b.out, "STORES.md", title, md, write=b.section == "stores")  # the full run: in BENCHMARKS.md
    return md


def health_cost(b, rounds, runs, nice):
    """What store health costs a healthy store's warm hit: scripts/bench-store-health's paired
    rounds (ccache 4.7.5, Redis on loopback, the store line kept / removed), as a subsection."""
    log(f"stores: the probe's cost on a healthy store, {rounds} rounds x {runs} runs")
    done = subprocess.run([*nice, str(b.scripts / "bench-store-health"), str(b.build), str(rounds), str(runs)],
                          capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise BenchError(f"scripts/bench-store-health failed: {(done.stdout + done.stderr)[-500:]}")
    lines = "\n".join(f"    {l}" for l in done.stdout.strip().splitlines())
    return ("\n### What store health costs a healthy store\n\n`scripts/bench-store-health` (a warm HIP hit, "
            "with the store line against the same install without it: no memo, no probe, ccache exec'd):\n\n"
            f"{lines}\n")


def sid_missing(b):
    """Why the sid leg cannot run, or None."""
    sid_root, sid_build = sid_paths(b)
    if not os.access(sid_root / "bin/sh", os.X_OK):
        return f"no sid root at {sid_root}: run scripts/make-sid-root {sid_root}"
    if not (os.access(sid_build / "installer/shimctl", os.X_OK) and os.access(sid_build / "shim/shimctl-shim", os.X_OK)):
        return f"no shimctl build in {sid_build} (SID_BUILD_DIR; see scripts/lib/bench/cold.py, 'Builds')"
    return None


def run_sid(b, work, rounds, runs, fleet, only):
    sid_root, sid_build = sid_paths(b)
    binds = sid_build_binds(b, sid_build) + ([S3RVER] if (S3RVER / "node_modules/.bin/s3rver").exists() else [])
    log(f"stores: sid, {rounds} rounds x {runs} runs, fleet {fleet} units (shimctl: {sid_build}, root {sid_root})")
    run_in_sid(b, "stores", binds, [host_hyperfine(b), *only, *stack_module(b, "stores_stack", "sid", work,
                                                                         sid_build / "installer/shimctl", rounds, runs,
                                                                         fleet)])


def read_stack(work, stack):
    """One stack's results: info, stores [(id, tool, kind, status, side medians, ratios, counts)], fleet."""
    info = dict(l[:2] for l in tsv(work / "info") if len(l) >= 2)
    counts = {}
    for l in tsv(work / "counts.tsv"):
        if len(l) >= 3:  # ID SIDE COUNTS [READ-MS-PER-HIT PREPROCESSOR-CACHE-MODE] (sccache)
            counts.setdefault(l[0], {})[l[1]] = l[2].split() + l[3:]
    stores = []
    for sid, tool, kind, status in (l[:4] for l in tsv(work / "stores.tsv")):
        times, ratios = {}, {}
        for f in sorted((work / sid / "json").glob("r*.json")):
            med = {}
            for r in json.loads(f.read_text())["results"]:
                times.setdefault(r["command"], []).extend(t * 1e3 for t in r["times"])
                med[r["command"]] = r["median"]
            for side in med:
                if side != "local" and "local" in med:
                    ratios.setdefault(side, []).append(med[side] / med["local"])
        stores.append({"id": sid, "tool": tool, "kind": kind, "status": status, "times": times, "ratios": ratios,
                       "counts": counts.get(sid, {})})
    unc = []
    for f in (work / "uncached" / "json").glob("*.json"):
        unc += [t * 1e3 for r in json.loads(f.read_text())["results"] for t in r["times"]]
    fleet = {}
    for l in tsv(work / "fleet.tsv"):
        fleet.setdefault((l[0], l[1]), {})[l[2]] = l[3:]
    return {"stack": stack, "info": info, "stores": stores, "uncached": unc, "fleet": fleet}


def med(v):
    return fmt_median(v or [], "{:.0f}")


def counts_text(c, tool="ccache"):
    """Each side's 'COMPILES LOCAL-HITS REMOTE-HITS MISSES' (warm-ups included). sccache's hits of the
    store's prefix are of either tier (its statistics do not tell them apart)."""
    out = []
    for side, v in c.items():
        n, lh, rh, m = v[:4]
        kind = "local" if side == "local" else "either tier's" if tool == "sccache" else "remote"
        out.append(f"{side}: {lh if side == 'local' else rh}/{n} {kind} hits"
                   + (f", {m} misses" if m != "0" else "")
                   + (f", reads {v[4]} ms/hit" if len(v) > 4 and v[4] != "-" else "")
                   + (f", preprocessor cache mode {'on' if v[5] == 'true' else 'off'}" if len(v) > 5 else ""))
    return "; ".join(out) or "-"


def tool_version(s, tool):
    v = s["info"].get(tool, tool)
    return v.replace("ccache version ", "ccache ").replace("sccache ", "sccache ")


def report(info, stacks):
    L = [f"{info['machine']}; load (1/5/15 min) {info['load_start']} at the start, {info['load_end']} at the end: "
         "the machine is shared, so each figure below is noisy; the pairing (both sides in every round) is what "
         "makes the ratio comparable.", ""]
    for s in stacks:
        i = s["info"]
        L.append(f"- {s['stack']}: {i.get('toolchain', '?')}; {i.get('ccache', '?')}"
                 + (f"; {i['sccache']}" if s["stack"] == "sid" and i.get("sccache") else "")
                 + f"; {i.get('shimctl', '?')}; {i.get('hyperfine', '?')}; compile `{i.get('compile', '?')}`")
    L += ["", "### A remote hit against a local hit, per store", "",
          f"Paired rounds: {info['rounds']} rounds, each one hyperfine invocation of every side ({info['runs']} runs "
          "and a warm-up each, the order rotated per round); medians over all runs of a side; ratios: the median "
          "over rounds of the round's medians (p25-p75 in brackets). Counts over all runs, warm-ups included "
          "(ccache's stats_log per compile; sccache's server statistics before and after).", "",
          "- local: ccache with a warm local cache (a local hit never asks the store); sccache 0.17 with its "
          "local disk cache (the same prefix installed without `--remote`).",
          "- remote: ccache with an empty `CCACHE_DIR` before every run (hyperfine `--prepare`): every hit is "
          "read from the store and written to the new local cache, as on a fresh machine. sccache 0.17: the "
          "store's prefix on a warm machine; sccache >= 0.15 keeps its local disk cache in front of the store "
          "(`SCCACHE_MULTILEVEL_CHAIN`, issue 35), so this is the warm hit of a machine that joined the team "
          "(its counts: hits of either tier). Older sccache keeps no local copy: every hit is a store read "
          "after a run of the preprocessor.",
          "- fresh (sccache): the store's prefix on a fresh machine, its server stopped and its disk cache "
          "emptied before every run (`--prepare`): a server start and a read from the store, the first hit "
          "of a machine that joins the team.",
          "- store's share: ccache: the same empty cache dir, but with the warm one's inode cache copied in "
          "(ccache keeps it in the cache dir; without it every header in the manifest is hashed again, no "
          "cost of the store); sccache: its server's store read time per hit (`cache_read_hit_duration`; the "
          "local side's read time is in the counts).", "",
          "| stack | tool | store | local hit ms | remote hit ms | remote / local (p25-p75) | store's share ms | "
          "share / local (p25-p75) | fresh machine's hit ms | fresh / local (p25-p75) | rounds | counts |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in stacks:
        for x in s["stores"]:
            name = STORE_NAMES.get(x["kind"], x["kind"])
            t, r = x["times"], x["ratios"]
            if x["status"] != "ok" or not r.get("remote"):
                L.append(f"| {s['stack']} | {tool_version(s, x['tool'])} | {name} | {x['status']} | | | | | | | 0 | "
                         f"see errors.log in the work dir (--keep) |")
                continue
            ratio = lambda side: spread(r.get(side, []))
            share = med(t.get("remote-inode"))
            if x["tool"] == "sccache":
                v = x["counts"].get("remote", [])
                share = f"{v[4]} (store read)" if len(v) > 4 else "-"
            L.append(f"| {s['stack']} | {tool_version(s, x['tool'])} | {name} | {med(t.get('local'))} | "
                     f"{med(t.get('remote'))} | {ratio('remote')} | {share} | {ratio('remote-inode')} | "
                     f"{med(t.get('fresh'))} | {ratio('fresh')} | {len(r['remote'])} | {counts_text(x['counts'], x['tool'])} |")
        if s["uncached"]:
            L.append(f"| {s['stack']} | none | uncached compile, for scale | | {med(s['uncached'])} | | | | | | "
                     f"{len(s['uncached'])} runs | the pristine prefix's clang++ |")
    fl = [(s, k, v) for s in stacks for k, v in s["fleet"].items()]
    if fl:
        L += ["", "### The fleet's hit rates", "",
              "tests/integration/lib-fleet.bash's fleet_test, once per tool and store: six machines (private "
              "mount namespaces, each its own prefix copy at /opt/fleet/rocm, HOME and local cache) build one "
              "generated HIP project; m1 fills the store, m2..m4 and m5 at once, m5's toolchain has one device "
              "library changed (it must get no hit), m6 after m5 with an empty local cache. Per machine: remote "
              "hits / compiles (the tool's own counts: ccache's remote_storage_hit, sccache's hits). "
              "\"checks\": fleet_test's own checks (>= 95 % hits for m2..m4, m6; 0 for m1 and m5; objects "
              "byte-identical to the real compiler's).", "",
              "| stack | tool | store | m1 | m2 | m3 | m4 | m5 (changed toolchain) | m6 | checks | wall s |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
        for s, (tool, kind), m in fl:
            cells = []
            for n in ("m1", "m2", "m3", "m4", "m5", "m6"):
                v = m.get(n)
                try:
                    hits, comp = int(v[0]), int(v[1])
                    cells.append(f"{hits}/{comp} ({100 * hits // comp} %)" if comp else f"{hits}/0")
                except (TypeError, ValueError, IndexError):
                    cells.append("?")
            res = m.get("result", ["?", "?"])
            L.append(f"| {s['stack']} | {tool_version(s, tool)} | {STORE_NAMES.get(kind, kind)} | " + " | ".join(cells)
                     + f" | {res[0]} | {res[1] if len(res) > 1 else '?'} |")
    return "\n".join(L) + "\n"


def section_md(r):
    """The section of BENCHMARKS.md (the full run)."""
    return f"\n## Team stores (scripts/bench --section stores)\n\n{r['stores.md']}" if r.get("stores.md") else ""
