"""--section pieces, the `project` kernel (issue 44): a generated CMake HIP project, built for {A,B}
through the shim, then from a fresh build directory for {A,B,C} against an uncached {A,B,C} build.
Run by pieces_stack.py (inside its stack: the prefix installed, the toolchain's first split
checked).

The project: scripts/gen-hip-project SRC UNITS --kernel-less 2 (BENCH_PIECES_PROJECT_UNITS, default
12: UNITS kernel TUs src/unit_NNN.hip and two host-only TUs src/a_host_NN.hip, which sort first and
so compile first), configured as a new user would: `cmake -G Ninja -DBENCH_LANG=CXX
-DCMAKE_CXX_COMPILER=PREFIX/bin/hipcc -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17
-DCMAKE_CXX_EXTENSIONS=OFF -DBENCH_ARCH="A;B"` (each compile: hipcc -O3 -DNDEBUG -std=c++17 -x hip
--offload-arch=A --offload-arch=B -MD -MT .. -MF ..). Each round, in WORK/project/rN:
  fill      configure and build b-fill for {A,B} through the shim into an empty cache (untimed)
  add       the pair, the order alternating (the shim side first in odd rounds): configure a fresh
            b-shim for {A,B,C} through the shim against that cache and build it / configure b-unc
            for {A,B,C} with SHIMCTL_DISABLE=1 and build it. Timed: the build (ninja -j NPROC);
            the configure is not; its CPU (user + system of ninja and every process under it, which all
            wait for theirs) beside, the ratio a loaded machine disturbs least.
The shim side's build runs with SHIMCTL_SHIM_TRACE=1: ninja prints each compile's trace after its
status line, so every TU's trace lines are its own (WORK/project/rN/b-shim.log). Recorded:
times.tsv (project, add, r, shim|uncached|shim-cpu|uncached-cpu, s; project, fill, r, shim, s), pieces.tsv (the
counters' delta: piece hits, misses, objects split), project.tsv (r, the whole delta of
CACHE/shimctl-pieces as NAME=N, then per TU kind what the trace says), cmp.tsv (every object of
b-shim against b-unc's). Whether every kernel TU reused its host half is asserted from both: each
unit_NNN's trace says `host half hit`, none says `host half miss` or `host half not used`, and the
counters' host_miss delta is 0 with host_hit >= the kernel TUs; a failure is printed and marked in
the report (the bench goes on: nothing here is gated).
"""
import os
import re
import resource
import shutil
import subprocess
import time
from pathlib import Path

KERNEL_LESS = 2
TRACE = "shimctl-shim: pieces: "


def counters(cache):
    """Every counter of CACHE/shimctl-pieces (name -> int; none when absent)."""
    c = {}
    try:
        for line in (Path(cache) / "shimctl-pieces").read_text().splitlines():
            f = line.split()
            if len(f) >= 2 and f[1].isdigit():
                c[f[0]] = int(f[1])
    except OSError:
        pass
    return c


def trace_by_object(log_text):
    """ninja's output: {object name (src/X.hip.o): [its trace lines without the prefix]}. ninja
    prints a compile's status line when it finishes, its output (here: the trace) right after."""
    out, current = {}, None
    for line in log_text.splitlines():
        m = re.match(r"^\[\d+/\d+\] Building \S+ object \S*?/(src/\S+\.o)$", line)
        if m:
            current = m.group(1)
            out.setdefault(current, [])
        elif re.match(r"^\[\d+/\d+\] ", line):
            current = None
        elif current and line.startswith(TRACE):
            out[current].append(line[len(TRACE):])
    return out


def tu_verdicts(traces):
    """What each TU's trace says: {object: (host half 'hit'|'miss'|'-', 'alone'|'split'|'whole'|'-',
    host half refused)}."""
    v = {}
    for obj, lines in traces.items():
        host = next((l.split()[2] for l in lines if l.startswith("host half ") and l.split()[2] in ("hit", "miss")), "-")
        kind = ("alone" if any(l.startswith("object: the host half alone") for l in lines)
                else "derived" if any(l.startswith("object derived from the ") for l in lines)
                else "derived-alone" if any(re.match(r"^object: the \S+ object as it is", l) for l in lines)
                else "split" if any(re.match(r"^object from \d+ pieces$", l) for l in lines)
                else "whole" if any(l.startswith("whole object") for l in lines) else "-")
        refused = any(l.startswith("host half not used") for l in lines)
        v[obj] = (host, kind, refused)
    return v


class Project:
    def __init__(self, stack):
        self.s = stack
        self.units = int(os.environ.get("BENCH_PIECES_PROJECT_UNITS") or 12)
        self.jobs = int(os.environ.get("BENCH_PIECES_PROJECT_JOBS") or os.cpu_count() or 2)
        self.hipcc = stack.P / "bin" / "hipcc"

    def configure(self, src, build, targets, env, log):
        argv = ["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DBENCH_LANG=CXX", f"-DCMAKE_CXX_COMPILER={self.hipcc}",
                "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_STANDARD=17", "-DCMAKE_CXX_STANDARD_REQUIRED=ON",
                "-DCMAKE_CXX_EXTENSIONS=OFF", f"-DBENCH_ARCH={';'.join(targets)}"]
        self.run(argv, env, log, f"configure {build}")

    def run(self, argv, env, log, what):
        """ARGV with ENV added, its output to LOG: (wall seconds, CPU seconds: user + system of it and every
        process it waited for)."""
        with open(log, "a") as f:
            cpu = lambda: (lambda u: u.ru_utime + u.ru_stime)(resource.getrusage(resource.RUSAGE_CHILDREN))
            c0, t0 = cpu(), time.monotonic()
            rc = subprocess.run([str(a) for a in argv], env={**os.environ, **env}, stdin=subprocess.DEVNULL, stdout=f,
                                stderr=subprocess.STDOUT).returncode
            seconds, cpu_seconds = time.monotonic() - t0, cpu() - c0
        if rc != 0:
            tail = "\n".join(Path(log).read_text(errors="replace").splitlines()[-8:])
            self.s.die(f"project: {what} failed ({log}): {tail}")
        return seconds, cpu_seconds

    def build(self, d, name, targets, env):
        """Configure (untimed) and build (timed) D/NAME for TARGETS with ENV: (wall, CPU) seconds."""
        b, log = d / name, d / f"{name}.log"
        self.configure(d / "src", b, targets, env, d / f"{name}-configure.log")
        return self.run(["ninja", "-C", b, "-j", str(self.jobs)], env, log, f"build {b}")

    def timed(self, r, side, seconds):
        """(wall, CPU) of R's SIDE to times.tsv: SIDE and SIDE-cpu."""
        self.s.append_tsv("times.tsv", "project", "add", r, side, f"{seconds[0]:.3f}")
        self.s.append_tsv("times.tsv", "project", "add", r, f"{side}-cpu", f"{seconds[1]:.3f}")

    def objects(self, b):
        return sorted(str(p.relative_to(b)) for p in b.rglob("*.o"))

    def warm_up(self):
        """The toolchain's first derived objects through hipcc (a kernel TU's and a kernel-less TU's)
        are checked against their one-step compiles, once per user (pieces-checked/): here, in a
        small project (gen-hip-project asks for 4 kernel TUs at least, and one without), so that no
        round pays for the checks."""
        s, d = self.s, self.s.W / "project" / "warmup"
        d.mkdir(parents=True, exist_ok=True)
        s.run_logged([s.src / "scripts" / "gen-hip-project", d / "src", 4, "--kernel-less", 1],
                     d / "gen.log", "gen-hip-project (warm-up)")
        env = {"CCACHE_DIR": str(d / "cache"), "SHIMCTL_SHIM_TRACE": "1"}
        self.build(d, "b-2", [s.A, s.B], env)
        self.build(d, "b-3", [s.A, s.B, s.C], env)

    def one_round(self, r):
        s, d = self.s, self.s.W / "project" / f"r{r}"
        A, B, C = s.A, s.B, s.C
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        s.run_logged([s.src / "scripts" / "gen-hip-project", d / "src", self.units, "--kernel-less", KERNEL_LESS],
                     d / "gen.log", "gen-hip-project")
        cache = d / "cache"
        cache.mkdir()
        shim_env = {"CCACHE_DIR": str(cache), "SHIMCTL_SHIM_TRACE": "1"}
        s.say(f"project round {r}: {self.units} kernel TUs + {KERNEL_LESS} without, {{{A},{B}}} (fill)")
        fill = self.build(d, "b-fill", [A, B], shim_env)[0]
        s.append_tsv("times.tsv", "project", "fill", r, "shim", f"{fill:.3f}")
        before, delta = counters(cache), {}

        def shim():
            self.timed(r, "shim", self.build(d, "b-shim", [A, B, C], shim_env))
            after = counters(cache)
            delta.update({k: after.get(k, 0) - before.get(k, 0) for k in sorted(set(after) | set(before))})

        def uncached():
            self.timed(r, "uncached", self.build(d, "b-unc", [A, B, C], {"SHIMCTL_DISABLE": "1"}))

        s.pair(r, shim, uncached)
        s.append_tsv("pieces.tsv", "project", "add", r, delta.get("piece_hit", 0), delta.get("piece_miss", 0),
                     delta.get("split_compile", 0), delta.get("derived", 0), delta.get("target_compiled", 0))
        objs = self.objects(d / "b-unc")
        for o in objs:
            x, y = d / "b-shim" / o, d / "b-unc" / o
            s.append_tsv("cmp.tsv", "project", "add", r,
                         "same" if x.is_file() and x.read_bytes() == y.read_bytes() else "differ")
        v = tu_verdicts(trace_by_object((d / "b-shim.log").read_text(errors="replace")))
        kernel = {o: x for o, x in v.items() if "/unit_" in o}
        hostonly = {o: x for o, x in v.items() if "/a_host_" in o}
        # The default (issue 44): each TU's object derived from its {A,B} object, only C compiled
        # (a kernel-less TU's object is the {A,B} one as it is).
        k_derived = sum(1 for _, kind, _ in kernel.values() if kind == "derived")
        h_alone = sum(1 for _, kind, _ in hostonly.values() if kind == "derived-alone")
        tus = self.units + KERNEL_LESS
        reused = (len(kernel) == self.units and k_derived == self.units and h_alone == KERNEL_LESS
                  and delta.get("derived", 0) == tus and delta.get("lookup_miss", 0) == 0
                  and delta.get("target_compiled", 0) == tus)
        s.append_tsv("project.tsv", r, " ".join(f"{k}={n}" for k, n in delta.items() if n),
                     f"kernel_tus={len(kernel)} kernel_derived={k_derived} "
                     f"kernelless_tus={len(hostonly)} kernelless_as_it_was={h_alone}", "yes" if reused else "NO",
                     f"{fill:.3f}")
        if not reused:
            s.say(f"project round {r}: NOT every TU derived from its {{{A},{B}}} object (trace: {k_derived}/"
                  f"{len(kernel)} kernel TUs, {h_alone}/{len(hostonly)} kernel-less; counters: {delta}); "
                  f"see {d / 'b-shim.log'}")
        else:
            s.say(f"project round {r}: every TU derived from its {{{A},{B}}} object ({k_derived} kernel TUs, "
                  f"{h_alone} kernel-less; counters derived {delta.get('derived', 0)}, "
                  f"target_compiled {delta.get('target_compiled', 0)}, lookup_miss {delta.get('lookup_miss', 0)})")
        for b in ("b-fill", "b-unc"):  # the objects are checked; the trees are large
            shutil.rmtree(d / b, ignore_errors=True)
