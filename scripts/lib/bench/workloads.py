"""Whole workloads: install and rollback (section 4), failing fast and compile throughput
(section 5), a HIP CMake project cold and warm (section 2, and fresh build directories with
build-directory paths), the JIT case (section 3)."""
import re
import shutil
import subprocess
import time

from .common import BenchError, log, put_run_counts, q, sh, single


def section_install(b, z):
    """Section 4 on a fresh clang-15 prefix; leaves it installed (P, for the sections after)."""
    P, cache = b.W / "rocm", b.W / "cache-install"
    b.make_prefix(P, "--llvm", "15")
    log(f"install (with verification, empty cache) x{z['install_runs']}; install --no-verify and rollback x{z['cycle_runs']}")
    # Each install with verification starts from the rolled-back prefix and an empty cache.
    install = [b.shimctl, "install", P, "--cache-dir", cache]
    b.hyperfine(b.J / "install-verify.json",
                ["--runs", z["install_runs"], "--prepare", sh(f"{q(b.shimctl)} rollback {q(P)} >/dev/null && rm -rf {q(cache)}"),
                 "-n", "install_verify", " ".join(map(q, install))])
    noverify = " ".join(map(q, install + ["--no-verify"]))
    rollback = f"{q(b.shimctl)} rollback {q(P)}"
    b.hyperfine(b.J / "install-cycle.json",
                ["--runs", z["cycle_runs"], "--prepare", rollback, "-n", "install_noverify", noverify,
                 "--prepare", noverify, "-n", "rollback", rollback])
    b.put_all("install", single([b.J / "install-verify.json"]))
    b.put_all("install", single([b.J / "install-cycle.json"]))
    b.install(P, "--cache-dir", cache, "--no-verify")
    return P


def section_fail(b, P, z):
    """Section 5 (i) and (ii): a shim whose original is gone (exit 127), top level and nested;
    a second shimctl on a prefix whose lock another process holds (exit 3)."""
    P4 = b.W / "rocm-broken"
    b.make_prefix(P4, "--llvm", "15")
    b.install(P4, "--cache-dir", b.W / "cache-install", "--no-verify")
    (P4 / "bin/hipcc.real").unlink()
    (b.W / "x.c").write_text("int answer(void) { return 42; }\n")
    (b.W / "x.cpp").write_text("int twice(int x) { return 2 * x; }\n")
    n = z["fail_runs"]
    log(f"failing fast: shim without its original x{n}; shimctl on a locked prefix x{n}")
    broken = f"{q(P4)}/bin/hipcc -c {q(b.W)}/x.cpp -o {q(b.W)}/x-broken.o"
    common = ["-i", "--runs", n, "--warmup", 1]
    b.hyperfine(b.J / "fail-shim.json", common + ["-n", "shim_top", broken])
    b.hyperfine(b.J / "fail-shim-nested.json", common + ["-n", "shim_nested", broken], env={"SHIMCTL_ACTIVE": "1"})
    held = b.W / "held"
    lock = P / ".shimctl/lock"
    holder = subprocess.Popen(["flock", "-o", str(lock), "sh", "-c", 'echo $$ > "$1"; touch "$2"; exec sleep 600',
                               "sh", str(lock), str(held)], stdin=subprocess.DEVNULL)
    b.cleanups.append(lambda: holder.poll() is None and holder.kill())
    try:
        for _ in range(100):
            if held.exists():
                break
            time.sleep(0.05)
        else:
            raise BenchError("the lock holder did not start")
        args = list(common)
        for c, extra in (("install", "--no-verify "), ("rollback", ""), ("status", ""), ("verify", ""), ("refresh", "")):
            args += ["-n", f"locked_{c}", f"{q(b.shimctl)} {c} {extra}{q(P)}"]
        b.hyperfine(b.J / "fail-locked.json", args)
    finally:
        holder.kill()
        holder.wait()
    b.put_all("fail", single([b.J / "fail-shim.json"]))
    b.put_all("fail", single([b.J / "fail-shim-nested.json"]))
    b.put_all("fail", single([b.J / "fail-locked.json"]))


NAMES = ["bin/hipcc", "llvm/bin/clang", "llvm/bin/clang++", "llvm/bin/clang-15", "llvm/bin/clang++-15",
         "llvm/bin/amdclang", "llvm/bin/amdclang++"]


def section_throughput(b, P, z):
    """Section 5 (iii): one pass of a serial_stress worker (a bash script: the 7 names it compiles
    through, in a row), through P's installed shims (warm) and through the originals of P5."""
    P5 = b.W / "rocm-orig"
    b.make_prefix(P5, "--llvm", "15")
    b.put("throughput.names", len(NAMES))
    worker = b.W / "worker-pass"
    worker.write_text(f"""#!/usr/bin/env bash
set -euo pipefail
cd {q(b.W)}
for n in {' '.join(NAMES)}; do
  case $n in *++*) src=x.cpp ;; */hipcc) src=x.cpp ;; *) src=x.c ;; esac
  "$1/$n" -c "$src" -o "pass-$(basename "$1")-$(basename "$n").o"
done
""")
    worker.chmod(0o755)
    n = z["cycle_runs"] * 2
    log(f"throughput: a worker's pass over {len(NAMES)} names, shims (warm) and originals, x{n}")
    b.hyperfine(b.J / "throughput.json", ["--runs", n, "--warmup", 1, "-n", "pass_shim", f"{q(worker)} {q(P)}",
                                          "-n", "pass_orig", f"{q(worker)} {q(P5)}"])
    b.put_all("throughput", single([b.J / "throughput.json"]))


def timed_builds(b, key, name, runs, prepare, argv, env=None):
    """RUNS runs of argv, each prepared by prepare() first, then timed by its own hyperfine
    invocation under `shimctl measure` (neither the preparation nor measure is timed): KEY.NAME's
    timings over all runs and its hits and misses per run."""
    files, ms = [], []
    for i in range(runs):
        prepare()
        f = b.J / f"{key}-{name}" / f"run{i}.json"
        ms.append(b.hyperfine(f, ["--runs", 1, "-n", name, " ".join(map(q, argv))], env=env, measure=True))
        files.append(f)
    b.put_all(key, single(files))
    put_run_counts(b, key, name, ms)


def dwarf_attr(b, obj, pattern):
    text = b.run(["llvm-dwarfdump-15", "--debug-info", obj], check=False, stdout=subprocess.PIPE).stdout or ""
    m = re.search(pattern, text)
    return m.group(1) if m else "unknown"


def section_build(b, P, z):
    """Section 2: scripts/gen-hip-project, cold (empty cache), warm (a fresh build dir at another
    path), after a header change (a quarter of the units include it), and configure."""
    B = b.W / "proj"
    units = z["units"]
    b.run([b.scripts / "gen-hip-project", B / "src", units])
    env = {"CCACHE_DIR": b.W / "cache-build", "CCACHE_BASEDIR": B, "CCACHE_NOHASHDIR": "1"}
    configure = ["cmake", "-S", B / "src", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                 f"-DCMAKE_CXX_COMPILER={P}/bin/hipcc", "-DCMAKE_CXX_FLAGS=-fdebug-compilation-dir=.", "-B"]
    b.put("build.units", units)
    b.put("build.affected", (units + 3) // 4)
    header = B / "src/include/quarter.h"
    serial = [1]

    def prep(name, extra=None):
        def run():
            if extra:
                extra()
            shutil.rmtree(B / name, ignore_errors=True)
            b.run(configure + [B / name], env=env, logfile=b.W / f"cmake-{name}.log")
        return run

    def empty_cache():
        b.run(["ccache", "-C"], env=env)

    def change_header():  # a new value every run: its quarter of the units miss each time
        serial[0] += 1
        header.write_text(re.sub(r"BENCH_QUARTER_SCALE [0-9.]*f", f"BENCH_QUARTER_SCALE {serial[0]}.0f", header.read_text()))

    log(f"HIP project: {units} units, cold x{z['cold_runs']}, warm x{z['warm_runs']}, after a header change x{z['header_runs']}")
    for name, runs, extra in (("cold", z["cold_runs"], empty_cache), ("warm", z["warm_runs"], None),
                              ("header", z["header_runs"], change_header)):
        timed_builds(b, "build", name, runs, prep(name, extra), ["ninja", "-C", B / name, "-j2"], env=env)
        log(f"  {name}: median {b.get(f'build.{name}.median'):.3f} ms, {b.get(f'build.{name}.hits')} hits, "
            f"{b.get(f'build.{name}.misses')} misses per run")
    b.hyperfine(b.J / "build-configure.json",
                ["--runs", max(z["warm_runs"] // 2, 2), "--prepare", f"rm -rf {q(B)}/configure",
                 "-n", "configure", " ".join(map(q, configure + [B / "configure"]))], env=env)
    b.put_all("build", single([b.J / "build-configure.json"]))
    cmds = b.output(["ninja", "-C", B / "warm", "-t", "commands"])
    unit0 = next((l for l in cmds.splitlines() if "unit_000" in l), "")
    b.put("build.command", unit0.replace(str(b.W), "$W"))
    obj = B / "warm/CMakeFiles/hipbench.dir/src/unit_001.hip.o"
    b.put("build.comp_dir", dwarf_attr(b, obj, r'DW_AT_comp_dir[^(]*\("?([^")]*)"?\)'))
    b.put("build.src_name", dwarf_attr(b, obj, r'DW_AT_name[^(]*\("?([^")]*unit_001[^")]*)"?\)').replace(str(b.W), "$W"))
    if not b.quick:
        # ccache's default hash_dir (and no -fdebug-compilation-dir): 4 units, two dirs; counts only.
        H = b.W / "hashdir"
        b.run([b.scripts / "gen-hip-project", H / "src", 4])
        henv = {"CCACHE_DIR": b.W / "cache-hashdir", "CCACHE_BASEDIR": H}
        for name in ("one", "two"):
            b.run(["cmake", "-S", H / "src", "-B", H / name, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                   f"-DCMAKE_CXX_COMPILER={P}/bin/hipcc"], env=henv, logfile=b.W / f"cmake-hashdir-{name}.log")
            m = b.measure(["ninja", "-C", H / name, "-j2"], env=henv, logfile=b.W / f"ninja-hashdir-{name}.log")
            b.put(f"hashdir.{name}.hits", m["hits"])
            b.put(f"hashdir.{name}.misses", m["misses"])
        log(f"  default hash_dir, second dir: {b.get('hashdir.two.hits')} hits, {b.get('hashdir.two.misses')} misses")


def section_basedir(b, P, z):
    """Fresh build directories with nothing set but the cache dir: every compile names
    -I<build dir>/include. The shim's default base_dir (the build tree) against none
    (CCACHE_BASEDIR= : what plain ccache does). Release: no -g."""
    D = b.W / "basedir"
    units = z["units"]
    b.run([b.scripts / "gen-hip-project", D / "src", units])
    env = {"CCACHE_DIR": b.W / "cache-basedir"}
    for name in ("cold", "fresh", "off"):
        b.run(["cmake", "-S", D / "src", "-B", D / name, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
               f"-DCMAKE_CXX_COMPILER={P}/bin/hipcc"], env=env, logfile=b.W / f"cmake-basedir-{name}.log")
    for name, argv in (("cold", []), ("fresh", []), ("off", ["env", "CCACHE_BASEDIR="])):
        timed_builds(b, "basedir", name, 1, lambda: None, argv + ["ninja", "-C", D / name, "-j2"], env=env)
    b.put("basedir.units", units)
    direct = f" ({b.get('basedir.fresh.direct')} direct)" if b.get("basedir.fresh.direct") is not None else ""
    log(f"  build-dir paths, fresh dir: {b.get('basedir.fresh.hits')} hits{direct}, "
        f"{b.get('basedir.fresh.misses')} misses; without base_dir: {b.get('basedir.off.hits')} hits")


def section_jit(b, P, z):
    """Section 3: scripts/jit-compile, K kernels each in a fresh temp dir: pass 1 from an empty
    cache, pass 2 from new temp dirs, pass 3 by absolute paths with CCACHE_BASEDIR = the temp root."""
    JD = b.W / "jit"
    JD.mkdir()
    env = {"CCACHE_DIR": b.W / "cache-jit"}
    k = z["kernels"]
    jit = [b.scripts / "jit-compile", P / "bin/hipcc", k, "--root", JD]
    b.put("jit.kernels", k)
    log(f"JIT: {k} kernels; cold x{z['cold_runs']}, then fresh temp dirs x{z['warm_runs']} (relative, absolute paths)")
    timed_builds(b, "jit", "pass1", z["cold_runs"], lambda: b.run(["ccache", "-C"], env=env), jit, env=env)
    timed_builds(b, "jit", "pass2", z["warm_runs"], lambda: None, jit, env=env)
    # Pass 3: CCACHE_BASEDIR set by `env` (one exec more, well under a millisecond of 100s of ms).
    timed_builds(b, "jit", "pass3", z["warm_runs"], lambda: None,
                 ["env", f"CCACHE_BASEDIR={JD}"] + jit + ["--absolute"], env=env)
    for v in ("pass1", "pass2", "pass3"):
        log(f"  jit {v}: median {b.get(f'jit.{v}.median'):.3f} ms, {b.get(f'jit.{v}.hits')} hits, "
            f"{b.get(f'jit.{v}.misses')} misses per run")
