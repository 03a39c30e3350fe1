"""The machinery every section of scripts/bench shares: the work dir and the results, processes,
hyperfine (every timing) with the statistics of its --export-json, and `shimctl measure --json`
(every hit and miss count)."""
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


class BenchError(Exception):
    """A step failed outright: the bench stops with this message."""


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def cmdline(argv):
    """A command for hyperfine -N (it splits with shell-words, no shell runs)."""
    return shlex.join(str(a) for a in argv)


def sh(script):
    """A hyperfine --prepare of several steps: one sh -c."""
    return cmdline(["sh", "-c", script])


def q(path):
    return shlex.quote(str(path))


def first_line(argv):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           stdin=subprocess.DEVNULL, errors="replace")
    except OSError:
        return ""
    return p.stdout.split("\n", 1)[0].strip()


def loadavg():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def have_rocm(llvm=15):
    """Debian's ROCm packages and clang-LLVM (scripts/lib/toolchains.bash's have_rocm)."""
    return (os.access("/usr/bin/hipcc", os.X_OK) and Path("/usr/bin/hipcc.pl").is_file()
            and os.access(f"/usr/lib/llvm-{llvm}/bin/clang", os.X_OK)
            and os.access(f"/usr/lib/llvm-{llvm}/bin/lld", os.X_OK)
            and Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc").is_file()
            and Path("/usr/include/hip/hip_runtime.h").is_file())


class Bench:
    """One run: its settings, work dir, results (key -> value, as in results.json) and helpers."""

    def __init__(self, root, build, work, out, quick, section, nice):
        self.root = root
        self.scripts = root / "scripts"
        self.build = build
        self.shimctl = build / "installer" / "shimctl"
        self.hooks = build / "installer" / "shimctl-test-hooks"
        self.shim_bin = build / "shim" / "shimctl-shim"
        self.W = work
        self.J = work / "json"
        self.J.mkdir(parents=True, exist_ok=True)
        self.out = out
        self.quick = quick
        self.section = section
        self.nice = nice
        self.hf_log = work / "hyperfine.log"
        self.install_log = work / "install.log"
        self.r = {}
        self.extra_env = {}  # added to every process's environment
        self.cleanups = []  # run at exit, last first (a lock holder, a redis-server)

    # ---- results --------------------------------------------------------------------------
    def put(self, key, value):
        self.r[key] = value

    def get(self, key, default=None):
        return self.r.get(key, default)

    def put_all(self, prefix, stats, only=None):
        """stats: name -> {key: value}; stored as PREFIX.NAME.KEY (only the keys `only` allows)."""
        for name, kv in stats.items():
            for k, v in kv.items():
                if only is None or only(k):
                    self.r[f"{prefix}.{name}.{k}"] = v

    def save(self):
        (self.W / "results.json").write_text(json.dumps(self.r, indent=1, sort_keys=True) + "\n")

    # ---- processes --------------------------------------------------------------------------
    def env(self, add=None):
        e = dict(os.environ)
        e.update(self.extra_env)
        for k, v in (add or {}).items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = str(v)
        return e

    def run(self, argv, env=None, cwd=None, logfile=None, check=True, stdout=None):
        """Runs argv; its output appended to logfile (default: discarded, or stdout=PIPE)."""
        argv = [str(a) for a in argv]
        if logfile:
            with open(logfile, "a") as f:
                p = subprocess.run(argv, env=self.env(env), cwd=cwd, stdin=subprocess.DEVNULL,
                                   stdout=f, stderr=subprocess.STDOUT)
        else:
            p = subprocess.run(argv, env=self.env(env), cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=stdout or subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, errors="replace")
        if check and p.returncode != 0:
            where = f" (log: {logfile})" if logfile else ""
            err = "" if logfile else "\n" + (p.stderr or "")[-2000:]
            raise BenchError(f"{cmdline(argv)} exited with {p.returncode}{where}{err}")
        return p

    def output(self, argv, env=None, cwd=None, check=True):
        return self.run(argv, env=env, cwd=cwd, check=check, stdout=subprocess.PIPE).stdout

    def make_prefix(self, dest, *args):
        self.run([self.scripts / "make-rocm-prefix", dest, *args])

    def install(self, prefix, *args, tool=None, env=None):
        self.run([tool or self.shimctl, "install", prefix, *args], env=env, logfile=self.install_log)

    def write_hip_kernel(self, path, n=0):
        """The kernel of write_hip_kernel in scripts/lib/toolchains.bash."""
        self.run(["bash", "-c", 'source "$1" && write_hip_kernel "$2" "$3"', "_",
                  self.scripts / "lib" / "toolchains.bash", path, n])

    # ---- hyperfine and shimctl measure ---------------------------------------------------------
    def hyperfine(self, json_path, args, env=None, measure=False):
        """One `hyperfine -N` invocation (no shell between it and the commands) at niceness
        BENCH_NICE, env added to the environment, its JSON in json_path, its output appended to
        hyperfine.log. With measure: run under `shimctl measure --json` (outside the timed
        commands) and measure's JSON returned: every ccache call of the invocation, warm-ups and
        --prepare steps included, in its counts."""
        json_path.parent.mkdir(parents=True, exist_ok=True)
        argv = ["nice", "-n", str(self.nice), "hyperfine", "-N", "--style", "basic",
                "--export-json", str(json_path), *map(str, args)]
        if measure:
            argv = [str(self.shimctl), "measure", "--json", "--", *argv]
        with open(self.hf_log, "a") as f:
            f.write("== " + cmdline(argv) + "\n")
            f.flush()
            p = subprocess.run(argv, env=self.env(env), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE if measure else f, stderr=f, text=True)
        if p.returncode != 0:
            raise BenchError(f"hyperfine failed (log: {self.hf_log}): {cmdline(args)}")
        return json.loads(p.stdout) if measure else None

    def group(self, json_path, rnd, runs, warmup, cmds, env=None, measure=False):
        """One hyperfine invocation of several named commands [(name, argv)], in one environment;
        the order rotated by rnd (hyperfine runs each command's runs in a block)."""
        args = ["--runs", runs, "--warmup", warmup]
        for i in range(len(cmds)):
            name, argv = cmds[(i + rnd) % len(cmds)]
            args += ["-n", name, cmdline(argv)]
        return self.hyperfine(json_path, args, env=env, measure=measure)

    def measure(self, argv, env=None, cwd=None, logfile=None):
        """`shimctl measure --json -- argv`, untimed: its JSON."""
        with open(logfile or os.devnull, "a") as f:
            p = subprocess.run([str(self.shimctl), "measure", "--json", "--", *map(str, argv)],
                               env=self.env(env), cwd=cwd, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=f, text=True)
        if p.returncode != 0:
            raise BenchError(f"{cmdline(argv)} failed under shimctl measure (exit {p.returncode})")
        return json.loads(p.stdout)


# ---- counts from shimctl measure --json ------------------------------------------------------
# The fields read: hits, misses (and, where measure reports them, direct_hits).
class Counts:
    def __init__(self):
        self.hits = self.misses = 0
        self.direct = None

    def add(self, m):
        self.hits += m["hits"]
        self.misses += m["misses"]
        if "direct_hits" in m:
            self.direct = (self.direct or 0) + m["direct_hits"]
        return m


def per_run(values):
    """The value of every run when all agree, else "MIN-MAX"."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    lo, hi = min(values), max(values)
    return lo if lo == hi else f"{lo}-{hi}"


def put_run_counts(b, prefix, name, ms):
    """PREFIX.NAME.{hits,misses,direct} from measure's JSON of each run."""
    b.put(f"{prefix}.{name}.hits", per_run([m["hits"] for m in ms]))
    b.put(f"{prefix}.{name}.misses", per_run([m["misses"] for m in ms]))
    b.put(f"{prefix}.{name}.direct", per_run([m.get("direct_hits") for m in ms]))


# ---- statistics: the one median and quartiles of every section ---------------------------------
def median(values):
    """The median of VALUES (any iterable of numbers), or None when there are none."""
    v = list(values)
    return statistics.median(v) if v else None


def quartiles(values):
    """(p25, p75) of VALUES (statistics.quantiles, the exclusive method), or None below two values."""
    v = list(values)
    if len(v) < 2:
        return None
    q = statistics.quantiles(v, n=4)
    return q[0], q[2]


# ---- statistics from hyperfine's --export-json -----------------------------------------------
def results(path):
    return json.loads(Path(path).read_text())["results"]


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p * len(v)))]


def summarize(files, base=None):
    """Named commands measured in rounds, files = [(round, json)] (a round may span several files):
    name -> {n, wall (median of all times[]), mean, stddev, min, max, wall_p10, wall_p90,
    cpu (mean user+system), and with base: paired_wall, paired_cpu (the median over rounds of the
    name's hyperfine median, or user+system, divided by base's in the same round), rounds}; ms."""
    times, cpus = defaultdict(list), defaultdict(list)
    rounds = defaultdict(dict)
    for rnd, f in files:
        for r in results(f):
            name = r["command"]
            times[name] += r["times"]
            cpus[name].append(r["user"] + r["system"])
            rounds[rnd][name] = (r["median"], max(r["user"] + r["system"], 1e-9))
    out = {}
    for name, t in times.items():
        ms = [x * 1e3 for x in t]
        s = {"n": len(ms), "wall": median(ms), "mean": statistics.mean(ms),
             "stddev": statistics.stdev(ms) if len(ms) > 1 else 0.0, "min": min(ms), "max": max(ms),
             "wall_p10": pct(ms, 0.1), "wall_p90": pct(ms, 0.9),
             "cpu": statistics.mean(cpus[name]) * 1e3}
        pairs = [x for x in rounds.values() if name in x and base in x] if base else []
        if pairs:
            s["paired_wall"] = median(x[name][0] / x[base][0] for x in pairs)
            s["paired_cpu"] = median(x[name][1] / x[base][1] for x in pairs)
            s["rounds"] = len(pairs)
        out[name] = s
    return out


def single(files):
    """Each named command's runs, from one invocation or one invocation per run: name -> {n,
    median, mean, stddev, min, max (ms), cpu (mean user+system, ms), exit (distinct codes)}."""
    times, cpus, codes = defaultdict(list), defaultdict(list), defaultdict(set)
    for f in files:
        for r in results(f):
            name = r["command"]
            times[name] += r["times"]
            cpus[name] += [r["user"] + r["system"]] * len(r["times"])
            codes[name] |= {c for c in r.get("exit_codes") or [] if c is not None}
    out = {}
    for name, t in times.items():
        ms = [x * 1e3 for x in t]
        out[name] = {"n": len(ms), "median": median(ms), "mean": statistics.mean(ms),
                     "stddev": statistics.stdev(ms) if len(ms) > 1 else 0.0,
                     "min": min(ms), "max": max(ms), "cpu": statistics.mean(cpus[name]) * 1e3,
                     "exit": ",".join(map(str, sorted(codes[name])))}
    return out


def shim_syscalls(strace_file):
    """The system calls (names) of an `strace -f` of a shim: from its execve (included) to the
    next one (excluded)."""
    names, n = [], 0
    for line in Path(strace_file).read_text(errors="replace").splitlines():
        if "execve(" in line:
            n += 1
        if n == 1:
            m = re.match(r"^(?:\d+ +)?([A-Za-z0-9_]+)\(", line)
            if m:
                names.append(m.group(1))
    return names


def syscall_summary(names):
    counts = defaultdict(int)
    for n in names:
        counts[n] += 1
    # most first; ties in reverse name order, as `sort | uniq -c | sort -rn` had them
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (kv[1], kv[0]),
                                                    reverse=True))


def tsv(path):
    """The tab-separated lines of PATH, each split (none when it cannot be read)."""
    try:
        return [l.split("\t") for l in Path(path).read_text().splitlines() if l.strip()]
    except OSError:
        return []


def remove_bind_points(sid_root, binds):
    """sid-run's mount points of BINDS, left empty inside SID_ROOT: removed up to the first non-empty."""
    for d in binds:
        for p in [Path(d), *Path(d).parents][:-1]:
            try:
                os.rmdir(f"{sid_root}{p}")
            except OSError:
                break


def sid_paths(b):
    """The sid root and the sid build (SHIMCTL_SID_ROOT, SID_BUILD_DIR; defaults as scripts/test-sid)."""
    return (Path(os.environ.get("SHIMCTL_SID_ROOT", "/var/cache/shimctl/sid-root")),
            Path(os.environ.get("SID_BUILD_DIR") or b.root / "build-sid").absolute())


def run_stack(what, argv):
    """Runs ARGV (a bench stack script); raises BenchError naming WHAT when it fails."""
    if subprocess.run([str(a) for a in argv], stdin=subprocess.DEVNULL).returncode != 0:
        raise BenchError(f"the {what} stack failed: {' '.join(map(str, argv))}")


def sid_build_binds(b, sid_build):
    """What scripts/sid-run must bind besides the checkout: the work dir, and SID_BUILD (with its
    sources: shimctl reads their manifests/) when it lives elsewhere."""
    binds = [b.W]
    cache = (sid_build / "CMakeCache.txt").read_text()
    home = next((l.split("=", 1)[1] for l in cache.splitlines() if l.startswith("CMAKE_HOME_DIRECTORY:INTERNAL=")), "")
    for d in (str(sid_build), home):
        if d and d != "/" and not (d + "/").startswith(str(b.root) + "/") and d not in binds:
            binds.append(d)
    return binds


def host_hyperfine(b):
    """BENCH_HYPERFINE=<the host's hyperfine, copied into the sid build>: the sid root has none
    (Debian 12's glibc is older, so the host's runs there)."""
    hf = sid_paths(b)[1] / "host-hyperfine" / "hyperfine"
    hf.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(shutil.which("hyperfine"), hf)
    return f"BENCH_HYPERFINE={hf}"


def run_in_sid(b, what, binds, argv):
    """Runs `env ARGV` in the sid root (scripts/sid-run, BINDS bound besides the checkout), then
    removes the mount points sid-run left; raises BenchError naming WHAT when it fails."""
    sid_root = sid_paths(b)[0]
    try:
        run_stack(what, [b.scripts / "sid-run", *[a for d in binds for a in ("--bind", d)], sid_root, "env", *argv])
    finally:
        remove_bind_points(sid_root, binds)


def stack_module(b, name, *args):
    """The command (for `env`) that runs bench.NAME (a per-stack module: links_stack, pieces_stack,
    stores_stack) with ARGS at niceness BENCH_NICE, on the host or inside the sid root; -B: no
    __pycache__ in the checkout."""
    return [f"PYTHONPATH={b.scripts / 'lib'}", "nice", "-n", str(b.nice), "python3", "-B", "-m", f"bench.{name}",
            *args]
