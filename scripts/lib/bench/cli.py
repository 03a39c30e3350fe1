"""scripts/bench: the command line, the sizes, the order of the sections, and the outputs."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import analysis, anywhere, callers, chart, cold, ggml, hits, links, pieces, report, stores, workloads
from .common import Bench, BenchError, first_line, have_rocm, loadavg, log

USAGE = ("scripts/bench [--quick] [--section all|callers|ggml|cold|stores|pieces|links] [--pieces|--pieces-only] "
         "[--out DIR] [--keep]")


def sizes(quick):
    """A "round" is one hyperfine invocation per group of commands, `runs` runs of each."""
    if quick:
        z = dict(rounds=4, runs=5, units=8, kernels=4, cold_runs=1, warm_runs=3, header_runs=1, install_runs=1,
                 cycle_runs=3, fail_runs=5, callers_rounds=1, callers_kernels=2, callers_modules=1)
    else:
        z = dict(rounds=20, runs=10, units=48, kernels=16, cold_runs=2, warm_runs=10, header_runs=2, install_runs=3,
                 cycle_runs=10, fail_runs=20, callers_rounds=3, callers_kernels=4, callers_modules=2)
    for key, var in (("callers_rounds", "BENCH_CALLERS_ROUNDS"), ("rounds", "BENCH_ROUNDS"), ("units", "BENCH_UNITS"),
                     ("kernels", "BENCH_KERNELS"), ("cold_runs", "BENCH_COLD_RUNS")):
        if os.environ.get(var):
            z[key] = int(os.environ[var])
    z["id_rounds"], z["id_runs"] = z["rounds"] * 5 // 2, z["runs"] * 2  # identity and floor: 5x the runs
    return z


def machine(b):
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
    b.put("machine.nproc", os.cpu_count())
    b.put("machine.cpu", cpu)
    b.put("machine.kernel", " ".join(os.uname()[i] for i in (0, 2)))
    b.put("machine.load_start", loadavg())
    b.put("v.ccache", first_line(["ccache", "--version"]))
    b.put("v.hyperfine", first_line(["hyperfine", "--version"]))
    b.put("v.python", "Python " + sys.version.split()[0])
    b.put("v.clang", first_line(["/usr/lib/llvm-15/bin/clang", "--version"]))
    hip = subprocess.run(["/usr/bin/hipcc", "--version"], capture_output=True, text=True, errors="replace").stdout \
        if os.access("/usr/bin/hipcc", os.X_OK) else ""
    b.put("v.hipcc", next((l[len("HIP version: "):] for l in hip.splitlines() if l.startswith("HIP version: ")), ""))
    nvcc = subprocess.run(["/usr/local/cuda/bin/nvcc", "--version"], capture_output=True, text=True).stdout.strip() \
        if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else "not installed"
    b.put("v.nvcc", nvcc.splitlines()[-1] if nvcc else "not installed")
    b.put("v.shimctl", "; ".join(b.output([b.shimctl, "--version"]).strip().splitlines()))
    b.put("machine.summary", f"{os.cpu_count()} cores, {cpu}, {os.uname()[2]}; {b.get('v.ccache')}; {b.get('v.hyperfine')}")
    log(f"work dir {b.W}; {b.get('machine.summary')}; load {b.get('machine.load_start')}")


def run_all(b, z):
    P = workloads.section_install(b, z)
    P2, P3 = hits.setup_prefixes(b, P)
    T, S1, args = hits.section_hit(b, P, P2, P3, z)
    hits.section_floor(b, P, T, S1, args, z)
    hits.section_native(b, z)
    hits.section_native16(b, z)
    workloads.section_fail(b, P, z)
    workloads.section_throughput(b, P, z)
    workloads.section_build(b, P, z)
    workloads.section_basedir(b, P, z)
    workloads.section_jit(b, P, z)
    if shutil.which("redis-server") and shutil.which("ninja"):
        callers.section_callers(b, z)
    else:
        log("runtime callers: skipped (redis-server or ninja missing: run scripts/setup)")
    if all(shutil.which(t) for t in ("redis-server", "redis-cli", "nginx", "unshare")):
        stores.section_stores(b)
    else:
        log("team stores: skipped (redis-server, nginx or unshare missing: run scripts/setup)")


def write_report(b, t_start):
    r = b.r
    r["machine.load_end"] = loadavg()
    r["bench.seconds"] = round(time.monotonic() - t_start)
    r["bench.mode"] = f"scripts/bench{' --quick' if b.quick else ''}, {r['bench.started']}"
    for k, want in (("fail.shim_top", "127"), ("fail.shim_nested", "127"), ("fail.locked_install", "3"),
                    ("fail.locked_rollback", "3"), ("fail.locked_status", "3"), ("fail.locked_verify", "3"),
                    ("fail.locked_refresh", "3")):
        if r.get(f"{k}.exit") != want:
            log(f"warning: {k} exited with {r.get(f'{k}.exit')}, expected {want}")
    report.derive(r)
    b.save()
    md = report.report(r, b.quick, b.nice) + "\n" + analysis.analysis(r) + analysis.extra_sections(r)
    (b.out / "BENCHMARKS.md").write_text(md)
    chart.chart(r, b.out / "BENCHMARKS.svg")
    print(analysis.summary(r))
    log(f"wrote {b.out}/BENCHMARKS.md and {b.out}/BENCHMARKS.svg in {r['bench.seconds']} s")


def run_callers_only(b, t_start):
    for tool in ("ninja", "redis-server", "redis-cli"):
        if not shutil.which(tool):
            raise BenchError(f"{tool} not found: run scripts/setup")
    callers.section_callers(b, sizes(b.quick))
    b.put("machine.load_end", loadavg())
    b.save()
    md = (f"# Runtime callers (scripts/bench --section callers{' --quick' if b.quick else ''}, {b.get('bench.started')})\n\n"
          f"{b.get('machine.summary')}; load {b.get('machine.load_start')} -> {b.get('machine.load_end')}; "
          f"{b.get('callers.prefix')}; medians of {b.get('callers.rounds')} rounds.\n\n{callers.table(b.r)}\n")
    (b.out / "CALLERS.md").write_text(md)
    print(md, end="")
    log(f"wrote {b.out}/CALLERS.md in {round(time.monotonic() - t_start)} s")


def main(argv):
    if argv[:1] == ["--cold-stack"]:  # internal: one stack of --section cold
        return cold.stack_main(argv[1:])
    if argv[:1] == ["--cold-rounds"]:  # internal: a shape's timed rounds, under shimctl measure
        return cold.rounds_main(argv[1:])
    p = argparse.ArgumentParser(prog="scripts/bench", usage=USAGE, add_help=True)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--section", default="all", choices=("all", "callers", "ggml", "cold", "stores", "pieces", "links", "anywhere"))
    p.add_argument("--out")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--pieces", dest="ggml_pieces", action="store_const", const="yes", default="no")
    p.add_argument("--pieces-only", dest="ggml_pieces", action="store_const", const="only")
    a = p.parse_args(argv)
    root = Path(__file__).resolve().parents[3]
    if a.ggml_pieces != "no" and a.section != "ggml":
        p.error("--pieces and --pieces-only go with --section ggml")
    if a.section == "ggml":  # inside the sid root with its own shimctl build (ggml.py)
        try:
            ggml.section_ggml(root, a.quick, a.out, a.keep, a.ggml_pieces)
            return 0
        except (BenchError, OSError, subprocess.CalledProcessError) as e:
            log(f"failed: {e}")
            return 1
    build = Path(os.environ.get("BUILD_DIR") or root / "build").absolute()
    for exe in (build / "installer/shimctl", build / "shim/shimctl-shim"):
        if not os.access(exe, os.X_OK):
            log(f"build shimctl first (BUILD_DIR={build})")
            return 1
    for tool in ("ccache", "hyperfine"):
        if not shutil.which(tool):
            log(f"{tool} not found: run scripts/setup")
            return 1
    if not have_rocm(15):
        log("Debian's ROCm/clang-15 toolchain is missing: run scripts/setup")
        return 1
    for k in [k for k in os.environ if k.split("_", 1)[0] in ("SHIMCTL", "CCACHE", "SCCACHE") and "_" in k]:
        del os.environ[k]
    nice = os.environ.get("BENCH_NICE") or ("-10" if os.getuid() == 0 else "0")
    os.environ["BENCH_NICE_LEVEL"] = nice
    W = Path(tempfile.mkdtemp(prefix="shimctl-bench.", dir="/tmp"))
    out = Path(a.out) if a.out else (W if a.quick or a.section != "all" else root)
    out.mkdir(parents=True, exist_ok=True)
    b = Bench(root, build, W, out.resolve(), a.quick, a.section, nice)
    t_start = time.monotonic()
    b.put("bench.started", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    try:
        machine(b)
        if a.section == "cold":
            cold.section_cold(b)
        elif a.section == "stores":
            stores.section_stores(b)
        elif a.section == "pieces":
            pieces.section_pieces(b)
        elif a.section == "links":
            links.section_links(b)
        elif a.section == "anywhere":
            anywhere.section_anywhere(b)
        elif a.section == "callers":
            run_callers_only(b, t_start)
        else:
            run_all(b, sizes(a.quick))
            write_report(b, t_start)
        return 0
    except (BenchError, OSError) as e:
        log(f"failed: {e}")
        return 1
    finally:
        b.save()
        for f in reversed(b.cleanups):
            try:
                f()
            except Exception:  # noqa: BLE001 - cleaning up after a failure, best effort
                pass
        if a.keep:
            log(f"work dir kept: {W}")
        else:
            shutil.rmtree(W, ignore_errors=True)
