"""--section cold: what a cold cache miss costs through the shim (issue 22).

For each stack, cache tool and call shape, paired rounds of one HIP compile by the uncached
original toolchain and of the same compile through the shim, each a guaranteed miss:
  stacks   debian12: a prefix by scripts/make-rocm-prefix (perl hipcc 5.2, clang-15), ccache 4.7.5
           (Debian's sccache 0.4 does not cache HIP: not measured);
           sid: inside scripts/make-sid-root's root, a prefix by make-rocm-prefix --stack sid
           (hipcc 7.0.2, clang-21), ccache 4.14.2 and sccache 0.17
  shapes   hipcc; hipcc -MD -MF; the prefix's clang++ -x hip; the same with -MD -MF; and
           clang++ -x hip --cuda-device-only -MD -MF (one compiler job)
The uncached side is a pristine prefix; the shim side an identical one after `shimctl install`
(with verification; its own cache dir). Each round writes a kernel with a round-specific constant
into two new directories (the same source and the same relative -o k.o on both sides: HIP objects
embed a CUID derived from the output name), a third kernel (its own constant) into a third, and
runs the three compiles: uncached, shim, and the shim with SHIMCTL_RECORDS=0 (records off: the shim
before issue 43's compile records), the order rotating per round, after one untimed warm-up of each.
Reported per shape: the median of each side, the median of the per-round ratios shim / uncached
(target <= 1.03) and shim / records off (issue 43: <= 1.02), the bytes of compile records the timed
rounds wrote per miss (<cache home>/shimctl/records/*/*.json; the hash memo records/file-hashes once
per stack), the cache's counts over the timed rounds (`shimctl measure --json` around them: every
shim compile must be a miss), and, from one more
compile per side under `strace -f -e trace=execve` (for sccache also attached to its server, which
runs the compiler), how often clang ran: driver runs, cc1 jobs, and of those how many only
preprocessed (-E); version/triple probes apart.

Run as root, on the host (both build dirs must exist): scripts/bench --section cold [--quick]
  BUILD_DIR      host build (default <repo>/build); SID_BUILD_DIR  build made inside the sid root
  (default <repo>/build-sid); BENCH_COLD_ROUNDS (default 11, --quick 3), BENCH_COLD_STACKS
  (default "debian12 sid"), BENCH_COLD_SHAPES (default all five), BENCH_COLD_TOOLS (default
  "ccache sccache"; sccache on sid only), SHIMCTL_SID_ROOT (default /var/cache/shimctl/sid-root).
Builds, e.g.:
  cmake -S . -B build-cold -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C build-cold shimctl shim
  scripts/sid-run /var/cache/shimctl/sid-root bash -c 'cmake -S /work/main -B /work/main/build-cold-sid \\
    -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C /work/main/build-cold-sid shimctl shim'
Each stack runs as `scripts/bench --cold-stack STACK WORKDIR SHIMCTL ROUNDS TOOL...` (through
scripts/sid-run for sid), which writes WORKDIR/results.json; the timed rounds of a shape run as
`shimctl measure --json -- scripts/bench --cold-rounds SPEC.json`. COLD.md goes to --out.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

from . import cold_stack
from .common import BenchError, loadavg, log, run_in_sid, run_stack, sid_build_binds, sid_paths
from .report_util import write_report


def pick_tools(*tools):
    want = os.environ.get("BENCH_COLD_TOOLS", "").split() or list(tools)
    return [t for t in tools if t in want]


def check_build(b, d):
    if not (os.access(d / "installer/shimctl", os.X_OK) and os.access(d / "shim/shimctl-shim", os.X_OK)):
        raise BenchError(f"no shimctl build in {d} (see scripts/lib/bench/cold.py, 'Builds')")
    shim_time = (d / "shim/shimctl-shim").stat().st_mtime
    newer = [str(p) for p in (b.root / "shim").rglob("*.[ch]") if p.stat().st_mtime > shim_time][:3]
    if newer:
        log(f"cold: warning: {d}/shim/shimctl-shim is older than {' '.join(newer)}")


def section_cold(b):
    quick = b.quick
    rounds = os.environ.get("BENCH_COLD_ROUNDS") or ("3" if quick else "11")
    stacks = os.environ.get("BENCH_COLD_STACKS", "debian12 sid").split()
    sid_root, sid_build = sid_paths(b)
    git = lambda *a: subprocess.run(["git", "-C", str(b.root), *a], capture_output=True, text=True).stdout.strip()
    commit = git("log", "-1", "--format=%h")
    if git("status", "--porcelain", "--", "shim", "installer"):
        commit += " + uncommitted changes in shim/ or installer/"
    info = {"started": b.get("bench.started"), "commit": commit,
            "machine": f"{os.cpu_count()} cores, {b.get('machine.cpu')}", "load_start": loadavg()}
    entry = [sys.executable, str(b.scripts / "bench"), "--cold-stack"]
    nice = ["nice", "-n", str(b.nice)]
    for stack in stacks:
        if stack == "debian12":
            tools = pick_tools("ccache")
            if not tools:
                continue
            check_build(b, b.build)
            log(f"cold: debian12 stack, {' '.join(tools)}, {rounds} rounds (shimctl: {b.build})")
            run_stack("cold", nice + entry + ["debian12", b.W / "cold-debian12", b.shimctl, rounds, *tools])
        elif stack == "sid":
            if not os.access(sid_root / "bin/sh", os.X_OK):
                raise BenchError(f"no sid root at {sid_root}: run scripts/make-sid-root {sid_root}")
            tools = pick_tools("ccache", "sccache")
            if not tools:
                continue
            check_build(b, sid_build)
            log(f"cold: sid stack, {' '.join(tools)}, {rounds} rounds (shimctl: {sid_build}, root {sid_root})")
            inner = ["python3", str(b.scripts / "bench"), "--cold-stack"]
            # (sid-run passes no environment: the shapes go on the command line)
            shapes = f"BENCH_COLD_SHAPES={os.environ.get('BENCH_COLD_SHAPES', '')}"
            run_in_sid(b, "cold", sid_build_binds(b, sid_build), [shapes, *nice, *inner, "sid", b.W / "cold-sid",
                                                                  sid_build / "installer/shimctl", rounds, *tools])
        else:
            raise BenchError(f"BENCH_COLD_STACKS: unknown stack {stack} (debian12, sid)")
    info["load_end"] = loadavg()
    results = [json.loads(p.read_text()) for p in sorted(b.W.glob("cold-*/results.json"))]
    md = cold_stack.report(info, results)
    write_report(b.out, "COLD.md", "", md)


def stack_main(argv):
    """scripts/bench --cold-stack STACK WORKDIR SHIMCTL ROUNDS TOOL... (on the host or in the root)."""
    if len(argv) < 5:
        print("usage: scripts/bench --cold-stack STACK WORKDIR SHIMCTL ROUNDS TOOL... (run by --section cold)",
              file=sys.stderr)
        return 2
    try:
        cold_stack.Stack(argv[0], Path(argv[1]), Path(argv[2]), int(argv[3])).run(argv[4:])
    except cold_stack.ColdError as e:
        print(f"bench-cold: {e}", file=sys.stderr)
        return 1
    return 0


def rounds_main(argv):
    """scripts/bench --cold-rounds SPEC.json: the timed rounds of one shape (under measure)."""
    return cold_stack.timed_rounds(json.loads(Path(argv[0]).read_text()))

