"""The runtime callers (scripts/callers/*: aiter's JIT, torch.utils.cpp_extension, DeepSpeed's op
builder, Inductor's ROCm backend) on a shimmed clang-15 prefix installed with a Redis remote (a
redis-server of its own on 127.0.0.1): cold (empty caches, fresh build dirs), pass 2 from fresh
build dirs with the same cache; aiter also a fresh container (an empty local cache and HOME: Redis
its only source of hits). The drivers' own timings (wall ms of each step) and counts (their
compile, link and probe steps each run under `shimctl measure --json`), medians over rounds."""
import socket
import subprocess
import time
from collections import defaultdict

from .common import BenchError, log
from .common import median
from .report_util import check

DRIVERS = ("aiter", "cpp_extension", "deepspeed", "inductor")


def summarize(prefix, files):
    """The medians over rounds (one --results file of a driver per round) of each pass's times
    and counts as PREFIX.PASS.KEY (ms keys also .min, .max, .n), and the ratios cold / warm,
    cold / container, container / warm, compile-only and total."""
    vals, text, out = defaultdict(list), {}, {}
    for f in files:
        for line in open(f):
            k, _, v = line.rstrip("\n").partition("\t")
            try:
                x = float(v)
            except ValueError:
                text[k] = v
                continue
            vals[k].append(x)
    med = {}
    for k, v in sorted(vals.items()):
        med[k] = median(v)
        out[f"{prefix}.{k}"] = med[k]
        if k.endswith("_ms"):
            out[f"{prefix}.{k}.min"], out[f"{prefix}.{k}.max"], out[f"{prefix}.{k}.n"] = min(v), max(v), len(v)
    for k, v in text.items():
        out[f"{prefix}.{k}"] = v
    for what in ("compile", "total"):
        for name, a, c in (("cold_warm", "cold", "warm"), ("cold_container", "cold", "container"),
                           ("container_warm", "container", "warm")):
            x, y = med.get(f"{a}.{what}_ms"), med.get(f"{c}.{what}_ms")
            if x is not None and y:
                out[f"{prefix}.ratio.{name}.{what}"] = round(x / y, 2)
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def section_callers(b, z):
    CP, CW, RD = b.W / "rocm-callers", b.W / "callers", b.W / "redis"
    CW.mkdir()
    RD.mkdir()
    b.make_prefix(CP, "--llvm", "15")
    port = free_port()
    b.run(["redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
           "--daemonize", "yes", "--pidfile", RD / "redis.pid", "--dir", RD, "--logfile", RD / "redis.log"])
    b.cleanups.append(lambda: stop_redis(RD))
    cli = ["redis-cli", "-p", port]
    for _ in range(50):
        if b.run(cli + ["ping"], check=False, stdout=subprocess.PIPE).stdout.strip() == "PONG":
            break
        time.sleep(0.1)
    b.install(CP, "--cache-dir", b.W / "cache-callers-unused", "--no-verify", "--remote", f"redis://127.0.0.1:{port}")
    rounds, kernels, modules = z["callers_rounds"], z["callers_kernels"], z["callers_modules"]
    b.put("callers.rounds", rounds)
    b.put("callers.prefix", "clang-15 ROCm prefix (make-rocm-prefix) installed with --remote redis://127.0.0.1 (a local redis-server)")
    for d in DRIVERS:
        passes, args = "cold,warm", ["--kernels", kernels]
        if d == "aiter":
            passes = "cold,warm,container"
            args += ["--modules", modules, "--archs", "gfx90a,gfx940"]
            size = f"{modules} modules x {kernels} sources x 2 targets"
        elif d == "cpp_extension":
            args += ["--modules", modules]
            size = f"{modules} extensions x ({kernels} HIP + 1 host) sources x 1 target"
        elif d == "deepspeed":
            size = f"fused_adam ({kernels} HIP + 1 host) + cpu_adam (2 host) x 1 target"
        else:
            size = f"{kernels} one-step kernels x 1 target"
        b.put(f"callers.{d}.size", size)
        log(f"caller {d}: {rounds} rounds of passes {passes} ({' '.join(map(str, args))})")
        files = []
        for r in range(rounds):
            # Every round from empty caches: the driver's cold pass empties the local one; Redis here.
            b.run(cli + ["flushall"])
            subprocess.run(["rm", "-rf", str(CW / d)], check=True)
            f = CW / f"{d}-r{r}.tsv"
            p = b.run([b.scripts / "callers" / d, CP, "--work", CW / d, "--passes", passes, "--results", f,
                       "--shimctl", b.shimctl, *args], logfile=b.W / "callers.log", check=False)
            if p.returncode != 0:
                tail = (b.W / "callers.log").read_text(errors="replace").splitlines()[-20:]
                raise BenchError(f"scripts/callers/{d} failed (log: {b.W}/callers.log):\n" + "\n".join(tail))
            files.append(f)
        b.r.update(summarize(f"callers.{d}", files))
        g = lambda k: b.get(f"callers.{d}.{k}")
        log(f"  {d}: compile cold {g('cold.compile_ms'):g} ms, pass 2 {g('warm.compile_ms'):g} ms "
            f"({g('ratio.cold_warm.compile')}x); total {g('cold.total_ms'):g} / {g('warm.total_ms'):g} ms "
            f"({g('ratio.cold_warm.total')}x)")
    stop_redis(RD)


def stop_redis(rd):
    pid = rd / "redis.pid"
    if pid.exists():
        subprocess.run(["kill", pid.read_text().strip()], stderr=subprocess.DEVNULL)
        pid.unlink()


def table(r):
    """The callers' tables (markdown), for stdout and BENCHMARKS.md."""
    g = r.get

    def s(k):
        v = g(k)
        return "n/a" if v is None else f"{v / 1000:.2f}"

    def n(k):
        v = g(k)
        return "" if v is None else f"{v:g}" if isinstance(v, float) else str(v)

    out = ["| caller (sources x targets) | pass | compile s | link s | probes s | total s | cacheable | hits | misses | remote hits | not cacheable (the tool's count) | run without the cache (the shim's) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in DRIVERS:
        for p in ("cold", "warm", "container"):
            c = f"callers.{d}.{p}"
            if g(f"{c}.compile_ms") is None:
                continue
            out.append(f"| {d} ({g(f'callers.{d}.size')}) | {p} | {s(c + '.compile_ms')} | {s(c + '.link_ms')} | "
                       f"{s(c + '.probes_ms')} | {s(c + '.total_ms')} | {n(c + '.compile.compiles')} | "
                       f"{n(c + '.compile.hits')} | {n(c + '.compile.misses')} | {n(c + '.remote_hits')} | "
                       f"{n(c + '.compile.uncacheable')} | {n(c + '.compile.not_sent')} |")
    out += ["", "| caller | cold / pass 2, compile only (target >= 50) | cold / pass 2, total | fresh container / local hits, compile (target <= 1.5) | total | cold / fresh container, compile (target >= 50) |",
            "|---|---|---|---|---|---|"]
    for d in DRIVERS:
        c = f"callers.{d}"
        if g(f"{c}.cold.compile_ms") is None:
            continue
        a, t = g(f"{c}.ratio.cold_warm.compile"), g(f"{c}.ratio.cold_warm.total")
        cw, ct = g(f"{c}.ratio.container_warm.compile"), g(f"{c}.ratio.container_warm.total")
        cc = g(f"{c}.ratio.cold_container.compile")
        fmt = lambda v: "n/a" if v is None else f"{v:.2f}"
        if g(f"{c}.warm.compile.compiles") == 0:  # Inductor: one step, no cache can store it
            out.append(f"| {d} | {fmt(a)} (not cacheable: one-step compile and link) | {fmt(t)} | | | |")
            continue
        cw_text = fmt(cw) + (f" ({check(cw, 'le', 1.5)})" if cw is not None else "")
        cc_text = fmt(cc) + (f" ({check(cc, 'ge', 50)})" if cc is not None else "")
        out.append(f"| {d} | {fmt(a)} ({check(a, 'ge', 50)}) | {fmt(t)} | {cw_text} | {fmt(ct)} | {cc_text} |")
    return "\n".join(out)
