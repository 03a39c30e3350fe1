"""Per-call figures of a warm hit: section 1 (seven ways to reach the cache, the identity
mechanisms), the floor (the shim exec'ing a static `true`), and the GPU-target sections (hipcc
without --offload-arch, --offload-arch=native)."""
import json
import os
import shutil
import subprocess
from pathlib import Path

from .common import BenchError, Counts, have_rocm, log, shim_syscalls, summarize, syscall_summary


def conf_env(b, prefix, mode="all"):
    """The environment PREFIX's shims set (`shimctl status --json`, cache.environment); `plain`
    drops the identity variables (CCACHE_EXTRAFILES, CCACHE_COMPILERCHECK), `bare` also
    CCACHE_INODECACHE."""
    env = json.loads(b.output([b.shimctl, "status", prefix, "--json"]))["cache"]["environment"]
    out = {}
    for kv in env["defaults"] + env["appends"]:
        k, _, v = kv.partition("=")
        if mode in ("plain", "bare") and k in ("CCACHE_EXTRAFILES", "CCACHE_COMPILERCHECK"):
            continue
        if mode == "bare" and k == "CCACHE_INODECACHE":
            continue
        out[k] = v
    return out


def fingerprint(b, prefix):
    return json.loads(b.output([b.shimctl, "fingerprint", prefix, "--json"]))


def identity_env(b, prefix):
    """Mechanism (b)'s two variables for PREFIX (ccache hashes the inputs itself on every call)."""
    j = fingerprint(b, prefix)
    files = [p if p.startswith("/") else os.path.join(prefix, p) for p in (i["path"] for i in j["inputs"])]
    if len(j["sha256"]) != 64 or not files:
        raise BenchError(f"cannot read the fingerprint of {prefix}")
    return {"CCACHE_COMPILERCHECK": "string:shimctl-" + j["sha256"][:32],
            "CCACHE_EXTRAFILES": ":".join(files)}


def build_tools(b, d):
    """d/stub (static, exec-only: execv(argv[1], argv + 1)) and d/true (static, exits 0)."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "stub.c").write_text("#include <unistd.h>\nint main(int argc, char** argv) { (void)argc; "
                              "execv(argv[1], argv + 1); return 127; }\n")
    (d / "true.c").write_text("int main(void) { return 0; }\n")
    for t in ("stub", "true"):
        b.run(["gcc", "-O2", "-static", "-o", d / t, d / f"{t}.c"])


def setup_prefixes(b, P):
    """P2: identity off, for (b) (shimctl-test-hooks, SHIMCTL_TEST_SHIM_IDENTITY=off); P3:
    mechanism (b), for (e): identity off, the hooks' SHIMCTL_TEST_SHIM_ENV adds mechanism (b)'s
    variables to the shims' environment. The shim reads the config next to itself, so each
    identity setup is its own prefix, configured by shimctl (the bench never writes a config)."""
    if not os.access(b.hooks, os.X_OK):
        raise BenchError(f"{b.hooks} not found: build with -DSHIMCTL_TEST_HOOKS=ON (scripts/setup does)")
    cache = b.W / "cache-install"
    P2, P3 = b.W / "rocm-plain", b.W / "rocm-extrafiles"
    b.make_prefix(P2, "--llvm", "15")
    b.install(P2, "--cache-dir", cache, "--no-verify", tool=b.hooks, env={"SHIMCTL_TEST_SHIM_IDENTITY": "off"})
    b.make_prefix(P3, "--llvm", "15")
    id3 = identity_env(b, P3)
    b.install(P3, "--cache-dir", cache, "--no-verify", tool=b.hooks,
              env={"SHIMCTL_TEST_SHIM_IDENTITY": "off",
                   "SHIMCTL_TEST_SHIM_ENV": "".join(f"{k}={v}\n" for k, v in id3.items())})
    b.put("identity.files", len(fingerprint(b, P)["inputs"]))
    return P2, P3


def trace(b, argv, env=None):
    return b.run(argv, env={"SHIMCTL_SHIM_TRACE": "1", **(env or {})}, check=False).stderr


def section_hit(b, P, P2, P3, z):
    """Section 1: the same warm direct-mode hit invoked seven ways, in rotating rounds, and the
    dedicated run of (b), (d), (e) for the identity check."""
    T = b.W / "tools"
    build_tools(b, T)
    S1 = b.W / "hit"
    S1.mkdir()
    b.write_hip_kernel(S1 / "k.hip", 0)
    env_plain, env_bare = conf_env(b, P, "plain"), conf_env(b, P, "bare")
    env_id = identity_env(b, P)  # mechanism (b)'s variables, for P's own inputs
    ccache = shutil.which("ccache")
    (S1 / "wrapper").write_text(f'#!/bin/bash\nexec {ccache} {P}/bin/hipcc.real "$@"\n')
    (S1 / "wrapper").chmod(0o755)
    args = ["-x", "hip", "--offload-arch=gfx90a", "-c", S1 / "k.hip", "-o"]
    real = [ccache, P / "bin/hipcc.real"]
    # Three groups, one hyperfine invocation each per round (one environment per invocation):
    # the shim's own environment without identity (a, b, c, d, e; the shims apply their own
    # settings on top), without the inode cache (a0), with mechanism (b)'s variables (a').
    groups = {
        "main": ([("a", real + args + [S1 / "a.o"]), ("b", [P2 / "bin/hipcc"] + args + [S1 / "b.o"]),
                  ("c", [S1 / "wrapper"] + args + [S1 / "c.o"]), ("d", [P / "bin/hipcc"] + args + [S1 / "d.o"]),
                  ("e", [P3 / "bin/hipcc"] + args + [S1 / "e.o"])], env_plain),
        "a0": ([("a0", real + args + [S1 / "a0.o"])], env_bare),
        "aid": ([("a_id", real + args + [S1 / "a_id.o"])], {**env_plain, **env_id}),
    }
    # Fill the cache (the first run of each is a miss).
    for g, (cmds, env) in groups.items():
        b.group(b.J / f"fill-{g}.json", 0, 1, 0, cmds, env=env)
    d_cmd = [P / "bin/hipcc"] + args + [S1 / "d.o"]

    def check_fast_path(when):  # (d) takes the guard's fast path: snapshot current, no re-hash
        t = trace(b, d_cmd)
        (S1 / f"trace-{when}.txt").write_text(t)
        if "identity snapshot stale" in t or "identity current (snapshot)" not in t:
            raise BenchError(f"(d) does not take the snapshot fast path {when} the timed runs:\n{t}")

    check_fast_path("before")
    rounds, runs = z["rounds"], z["runs"]
    log(f"shim overhead: {rounds} rounds x {runs} runs of (a) (b) (c) (d) (e), (a0), (a')")
    counts, files = Counts(), []
    order = ["main", "a0", "aid", "main", "a0"]
    for r in range(rounds):
        for g in order[r % 3:r % 3 + 3]:  # which group runs first rotates too
            cmds, env = groups[g]
            f = b.J / "hit" / f"r{r}-{g}.json"
            counts.add(b.group(f, r, runs, 2, cmds, env=env, measure=True))
            files.append((r, f))
    b.put("hit.misses", counts.misses)
    b.put("hit.hits", counts.hits)
    b.put("hit.runs", rounds * (runs + 2) * 7)  # every run, warm-ups included
    b.put("hit.rounds", rounds)
    b.put("hit.runs_per_round", runs)
    check_fast_path("after")
    paired = lambda k: k.startswith("paired_")
    b.put_all("hit", summarize(files, "a"))
    # Paired against (b), the shim without identity (each mechanism's cost), and against (a'),
    # ccache with mechanism (b)'s variables (the shim's own cost when both pay for (b)).
    b.put_all("hit_vs_b", summarize(files, "b"), only=paired)
    b.put_all("hit_vs_a_id", summarize(files, "a_id"), only=paired)
    # The identity check is worth a percent or two of a hit, within the noise of the run above:
    # a dedicated run of (b), (d) and (e), five times the runs, gives its ratios (they replace
    # the hit_vs_b ratios of b, d and e).
    id_rounds, id_runs = z["id_rounds"], z["id_runs"]
    log(f"identity check: {id_rounds} rounds x {id_runs} runs of (b) (d) (e)")
    files = []
    for r in range(id_rounds):
        f = b.J / "identity" / f"r{r}-bde.json"
        b.group(f, r, id_runs, 2, groups["main"][0][1:2] + groups["main"][0][3:5], env=env_plain)
        files.append((r, f))
    check_fast_path("after the identity run")
    b.put("identity.rounds", id_rounds)
    b.put("identity.runs", id_rounds * id_runs)
    s = summarize(files, "b")
    b.put_all("hit_vs_b", s, only=paired)
    b.put_all("identity_run", s, only=lambda k: not paired(k))
    return T, S1, args


def section_floor(b, P, T, S1, args, z):
    """The floor: the shim as installed (identity off) with a static `true` as its cache tool,
    against `true` alone and behind an exec-only static stub; and with the snapshot guard of (d)."""
    F, FI = b.W / "floor", b.W / "floor-id"
    b.make_prefix(F, "--llvm", "15")
    b.make_prefix(FI, "--llvm", "15")
    b.install(F, "--cache-tool", T / "true", "--cache-dir", b.W / "cache-floor", "--no-verify",
              tool=b.hooks, env={"SHIMCTL_TEST_SHIM_IDENTITY": "off"})
    b.install(FI, "--cache-tool", T / "true", "--cache-dir", b.W / "cache-floor", "--no-verify")
    fargs = ["--offload-arch=gfx90a", "-c", "k.hip"]
    t = trace(b, [FI / "bin/hipcc"] + fargs)
    if "identity current (snapshot)" not in t:
        raise BenchError(f"the floor's guarded shim does not take the fast path:\n{t}")
    t = trace(b, [F / "bin/hipcc"] + fargs)
    if "identity" in t:
        raise BenchError(f"the floor's unguarded shim checks an identity:\n{t}")
    id_rounds, id_runs = z["id_rounds"], z["id_runs"]
    log(f"the floor: {id_rounds} rounds x {id_runs} runs of true, stub, shim, shim_id")
    files = []
    cmds = [("true", [T / "true"] + fargs), ("stub", [T / "stub", T / "true"] + fargs),
            ("shim", [F / "bin/hipcc"] + fargs), ("shim_id", [FI / "bin/hipcc"] + fargs)]
    for r in range(id_rounds):
        f = b.J / "floor" / f"r{r}-floor.json"
        b.group(f, r, id_runs, 2, cmds)
        files.append((r, f))
    b.put("floor.rounds", id_rounds)
    b.put("floor.runs", id_rounds * id_runs)
    b.put_all("floor", summarize(files, "true"))
    if os.access("/usr/bin/time", os.X_OK):
        def rss(argv):
            p = b.run(["/usr/bin/time", "-f", "%M", *argv], check=False)
            return int(p.stderr.strip().splitlines()[-1])
        b.put("rss.shim", rss([F / "bin/hipcc"] + fargs))
        b.put("rss.stub", rss([T / "stub", T / "true"]))
        b.put("rss.hit_d", rss([P / "bin/hipcc"] + args + [S1 / "d.o"]))
    if shutil.which("strace"):
        # System calls of the shim itself: from its execve to the execve of the cache tool.
        b.run(["strace", "-f", "-o", F / "strace.txt", F / "bin/hipcc"] + fargs, check=False)
        names = shim_syscalls(F / "strace.txt")
        b.put("syscalls.shim", len(names))
        b.put("syscalls.list", syscall_summary(names))
        b.run(["strace", "-f", "-o", FI / "strace.txt", FI / "bin/hipcc"] + fargs, check=False)
        names = shim_syscalls(FI / "strace.txt")
        b.put("syscalls.shim_id", len(names))
        b.put("syscalls.shim_id.fstatat", sum(n in ("newfstatat", "fstatat64") for n in names))


def paired_rounds(b, key, cmds, env, cache_dir, z):
    """Warm hits of cmds [(name, argv)] in rotating rounds, the first as the base; measure's
    counts over the timed rounds."""
    b.group(b.J / f"{key}-fill.json", 0, 1, 0, cmds, env=env)
    n = max(z["rounds"] // 2, 2)
    log(f"{key}: {n} rounds x {z['runs']} runs of " + " ".join(f"({c[0]})" for c in cmds))
    counts, files = Counts(), []
    for r in range(n):
        f = b.J / key / f"r{r}.json"
        counts.add(b.group(f, r, z["runs"], 2, cmds, env=env, measure=True))
        files.append((r, f))
    b.put(f"{key}.misses", counts.misses)
    b.put(f"{key}.hits", counts.hits)
    b.put(f"{key}.rounds", n)
    b.put_all(key, summarize(files, cmds[0][0]))


def section_native(b, z):
    """hipcc without --offload-arch: the targets rocm_agent_enumerator reports (ROCm's own,
    Debian's rocminfo, in a copy of the prefix, with a target.lst: without a GPU it would die on
    /sys/class/kfd). x: --offload-arch=gfx90a; n: no arch (the shim's memoised probe); u: no arch
    without a memo (XDG_CACHE_HOME unwritable: the enumerator runs on every call)."""
    if not Path("/usr/bin/rocm_agent_enumerator").is_file():
        log("GPU targets from the machine: skipped (no /usr/bin/rocm_agent_enumerator: apt-get install rocminfo)")
        return
    PN, S6 = b.W / "rocm-native", b.W / "native"
    S6.mkdir()
    b.make_prefix(PN)
    cache = b.W / "cache-native"
    b.install(PN, "--cache-dir", cache, "--no-verify")
    shutil.copy("/usr/bin/rocm_agent_enumerator", PN / "bin/rocm_agent_enumerator")
    (PN / "bin/target.lst").write_text("gfx90a\n")
    b.write_hip_kernel(S6 / "k.hip", 0)
    hipcc, k = PN / "bin/hipcc", S6 / "k.hip"
    # Each command compiles to its own fixed output: the shim's CUID follows -o.
    cmds = [("x", [hipcc, "-x", "hip", "--offload-arch=gfx90a", "-c", k, "-o", S6 / "x.o"]),
            ("n", [hipcc, "-x", "hip", "-c", k, "-o", S6 / "n.o"]),
            ("u", ["env", "XDG_CACHE_HOME=/proc/no-memo", hipcc, "-x", "hip", "-c", k, "-o", S6 / "u.o"])]
    home = {"HOME": b.W / "home-native"}
    paired_rounds(b, "native", cmds, home, cache, z)
    # A changed target.lst changes the key: the next no-arch compile misses.
    (PN / "bin/target.lst").write_text("gfx1030\n")
    m = b.measure([hipcc, "-x", "hip", "-c", k, "-o", S6 / "n.o"], env=home)
    b.put("native.target_lst_change_misses", m["misses"])


def section_native16(b, z):
    """--offload-arch=native on a clang-16 prefix, keyed by the answer of the amdgpu-arch the
    compiler runs: a two-line stand-in printing gfx90a (no GPU here), so this measures the memo.
    x: hipcc --offload-arch=gfx90a; h: hipcc --offload-arch=native; c: clang++ ... native."""
    if not have_rocm(16):
        log("--offload-arch=native: skipped (no clang-16: run scripts/setup)")
        return
    P16, S7 = b.W / "rocm16-native", b.W / "native16"
    S7.mkdir()
    b.make_prefix(P16, "--llvm", "16")
    arch = P16 / "llvm/bin/amdgpu-arch"
    arch.unlink(missing_ok=True)  # never write through a link into the system toolchain
    arch.write_text("#!/bin/sh\necho gfx90a\n")
    arch.chmod(0o755)
    subprocess.run(["touch", "-d", "-1 minute", str(arch)], check=True)  # settled: memoised at once
    b.install(P16, "--cache-dir", b.W / "cache-native16", "--no-verify")
    b.write_hip_kernel(S7 / "k.hip", 0)
    k = S7 / "k.hip"
    cmds = [("x", [P16 / "bin/hipcc", "-x", "hip", "--offload-arch=gfx90a", "-c", k, "-o", S7 / "x.o"]),
            ("h", [P16 / "bin/hipcc", "-x", "hip", "--offload-arch=native", "-c", k, "-o", S7 / "h.o"]),
            ("c", [P16 / "llvm/bin/clang++", "-x", "hip", "--offload-arch=native", "-c", k, "-o", S7 / "c.o"])]
    paired_rounds(b, "native16", cmds, {"HOME": b.W / "home-native"}, b.W / "cache-native16", z)
