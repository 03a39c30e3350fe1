"""--section ggml, inside the Debian sid root: a real code base as the benchmark (ggml's HIP
backend). Run by ggml.py as `python3 -m bench.ggml_stack WORK QUICK PIECES` (PYTHONPATH=
scripts/lib; WORK: the work dir as the root sees it, with source.json; QUICK: yes|no; PIECES:
no|yes|only). With --report first: GGML.md again from WORK's results.tsv and files, nothing
measured.

What it measures, on a fixed set of object targets (GGML_SET below: ggml-cuda .cu TUs compiled as
HIP, template-instance TUs, plain C/C++ ggml TUs) of ggml's CMake HIP build, configured as ggml's
docs say (HIPCXX=<prefix>/lib/llvm/bin/clang++, -DGGML_HIP=ON -DGPU_TARGETS=gfx90a, C/C++ through
the prefix's clang, -G Ninja; GGML_CCACHE=OFF: no launcher of ggml's own), against ROCm-7-shaped
prefixes (scripts/make-rocm-prefix --stack sid):
  1. cold: shimctl installed on the prefix (ccache, an empty cache) against a second prefix with
     no shim at all; paired rounds in alternating order, each from a fresh build directory;
  2. fresh directory: a second build directory at another path against the warm cache: hits
     (direct and preprocessed, from ccache's own statistics), every miss explained (the direct-mode
     inputs of the two directories' compiles, from ccache's debug files, diffed), and every object
     byte-compared with the first directory's;
  2b. control: the same from a third directory with ccache's base_dir off (what a cache behind
     CMake's launcher gets): the misses that embed the build path, explained the same way;
  3. touch: ggml.h and common.cuh touched, rebuilt: every rebuilt TU must hit;
  4. change: a declaration appended to common.cuh, rebuilt: the misses must be the TUs of the set
     that include it, as `ninja -t deps` says;
  5. add a GPU target (--pieces, --pieces-only; issue 25's per-GPU-target pieces): with an empty
     cache, the set built for gfx90a through the shim (dir A), then from a fresh build directory
     at another path for gfx90a;gfx942 through the shim (dir B: the gfx90a pieces must hit, only
     gfx942 compiles), against an uncached two-target build (dir C, the same shimmed prefix with
     SHIMCTL_DISABLE=1: the real compiler with the shim's -cuid=, so the same objects); every
     object of B cmp'ed with C's. Paired rounds of B and C in alternating order, each B against a
     copy of the cache as A left it. The first split's one-step check is warmed (one split compile
     of a throwaway source, XDG_CACHE_HOME in the work dir) before any timing.
Prints a table and writes WORK/GGML.md and WORK/results.tsv (every figure, KEY<TAB>VALUE).
Timings: wall time around `ninja -jN TARGETS` (configure not included).

Environment: GGML_BUILD_DIR (shimctl built inside the root; default <repo>/build-ggml, configured
and built when missing, brought up to date otherwise), BENCH_GGML_ROUNDS (cold rounds of each
variant, default 2; --quick 1), BENCH_GGML_JOBS (ninja -j, default 2), BENCH_GGML_PIECES_ROUNDS
(step 5's paired rounds, default 2; --quick 1), BENCH_GGML_PIECES_COLD=1 (step 5 also builds the
set for gfx90a uncached before A: A's cold cost against it; steps 1-4 measure that too, as cold
shim against no cache), BENCH_GGML_COMMIT (the checkout's commit, for the report).
"""
import difflib
import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from .common import median
from .report_util import write_report

REPO = Path(__file__).resolve().parents[3]
# The build set, as paths relative to ggml's source root: 39 TUs (11 C/C++, 16 ggml-cuda .cu, 12
# template instances), about 1100 s of compiles one at a time on this 2-core machine under
# another's load (nice 19), a cold -j2 build of about 5 minutes when idle. GGML_QUICK_SET: --quick.
GGML_SET = [
    # plain C/C++ (ggml-base, ggml-cpu)
    "src/ggml.c", "src/ggml-quants.c", "src/ggml-alloc.c", "src/ggml-backend.cpp", "src/gguf.cpp", "src/ggml-opt.cpp",
    "src/ggml-cpu/ggml-cpu.c", "src/ggml-cpu/ops.cpp", "src/ggml-cpu/vec.cpp", "src/ggml-cpu/quants.c",
    "src/ggml-cpu/repack.cpp",
    # ggml-cuda TUs compiled as HIP
    "src/ggml-cuda/ggml-cuda.cu", "src/ggml-cuda/argmax.cu", "src/ggml-cuda/norm.cu", "src/ggml-cuda/softmax.cu",
    "src/ggml-cuda/rope.cu", "src/ggml-cuda/getrows.cu", "src/ggml-cuda/convert.cu", "src/ggml-cuda/cpy.cu",
    "src/ggml-cuda/binbcast.cu", "src/ggml-cuda/unary.cu", "src/ggml-cuda/mmvq.cu", "src/ggml-cuda/quantize.cu",
    "src/ggml-cuda/scale.cu", "src/ggml-cuda/concat.cu", "src/ggml-cuda/mmq.cu", "src/ggml-cuda/fattn.cu",
    # template instances
    *(f"src/ggml-cuda/template-instances/{t}.cu" for t in (
        "mmq-instance-q4_0", "mmq-instance-q8_0", "mmq-instance-q4_k", "mmq-instance-q6_k", "mmf-instance-ncols_1",
        "mmf-instance-ncols_8", "mmf-instance-ncols_16", "fattn-vec-instance-f16-f16", "fattn-vec-instance-q8_0-q8_0",
        "fattn-tile-instance-dkq64-dv64", "fattn-tile-instance-dkq128-dv128",
        "fattn-mma-f16-instance-ncols1_8-ncols2_1")),
]
GGML_QUICK_SET = ["src/ggml-alloc.c", "src/ggml-cuda/argmax.cu"]
TOUCH_HEADERS = ["include/ggml.h", "src/ggml-cuda/common.cuh"]  # step 3
CHANGE_HEADER = "src/ggml-cuda/common.cuh"  # step 4
ANCHOR = ("plain ccache with CMake launchers (ggml's GGML_CCACHE) on this build: 96.7 % hits in a fresh build dir "
          "(13 misses embedding the build path), 4.4x faster than cold")
TARGET_LINE = "target: fresh-directory hits >= 99 % direct"
PIECES_ONE, PIECES_TWO = "gfx90a", "gfx90a;gfx942"
PACKAGES = ["cmake", "ninja-build", "ccache", "hipcc", "clang-21", "lld-21", "rocm-device-libs-21", "libamdhip64-dev",
            "libhipblas-dev", "librocblas-dev", "dpkg-dev", "file"]
OTHER_SKIP = re.compile(r"^(direct_cache_hit|preprocessed_cache_hit|cache_miss|stats_updated_timestamp|"
                        r"stats_zeroed_timestamp)$|^(files_in_cache|cache_size_kibibyte|max_|local_storage_|"
                        r"remote_storage_|direct_cache_miss|preprocessed_cache_miss)")


def log(text):
    print(f"bench-ggml: {text}", file=sys.stderr, flush=True)


class Failed(Exception):
    pass


def loadavg():
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def ratio(a, b):
    """a / b as "%.3f", "n/a" when b is not positive."""
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return "n/a"
    return f"{a / b:.3f}" if b > 0 else "n/a"


def pct(a, b):
    return f"{100 * a / b:.1f} %" if b > 0 else "n/a"


def tail(path, n):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def run(argv, env=None, cwd=None, logfile=None, what=None, log_lines=30):
    """ARGV (ENV added) with its output in LOGFILE (or discarded); Failed naming WHAT on failure."""
    with open(logfile or os.devnull, "w") as f:
        rc = subprocess.run([str(a) for a in argv], env={**os.environ, **(env or {})}, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT).returncode
    if rc != 0 and what:
        if logfile:
            print(tail(logfile, log_lines), file=sys.stderr)
        raise Failed(what)
    return rc


def output(argv, env=None, cwd=None):
    return subprocess.run([str(a) for a in argv], env={**os.environ, **(env or {})}, cwd=cwd, capture_output=True,
                          text=True, errors="replace").stdout


def ccache_counters(cache):
    """`ccache --print-stats` of CACHE: name -> value."""
    out = {}
    for line in output(["ccache", "--print-stats"], {"CCACHE_DIR": str(cache)}).splitlines():
        f = line.split()
        if len(f) >= 2:
            out[f[0]] = f[1]
    return out


def as_int(v):
    try:
        return int(float(v))
    except (TypeError, ValueError):
        return 0


# ---- what ggml's build and ccache wrote: parsed here ------------------------------------------
def missed_sources(statslog):
    """The input file of each compile the stats log records as a miss (sorted, unique)."""
    f, out = None, set()
    try:
        lines = Path(statslog).read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        w = line.split()
        if line.startswith("# ") and len(w) >= 2:
            f = w[1]
        elif w and w[0] == "cache_miss" and f is not None:
            out.add(f)
    return sorted(out)


def key_lines(path):
    """ccache's debug input text ("### NAME" then its value lines) as "NAME: VALUE" lines, up to the
    manifest key (what a direct-mode lookup hashes; a miss goes on with the result's inputs)."""
    out, k = [], ""
    for line in Path(path).read_text(errors="replace").splitlines():
        if line == "### result":
            break
        if line.startswith("=== "):
            out.append(line)
        elif line.startswith("### "):
            k = line[4:]
        else:
            out.append(f"{k}: {line}")
    return out


def key_diff(a, b, limit=8):
    """The lines of A and B that differ, as diff shows them ("    - " removed, "    + " added)."""
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            out += [f"    - {x}" for x in a[i1:i2]] + [f"    + {x}" for x in b[j1:j2]]
    return out[:limit]


def rerun_hit(input_text):
    """The debug rerun that wrote INPUT_TEXT got its result from the cache."""
    try:
        return "Succeeded getting cached result" in Path(
            str(input_text)[:-len(".ccache-input-text")] + ".ccache-log").read_text(errors="replace")
    except OSError:
        return False


def fold_dotdot(p):
    """"DIR/../" folded, as the compiler's deps write them (template-instances/../common.cuh)."""
    while True:
        q = re.sub(r"/[^/.][^/]*/\.\./", "/", p, count=1)
        if q == p:
            return p
        p = q


def deps_includers(deps_text, header):
    """The targets of `ninja -t deps` output DEPS_TEXT that list HEADER (an absolute path)."""
    out, t = set(), None
    for line in deps_text.splitlines():
        if line and not line[0].isspace():
            t = line.split()[0].rstrip(":")
        elif line.strip() and t and fold_dotdot(line.split()[0]) == header:
            out.add(t)
    return sorted(out)


def piece_counts(cache):
    """(hit, miss, split, whole, checked) of CACHE/shimctl-pieces (zeros when absent)."""
    names = ("piece_hit", "piece_miss", "split_compile", "whole_compile", "checked_same")
    c = dict.fromkeys(names, 0)
    try:
        for line in (Path(cache) / "shimctl-pieces").read_text().splitlines():
            f = line.split()
            if len(f) >= 2 and f[0] in c:
                c[f[0]] = as_int(f[1])
    except OSError:
        pass
    return tuple(c[n] for n in names)


def piece_trace(build_log):
    """The trace's per-target piece outcomes ("gfx90a hit 2, gfx942 miss 2"), the number of whole
    objects and their reasons ("2x REASON;1x REASON")."""
    text = Path(build_log).read_text(errors="replace").splitlines()
    outcomes = Counter(" ".join(m.groups()) for m in
                       (re.match(r".*shimctl-shim: pieces: piece (\S*) (hit|miss)", l) for l in text) if m)
    whole = [l.rsplit("whole object: ", 1)[1] if "whole object: " in l else l
             for l in text if "shimctl-shim: pieces: whole object" in l]
    reasons = ";".join(f"{n}x {' '.join(r.split())}" for r, n in sorted(Counter(whole).items()))
    return ", ".join(f"{k} {n}" for k, n in sorted(outcomes.items())), len(whole), reasons


class Ggml:
    def __init__(self, work, quick, pieces):
        self.W, self.quick, self.pieces = Path(work), quick, pieces
        src = json.loads((self.W / "source.json").read_text())
        self.src_top, self.ggml_dir, self.src_desc = src["src_top"], src["ggml_dir"], src["desc"]
        self.R = {}
        for k in [k for k in os.environ if k.startswith(("SHIMCTL_", "CCACHE_", "SCCACHE_"))]:
            del os.environ[k]
        env = lambda k, d: int(os.environ.get(k) or d)
        self.jobs = env("BENCH_GGML_JOBS", 2)
        self.set = GGML_QUICK_SET if quick else GGML_SET
        self.rounds = env("BENCH_GGML_ROUNDS", 1 if quick else 2)
        self.prounds = env("BENCH_GGML_PIECES_ROUNDS", 1 if quick else 2)
        self.targets, self.cache, self.A, self.B = [], None, None, None
        self.PS, self.PP = self.W / "rocm-shim", self.W / "rocm-plain"
        self.pxdg = self.W / "pieces" / "xdg"

    # ---- results -----------------------------------------------------------------------------
    def put(self, k, v):
        self.R[k] = v

    def get(self, k, default=""):
        return self.R.get(k, default)

    def save(self):
        (self.W / "results.tsv").write_text("".join(f"{k}\t{v}\n" for k, v in self.R.items()))

    def sec(self, k):
        v = self.get(k)
        return "n/a" if v == "" else f"{float(v) / 1000:.1f}"

    def or_none(self, k):
        return self.get(k) or "none"

    def calls(self, k):
        return sum(as_int(self.get(f"{k}.{n}")) for n in ("direct_cache_hit", "preprocessed_cache_hit", "cache_miss"))

    def hit_pct(self, k):
        return pct(as_int(self.get(f"{k}.direct_cache_hit")) + as_int(self.get(f"{k}.preprocessed_cache_hit")),
                   self.calls(k))

    # ---- the toolchain, shimctl, the prefixes ------------------------------------------------
    def ensure_packages(self):
        missing = [p for p in PACKAGES
                   if "install ok installed" not in output(["dpkg-query", "-W", "-f=${Status}", p])]
        if missing:
            log(f"installing {' '.join(missing)}")
            run(["apt-get", "-q", "-o", "Acquire::Check-Valid-Until=false", "update"], what="apt-get update")
            run(["apt-get", "install", "-y", "-q", *missing], env={"DEBIAN_FRONTEND": "noninteractive"},
                what="apt-get install")

    def ensure_shimctl(self):
        b = Path(os.environ.get("GGML_BUILD_DIR") or REPO / "build-ggml")
        if not (b / "build.ninja").exists():
            run(["cmake", "-S", REPO, "-B", b, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                logfile=self.W / "shimctl-configure.log", what=f"configuring shimctl in {b} failed", log_lines=20)
        run(["ninja", "-C", b, "shimctl", "shim"], logfile=self.W / "shimctl-build.log",
            what=f"building shimctl in {b} failed")
        self.shimctl = b / "installer" / "shimctl"

    def make_prefix(self, dest):
        """A ROCm-7-shaped prefix with, as AMD's packages have them, the HIP runtime's and the BLAS
        libraries' CMake packages in lib/cmake (CMake's HIP language looks for hip-lang there)."""
        run([REPO / "scripts/make-rocm-prefix", dest, "--stack", "sid"], logfile=f"{dest}.make-prefix.log",
            what=f"make-rocm-prefix {dest} failed")
        (dest / "lib/cmake").mkdir(parents=True, exist_ok=True)
        for c in ("hip", "hip-lang", "hipblas", "hipblas-common", "rocblas"):
            (dest / "lib/cmake" / c).symlink_to(f"/usr/lib/x86_64-linux-gnu/cmake/{c}")

    def versions(self):
        first = lambda argv: output(argv).split("\n", 1)[0].strip()
        self.put("v.ccache", first(["ccache", "--version"]))
        self.put("v.clang", first(["/usr/lib/llvm-21/bin/clang", "--version"]))
        self.put("v.hipcc", output(["dpkg-query", "-W", "-f=hipcc ${Version}", "hipcc"]).strip())
        self.put("v.cmake", first(["cmake", "--version"]))
        self.put("v.ninja", f"ninja {output(['ninja', '--version']).strip()}")
        self.put("v.shimctl", "; ".join(subprocess.run([str(self.shimctl), "--version"], capture_output=True, text=True,
                                                       errors="replace").stdout.strip().splitlines()))
        self.put("v.commit", os.environ.get("BENCH_GGML_COMMIT") or "unknown")
        cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
        self.put("machine", f"{os.cpu_count()} cores, {cpu}, {os.uname().release}")

    # ---- ggml's build ------------------------------------------------------------------------
    def configure(self, p, b, gpu="gfx90a"):
        """ggml's HIP build as its docs say, all compilers from P, for GPU (a CMake list). CMake's own
        test compiles (through the shim on the shimmed prefix) go to a cache of their own, so that
        every timed build starts from the cache its step says."""
        run(["cmake", "-S", self.src_top, "-B", b, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DGGML_HIP=ON",
             f"-DGPU_TARGETS={gpu}", "-DGGML_CCACHE=OFF", f"-DCMAKE_C_COMPILER={p}/lib/llvm/bin/clang",
             f"-DCMAKE_CXX_COMPILER={p}/lib/llvm/bin/clang++", "-DGGML_BUILD_TESTS=OFF", "-DGGML_BUILD_EXAMPLES=OFF",
             "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_TOOLS=OFF",
             "-DLLAMA_BUILD_SERVER=OFF", "--no-warn-unused-cli"],
            env={"CCACHE_DIR": str(self.W / "cache-configure"), "HIPCXX": f"{p}/lib/llvm/bin/clang++", "HIP_PATH": str(p)},
            logfile=f"{b}.configure.log", what=f"configure of {b} failed (log: {b}.configure.log)")

    def resolve_targets(self, b):
        """self.targets = the ninja object target of each source of the set (exactly one)."""
        objects = [m.group(1) for m in (re.match(r"^([^:]*\.o): ", l) for l in
                                        output(["ninja", "-C", b, "-t", "targets", "all"]).splitlines()) if m]
        self.targets = []
        for s in self.set:
            if not Path(self.ggml_dir, s).is_file():
                raise Failed(f"{s} is not in this ggml source ({self.ggml_dir})")
            rel = s[len("src/"):] if s.startswith("src/") else s
            t = [o for o in objects if re.search(rf"\.dir/(__/)?{re.escape(rel)}\.o$", o)]
            if len(t) != 1:
                raise Failed(f"no single ninja target for {s} in {b}: '{' '.join(t)}'")
            self.targets.append(t[0])

    def timed_build(self, b, env=None):
        """ninja -jJOBS TARGETS with ENV: the wall time in ms."""
        t0 = time.monotonic()
        run(["ninja", "-C", b, "-j", self.jobs, *self.targets], env=env, logfile=f"{b}.build.log",
            what=f"build in {b} failed (log: {b}.build.log)")
        return int((time.monotonic() - t0) * 1000)

    def zero(self, cache):
        run(["ccache", "-z"], env={"CCACHE_DIR": str(cache)})

    def put_stats(self, key, cache):
        """The counters of one phase (the cache's statistics were zeroed before it)."""
        c = ccache_counters(cache)
        for n in ("direct_cache_hit", "preprocessed_cache_hit", "cache_miss"):
            self.put(f"{key}.{n}", as_int(c.get(n)))
        self.put(f"{key}.other", " ".join(f"{k}={v}" for k, v in c.items() if not OTHER_SKIP.search(k) and as_int(v) > 0))
        with open(self.W / f"stats-{key}.txt", "w") as f:
            subprocess.run(["ccache", "-v", "-s"], env={**os.environ, "CCACHE_DIR": str(cache)}, stdout=f,
                           stderr=subprocess.STDOUT)

    # ---- steps 1-4 ---------------------------------------------------------------------------
    def cold_round(self, v, r):
        """A fresh build dir (and for the shim a fresh, empty cache), configured and built."""
        b = self.W / "cold" / f"{v}-r{r}"
        b.parent.mkdir(parents=True, exist_ok=True)
        if v == "shim":
            self.cache = self.W / f"cache-r{r}"
            self.cache.mkdir(parents=True, exist_ok=True)
            self.configure(self.PS, b)
            self.resolve_targets(b)
            self.zero(self.cache)
            ms = self.timed_build(b, {"CCACHE_DIR": str(self.cache)})
            self.put_stats(f"cold.shim.r{r}", self.cache)
            self.A = b
        else:
            self.configure(self.PP, b)
            self.resolve_targets(b)
            ms = self.timed_build(b)
        self.put(f"cold.{v}.r{r}.ms", ms)
        log(f"  cold {v} round {r}: {ms // 1000} s")

    def cold_rounds(self):
        log(f"cold: {self.rounds} rounds of shim and no-cache builds, {len(self.set)} TUs, -j{self.jobs}")
        for r in range(1, self.rounds + 1):
            for v in (("shim", "plain") if r % 2 else ("plain", "shim")):
                self.cold_round(v, r)
            self.put(f"cold.ratio.r{r}", ratio(self.get(f"cold.shim.r{r}.ms"), self.get(f"cold.plain.r{r}.ms")))

    def phase_build(self, key, b, env=None):
        """A timed shim build of the set against self.cache, its statistics zeroed first, each
        compile's outcome in ccache's stats log W/KEY.statslog."""
        self.zero(self.cache)
        ms = self.timed_build(b, {"CCACHE_DIR": str(self.cache), "CCACHE_STATSLOG": str(self.W / f"{key}.statslog"),
                                  **(env or {})})
        self.put(f"{key}.ms", ms)
        self.put(f"{key}.rebuilt", sum(l.startswith("[") for l in Path(f"{b}.build.log").read_text().splitlines()))
        self.put_stats(key, self.cache)

    def target_of(self, src):
        """The set's target that compiles SRC (an absolute path), or None."""
        for s, t in zip(self.set, self.targets):
            if os.path.realpath(Path(self.ggml_dir, s)) == os.path.realpath(src):
                return t
        return None

    def debug_inputs(self, b, t, d, env=None):
        """TARGET's compile run again in B (a hit by now) with ENV, ccache's debug files in D and no
        statistics: its input text file, or None."""
        cmd = (output(["ninja", "-C", b, "-t", "commands", t]).splitlines() or [""])[-1]
        run(["bash", "-c", cmd], cwd=b, env={"CCACHE_DIR": str(self.cache), "CCACHE_DEBUG": "1",
                                             "CCACHE_DEBUGDIR": str(d), "CCACHE_NOSTATS": "1", **(env or {})})
        found = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(d) for f in fs
                       if fnmatch.fnmatch(os.path.join(dp, f), f"*/{t}.*ccache-input-text"))
        return found[-1] if found else None

    def explain_misses(self, key, b, ref, env=None):
        """For each miss of phase KEY in B (built with ENV), what in its key differs from the same
        target's compile in REF (ccache's direct-mode input text of both, diffed)."""
        lines, n = [], 0
        for src in missed_sources(self.W / f"{key}.statslog"):
            n += 1
            t = self.target_of(src)
            if t is None:
                lines.append(f"- `{src}`: not a TU of the set")
                continue
            ta = self.debug_inputs(ref, t, self.W / "debug" / key / "ref")
            tb = self.debug_inputs(b, t, self.W / "debug" / key / "new", env)
            d = key_diff(key_lines(ta), key_lines(tb)) if ta and tb else []
            lines.append(f"- `{t.rsplit('/', 1)[-1]}` (- {ref}, + {b}):")
            if not ta or not tb:
                lines.append("    no debug input text (ccache did not reach its direct mode)")
            elif not d and rerun_hit(ta) and rerun_hit(tb):
                lines.append("    same direct-mode inputs on a rerun in both (both hits): not a key difference")
            elif not d:
                lines.append(f"    same direct-mode inputs; a rerun did not hit (see {self.W / 'debug' / key})")
            else:
                lines += d
        (self.W / f"{key}.explained").write_text("".join(l + "\n" for l in lines))
        self.put(f"{key}.explained", n)

    def compare_objects(self, a, b):
        """cmp of every target's object in A and B; the differing ones in W/cmp.txt."""
        differ = [t for t in self.targets if not same_file(a / t, b / t)]
        (self.W / "cmp.txt").write_text("".join(t + "\n" for t in differ))
        self.put("fresh.cmp_same", len(self.targets) - len(differ))
        self.put("fresh.cmp_differ", len(differ))

    def fresh_dir_phase(self):
        """A second build directory at another path, against the last cold shim round's warm cache."""
        self.B = self.W / "elsewhere" / "second" / "build"
        self.B.parent.mkdir(parents=True, exist_ok=True)
        log(f"fresh directory {self.B} against the warm cache")
        self.configure(self.PS, self.B)
        self.resolve_targets(self.B)
        self.phase_build("fresh", self.B)
        self.compare_objects(self.A, self.B)
        self.explain_misses("fresh", self.B, self.A)
        g = self.get
        log(f"  fresh: {as_int(g('fresh.ms')) // 1000} s, {g('fresh.direct_cache_hit')} direct + "
            f"{g('fresh.preprocessed_cache_hit')} preprocessed hits, {g('fresh.cache_miss')} misses; objects: "
            f"{g('fresh.cmp_same')} identical, {g('fresh.cmp_differ')} differ")

    def control_phase(self):
        """The fresh-directory step again from a third directory, with ccache's base_dir off
        (CCACHE_BASEDIR set empty: the shim then sets none), as a cache behind CMake's launcher would
        run: which TUs embed the build path in their key, and how the explanation shows it."""
        c = self.W / "control" / "no-base-dir" / "build"
        c.parent.mkdir(parents=True, exist_ok=True)
        log("control: a third directory against the warm cache, base_dir off")
        self.configure(self.PS, c)
        self.resolve_targets(c)
        self.phase_build("control", c, {"CCACHE_BASEDIR": ""})
        self.explain_misses("control", c, self.A, {"CCACHE_BASEDIR": ""})
        log(f"  control: {self.get('control.direct_cache_hit')} direct + {self.get('control.preprocessed_cache_hit')} "
            f"preprocessed hits, {self.get('control.cache_miss')} misses")

    def touch_phase(self):
        """The headers touched (same bytes, new mtime), then a rebuild of the set in B."""
        log(f"touch {' '.join(TOUCH_HEADERS)}, rebuild")
        for h in TOUCH_HEADERS:
            os.utime(Path(self.ggml_dir, h))
        time.sleep(1)  # nothing ccache sees as "too new": the compiles start a second later
        self.phase_build("touch", self.B)
        self.explain_misses("touch", self.B, self.A)
        log(f"  touch: rebuilt {self.get('touch.rebuilt')}, {self.get('touch.direct_cache_hit')} direct + "
            f"{self.get('touch.preprocessed_cache_hit')} preprocessed hits, {self.get('touch.cache_miss')} misses")

    def change_phase(self):
        """A declaration appended to CHANGE_HEADER, a rebuild of the set in B, the header put back.
        Expected misses: the set's TUs that include it, from `ninja -t deps` (before the change)."""
        h = Path(self.ggml_dir, CHANGE_HEADER)
        includers = deps_includers(output(["ninja", "-C", self.B, "-t", "deps", *self.targets]), os.path.realpath(h))
        (self.W / "change.includers").write_text("".join(t + "\n" for t in includers))
        self.put("change.includers", len(includers))
        log(f"append a declaration to {CHANGE_HEADER} ({len(includers)} TUs of the set include it), rebuild")
        shutil.copy2(h, self.W / "header.orig")
        with open(h, "a") as f:
            f.write("\n// shimctl bench: a genuine change\nint shimctl_bench_ggml_change(void);\n")
        time.sleep(1)
        try:
            self.phase_build("change", self.B)
        finally:
            shutil.copy2(self.W / "header.orig", h)
        missed = sorted({t for t in map(self.target_of, missed_sources(self.W / "change.statslog")) if t})
        (self.W / "change.missed").write_text("".join(t + "\n" for t in missed))
        self.put("change.missed_not_includer", " ".join(t for t in missed if t not in includers))
        self.put("change.includer_not_missed", " ".join(t for t in includers if t not in missed))
        g = self.get
        log(f"  change: rebuilt {g('change.rebuilt')}, {g('change.cache_miss')} misses (includers: "
            f"{g('change.includers')}), {g('change.direct_cache_hit')} direct + {g('change.preprocessed_cache_hit')} "
            "preprocessed hits")

    # ---- step 5: add a GPU target (issue 25) --------------------------------------------------
    def pieces_build(self, key, b):
        """A timed shim build of the set in B against self.cache (ccache's statistics zeroed first),
        the pieces' trace on; records the time, the load before it, ccache's counters, the delta of
        the pieces' counters, the whole-object hits and misses (ccache's less the pieces': each piece
        is a ccache compile of its own) and the trace's per-target piece outcomes."""
        self.put(f"{key}.load", loadavg())
        before = piece_counts(self.cache)
        self.zero(self.cache)
        # SHIMCTL_PIECES=1: A's one-target compiles are split too (by default only two or more
        # targets are: docs/per-target.md), so that B finds their pieces.
        ms = self.timed_build(b, {"CCACHE_DIR": str(self.cache), "XDG_CACHE_HOME": str(self.pxdg),
                                  "SHIMCTL_SHIM_TRACE": "1", "SHIMCTL_PIECES": "1",
                                  # the stored pieces (B another machine's target set: issue 44's
                                  # derived objects are a user's own)
                                  "SHIMCTL_PIECES_STORE": "1"})
        after = piece_counts(self.cache)
        self.put(f"{key}.ms", ms)
        self.put_stats(key, self.cache)
        for i, n in enumerate(("piece_hit", "piece_miss", "split", "whole")):
            self.put(f"{key}.{n}", after[i] - before[i])
        g = lambda n: as_int(self.get(f"{key}.{n}"))
        self.put(f"{key}.obj_hit", g("direct_cache_hit") + g("preprocessed_cache_hit") - g("piece_hit"))
        self.put(f"{key}.obj_miss", g("cache_miss") - g("piece_miss"))
        trace, whole, reasons = piece_trace(f"{b}.build.log")
        self.put(f"{key}.trace", trace)
        self.put(f"{key}.trace_whole", whole)
        (self.W / "pieces" / f"{key}.whole-reasons").write_text(reasons + "\n" if reasons else "")

    def plain_build(self, key, b):
        """The uncached build (the shimmed prefix, SHIMCTL_DISABLE=1); CCACHE_DIR points at a cache
        that must stay empty."""
        self.put(f"{key}.load", loadavg())
        empty = Path(f"{b}.cache-must-stay-empty")
        empty.mkdir(parents=True, exist_ok=True)
        self.put(f"{key}.ms", self.timed_build(b, {"SHIMCTL_DISABLE": "1", "CCACHE_DIR": str(empty),
                                                   "XDG_CACHE_HOME": str(self.pxdg)}))
        self.put(f"{key}.cache_files", sum(len(fs) for _, _, fs in os.walk(empty)))

    def compare_all(self, key, x, y):
        """cmp of every object (*.o) of X with Y's at the same relative path; the differing or
        missing ones in W/pieces/KEY.cmp."""
        objects = lambda d: sorted(os.path.relpath(os.path.join(dp, f), d) for dp, _, fs in os.walk(d)
                                   for f in fs if f.endswith(".o"))
        xs = objects(x)
        differ = [o for o in xs if not same_file(x / o, y / o)]
        (self.W / "pieces" / f"{key}.cmp").write_text("".join(o + "\n" for o in differ))
        self.put(f"{key}.cmp_same", len(xs) - len(differ))
        self.put(f"{key}.cmp_n", len(xs))
        self.put(f"{key}.cmp_y_n", len(objects(y)))

    def pieces_warmup(self):
        """One split compile of a throwaway HIP source through the shimmed prefix, so that the
        toolchain's one-step check (its verdict in pxdg) is not in a timed build."""
        d, cache = self.W / "pieces" / "warmup", self.W / "pieces" / "cache-warmup"
        d.mkdir(parents=True, exist_ok=True)
        (d / "w.hip").write_text("#include <hip/hip_runtime.h>\n"
                                 "__global__ void shimctl_warmup(float* x) { x[threadIdx.x] *= 2.0f; }\n")
        if run([self.PS / "lib/llvm/bin/clang++", "-x", "hip", "-O2", "--offload-arch=gfx90a", "-c", "w.hip", "-o", "w.o"],
               cwd=d, env={"CCACHE_DIR": str(cache), "XDG_CACHE_HOME": str(self.pxdg), "SHIMCTL_SHIM_TRACE": "1",
                    "SHIMCTL_PIECES": "1", "SHIMCTL_PIECES_STORE": "1"},  # one target: split only on request
               logfile=d / "log") != 0:
            print((d / "log").read_text(errors="replace"), file=sys.stderr)
            raise Failed("the pieces' warm-up compile failed")
        lines = (d / "log").read_text(errors="replace").splitlines()
        self.put("pieces.warmup", next((l.replace("shimctl-shim: pieces: ", "", 1) for l in lines if "check" in l.lower()), ""))
        c = piece_counts(cache)
        self.put("pieces.warmup_counts", " ".join(map(str, c)))
        if c[2] < 1:
            log(f"  warning: the warm-up compile was not split ({' '.join(lines[-3:])})")

    def pieces_phase(self):
        a = self.W / "pieces" / "one" / "build"
        a.parent.mkdir(parents=True, exist_ok=True)
        self.pxdg.mkdir(parents=True, exist_ok=True)
        log("add a GPU target: warm-up split compile (the toolchain's one-step check)")
        self.pieces_warmup()
        log(f"  warm-up: {self.get('pieces.warmup')} (counts hit miss split whole checked: {self.get('pieces.warmup_counts')})")
        if os.environ.get("BENCH_GGML_PIECES_COLD", "0") == "1":
            p = self.W / "pieces" / "one-plain" / "build"
            p.parent.mkdir(parents=True, exist_ok=True)
            self.configure(self.PS, p, PIECES_ONE)
            self.resolve_targets(p)
            self.plain_build("pieces.one_plain", p)
            log(f"  {PIECES_ONE} uncached: {as_int(self.get('pieces.one_plain.ms')) // 1000} s")
        self.cache = self.W / "pieces" / "cache-one"
        self.cache.mkdir(parents=True, exist_ok=True)
        self.configure(self.PS, a, PIECES_ONE)
        self.resolve_targets(a)
        log(f"add a GPU target: {PIECES_ONE} through the shim, empty cache (dir {a})")
        self.pieces_build("pieces.one", a)
        g = self.get
        log(f"  {PIECES_ONE}: {as_int(g('pieces.one.ms')) // 1000} s, pieces hit {g('pieces.one.piece_hit')} compiled "
            f"{g('pieces.one.piece_miss')}, {g('pieces.one.split')} objects from pieces, {g('pieces.one.whole')} whole")
        for r in range(1, self.prounds + 1):
            rd = self.W / "pieces" / f"r{r}"
            b, c = rd / "two-shim" / "build", rd / "two-plain" / "build"
            b.parent.mkdir(parents=True, exist_ok=True)
            c.parent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(rd / "cache", ignore_errors=True)
            shutil.copytree(self.W / "pieces" / "cache-one", rd / "cache", symlinks=True)
            self.cache = rd / "cache"
            self.configure(self.PS, b, PIECES_TWO)
            self.configure(self.PS, c, PIECES_TWO)
            self.resolve_targets(b)
            first = "shim" if r % 2 else "plain"
            self.put(f"pieces.r{r}.first", first)
            log(f"add a GPU target, round {r} ({first} first): {PIECES_TWO} from fresh dirs through the shim ({b}) and "
                f"uncached ({c})")
            steps = [lambda: self.pieces_build(f"pieces.r{r}.shim", b), lambda: self.plain_build(f"pieces.r{r}.plain", c)]
            for step in (steps if first == "shim" else steps[::-1]):
                step()
            self.put(f"pieces.r{r}.ratio", ratio(g(f"pieces.r{r}.shim.ms"), g(f"pieces.r{r}.plain.ms")))
            self.compare_all(f"pieces.r{r}", b, c)
            log(f"  round {r}: shim {as_int(g(f'pieces.r{r}.shim.ms')) // 1000} s, uncached "
                f"{as_int(g(f'pieces.r{r}.plain.ms')) // 1000} s (ratio {g(f'pieces.r{r}.ratio')}); pieces hit "
                f"{g(f'pieces.r{r}.shim.piece_hit')} compiled {g(f'pieces.r{r}.shim.piece_miss')}; whole-object hits "
                f"{g(f'pieces.r{r}.shim.obj_hit')}; objects {g(f'pieces.r{r}.cmp_same')}/{g(f'pieces.r{r}.cmp_n')} identical")

    # ---- the report --------------------------------------------------------------------------
    def report_steps(self):
        """Steps 1-4's table and notes."""
        g, sec = self.get, self.sec
        s = median(as_int(g(f"cold.shim.r{r}.ms")) for r in range(1, self.rounds + 1))
        p = median(as_int(g(f"cold.plain.r{r}.ms")) for r in range(1, self.rounds + 1))
        self.put("cold.shim.median", s)
        self.put("cold.plain.median", p)
        fresh_direct = pct(as_int(g("fresh.direct_cache_hit")), self.calls("fresh"))
        L = ["", "| step | wall s | hits direct | hits preprocessed | misses | note |", "|---|---:|---:|---:|---:|---|"]
        for r in range(1, self.rounds + 1):
            L.append(f"| cold, no cache (prefix without shim), round {r} | {sec(f'cold.plain.r{r}.ms')} | | | | |")
            L.append(f"| cold, shim + empty cache, round {r} | {sec(f'cold.shim.r{r}.ms')} | {g(f'cold.shim.r{r}.direct_cache_hit')} | "
                     f"{g(f'cold.shim.r{r}.preprocessed_cache_hit')} | {g(f'cold.shim.r{r}.cache_miss')} | shim / no cache "
                     f"{g(f'cold.ratio.r{r}')} |")
        counts = lambda k: f"{g(f'{k}.direct_cache_hit')} | {g(f'{k}.preprocessed_cache_hit')} | {g(f'{k}.cache_miss')}"
        L += [f"| cold medians: shim / no cache | {sec('cold.shim.median')} / {sec('cold.plain.median')} | | | | ratio {ratio(s, p)} |",
              f"| fresh build dir (other path), warm cache | {sec('fresh.ms')} | {counts('fresh')} | hits {self.hit_pct('fresh')}, "
              f"{fresh_direct} direct; {ratio(s, g('fresh.ms'))}x faster than cold shim, {ratio(p, g('fresh.ms'))}x than no cache |",
              f"| control: a third dir, warm cache, base_dir off (CCACHE_BASEDIR=) | {sec('control.ms')} | {counts('control')} | "
              f"hits {self.hit_pct('control')}: what a cache without base_dir gets |",
              f"| touch {' '.join(TOUCH_HEADERS)} | {sec('touch.ms')} | {counts('touch')} | ninja rebuilt {g('touch.rebuilt')} |",
              f"| change {CHANGE_HEADER} | {sec('change.ms')} | {counts('change')} | ninja rebuilt {g('change.rebuilt')}; TUs "
              f"including it (ninja -t deps): {g('change.includers')} |", "",
              f"Change: missed TUs that do not include it: {self.or_none('change.missed_not_includer')}; including TUs that "
              f"did not miss: {self.or_none('change.includer_not_missed')}."]
        differ = read_lines(self.W / "cmp.txt")
        L += [f"Objects of the fresh directory against the first's (cmp): {g('fresh.cmp_same')} identical, "
              f"{g('fresh.cmp_differ')} differ{': ' + ' '.join(differ) if differ else ''}.",
              f"Other ccache counters per step: cold {self.or_none(f'cold.shim.r{self.rounds}.other')}; fresh "
              f"{self.or_none('fresh.other')}; touch {self.or_none('touch.other')}; change {self.or_none('change.other')}.",
              "", f"Anchor: {ANCHOR}. {TARGET_LINE}: {fresh_direct} direct hits here."]
        for k in ("fresh", "touch", "control"):
            explained = read_lines(self.W / f"{k}.explained")
            L += ["", f"Misses explained ({k}, {g(f'{k}.explained')}):", *(explained or ["none."])]
        L += ["", "ccache -v -s after the fresh-directory build (its statistics zeroed before it):", ""]
        L += [f"    {l}" for l in read_lines(self.W / "stats-fresh.txt", keep_empty=True)]
        return L

    def report_pieces(self):
        """Step 5's section."""
        g, sec = self.get, self.sec
        s = median(as_int(g(f"pieces.r{r}.shim.ms")) for r in range(1, self.prounds + 1))
        p = median(as_int(g(f"pieces.r{r}.plain.ms")) for r in range(1, self.prounds + 1))
        self.put("pieces.shim.median", s)
        self.put("pieces.plain.median", p)
        L = ["", "## Step 5: add a GPU target (issue 25's per-GPU-target pieces)", "",
             f"The set built for GPU_TARGETS={PIECES_ONE} through the shim with an empty cache (dir A), then from a",
             f"fresh build directory at another path for GPU_TARGETS=\"{PIECES_TWO}\" through the shim (dir B, against",
             "a copy of the cache as A left it), against an uncached two-target build (dir C: the same shimmed",
             "prefix, SHIMCTL_DISABLE=1, so the same -cuid= and the same objects). Paired rounds, the order",
             "alternating. Whole-object hits and misses are ccache's less the pieces' (each piece is a ccache",
             "compile of its own).", "",
             f"Warm-up before timing (one split compile of a throwaway source): {self.or_none('pieces.warmup')};",
             f"its cache's pieces counters (hit miss split whole checked): {g('pieces.warmup_counts')}.", "",
             "| step | wall s | load (1 5 15) | whole-object hits | whole-object misses | pieces hit | pieces compiled | "
             "objects from pieces | note |",
             "|---|---:|---|---:|---:|---:|---:|---:|---|"]
        cold = g("pieces.one_plain.ms")
        if cold != "":
            L.append(f"| {PIECES_ONE}, uncached (SHIMCTL_DISABLE=1) | {sec('pieces.one_plain.ms')} | {g('pieces.one_plain.load')} "
                     "| | | | | | |")
        pc = lambda k: (f"{g(f'{k}.obj_hit')} | {g(f'{k}.obj_miss')} | {g(f'{k}.piece_hit')} | {g(f'{k}.piece_miss')} | "
                        f"{g(f'{k}.split')}")
        L.append(f"| A: {PIECES_ONE} through the shim, empty cache | {sec('pieces.one.ms')} | {g('pieces.one.load')} | "
                 f"{pc('pieces.one')} | trace: {self.or_none('pieces.one.trace')}"
                 + (f"; / uncached {ratio(g('pieces.one.ms'), cold)}" if cold != "" else "") + " |")
        for r in range(1, self.prounds + 1):
            k = f"pieces.r{r}"
            L.append(f"| B: {PIECES_TWO}, fresh dir, through the shim, round {r} ({g(f'{k}.first')} first) | "
                     f"{sec(f'{k}.shim.ms')} | {g(f'{k}.shim.load')} | {pc(f'{k}.shim')} | B / C {g(f'{k}.ratio')}; trace: "
                     f"{self.or_none(f'{k}.shim.trace')}; whole compiles {g(f'{k}.shim.whole')} |")
            L.append(f"| C: {PIECES_TWO}, uncached (SHIMCTL_DISABLE=1), round {r} | {sec(f'{k}.plain.ms')} | "
                     f"{g(f'{k}.plain.load')} | | | | | | files in its CCACHE_DIR: {g(f'{k}.plain.cache_files')} |")
        L += [f"| medians: B / C | {sec('pieces.shim.median')} / {sec('pieces.plain.median')} | | | | | | | ratio {ratio(s, p)} |", ""]
        for r in range(1, self.prounds + 1):
            k = f"pieces.r{r}"
            differ = read_lines(self.W / "pieces" / f"{k}.cmp")
            L.append(f"Round {r}, objects of B against C (cmp, every *.o of B): {g(f'{k}.cmp_same')}/{g(f'{k}.cmp_n')} "
                     f"identical ({g(f'{k}.cmp_y_n')} objects in C){'; differ: ' + ' '.join(differ) if differ else ''}.")
        for k in ["pieces.one", *(f"pieces.r{r}.shim" for r in range(1, self.prounds + 1))]:
            if as_int(g(f"{k}.trace_whole")) > 0:
                L.append(f"Whole objects in {k} (trace): {(self.W / 'pieces' / f'{k}.whole-reasons').read_text().strip()}.")
        L.append(f"Other ccache counters: A {self.or_none('pieces.one.other')}; B round 1 {self.or_none('pieces.r1.shim.other')}.")
        return L

    def report(self):
        """The table (stdout) and W/GGML.md."""
        opts = (" --quick" if self.quick else "") + {"yes": " --pieces", "only": " --pieces-only"}.get(self.pieces, "")
        title = f"# ggml's HIP backend through shimctl (scripts/bench --section ggml{opts})\n\n"
        g = self.get
        L = [f"{g('started')}; {g('machine')}; load {g('load_start')} -> {loadavg()}.",
             f"Source: {self.src_desc}. Prefixes: scripts/make-rocm-prefix --stack sid (hipcc 7.0.2 hipBin, clang-21).",
             f"{g('v.ccache')}; {g('v.clang')}; {g('v.hipcc')}; {g('v.cmake')}; {g('v.ninja')}.",
             f"shimctl: {g('v.commit')} ({g('v.shimctl')}).", "",
             f"Build set: {len(self.set)} TUs, ninja -j{self.jobs}, Release, -DGGML_HIP=ON -DGPU_TARGETS=gfx90a (step 5: its "
             "own), GGML_CCACHE=OFF:", "", *(f"    {s}" for s in self.set)]
        if self.pieces != "only":
            L += self.report_steps()
        if self.pieces != "no":
            L += self.report_pieces()
        write_report(self.W, "GGML.md", title, "\n".join(L) + "\n")

    def main(self):
        self.put("started", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
        self.put("load_start", loadavg())
        try:
            self.ensure_packages()
            self.ensure_shimctl()
            self.versions()
            log(f"{self.get('v.ccache')}; {self.get('v.clang')}; shimctl {self.get('v.commit')}")
            self.make_prefix(self.PS)
            self.make_prefix(self.PP)
            if run([self.shimctl, "install", self.PS, "--cache-tool", shutil.which("ccache"), "--cache-dir",
                    self.W / "cache-install"], logfile=self.W / "install.log") != 0:
                print((self.W / "install.log").read_text(errors="replace"), file=sys.stderr)
                raise Failed(f"shimctl install {self.PS} failed")
            lines = (self.W / "install.log").read_text(errors="replace").splitlines()
            log(next((l for l in lines if "now go through" in l), lines[-1] if lines else ""))
            if self.pieces != "only":
                self.cold_rounds()
                self.fresh_dir_phase()
                self.control_phase()
                self.touch_phase()
                self.change_phase()
            if self.pieces != "no":
                self.pieces_phase()
            self.report()
        except Failed as e:
            raise SystemExit(f"bench-ggml: error: {e}") from None
        finally:
            self.save()


def same_file(a, b):
    """Whether files A and B exist and hold the same bytes (cmp -s)."""
    try:
        return Path(a).read_bytes() == Path(b).read_bytes()
    except OSError:
        return False


def read_lines(path, keep_empty=False):
    """PATH's lines (none when it cannot be read; empty lines dropped unless KEEP_EMPTY)."""
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return []
    return lines if keep_empty else [l for l in lines if l.strip()]


def main(argv):
    """WORK QUICK PIECES: the benchmark; --report WORK QUICK PIECES: GGML.md again from a kept work
    dir's results.tsv and files, nothing measured (anywhere: the report's check without a build)."""
    report_only = argv[:1] == ["--report"]
    argv = argv[1:] if report_only else argv
    if len(argv) != 3 or argv[1] not in ("yes", "no") or argv[2] not in ("no", "yes", "only"):
        raise SystemExit("usage: python3 -m bench.ggml_stack [--report] WORK yes|no no|yes|only (inside the sid root)")
    os.chdir(argv[0])
    g = Ggml(argv[0], argv[1] == "yes", argv[2])
    if report_only:
        for line in (g.W / "results.tsv").read_text().splitlines():
            k, _, v = line.partition("\t")
            g.R[k] = v
        g.report()
        g.save()
    else:
        g.main()


if __name__ == "__main__":
    main(sys.argv[1:])
