"""--section links, one stack (issue 36): what caching device links per GPU target saves on an
-fgpu-rdc link. Run by links.py as `python3 -m bench.links_stack STACK WORK SHIMCTL ROUNDS`
(PYTHONPATH=scripts/lib), as root: on the host for debian12, inside the sid root for sid and sid23.

  STACK    debian12 (make-rocm-prefix --llvm 15: clang-15, the old offload driver, its per-target
           lld jobs through shimctl as `lld`; targets A,B = gfx908,gfx90a, C = gfx1030), sid
           (--stack sid: clang-21, the old driver; A,B = gfx90a,gfx942, C = gfx1100) or sid23
           (--stack sid --llvm 23: clang-23, the new driver: the linker wrapper's per-target
           clang through the shim; the same targets)
  WORK     a new directory (results: WORK/times.tsv, WORK/links.tsv, WORK/cmp.tsv, WORK/info)

The program: two TUs of 24 instantiations (Debian 12: 16; its clang-15 links 24 in 35 s, 12 in
9.6 s) each of a templated kernel (float and double), main,
and a static device library (libtw.a), compiled once, uncached, for {A,B} (o2/) and {A,B,C}
(o3/). Every link is `clang++ -fgpu-rdc --hip-link --offload-arch=... a.o b.o m.o -L. -ltw -o
prog` in a directory of its own. The store (XDG_CACHE_HOME=WORK/xdg) keeps its first-hit verdict
from a warm-up; each round empties its entries, then, each pair in alternating order:
  miss   {A,B} through the shim, every target linked and kept / uncached {A,B}: the miss's cost
  fresh  {A,B} through the shim from a copy of o2/ (a fresh build directory): every target a hit
         / uncached {A,B} (goal <= 0.05x for a link of >= 10 s)
  add    {A,B,C} through the shim (A, B hits, C linked) / uncached {A,B,C} (goal <= 1/N of it
         plus the fixed steps; the report shows 1/3 of the uncached link beside it)
Uncached: the same prefix's clang++ with SHIMCTL_DISABLE=1. Each shim link's device links (hits,
misses, from the trace) go to links.tsv; every shim program is cmp'ed with the uncached one of
its step. Nothing is gated on time.
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import kernels

STACKS = {  # prefix arguments, clang++ in the prefix, A, B, C, llvm-ar, instantiations per type and TU
    "debian12": (["--llvm", "15"], "llvm/bin/clang++", "gfx908", "gfx90a", "gfx1030", "/usr/lib/llvm-15/bin/llvm-ar",
                 16),
    "sid": (["--stack", "sid"], "lib/llvm/bin/clang++", "gfx90a", "gfx942", "gfx1100", "/usr/lib/llvm-21/bin/llvm-ar",
            24),
    "sid23": (["--stack", "sid", "--llvm", "23"], "lib/llvm/bin/clang++", "gfx90a", "gfx942", "gfx1100",
              "/usr/lib/llvm-23/bin/llvm-ar", 24),
}

HEADER = """#include <hip/hip_runtime.h>
// scripts/bench --section links: COUNT instantiations of a templated kernel per type in TU NAME.
__device__ float twice(float x);
"""
INSTANCES = """#define INST(N) template __global__ void heavy_NAME<N, float>(float*, const float*, int); \\
  template __global__ void heavy_NAME<N, double>(double*, const double*, int);
"""
LIBRARY = "#include <hip/hip_runtime.h>\n__device__ float twice(float x) { return 2.0f * sinf(x); }\n"
MAIN = """#include <hip/hip_runtime.h>
template <int N, typename T> __global__ void heavy_a(T* x, const T* y, int n);
int main() { float* d = nullptr; (void)hipMalloc(&d, 4); heavy_a<1, float><<<1, 1>>>(d, d, 1); return 0; }
"""


def say(stack, text):
    print(f"bench-links: {stack}: {text}", file=sys.stderr, flush=True)


def run(argv, cwd, env=None, log=None):
    """Runs ARGV in CWD (ENV added to a clean environment); its wall seconds. Fails loudly."""
    t0 = time.monotonic()
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, errors="replace")
    seconds = time.monotonic() - t0
    if log:
        Path(log).write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"bench-links: failed in {cwd}: {' '.join(map(str, argv))}\n{(done.stdout + done.stderr)[-2000:]}")
    return seconds


class Stack:
    def __init__(self, stack, work, shimctl):
        self.stack, self.W, self.shimctl = stack, Path(work), Path(shimctl)
        prefix_args, clang, self.A, self.B, self.C, self.ar, self.count = STACKS[stack]
        self.P = self.W / "rocm"
        self.clang = self.P / clang
        self.prefix_args = prefix_args
        os.environ["XDG_CACHE_HOME"] = str(self.W / "xdg")
        for k in [k for k in os.environ if k.startswith(("SHIMCTL_", "CCACHE_", "SCCACHE_"))]:
            del os.environ[k]
        self.store = self.W / "xdg" / "shimctl" / "device-links"

    def setup(self):
        src = Path(__file__).resolve().parents[3]
        run([src / "scripts" / "make-rocm-prefix", self.P, *self.prefix_args], self.W, log=self.W / "prefix.log")
        run([self.shimctl, "install", self.P, "--cache", "ccache", "--cache-dir", self.W / "ccache"], self.W,
            log=self.W / "install.log")
        for d, targets in (("o2", (self.A, self.B)), ("o3", (self.A, self.B, self.C))):
            o = self.W / d
            o.mkdir()
            for name, text in (("a", self.heavy("a")), ("b", self.heavy("b")), ("m", MAIN), ("tw", LIBRARY)):
                (o / f"{name}.hip").write_text(text)
                run([self.clang, *self.rocm_path(), "-x", "hip", "-fgpu-rdc", "-O2", *arch(targets), "-c",
                     f"{name}.hip", "-o", f"{name}.o"], o, {"SHIMCTL_DISABLE": "1"})
            run([self.ar, "rcs", "libtw.a", "tw.o"], o)
        version = subprocess.run([self.clang, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
        (self.W / "info").write_text(f"toolchain\t{version}\ntargets\t{self.A} {self.B} {self.C}\n"
                                     f"program\ttwo TUs of {self.count} instantiations per type\n"
                                     f"shimctl\t{self.shimctl}\n")

    def heavy(self, name):
        instances = " ".join(f"INST({n})" for n in range(1, self.count + 1))
        return (HEADER.replace("NAME", name).replace("COUNT", str(self.count)) + kernels.heavy(f"heavy_{name}", "(T)twice((float)i)")
                + INSTANCES.replace("NAME", name) + instances + "\n")

    def rocm_path(self):
        return [f"--rocm-path={self.P}"] if self.stack == "debian12" else []

    def link(self, objects, targets, where, shim):
        """A link of the objects in OBJECTS (copied to WHERE first) for TARGETS: its wall seconds."""
        if not where.exists():
            shutil.copytree(objects, where)
        env = {"SHIMCTL_SHIM_TRACE": "1"} if shim else {"SHIMCTL_DISABLE": "1"}
        return run([self.clang, *self.rocm_path(), "-fgpu-rdc", "--hip-link", *arch(targets), "a.o", "b.o", "m.o",
                    "-L.", "-ltw", "-o", "prog"], where, env, log=where / "trace")

    def empty_store(self):
        for shard in self.store.glob("??"):
            shutil.rmtree(shard)

    def step(self, r, step, objects, targets):
        d = self.W / f"r{r}" / step
        sides = [("shim", d / "shim"), ("uncached", d / "uncached")]
        for side, where in (sides if r % 2 else sides[::-1]):
            seconds = self.link(objects, targets, where, side == "shim")
            append(self.W / "times.tsv", step, r, side, f"{seconds:.3f}")
        trace = (d / "shim" / "trace").read_text()
        links = [line for line in trace.splitlines() if line.startswith("shimctl-shim: device link: ")]
        append(self.W / "links.tsv", step, r, sum(" hit" in l for l in links), sum(" miss" in l for l in links))
        same = (d / "shim" / "prog").read_bytes() == (d / "uncached" / "prog").read_bytes()
        append(self.W / "cmp.tsv", step, r, "same" if same else "differ")

    def rounds(self, n):
        o2, o3 = self.W / "o2", self.W / "o3"
        say(self.stack, "warm-up: a miss and a fresh directory's first hit (its check kept)")
        self.link(o2, (self.A, self.B), self.W / "warm" / "miss", True)
        self.link(o2, (self.A, self.B), self.W / "warm" / "hit", True)
        for r in range(1, n + 1):
            say(self.stack, f"round {r}")
            self.empty_store()
            self.step(r, "miss", o2, (self.A, self.B))
            self.step(r, "fresh", o2, (self.A, self.B))
            self.step(r, "add", o3, (self.A, self.B, self.C))


def arch(targets):
    return [f"--offload-arch={t}" for t in targets]


def append(path, *fields):
    with open(path, "a") as f:
        f.write("\t".join(map(str, fields)) + "\n")


def main(argv):
    if len(argv) != 4 or argv[0] not in STACKS:
        raise SystemExit(f"usage: python3 -m bench.links_stack {{{'|'.join(STACKS)}}} WORK SHIMCTL ROUNDS")
    stack, work, shimctl, rounds = argv
    Path(work).mkdir(parents=True)
    s = Stack(stack, work, shimctl)
    s.setup()
    s.rounds(int(rounds))


if __name__ == "__main__":
    main(sys.argv[1:])
