"""--section pieces, one stack (issue 25): what the per-GPU-target pieces save when a HIP source is
compiled again for another target set, and what they cost on a whole hit and on a cold miss. Run
by pieces.py as `python3 -m bench.pieces_stack STACK WORK SHIMCTL ROUNDS KERNELS HIT-RUNS
[BYTES-KERNELS BYTES-TARGETS]` (PYTHONPATH=scripts/lib), as root: on the host for debian12, inside
the sid root (scripts/sid-run) for sid and sid23.

  STACK     debian12 (make-rocm-prefix --llvm 15: perl hipcc 5.2, clang-15, ccache 4.7.5; targets
            A,B = gfx908,gfx90a, C = gfx1030), sid (--stack sid: hipcc 7.0.2, clang-21, the old
            offload driver, ccache 4.14.2; A,B = gfx90a,gfx942, C = gfx1100) or sid23 (--stack
            sid --llvm 23: clang-23, the new offload driver; the same targets)
  WORK      a new directory for everything (results: WORK/times.tsv, WORK/pieces.tsv,
            WORK/cmp.tsv, WORK/hitcounts.tsv, WORK/info, hyperfine's JSON in WORK/hit-KERNEL/json)
  SHIMCTL   the shimctl build for this stack
  ROUNDS    paired rounds per kernel; KERNELS: "small heavy project" or a subset (project: a CMake
            project, pieces_project.py); HIT-RUNS: hyperfine runs of each side per round of the
            whole-hit comparison
  BYTES-KERNELS, BYTES-TARGETS   the bytes table's kernels and target counts (pieces_bytes.py,
            before the rounds; results in WORK/bytes.tsv)
Environment: BENCH_HYPERFINE (default hyperfine: the sid root has none, pieces.py stages the
host's).

One prefix, installed with ccache (verified); the uncached side is the same prefix's clang++ with
SHIMCTL_DISABLE=1 (the original compiler, the shim's -cuid= included: the same object as the
cache makes). Every compile is `CLANG++ -x hip -O2 --offload-arch=X... -c k.hip -o k.o` in a
directory of its own (the same relative names everywhere: the pieces, like the object's CUID, are
keyed by them). Before any timing, one split compile of a throwaway source: the first split of a
toolchain also runs its one-step check (its verdict kept in XDG_CACHE_HOME=WORK/xdg). Each round
writes a new source (a round constant in the code) per kernel, then, each pair in alternating
order (the shim side first in odd rounds):
  cold      {A,B} through the shim, pieces on (cache1, empty) / SHIMCTL_PIECES=0 (cache0, empty)
  add       {A,B,C} through the shim against cache1 (pieces A, B kept) / uncached {A,B,C}
  overlap   {B,C} through the shim against a copy of cache1 as the cold step left it / uncached
  grow      {A} through the shim into cache3 with SHIMCTL_PIECES=1 (a one-target compile is split
            only on request; untimed: the fill), then {A,B} through the shim against cache3 /
            uncached {A,B}
and after each of add, overlap and grow its floor: the new target's device code alone, uncached
(--cuda-device-only: C, C, B), what any per-target cache must still compile; on sid23 also the new
driver's floor (driver_floor_step: the target's jobs as the one-step compile runs them). Each shim step's
piece counts (hit, miss, split: the delta of CACHE/shimctl-pieces) go to pieces.tsv; every shim
object is cmp'ed with the uncached object of the same target set (cold's with grow's uncached
{A,B}). After the rounds, the whole hit: the last round's {A,B,C} again (a hit of the whole object
in cache1), pieces on against SHIMCTL_PIECES=0, paired hyperfine rounds (ccache's stats_log of
every run: all must be hits; counted here). Nothing is gated on time.
"""
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import kernels, pieces_bytes, pieces_project

STACKS = {  # prefix arguments, clang++ in the prefix, A, B, C
    "debian12": (["--llvm", "15"], "llvm/bin/clang++", "gfx908", "gfx90a", "gfx1030"),
    "sid": (["--stack", "sid"], "lib/llvm/bin/clang++", "gfx90a", "gfx942", "gfx1100"),
    "sid23": (["--stack", "sid", "--llvm", "23"], "lib/llvm/bin/clang++", "gfx90a", "gfx942", "gfx1100"),
}

SMALL = """__global__ void small_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = sqrtf(x[i]) * expf(-x[i]) + sinf(x[i]) * 3.0f + (float)BENCH_NONCE;
}
"""
HEAVY = ("// 15 instantiations of a templated kernel (unrolled loops, math, a shared-memory reduction).\n"
         + kernels.heavy("heavy_kernel", "(T)BENCH_NONCE")
         + "#define INST(N) \\\n  template __global__ void heavy_kernel<N, float>(float*, const float*, int);\n"
         + "INST(1) INST(2) INST(3) INST(4) INST(5) INST(6) INST(7) INST(8)\n"
         + "INST(9) INST(10) INST(11) INST(12) INST(13) INST(14) INST(15)\n")


def source(kernel, nonce):
    """The source of KERNEL with NONCE in its code (a new source each round)."""
    body = {"small": SMALL, "heavy": HEAVY}
    if kernel not in body:
        raise SystemExit(f"bench-pieces: unknown kernel {kernel}")
    return ("#include <hip/hip_runtime.h>\n"
            f"// scripts/bench --section pieces: kernel {kernel}; the constant makes the source new.\n"
            f"#define BENCH_NONCE {nonce}\n" + body[kernel])


def append(path, *fields):
    with open(path, "a") as f:
        f.write("\t".join(map(str, fields)) + "\n")


def piece_counts(cache):
    """(hit, miss, split, derived, targets compiled for derived objects) of CACHE/shimctl-pieces."""
    c = {"piece_hit": 0, "piece_miss": 0, "split_compile": 0, "derived": 0, "target_compiled": 0}
    try:
        for line in (Path(cache) / "shimctl-pieces").read_text().splitlines():
            f = line.split()
            if len(f) >= 2 and f[0] in c:
                c[f[0]] = int(f[1])
    except (OSError, ValueError):
        pass
    return c["piece_hit"], c["piece_miss"], c["split_compile"], c["derived"], c["target_compiled"]


def statslog_counts(path):
    """(compiles, hits, misses) of ccache's stats_log PATH (a "#" line per compile)."""
    n = h = m = 0
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        word = line.split()[0] if line.split() else ""
        n += line.startswith("#")
        h += word in ("direct_cache_hit", "preprocessed_cache_hit")
        m += word == "cache_miss"
    return n, h, m


class Stack:
    def __init__(self, stack, work, shimctl, kernels_, hit_runs):
        self.stack, self.W, self.shimctl = stack, Path(work).resolve(), Path(shimctl)
        prefix_args, clang, self.A, self.B, self.C = STACKS[stack]
        self.prefix_args, self.P = prefix_args, self.W / "rocm"
        self.clang = self.P / clang
        self.clang_rel = clang
        self.kernels, self.hit_runs = kernels_, hit_runs
        self.hf = os.environ.get("BENCH_HYPERFINE") or "hyperfine"
        for k in [k for k in os.environ if k.startswith(("SHIMCTL_", "CCACHE_", "SCCACHE_"))]:
            del os.environ[k]
        os.environ["XDG_CACHE_HOME"] = str(self.W / "xdg")  # the shim's memos and the pieces' check verdict
        self.seed = int(time.time()) % 100000 * 100
        self.src = Path(__file__).resolve().parents[3]  # the checkout (scripts/)

    def say(self, text):
        print(f"bench-pieces: {self.stack}: {text}", file=sys.stderr, flush=True)

    def die(self, text):
        raise SystemExit(f"bench-pieces: {self.stack}: error: {text}")

    def append_tsv(self, name, *fields):
        append(self.W / name, *fields)

    def compile(self, d, kernel, nonce, targets, env=None, device_only=False, only=None):
        """k.hip (new) and one compile in D by the prefix's clang++ with ENV added: its wall seconds.
        ONLY: "--cuda-device-only" or "--cuda-host-only" (DEVICE_ONLY: the former)."""
        d.mkdir(parents=True, exist_ok=True)
        (d / "k.hip").write_text(source(kernel, nonce))
        only = only or ("--cuda-device-only" if device_only else None)
        argv = [str(self.clang), "-x", "hip", "-O2", *(f"--offload-arch={t}" for t in targets),
                *([only] if only else []), "-c", "k.hip", "-o", "k.o"]
        with open(d / "log", "w") as log:
            t0 = time.monotonic()
            rc = subprocess.run(argv, cwd=d, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT).returncode
            seconds = time.monotonic() - t0
        if rc != 0:
            tail = "\n".join((d / "log").read_text(errors="replace").splitlines()[-5:])
            self.die(f"compile in {d} failed: {tail}")
        return f"{seconds:.3f}"

    def shim_step(self, k, step, r, d, cache, nonce, targets, env=None):
        """A compile through the shim against CACHE: its time to times.tsv, the delta of its piece
        counts to pieces.tsv."""
        cache.mkdir(parents=True, exist_ok=True)
        before = piece_counts(cache)
        s = self.compile(d, k, nonce, targets, {"CCACHE_DIR": str(cache), "SHIMCTL_SHIM_TRACE": "1", **(env or {})})
        after = piece_counts(cache)
        append(self.W / "times.tsv", k, step, r, "shim", s)
        append(self.W / "pieces.tsv", k, step, r, *(a - b for a, b in zip(after, before)))

    def plain_step(self, k, step, r, d, nonce, targets):
        """The uncached compile (SHIMCTL_DISABLE=1)."""
        append(self.W / "times.tsv", k, step, r, "uncached", self.compile(d, k, nonce, targets, {"SHIMCTL_DISABLE": "1"}))

    def floor_step(self, k, step, r, d, nonce, target):
        """The least any per-target scheme pays for STEP, uncached: the device code of the one new
        target alone (--cuda-device-only, SHIMCTL_DISABLE=1)."""
        append(self.W / "times.tsv", k, step, r, "floor",
               self.compile(d, k, nonce, [target], {"SHIMCTL_DISABLE": "1"}, device_only=True))
        if self.stack == "sid23":
            self.driver_floor_step(k, step, r, d, nonce, target)

    def driver_floor_step(self, k, step, r, d, nonce, target):
        """The new offload driver's floor: what its one-step compile runs for TARGET's device code
        (the device job's bitcode, the packager, the linker wrapper's LTO link and bundle), which a
        cache must replay to give the one-step compile's bytes. A --cuda-device-only compile takes
        a direct path instead (no LTO), cheaper and with other bytes. Measured as the uncached
        one-step compile for TARGET less its host compile (--cuda-host-only)."""
        disable = {"SHIMCTL_DISABLE": "1"}
        whole = float(self.compile(d.with_name(d.name + "-one"), k, nonce, [target], disable))
        host = float(self.compile(d.with_name(d.name + "-host"), k, nonce, [target], disable, only="--cuda-host-only"))
        append(self.W / "times.tsv", k, step, r, "driver-floor", f"{max(whole - host, 0):.3f}")

    @staticmethod
    def pair(r, one, two):
        """Both, ONE first in odd rounds."""
        for f in ((one, two) if r % 2 else (two, one)):
            f()

    def same(self, k, step, r, x, y):
        """Whether X/k.o and Y/k.o are byte-identical, to cmp.tsv."""
        same = (x / "k.o").read_bytes() == (y / "k.o").read_bytes()
        append(self.W / "cmp.tsv", k, step, r, "same" if same else "differ")

    def one_round(self, k, r):
        d, n = self.W / k / f"r{r}", self.seed + r
        A, B, C = self.A, self.B, self.C
        self.say(f"{k} round {r}")
        # cold: {A,B}, pieces on (cache1) / off (cache0), both empty caches
        self.pair(r, lambda: self.shim_step(k, "cold", r, d / "cold", d / "cache1", n, [A, B]),
                  lambda: self.shim_step(k, "cold-nopieces", r, d / "cold0", d / "cache0", n, [A, B],
                                         {"SHIMCTL_PIECES": "0"}))
        self.same(k, "cold-nopieces", r, d / "cold", d / "cold0")
        shutil.copytree(d / "cache1", d / "cache2", symlinks=True)
        # add: {A,B,C} against cache1
        self.pair(r, lambda: self.shim_step(k, "add", r, d / "add", d / "cache1", n, [A, B, C]),
                  lambda: self.plain_step(k, "add", r, d / "add-u", n, [A, B, C]))
        self.same(k, "add", r, d / "add", d / "add-u")
        self.floor_step(k, "add", r, d / "add-f", n, C)
        # overlap: {B,C} against cache2 (cache1 as the cold step left it)
        self.pair(r, lambda: self.shim_step(k, "overlap", r, d / "overlap", d / "cache2", n, [B, C]),
                  lambda: self.plain_step(k, "overlap", r, d / "overlap-u", n, [B, C]))
        self.same(k, "overlap", r, d / "overlap", d / "overlap-u")
        self.floor_step(k, "overlap", r, d / "overlap-f", n, C)
        # grow: {A} into cache3 (one target: split on request), then {A,B}
        self.shim_step(k, "grow-fill", r, d / "grow-fill", d / "cache3", n, [A], {"SHIMCTL_PIECES": "1"})
        self.pair(r, lambda: self.shim_step(k, "grow", r, d / "grow", d / "cache3", n, [A, B]),
                  lambda: self.plain_step(k, "grow", r, d / "grow-u", n, [A, B]))
        self.same(k, "grow", r, d / "grow", d / "grow-u")
        self.floor_step(k, "grow", r, d / "grow-f", n, B)
        self.same(k, "cold", r, d / "cold", d / "grow-u")

    def whole_hit(self, k, rounds):
        """The last round's {A,B,C} again in its directory (a whole-object hit in cache1), pieces on /
        SHIMCTL_PIECES=0, ROUNDS hyperfine invocations, the order alternating; the stats_log counts."""
        d, h = self.W / k / f"r{rounds}", self.W / f"hit-{k}"
        (h / "json").mkdir(parents=True, exist_ok=True)
        args = ["-x", "hip", "-O2", *(f"--offload-arch={t}" for t in (self.A, self.B, self.C)), "-c", "k.hip", "-o", "k.o"]
        side = {name: shlex.join(["env", f"CCACHE_DIR={d / 'cache1'}", f"CCACHE_STATSLOG={h / name}.statslog", *extra,
                                  str(self.clang), *args])
                for name, extra in (("pieces", []), ("nopieces", ["SHIMCTL_PIECES=0"]))}
        self.say(f"{k} whole hit: {rounds} rounds x {self.hit_runs} runs")
        for r in range(1, rounds + 1):
            order = ("pieces", "nopieces") if r % 2 else ("nopieces", "pieces")
            argv = [self.hf, "-N", "--style", "basic", "--runs", str(self.hit_runs), "--warmup", "1",
                    "--export-json", str(h / "json" / f"r{r}.json")]
            for name in order:
                argv += ["-n", name, side[name]]
            with open(h / "hyperfine.log", "a") as log:
                if subprocess.run(argv, cwd=d / "add", stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT).returncode != 0:
                    self.die(f"hyperfine failed: {h / 'hyperfine.log'}")
        for name in ("pieces", "nopieces"):
            append(self.W / "hitcounts.tsv", k, name, " ".join(map(str, statslog_counts(h / f"{name}.statslog"))))

    def run_logged(self, argv, log, what):
        with open(log, "a") as f:
            if subprocess.run([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=f,
                              stderr=subprocess.STDOUT).returncode != 0:
                tail = "\n".join(Path(log).read_text(errors="replace").splitlines()[-5:])
                self.die(f"{what} failed: {tail}")

    def info(self):
        real = Path(f"{self.clang}.real")
        version = subprocess.run([str(real if os.access(real, os.X_OK) else self.clang), "--version"],
                                 capture_output=True, text=True, errors="replace").stdout
        first = lambda argv: subprocess.run(argv, capture_output=True, text=True).stdout.split("\n", 1)[0].strip()
        check = next((l.replace("shimctl-shim: pieces: ", "", 1) for l in
                      (self.W / "warmup" / "log").read_text(errors="replace").splitlines() if "checked against" in l), "")
        lines = [("toolchain", version.split("\n", 1)[0]), ("ccache", first(["ccache", "--version"])),
                 ("shimctl", first([str(self.shimctl), "--version"])), ("hyperfine", first([self.hf, "--version"])),
                 ("targets", f"{self.A} {self.B} {self.C}"),
                 ("compile", f"{self.clang_rel} -x hip -O2 --offload-arch=... -c k.hip -o k.o"), ("check", check),
                 ("warmup", " ".join(map(str, piece_counts(self.W / "cache-warmup"))))]
        (self.W / "info").write_text("".join(f"{k}\t{v}\n" for k, v in lines))

    def setup(self):
        """The prefix, installed with ccache, and the first split of its toolchain (its one-step check,
        kept in XDG_CACHE_HOME)."""
        for f in ("times.tsv", "pieces.tsv", "cmp.tsv", "hitcounts.tsv", "project.tsv", "bytes.tsv"):
            (self.W / f).write_text("")
        self.run_logged([self.src / "scripts" / "make-rocm-prefix", self.P, *self.prefix_args],
                        self.W / "make-prefix.log", "make-rocm-prefix")
        self.run_logged([self.shimctl, "install", self.P, "--cache", "ccache", "--cache-dir", self.W / "cache-install"],
                        self.W / "install.log", "shimctl install")
        self.shim_step("small", "warmup", 0, self.W / "warmup", self.W / "cache-warmup", self.seed, [self.A, self.B])
        # The first derived object of the toolchain is checked against its one-step compile (once
        # per user): here, not in the first round's add-a-target step.
        self.shim_step("small", "warmup-derive", 0, self.W / "warmup", self.W / "cache-warmup", self.seed,
                       [self.A, self.B, self.C])
        self.info()

    def main(self, rounds, bytes_kernels=(), bytes_counts=()):
        self.setup()
        if bytes_kernels:
            pieces_bytes.measure(self, bytes_kernels, bytes_counts)
        for k in self.kernels:
            if k == "project":
                project = pieces_project.Project(self)
                project.warm_up()
                for r in range(1, rounds + 1):
                    project.one_round(r)
                continue
            for r in range(1, rounds + 1):
                self.one_round(k, r)
            self.whole_hit(k, rounds)
        with open(self.W / "install.log", "a") as f:
            subprocess.run([str(self.shimctl), "rollback", str(self.P)], stdin=subprocess.DEVNULL, stdout=f,
                           stderr=subprocess.STDOUT)
        self.say("done")


def main(argv):
    if len(argv) not in (6, 8) or argv[0] not in STACKS:
        raise SystemExit(f"usage: python3 -m bench.pieces_stack {{{'|'.join(STACKS)}}} WORK SHIMCTL ROUNDS KERNELS "
                         "HIT-RUNS [BYTES-KERNELS BYTES-TARGETS]")
    stack, work, shimctl, rounds, kernel_list, hit_runs = argv[:6]
    bytes_kernels, bytes_counts = (argv[6].split(), [int(n) for n in argv[7].split()]) if len(argv) == 8 else ((), ())
    Path(work).mkdir(parents=True, exist_ok=True)
    Stack(stack, work, shimctl, kernel_list.split(), int(hit_runs)).main(int(rounds), bytes_kernels, bytes_counts)


if __name__ == "__main__":
    main(sys.argv[1:])
