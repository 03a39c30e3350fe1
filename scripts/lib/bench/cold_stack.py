"""--section cold, one stack (run on the host, or inside the sid root): prefixes, installs, the
paired rounds of each shape (uncached, shim, shim with SHIMCTL_RECORDS=0), the bytes of compile records, the clang runs of one compile, and COLD.md from the stacks' results.
Python 3 stdlib only (the sid root has its own python3)."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from .common import median, quartiles

SCRIPTS = Path(__file__).resolve().parents[2]
SHAPES = {  # the compiler (relative to the prefix: CLANG for the stack's clang++) and its arguments
    "hipcc": ["bin/hipcc", "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o"],
    "hipcc-MD": ["bin/hipcc", "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o", "-MD", "-MF", "k.d"],
    "clang": ["CLANG", "-x", "hip", "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o"],
    "clang-MD": ["CLANG", "-x", "hip", "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o", "-MD", "-MF", "k.d"],
    "clang-device-MD": ["CLANG", "-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o",
                        "-MD", "-MF", "k.d"],
}


class ColdError(Exception):
    pass


def shape_argv(shape, clang):
    if shape not in SHAPES:
        raise ColdError(f"unknown shape {shape}")
    return [clang if a == "CLANG" else a for a in SHAPES[shape]]


def write_source(nonce, seq, *dirs):
    """A new kernel k.hip in each new dir: the constant makes this source, and every compile of it, new."""
    for d in dirs:
        Path(d).mkdir(parents=True, exist_ok=True)
        Path(d, "k.hip").write_text(
            "#include <hip/hip_runtime.h>\n"
            "// scripts/bench --section cold: the constant makes this source, and every compile of it, new.\n"
            f"__global__ void cold_kernel(float* x) {{ x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 3.0f + {nonce}{seq}.0f; }}\n")


def compile_in(d, prefix, argv, wrap=(), env=None):
    """argv[0] of prefix, in d (env: entries added); fails (with its output) unless it succeeds and writes k.o."""
    with open(Path(d, "log"), "w") as log:
        rc = subprocess.run([*wrap, str(Path(prefix, argv[0])), *argv[1:]], cwd=d, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **env} if env else None).returncode
    k = Path(d, "k.o")
    if rc != 0 or not k.exists() or k.stat().st_size == 0:
        raise ColdError(f"{' '.join(argv)} failed in {d}:\n" + Path(d, "log").read_text(errors="replace"))


def timed(d, prefix, argv, env=None):
    t0 = time.perf_counter()
    compile_in(d, prefix, argv, env=env)
    return time.perf_counter() - t0


RECORDS_OFF = {"SHIMCTL_RECORDS": "0"}  # the shim as before compile records (issue 43)


def off_source(nonce, seq, d):
    """The records-off side's kernel: its own constant (negative), or the cache would find the shim side's."""
    write_source(f"-{nonce}", seq, d)


def timed_rounds(spec):
    """The timed rounds of one shape, the order rotating per round; writes [[uncached s, shim s,
    records-off s], ...]."""
    times = []
    argv = spec["argv"]
    for r in range(1, spec["rounds"] + 1):
        a, b, c = (Path(spec["base"], f"r{r}/{side}") for side in ("orig", "shim", "off"))
        write_source(spec["nonce"], spec["seq"] + r, a, b)
        off_source(spec["nonce"], spec["seq"] + r, c)
        sides = [lambda: timed(a, spec["orig"], argv), lambda: timed(b, spec["shim"], argv),
                 lambda: timed(c, spec["shim"], argv, RECORDS_OFF)]
        t = [0.0] * 3
        for i in range(3):
            k = (r + i) % 3
            t[k] = sides[k]()
        times.append(t)
        print(f"bench-cold: {spec['label']} round {r}: uncached {t[0]:.6f} s, shim {t[1]:.6f} s, "
              f"records off {t[2]:.6f} s", file=sys.stderr)
    Path(spec["out"]).write_text(json.dumps(times))
    return 0


def records_size(records):
    """(files, bytes) of the compile records under the records dir (records/<output key>/<ns>.json)."""
    files = [f for f in glob.glob(os.path.join(records, "*", "*.json"))
             if os.path.basename(f)[:-5].isdigit() and os.path.basename(os.path.dirname(f)) != "toolchains"]
    return len(files), sum(os.path.getsize(f) for f in files)


def user_records_dir():
    """The records dir of the user cache home, as shimctl finds it (XDG_CACHE_HOME, else HOME/.cache)."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ.get("HOME", "/"), ".cache")
    return os.path.join(home, "shimctl", "records")


CLANG_NAME = re.compile(r"^clang(\+\+)?(-\d+)?$")
EXECVE = re.compile(r'^execve\("((?:[^"\\]|\\.)*)", \[(.*)\]')
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')


def count_execs(d):
    """The successful execve of a real clang (clang, clang++, clang-N, with or without .real, and no
    shim: a shim has NAME.real beside it) in the strace -ff files of d: driver runs (-E among
    them), cc1 jobs (-E among them), probes."""
    drv = drv_e = cc1 = cc1_e = probes = 0
    for f in glob.glob(os.path.join(d, "*.*")):
        for line in open(f, errors="replace"):
            m = EXECVE.match(line)
            if not m or not line.rstrip().endswith("= 0"):
                continue
            real = os.path.realpath(m.group(1))
            base = os.path.basename(real)
            if base.endswith(".real"):
                base = base[:-5]
            elif os.path.exists(real + ".real"):
                continue  # the shim
            if not CLANG_NAME.match(base):
                continue
            args = ARG.findall(m.group(2))[1:]
            if args[:1] == ["-cc1"]:
                cc1 += 1
                cc1_e += "-E" in args
            elif any(a in ("--version", "-dumpversion", "-###") or a.startswith("-print-") for a in args):
                probes += 1
            else:
                drv += 1
                drv_e += "-E" in args
    return [drv, drv_e, cc1, cc1_e, probes]


def sccache_pids(pattern):
    """The sccache processes whose environment holds an entry matching pattern (a regex)."""
    pids = []
    for e in glob.glob("/proc/[0-9]*/environ"):
        pid = e.split("/")[2]
        try:
            if os.path.basename(os.readlink(f"/proc/{pid}/exe")) != "sccache":
                continue
            entries = Path(e).read_bytes().split(b"\0")
        except OSError:
            continue
        if any(re.fullmatch(pattern, x.decode(errors="replace")) for x in entries):
            pids.append(pid)
    return pids


class Stack:
    def __init__(self, stack, work, shimctl, rounds):
        if stack not in ("debian12", "sid"):
            raise ColdError(f"unknown stack {stack}")
        self.stack, self.work, self.shimctl, self.rounds = stack, work, shimctl, rounds
        self.clang = "llvm/bin/clang++" if stack == "debian12" else "lib/llvm/bin/clang++"
        self.orig = work / "orig"
        self.nonce = f"{int(time.time()) % 100000}0{os.getpid()}0"
        self.seq = 0
        self.installed = []
        self.res = {"stack": stack, "info": {}, "labels": {}, "shapes": [], "notes": []}

    def sh(self, argv, log=None, **kw):
        with open(log or os.devnull, "a") as f:
            p = subprocess.run([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT, **kw)
        if p.returncode != 0:
            tail = Path(log).read_text(errors="replace")[-3000:] if log else ""
            raise ColdError(f"{' '.join(map(str, argv))} failed (exit {p.returncode}){': ' + tail if tail else ''}")

    def out(self, argv):
        return subprocess.run([str(a) for a in argv], capture_output=True, text=True, errors="replace").stdout

    def make_prefix(self, dest):
        self.sh([SCRIPTS / "make-rocm-prefix", dest] + ([] if self.stack == "debian12" else ["--stack", "sid"]))

    def run(self, tools):
        self.work.mkdir(parents=True, exist_ok=True)
        # The shim's probe memo and sccache's socket dir in the work dir; no caller settings.
        os.environ["XDG_CACHE_HOME"] = str(self.work / "xdg-cache")
        os.environ.pop("XDG_RUNTIME_DIR", None)
        for k in [k for k in os.environ if k.split("_", 1)[0] in ("SHIMCTL", "CCACHE", "SCCACHE") and "_" in k]:
            del os.environ[k]
        try:
            self.versions()
            if self.stack == "debian12":
                self.res["notes"].append("sccache not measured: Debian 12's 0.4 does not cache HIP (README, Supported toolchains)")
            self.make_prefix(self.orig)
            for tool in tools:
                self.tool_run(tool)
        finally:
            for p in self.installed:
                subprocess.run([str(self.shimctl), "rollback", str(p)], capture_output=True)
            self.stop_leftovers()
            memo = Path(user_records_dir(), "file-hashes")
            self.res["info"]["memo_bytes"] = memo.stat().st_size if memo.exists() else 0
            (self.work / "results.json").write_text(json.dumps(self.res, indent=1) + "\n")

    def versions(self):
        llvm, kind = ("15", "perl") if self.stack == "debian12" else ("21", "hipBin")
        hipcc = self.out(["dpkg-query", "-W", "-f=${Version}", "hipcc"])
        clang = self.out([f"/usr/lib/llvm-{llvm}/bin/clang", "--version"]).split("\n", 1)[0]
        tools = self.out(["ccache", "--version"]).split("\n", 1)[0]
        if self.stack != "debian12":
            tools += ", " + self.out(["sccache", "--version"]).strip()
        self.res["info"] = {"toolchain": f"hipcc ({kind}) {hipcc}, {clang}", "tools": tools,
                            "shimctl": self.out([self.shimctl, "--version"]).split("\n", 1)[0]}

    def tool_run(self, tool):
        """tool installed on a fresh copy, every shape, rollback (stops sccache's servers)."""
        self.tool, self.shim, self.cache = tool, self.work / tool / "rocm", self.work / tool / "cache"
        (self.work / tool).mkdir(parents=True, exist_ok=True)
        self.make_prefix(self.shim)
        ilog = self.work / tool / "install.log"
        self.sh([self.shimctl, "install", self.shim, "--cache", tool, "--cache-dir", self.cache], log=ilog)
        self.installed.append(self.shim)
        self.server = ""
        if tool == "sccache":
            st = json.loads(self.out([self.shimctl, "status", "--json", self.shim]))
            self.server = st["cache"].get("server", {}).get("environment", "")
            if not self.server:
                raise ColdError("shimctl status names no sccache server")
        for shape in os.environ.get("BENCH_COLD_SHAPES", "").split() or list(SHAPES):
            self.res["labels"][shape] = " ".join(shape_argv(shape, self.clang))
            self.shape(shape)
        self.sh([self.shimctl, "rollback", self.shim], log=ilog)
        self.installed.remove(self.shim)
        if tool == "sccache":
            self.stop_leftovers()

    def shape(self, shape):
        """The warm-up pair, the timed rounds (under shimctl measure) and the traced compiles."""
        base, argv = self.work / self.tool / shape, shape_argv(shape, self.clang)
        self.seq += 1
        write_source(self.nonce, self.seq, base / "warm/orig", base / "warm/shim")
        compile_in(base / "warm/orig", self.orig, argv)
        compile_in(base / "warm/shim", self.shim, argv)
        off_source(self.nonce, self.seq, base / "warm/off")
        compile_in(base / "warm/off", self.shim, argv, env=RECORDS_OFF)
        spec = {"base": str(base), "orig": str(self.orig), "shim": str(self.shim), "argv": argv, "rounds": self.rounds,
                "nonce": self.nonce, "seq": self.seq, "out": str(base / "times.json"),
                "label": f"{self.stack} {self.tool} {shape}"}
        self.seq += self.rounds
        (base / "spec.json").write_text(json.dumps(spec))
        # sccache: measure told to use the prefix's own server (warm since the warm-up pair), as a
        # server the user chose: it counts that server's statistics after the rounds less before.
        env = dict(os.environ)
        if self.server:
            k, _, v = self.server.partition("=")
            env[k] = v
        before = records_size(user_records_dir())
        m = subprocess.run([str(self.shimctl), "measure", "--json", "--", sys.executable, str(SCRIPTS / "bench"),
                            "--cold-rounds", str(base / "spec.json")], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, text=True, env=env)
        if m.returncode != 0:
            raise ColdError(f"the timed rounds of {spec['label']} failed")
        counts = json.loads(m.stdout)
        after = records_size(user_records_dir())
        self.seq += 1
        write_source(self.nonce, self.seq, base / "count/orig", base / "count/shim")
        runs = {"orig": self.count("orig", base / "count/orig", self.orig, argv),
                "shim": self.count("shim", base / "count/shim", self.shim, argv)}
        self.res["shapes"].append({"tool": self.tool, "shape": shape, "times": json.loads((base / "times.json").read_text()),
                                   "measure": {k: counts.get(k) for k in ("tool", "calls", "hits", "misses", "uncacheable", "not_sent")},
                                   "runs": runs, "records": [after[0] - before[0], after[1] - before[1]]})

    def count(self, side, d, prefix, argv):
        """One more compile under strace (sccache's server traced too): cold_count_execs's figures."""
        st = d / "strace"
        st.mkdir(parents=True, exist_ok=True)
        tracer = None
        if side == "shim" and self.tool == "sccache":
            pids = sccache_pids(re.escape(self.server))
            if not pids:
                raise ColdError(f"no sccache server of {self.shim} is running")
            with open(st / "attach.err", "w") as err:
                tracer = subprocess.Popen(["strace", "-f", "-qq", "-ff", "-e", "trace=execve", "-e", "signal=none", "-s", "64",
                                           "-o", str(st / "server"), *(f"-p{p}" for p in pids)], stderr=err)
            time.sleep(1)  # strace attaches
        compile_in(d, prefix, argv, wrap=["strace", "-f", "-qq", "-ff", "-e", "trace=execve", "-e", "signal=none",
                                          "-s", "64", "-o", str(st / "client"), "--"])
        if tracer:
            tracer.send_signal(signal.SIGINT)
            tracer.wait()
        return count_execs(st)

    def stop_leftovers(self):
        """After the rollback: the sccache servers of this work dir still running, stopped and noted."""
        pids = sccache_pids(f"SCCACHE_DIR={re.escape(str(self.work))}/.*")
        if not pids:
            return
        marks = {}
        for p in pids:
            env = Path(f"/proc/{p}/environ").read_bytes().split(b"\0")
            k = "marked" if any(e.startswith(b"SHIMCTL_SCCACHE_SERVER_OF=") for e in env) else "unmarked"
            marks[k] = marks.get(k, 0) + 1
            uds = next((e[len(b"SCCACHE_SERVER_UDS="):].decode() for e in env if e.startswith(b"SCCACHE_SERVER_UDS=")), "")
            if uds and shutil.which("sccache"):
                subprocess.run(["sccache", "--stop-server"], env={**os.environ, "SCCACHE_SERVER_UDS": uds}, capture_output=True)
            for _ in range(50):
                if not Path(f"/proc/{p}").exists():
                    break
                time.sleep(0.1)
            try:
                os.kill(int(p), signal.SIGTERM)
            except OSError:
                pass
        self.res["notes"].append(f"after shimctl rollback {len(pids)} sccache server(s) of the bench still ran (without the "
                                 f"rollback's marker, SHIMCTL_SCCACHE_SERVER_OF: "
                                 f"{', '.join(f'{n} {k}' for k, n in sorted(marks.items()))}); the bench stopped them")


def outcome(m):
    """The cache's counts over the timed rounds, from shimctl measure --json (calls, hits, misses,
    uncacheable; not_sent where measure reports the shim's uncached calls apart)."""
    by = lambda d: ", ".join(f"{k} {v}" for k, v in sorted((d or {}).items()))
    s = f"misses {m['misses']}, hits {m['hits']}" if m.get("calls") else "no call reached the cache"
    if by(m.get("uncacheable")):
        s += f"; not cacheable: {by(m['uncacheable'])}"
    if by(m.get("not_sent")):
        s += f"; run without the cache: {by(m['not_sent'])}"
    return s


def runs_text(r):
    if not r:
        return "?"
    drv, drv_e, cc1, cc1_e, _ = r
    return f"{drv} drv" + (f" ({drv_e} -E)" if drv_e else "") + f", {cc1} cc1" + (f" ({cc1_e} -E)" if cc1_e else "")


def report(info, stacks):
    """COLD.md from the host's info and each stack's results.json."""
    L = [f"# Cold cache miss through the shim (scripts/bench --section cold, {info['started']})", "",
         f"Commit {info['commit']}; {info['machine']}; load {info['load_start']} -> {info['load_end']}."]
    for s in stacks:
        i = s["info"]
        L.append(f"- {s['stack']}: {i.get('toolchain', '?')}; {i.get('tools', '?')}; shimctl {i.get('shimctl', '?')}; "
                 f"hash memo records/file-hashes {i.get('memo_bytes', '?')} bytes at the end")
    L += ["",
          "Paired rounds: one uncached compile by the pristine prefix and one cold miss through the shim of an",
          "installed copy, the same new source (a round-specific constant) and the same `-o k.o` on both sides,",
          "the order rotating per round; medians of each side and of the per-round ratios shim / uncached (and",
          "their quartiles: the round-to-round noise of this machine). In the same rounds a third compile: a",
          "cold miss through the same shim with SHIMCTL_RECORDS=0 (records off: the shim before issue 43; its own",
          "source); records on / off is the median of the per-round ratios shim / records off (issue 43: <= 1.02);",
          "record B/miss: the bytes of the compile records the timed rounds wrote (records/*/*.json in the user",
          "cache home) per records-on miss, and how many files. Cache counts: `shimctl measure --json` over the",
          "timed rounds, both shim sides (no call: the shim ran the compiler without the cache). Clang runs",
          "for one compile (one more compile per side under `strace -f -e trace=execve`; for sccache its server",
          "traced too): driver runs of the real clang, `-E` ones (preprocessing only) counted apart, and cc1 jobs",
          "run as their own processes (clang runs cc1 inside the driver when a compile has a single job, as a",
          "device-only `-E` has); `--version`/`-print-*` probes not counted (in the detail table).", "",
          "| stack | tool | call shape | uncached median s | shim cold median s | paired ratio median | ratio p25-p75 | target <= 1.03 | records off median s | records on / off median | on/off p25-p75 | target <= 1.02 | record B/miss (files) | rounds | shim side: cache counts | clang runs: uncached | clang runs: shim |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rows = [(s, x) for s in stacks for x in s["shapes"]]
    for s, x in rows:
        v = x["times"]
        o, sh = median(t[0] for t in v), median(t[1] for t in v)
        ratios = [t[1] / t[0] for t in v]
        r = median(ratios)
        q = quartiles(ratios) or (r, r)
        label = s["labels"].get(x["shape"], x["shape"])
        off = [t[1] / t[2] for t in v if len(t) > 2]
        ro, qo = median(off), quartiles(off)
        n, size = x.get("records") or (0, 0)
        rec = (f"{median(t[2] for t in v):.3f} | {ro:.3f} | " + (f"{qo[0]:.2f}-{qo[1]:.2f}" if qo else "-") +
               f" | {'met' if ro <= 1.02 else '**missed**'} | {size / len(v):.0f} ({n})") if off else "- | - | - | - | -"
        L.append(f"| {s['stack']} | {x['tool']} | `{label}` | {o:.3f} | {sh:.3f} | {r:.3f} | {q[0]:.2f}-{q[1]:.2f} | "
                 f"{'met' if r <= 1.03 else '**missed**'} | {rec} | {len(v)} | {outcome(x['measure'])} | "
                 f"{runs_text(x['runs'].get('orig'))} | {runs_text(x['runs'].get('shim'))} |")
    L += ["", "Clang executions of one compile in detail (driver runs, cc1 jobs, -E among them, probes):", "",
          "| stack | tool | call shape | side | driver runs | of which -E | cc1 jobs | of which -E | probes |",
          "|---|---|---|---|---|---|---|---|---|"]
    for s, x in rows:
        for side in ("orig", "shim"):
            r = x["runs"].get(side)
            if r:
                L.append(f"| {s['stack']} | {x['tool']} | `{s['labels'].get(x['shape'], x['shape'])}` | "
                         f"{'uncached' if side == 'orig' else 'shim'} | " + " | ".join(map(str, r)) + " |")
    for s in stacks:
        for n in s["notes"]:
            L += ["", f"Note: {s['stack']}: {n}"]
    return "\n".join(L) + "\n"
