"""--section stores, one stack (issue 24 item 6): a remote hit from each team store against a local
hit, paired, and the fleet's hit rates. Run by stores.py as `python3 -m bench.stores_stack STACK
WORK SHIMCTL ROUNDS RUNS FLEET-UNITS` (PYTHONPATH=scripts/lib), as root: on the host for debian12,
inside the sid root (scripts/sid-run) for sid.

  STACK        debian12 (make-rocm-prefix: clang-15, ccache 4.7.5) or sid (--stack sid: clang-21,
               ccache 4.14.2, sccache 0.17)
  WORK         a new directory for everything (results: WORK/stores.tsv, WORK/counts.tsv,
               WORK/fleet.tsv, WORK/info, hyperfine's JSON in WORK/<store>/json)
  SHIMCTL      the shimctl build for this stack
  ROUNDS RUNS  paired rounds per store, hyperfine runs of each side per round
  FLEET-UNITS  units of the fleet's project (0: no fleet)
Environment: BENCH_HYPERFINE (default hyperfine: the sid root has none, stores.py stages the
host's), BENCH_STORES_ONLY (store ids to run, e.g. "ccache-redis sccache-s3 fleet-ccache-redis";
default all), BENCH_STORES_FLEET_STORES (the fleet's stores, default "redis shards webdav s3":
each tool on those it takes).

Each store: its server started by scripts/lib/bench-stores.bash (tests/integration/lib-stores.bash's
servers, on 127.0.0.1), a fresh copy of the stack's prefix installed with `--remote URL
--no-verify`, one kernel k.hip compiled as `CLANG++ -x hip --offload-arch=gfx90a -c k.hip -o k.o`
in one directory. A round is one hyperfine invocation of every side (the order rotated per round,
one warm-up each):
  ccache   local:  CCACHE_DIR = a warm local cache (a local hit: ccache never asks the store)
           remote: CCACHE_DIR = an empty one, emptied by --prepare before every run
           remote-inode: the same, but with the warm cache's inode cache copied in: ccache keeps
                   it in the cache dir, and without it a compile re-hashes every header (tens of
                   ms, nothing to do with the store)
  sccache  local:  a second prefix installed without --remote (its server's local disk cache)
           remote: the store's prefix on a warm machine: sccache >= 0.15 keeps its local disk
                   cache in front of the store (SCCACHE_MULTILEVEL_CHAIN, issue 35), so a warm hit
                   is read from the disk (older sccache: from the store, after a run of the
                   preprocessor; the store's share is cache_read_hit_duration per hit)
           fresh:  the store's prefix on a fresh machine: --prepare stops its server and empties
                   its disk cache, so each run starts a server and reads the store (the first hit
                   of a machine that joins the team; the back-filled second hit is the remote side)
The counts that prove each side is what it says, counted here: ccache's per-compile stats_log
(CCACHE_STATSLOG) of every run; sccache's server statistics before and after the rounds. The
fleet: lib-fleet.bash's fleet_test for each tool and store, run by bench-stores.bash (its checks
fail nothing here: the figures are read from its machines' stats files). Nothing is gated on time.
"""
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

STACKS = {"debian12": ("llvm/bin/clang++", []), "sid": ("lib/llvm/bin/clang++", ["--stack", "sid"])}
COMPILE = ["-x", "hip", "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o"]
KERNEL = """#include <hip/hip_runtime.h>
// scripts/bench --section stores: one small kernel, compiled through each store.
__global__ void store_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = sqrtf(x[i]) * 3.0f + 1.0f;
}
"""
SRC_DIR = Path(__file__).resolve().parents[3]
FIXTURES = SRC_DIR / "scripts" / "lib" / "bench-stores.bash"


class Failed(Exception):
    """One store failed: it is reported as failed, the others go on."""


def append(path, *fields):
    with open(path, "a") as f:
        f.write("\t".join(map(str, fields)) + "\n")


def tail(path, n=5):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def statslog_counts(path):
    """(compiles, local hits, remote hits, misses) of ccache's stats_log PATH (a "#" line per compile)."""
    n = lh = rh = m = 0
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        word = (line.split() or [""])[0]
        n += line.startswith("#")
        lh += word == "local_storage_hit"
        rh += word == "remote_storage_hit"
        m += word == "cache_miss"
    return n, lh, rh, m


def sc_counts(j):
    """(hits, misses, store read ms, preprocessor cache mode) of an sccache statistics snapshot:
    hits and misses of every language, the server's cache_read_hit_duration (the time its store
    reads of hits took, summed), and whether it uses the preprocessor cache mode."""
    s = j["stats"]
    d = s.get("cache_read_hit_duration") or {}
    return (sum(s["cache_hits"]["counts"].values()), sum(s["cache_misses"]["counts"].values()),
            d.get("secs", 0) * 1e3 + d.get("nanos", 0) / 1e6, str(j.get("use_preprocessor_cache_mode", "?")).lower())


def per_hit(ms0, ms1, hits):
    return f"{(ms1 - ms0) / hits:.2f}" if hits else "-"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    def __init__(self, stack, work, shimctl, rounds, runs, fleet_units):
        self.stack, self.W, self.shimctl = stack, Path(work).resolve(), Path(shimctl)
        self.clang_rel, self.prefix_args = STACKS[stack]
        self.rounds, self.runs, self.fleet_units = rounds, runs, fleet_units
        self.src, self.pristine = self.W / "src", self.W / "pristine"
        self.hf = os.environ.get("BENCH_HYPERFINE") or "hyperfine"
        self.only = os.environ.get("BENCH_STORES_ONLY", "").split()
        self.fleet_stores = (os.environ.get("BENCH_STORES_FLEET_STORES") or "redis shards webdav s3").split()
        self.installed = []
        for k in [k for k in os.environ if k.startswith(("SHIMCTL_", "CCACHE_", "SCCACHE_"))]:
            del os.environ[k]
        os.environ.pop("XDG_RUNTIME_DIR", None)
        os.environ["XDG_CACHE_HOME"] = str(self.W / "xdg-cache")  # the shim's probe memo and sccache's sockets

    def say(self, text):
        print(f"bench-stores: {self.stack}: {text}", file=sys.stderr, flush=True)

    def clang(self, prefix):
        return str(prefix / self.clang_rel)

    # ---- the stack ---------------------------------------------------------------------------
    def setup(self):
        self.src.mkdir(parents=True)
        (self.src / "k.hip").write_text(KERNEL)
        with open(self.W / "make-prefix.log", "w") as f:
            if subprocess.run([str(SRC_DIR / "scripts" / "make-rocm-prefix"), str(self.pristine), *self.prefix_args],
                              stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
                raise SystemExit(f"make-rocm-prefix failed: {tail(self.W / 'make-prefix.log')}")
        first = lambda argv: subprocess.run(argv, capture_output=True, text=True,
                                            errors="replace").stdout.split("\n", 1)[0].strip()
        info = [("toolchain", first([self.clang(self.pristine), "--version"])), ("ccache", first(["ccache", "--version"]))]
        if shutil.which("sccache"):
            info.append(("sccache", first(["sccache", "--version"])))
        info += [("shimctl", first([str(self.shimctl), "--version"])), ("hyperfine", first([self.hf, "--version"])),
                 ("compile", f"{self.clang_rel} {' '.join(COMPILE)}")]
        (self.W / "info").write_text("".join(f"{k}\t{v}\n" for k, v in info))

    def compile_with(self, d, prefix, env=None):
        """One compile in W/src by PREFIX's clang++ (ENV added), or Failed."""
        with open(d / "compile.log", "a") as f:
            if subprocess.run([self.clang(prefix), *COMPILE], cwd=self.src, env={**os.environ, **(env or {})},
                              stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
                raise Failed(f"a compile by {prefix} failed: {tail(d / 'compile.log')}")

    def install_prefix(self, d, tool, url=None, env=None):
        """D/rocm = a copy of the stack's prefix, installed with TOOL (and --remote URL; ENV added to
        install's environment)."""
        d.mkdir(parents=True, exist_ok=True)
        if subprocess.run(["cp", "-a", str(self.pristine), str(d / "rocm")]).returncode != 0:
            raise Failed(f"cannot copy the prefix to {d}")
        self.installed.append(d / "rocm")
        argv = [str(self.shimctl), "install", str(d / "rocm"), "--cache", tool, "--cache-dir", str(d / "cache"),
                *(["--remote", url] if url else []), "--no-verify"]
        with open(d / "install.log", "a") as f:
            if subprocess.run(argv, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL, stdout=f,
                              stderr=subprocess.STDOUT).returncode != 0:
                raise Failed(f"shimctl install {d / 'rocm'} --cache {tool} failed: {tail(d / 'install.log')}")

    def rollback(self, prefixes):
        with open(self.W / "rollback.log", "a") as f:
            for p in prefixes:
                subprocess.run([str(self.shimctl), "rollback", str(p)], stdin=subprocess.DEVNULL, stdout=f,
                               stderr=subprocess.STDOUT)

    def sc_json(self, prefix):
        """PREFIX's sccache server's statistics (JSON)."""
        status = subprocess.run([str(self.shimctl), "status", "--json", str(prefix)], capture_output=True, text=True)
        try:
            server = json.loads(status.stdout)["cache"].get("server", {}).get("environment", "")
        except (ValueError, KeyError):
            server = ""
        if "=" not in server:
            raise Failed(f"status --json names no sccache server for {prefix}")
        name, value = server.split("=", 1)
        stats = subprocess.run(["sccache", "--show-stats", "--stats-format", "json"], env={**os.environ, name: value},
                               capture_output=True, text=True)
        try:
            return json.loads(stats.stdout)
        except ValueError:
            raise Failed(f"sccache --show-stats for {prefix}: {stats.stderr.strip()[-500:]}") from None

    def hyperfine(self, json_path, log, args, runs):
        json_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a") as f:
            return subprocess.run([self.hf, "-N", "--style", "basic", "--runs", str(runs), "--warmup", "1",
                                   "--export-json", str(json_path), *args], cwd=self.src, stdin=subprocess.DEVNULL,
                                  stdout=f, stderr=subprocess.STDOUT).returncode == 0

    def timed_rounds(self, sid, sides):
        """The paired rounds of store SID: SIDES [(name, prepare argv or None, command argv)], each
        round one hyperfine invocation of every side, the order rotated per round; the JSON in
        W/SID/json/rN.json."""
        for r in range(1, self.rounds + 1):
            args = []
            for i in range(len(sides)):
                name, prepare, cmd = sides[(i + r - 1) % len(sides)]
                args += ["-n", name, "--prepare", shlex.join(prepare) if prepare else "true", shlex.join(cmd)]
            if not self.hyperfine(self.W / sid / "json" / f"r{r}.json", self.W / sid / "hyperfine.log", args, self.runs):
                raise Failed(f"hyperfine failed (round {r} of {sid}): see {self.W / sid / 'hyperfine.log'}")

    # ---- one store ---------------------------------------------------------------------------
    def start_store(self, kind, d):
        """Store KIND's servers (their pid files in D/servers): its URL and install's environment."""
        done = subprocess.run(["bash", str(FIXTURES), "start", str(self.shimctl), kind, str(d / "servers")],
                              capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
        if done.returncode != 0 or not done.stdout.strip():
            raise Failed(f"store {kind} did not start: {done.stderr.strip()[-1000:]}")
        url, *env = done.stdout.strip().splitlines()
        return url, dict(e.split("=", 1) for e in env)

    def store_ccache(self, kind):
        """ccache's local hit against its remote hit from store KIND."""
        sid, d = f"ccache-{kind}", self.W / f"ccache-{kind}"
        url, env = self.start_store(kind, d)
        self.install_prefix(d, "ccache", url, env)
        p, warm = d / "rocm", {"CCACHE_DIR": str(d / "warm")}
        check = {"CCACHE_STATSLOG": str(d / "check.statslog")}
        self.compile_with(d, p, warm)  # a miss: local and remote written
        self.compile_with(d, p, {**warm, **check})
        self.compile_with(d, p, {"CCACHE_DIR": str(d / "probe"), **check})
        n, lh, rh, m = statslog_counts(d / "check.statslog")
        if lh < 1 or rh < 1 or m != 0:
            raise Failed(f"{sid}: before the rounds, expected a local hit and a remote hit (stats_log: {n} {lh} {rh} "
                         f"{m}): {d / 'check.statslog'}")
        # ccache puts no header whose ctime is a moment old into the inode cache, and the prefix is
        # a fresh copy: one more warm compile once it is old enough
        time.sleep(2)
        self.compile_with(d, p, warm)
        ino = sorted((d / "warm" / "tmp").glob("inode-cache-*"))
        compile_ = lambda cache, side: ["env", f"CCACHE_DIR={cache}", f"CCACHE_STATSLOG={d / side}.statslog",
                                        self.clang(p), *COMPILE]
        sides = [("local", None, compile_(d / "warm", "local")),
                 ("remote", ["rm", "-rf", str(d / "fresh")], compile_(d / "fresh", "remote"))]
        if ino:  # the same empty cache dir with the warm one's inode cache: no header hashed again
            sides.append(("remote-inode", ["sh", "-c", 'rm -rf "$1" && mkdir -p "$1/tmp" && cp "$2" "$1/tmp/"', "_",
                                           str(d / "fresh2"), str(ino[0])], compile_(d / "fresh2", "remote-inode")))
        else:
            self.say(f"{sid}: no inode cache in {d / 'warm' / 'tmp'}: no remote-inode side")
        self.timed_rounds(sid, sides)
        for side in ("local", "remote", "remote-inode"):  # COMPILES LOCAL-HITS REMOTE-HITS MISSES, warm-ups included
            if (d / f"{side}.statslog").exists():
                append(self.W / "counts.tsv", sid, side, " ".join(map(str, statslog_counts(d / f"{side}.statslog"))))

    def store_sccache(self, kind):
        """sccache's local disk cache (W/sccache-local) against store KIND."""
        sid, d, local = f"sccache-{kind}", self.W / f"sccache-{kind}", self.W / "sccache-local" / "rocm"
        url, env = self.start_store(kind, d)
        self.install_prefix(d, "sccache", url, env)
        p = d / "rocm"
        self.compile_with(d, p)  # a miss: written to the store
        s0 = sc_counts(self.sc_json(p))
        self.compile_with(d, p)
        s1, l0 = sc_counts(self.sc_json(p)), sc_counts(self.sc_json(local))
        if s1[0] - s0[0] != 1 or s1[1] != s0[1]:
            raise Failed(f"{sid}: the compile before the rounds was no hit from the store")
        port = free_port()
        stop = ["sh", "-c", 'env SCCACHE_SERVER_PORT="$1" sccache --stop-server >/dev/null 2>&1; rm -rf "$2"', "_",
                str(port), str(d / "fresh")]
        self.timed_rounds(sid, [("local", None, [self.clang(local), *COMPILE]), ("remote", None, [self.clang(p), *COMPILE]),
                                ("fresh", stop, ["env", f"SCCACHE_DIR={d / 'fresh'}", f"SCCACHE_SERVER_PORT={port}",
                                                 self.clang(p), *COMPILE])])
        subprocess.run(["sccache", "--stop-server"], env={**os.environ, "SCCACHE_SERVER_PORT": str(port)},
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        s2, l1 = sc_counts(self.sc_json(p)), sc_counts(self.sc_json(local))
        # COMPILES LOCAL-HITS REMOTE-HITS MISSES, as for ccache (the local server's hits are local),
        # then the store reads' ms per hit and the preprocessor cache mode
        lh, lm, h, m = l1[0] - l0[0], l1[1] - l0[1], s2[0] - s1[0], s2[1] - s1[1]
        append(self.W / "counts.tsv", sid, "local", f"{lh + lm} {lh} 0 {lm}", per_hit(l0[2], l1[2], lh), l1[3])
        append(self.W / "counts.tsv", sid, "remote", f"{h + m} 0 {h} {m}", per_hit(s1[2], s2[2], h), s2[3])

    def one_store(self, tool, kind):
        """A failure ends that store only; its servers stopped and its prefix rolled back at the end."""
        sid = f"{tool}-{kind}"
        if self.only and sid not in self.only:
            return
        self.say(sid)
        start, status, outer = time.monotonic(), "ok", self.installed
        self.installed = []  # this store's prefix only (the local sccache prefix is the stack's)
        try:
            getattr(self, f"store_{tool}")(kind)
        except Failed as e:
            status = "failed"
            with open(self.W / "errors.log", "a") as f:
                f.write(f"FAILED: {e}\n")
            self.say(f"{sid} failed: {str(e).splitlines()[0] if str(e) else ''}")
        finally:
            self.rollback(self.installed)
            self.installed = outer
            subprocess.run(["bash", str(FIXTURES), "stop", str(self.shimctl), str(self.W / sid / "servers")],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        append(self.W / "stores.tsv", sid, tool, kind, status)
        self.say(f"{sid}: {time.monotonic() - start:.1f} s")

    def uncached(self):
        runs = max((self.runs + 1) // 2, 2)
        if not self.hyperfine(self.W / "uncached" / "json" / "r1.json", self.W / "uncached" / "hyperfine.log",
                              ["-n", "uncached", shlex.join([self.clang(self.pristine), *COMPILE])], runs):
            self.say("the uncached compile failed")

    # ---- the fleet ---------------------------------------------------------------------------
    def fleet(self, tool, kind):
        """lib-fleet's fleet_test; W/fleet.tsv gets "TOOL KIND MACHINE HITS COMPILES WRITES UNITS" per
        machine and "TOOL KIND result ok|failed SECONDS" (its checks: hit rates, objects)."""
        if self.only and f"fleet-{tool}-{kind}" not in self.only:
            return
        self.say(f"fleet {tool} {kind} ({self.fleet_units} units)")
        start, d = time.monotonic(), self.W / f"fleet-{tool}-{kind}"
        with open(self.W / "fleet.log", "a") as f:
            rc = subprocess.run(["bash", str(FIXTURES), "fleet", str(self.shimctl), tool, kind, str(d),
                                 str(self.fleet_units)], stdin=subprocess.DEVNULL, stdout=f,
                                stderr=subprocess.STDOUT).returncode
        seconds = f"{time.monotonic() - start:.1f}"
        for m in ("m1", "m2", "m3", "m4", "m5", "m6"):
            try:
                stats = (d / m / "stats").read_text().split()
            except OSError:
                stats = ["?", "?", "?"]
            try:
                units = (d / m / "units").read_text().strip()
            except OSError:
                units = str(self.fleet_units)
            append(self.W / "fleet.tsv", tool, kind, m, *stats, units)
        append(self.W / "fleet.tsv", tool, kind, "result", "ok" if rc == 0 else "failed", seconds)
        self.say(f"fleet {tool} {kind}: {'its checks passed' if rc == 0 else 'a check failed: ' + str(self.W / 'fleet.log')}, "
                 f"{seconds} s")
        for rocm in d.glob("m?/rocm"):  # a prefix copy per machine: not kept
            shutil.rmtree(rocm, ignore_errors=True)

    def main(self):
        for f in ("stores.tsv", "counts.tsv", "fleet.tsv"):
            (self.W / f).write_text("")
        self.setup()
        self.uncached()
        try:
            if self.stack == "debian12":
                for kind in ("redis", "redis-pw", "shards", "webdav"):
                    self.one_store("ccache", kind)
            else:
                for kind in ("redis", "webdav"):
                    self.one_store("ccache", kind)
                local = self.W / "sccache-local"  # the local side of every sccache store: one prefix, one warm server
                try:
                    self.install_prefix(local, "sccache")
                    self.compile_with(local, local / "rocm")
                    self.compile_with(local, local / "rocm")
                except Failed as e:
                    with open(self.W / "errors.log", "a") as f:
                        f.write(f"FAILED: {e}\n")
                    self.say(f"the local sccache prefix failed: {e}")
                else:
                    for kind in ("redis", "webdav", "s3", "cluster"):
                        self.one_store("sccache", kind)
        finally:
            self.rollback(self.installed)
            self.installed = []
        if self.fleet_units > 0:
            for tool in ("ccache", "sccache"):
                if tool == "sccache" and self.stack == "debian12":  # 0.4: no remote
                    continue
                for kind in self.fleet_stores:
                    if (tool, kind) not in (("ccache", "s3"), ("sccache", "shards")):  # refused by install
                        self.fleet(tool, kind)
        self.say("done")


def main(argv):
    if len(argv) != 6 or argv[0] not in STACKS:
        raise SystemExit(f"usage: python3 -m bench.stores_stack {{{'|'.join(STACKS)}}} WORK SHIMCTL ROUNDS RUNS "
                         "FLEET-UNITS")
    if os.getuid() != 0:
        raise SystemExit("bench-stores: must run as root (the fleet's mount namespaces)")
    stack, work, shimctl, rounds, runs, fleet_units = argv
    Path(work).mkdir(parents=True, exist_ok=True)
    Stack(stack, work, shimctl, int(rounds), int(runs), int(fleet_units)).main()


if __name__ == "__main__":
    main(sys.argv[1:])
