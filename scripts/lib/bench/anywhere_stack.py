"""--section anywhere, one stack (on the host, or inside the sid root): a HIP project
(scripts/gen-hip-project, 12 units) built cold in checkout A, then paired rounds of
  - here: a fresh build dir in A (the hit every cache gives), and
  - elsewhere: a fresh checkout at another path and depth (a CI runner's), from its own build dir,
each with the shim as installed (paths made location-free) and with SHIMCTL_ANYWHERE=0 (the
absolute paths of before), the order alternating. Wall seconds of `ninja` (the configure step is
not timed); hits and misses from `shimctl measure --json`; the objects of each elsewhere build
cmp'ed with the here build's of the same round. Writes WORK/info, times.tsv, counts.tsv, cmp.tsv.
Usage: python3 -m bench.anywhere_stack STACK WORK SHIMCTL ROUNDS TOOL
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2]
UNITS = 12


def sh(argv, log, env=None):
    with open(log, "a") as f:
        p = subprocess.run([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                           env=env)
    if p.returncode != 0:
        raise SystemExit(f"bench-anywhere: {' '.join(map(str, argv))} failed (exit {p.returncode}); see {log}")


def build(work, shimctl, prefix, src, bdir, env):
    """Configures BDIR for SRC, then times `shimctl measure --json -- ninja -C BDIR`."""
    log = work / "build.log"
    sh(["cmake", "-S", src, "-B", bdir, "-G", "Ninja", f"-DCMAKE_CXX_COMPILER={prefix}/bin/hipcc",
        "-DCMAKE_BUILD_TYPE=Release", "-DBENCH_ARCH=gfx90a"], log, env)
    t = time.monotonic()
    with open(log, "a") as f:
        p = subprocess.run([str(shimctl), "measure", "--json", "--", "ninja", "-C", str(bdir)], env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=f, text=True)
    seconds = time.monotonic() - t
    if p.returncode != 0:
        raise SystemExit(f"bench-anywhere: the build in {bdir} failed; see {log}")
    d = json.loads(p.stdout)
    return seconds, d["hits"], d["misses"]


def objects(bdir):
    return {p.name: p.read_bytes() for p in Path(bdir).rglob("*.o") if "CMakeFiles" in p.parts}


def main(argv):
    stack, work, shimctl, rounds, tool = argv[0], Path(argv[1]), Path(argv[2]), int(argv[3]), argv[4]
    work.mkdir(parents=True, exist_ok=True)
    for k in [k for k in os.environ if k.split("_", 1)[0] in ("SHIMCTL", "CCACHE", "SCCACHE") and "_" in k]:
        del os.environ[k]
    os.environ["XDG_CACHE_HOME"] = str(work / "xdg")
    os.environ["TMPDIR"] = str(work / "t")
    (work / "t").mkdir(exist_ok=True)
    log = work / "setup.log"
    prefix = work / "rocm"
    extra = {"debian12": [], "sid": ["--stack", "sid"], "sid23": ["--stack", "sid", "--llvm", "23"]}[stack]
    sh([SCRIPTS / "make-rocm-prefix", prefix, *extra], log)
    sh([shimctl, "install", prefix, "--cache", tool, "--cache-dir", work / "cache", "--no-verify"], log)
    try:
        project = work / "project"
        sh([SCRIPTS / "gen-hip-project", project, UNITS], log)
        a = work / "home/alice/src/proj"
        shutil.copytree(project, a)
        (a / ".git").mkdir()
        modes = {"anywhere": dict(os.environ), "absolute": dict(os.environ, SHIMCTL_ANYWHERE="0")}
        for mode, env in modes.items():  # A cold, once per mode: what every round hits
            build(work, shimctl, prefix, a, a / f"build-cold-{mode}", env)
        times, counts, cmps = [], [], []
        for r in range(rounds):
            order = ["here", "elsewhere"] if r % 2 == 0 else ["elsewhere", "here"]
            for mode, env in modes.items():
                built = {}
                for side in order:
                    if side == "here":
                        src, bdir = a, a / f"build-{mode}-{r}"
                    else:
                        src = work / f"srv/ci/runner-{r}/_work/proj-{mode}/proj"
                        shutil.copytree(project, src)
                        (src / ".git").mkdir()
                        bdir = src / "build"
                    s, hits, misses = build(work, shimctl, prefix, src, bdir, env)
                    times.append((mode, r, side, f"{s:.3f}"))
                    counts.append((mode, r, side, hits, misses))
                    built[side] = objects(bdir)
                same = built["here"] == built["elsewhere"] and len(built["here"]) == UNITS
                cmps.append((mode, r, "identical" if same else "DIFFERENT"))
        hipcc = subprocess.run([prefix / "bin/hipcc", "--version"], capture_output=True, text=True).stdout
        clang = next((l for l in hipcc.splitlines() if "clang version" in l), "?")
        tool_version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        (work / "info").write_text(f"toolchain\t{clang.strip()}\ntool\t{tool_version}\nunits\t{UNITS}\n")
        for name, rows in (("times.tsv", times), ("counts.tsv", counts), ("cmp.tsv", cmps)):
            (work / name).write_text("".join("\t".join(map(str, x)) + "\n" for x in rows))
    finally:
        subprocess.run([str(shimctl), "rollback", str(prefix)], capture_output=True)


if __name__ == "__main__":
    main(sys.argv[1:])
