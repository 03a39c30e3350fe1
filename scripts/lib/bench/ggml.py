"""--section ggml, the host side: a real code base as the benchmark (ggml's HIP backend), measured
inside the Debian sid root by ggml_stack.py (what it measures and how: its docstring).

Here: the sid root (scripts/make-sid-root), a work dir inside it (ROOT/var/tmp/shimctl-bench-ggml.*),
the ggml source, then ggml_stack.py inside the root (scripts/sid-run), then GGML.md and
results.tsv copied to --out (default a new /tmp/shimctl-bench-ggml.* dir).

The ggml source: Debian's `apt-get source ggml` (a deb-src line for sid is added to the root);
where the registry does not serve it, the llama.cpp tree (ggml in ggml/) that the npm package
node-llama-cpp ships as llama/gitRelease.bundle (pinned below). GGML.md names the one used.

Environment: SHIMCTL_SID_ROOT (default /var/cache/shimctl/sid-root), GGML_BUILD_DIR,
BENCH_GGML_ROUNDS, BENCH_GGML_JOBS, BENCH_GGML_PIECES_ROUNDS, BENCH_GGML_PIECES_COLD (passed to
ggml_stack.py: its docstring).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from .common import BenchError, log

NPM_PACKAGE = "node-llama-cpp@3.21.1"  # its llama/gitRelease.bundle: llama.cpp with ggml 0.23.0


def run_log(argv, logfile, cwd=None):
    """ARGV with its output in LOGFILE; whether it succeeded."""
    with open(logfile, "w") as f:
        return subprocess.run([str(a) for a in argv], cwd=cwd, stdin=subprocess.DEVNULL, stdout=f,
                              stderr=subprocess.STDOUT).returncode == 0


def fetch_source_debian(root, sid_root, work, inner):
    """`apt-get source ggml` inside the root into WORK/src; WORK/source.json, or False when the
    registry does not serve it."""
    lst = sid_root / "etc/apt/sources.list.d/shimctl-ggml-src.list"
    if not lst.exists():
        lst.write_text("deb-src http://deb.debian.org/debian sid main\n")
    (work / "src").mkdir(parents=True, exist_ok=True)
    script = f"""set -e
    apt-cache showsrc ggml 2>/dev/null | grep -q '^Package: ggml' ||
      apt-get -q -o Acquire::Check-Valid-Until=false update >/dev/null
    command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q dpkg-dev >/dev/null
    cd {inner}/src && apt-get source -q ggml"""
    if not run_log([root / "scripts/sid-run", sid_root, "bash", "-c", script], work / "fetch-debian.log"):
        return False
    tops = sorted(d for d in (work / "src").glob("ggml-*") if d.is_dir())
    if not tops:
        return False
    version = next((l[len("Version: "):] for f in sorted((work / "src").glob("*.dsc"))
                    for l in f.read_text(errors="replace").splitlines() if l.startswith("Version: ")), "")
    top = "/" + str(tops[0].relative_to(sid_root))
    (work / "source.json").write_text(json.dumps({"src_top": top, "ggml_dir": top,
                                                  "desc": f"Debian ggml {version} (apt-get source ggml)"}))
    return True


def fetch_source_npm(sid_root, work):
    """The llama.cpp tree that NPM_PACKAGE ships as a git bundle, cloned into WORK/src/llama.cpp
    (ggml in its ggml/); WORK/source.json."""
    for tool, package in (("npm", "npm"), ("git", "git")):
        if not shutil.which(tool):
            subprocess.run(["apt-get", "install", "-y", "-q", package], stdout=subprocess.DEVNULL, check=True)
    t = work / "npm"
    t.mkdir(parents=True)
    (work / "src").mkdir(exist_ok=True)
    if not run_log(["npm", "pack", "-q", NPM_PACKAGE], t / "npm.log", cwd=t):
        raise BenchError(f"npm pack {NPM_PACKAGE} failed: {(t / 'npm.log').read_text()[-2000:]}")
    tgz = next(t.glob("*.tgz"))
    subprocess.run(["tar", "-xzf", tgz, "-C", t, "package/llama/gitRelease.bundle",
                    "package/llama/llama.cpp.info.json"], check=True)
    tree = work / "src" / "llama.cpp"
    subprocess.run(["git", "clone", "-q", t / "package/llama/gitRelease.bundle", tree], check=True,
                   stderr=subprocess.DEVNULL)
    commit = subprocess.run(["git", "-C", tree, "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    tag = json.loads((t / "package/llama/llama.cpp.info.json").read_text()).get("tag", "")
    shutil.rmtree(t)
    cmake = (tree / "ggml" / "CMakeLists.txt").read_text()
    version = ".".join(re.findall(r"^set\(GGML_VERSION_(?:MAJOR|MINOR|PATCH) ([0-9]*)\)", cmake, re.M))
    inner_tree = "/" + str(tree.relative_to(sid_root))
    (work / "source.json").write_text(json.dumps({
        "src_top": inner_tree, "ggml_dir": f"{inner_tree}/ggml",
        "desc": f"llama.cpp {tag} (commit {commit[:12]}, ggml {version}) from npm {NPM_PACKAGE} "
                "llama/gitRelease.bundle: Debian registry does not serve the ggml source here"}))


def section_ggml(root, quick, out, keep, pieces):
    """PIECES: "no", "yes" (step 5 after steps 1-4) or "only"."""
    if os.getuid() != 0:
        raise BenchError("must run as root (scripts/sid-run)")
    made = subprocess.run([str(root / "scripts/make-sid-root"), os.environ.get("SHIMCTL_SID_ROOT",
                                                                             "/var/cache/shimctl/sid-root")],
                          stdout=subprocess.PIPE, text=True)
    if made.returncode != 0:
        raise BenchError("scripts/make-sid-root failed")
    sid_root = Path(made.stdout.strip().splitlines()[-1])
    work = Path(tempfile.mkdtemp(prefix="shimctl-bench-ggml.", dir=sid_root / "var/tmp"))
    inner = "/" + str(work.relative_to(sid_root))
    log(f"ggml: work dir {work} (in the root: {inner})")
    try:
        if fetch_source_debian(root, sid_root, work, inner):
            log("ggml: source: Debian's ggml (apt-get source)")
        else:
            why = next((l for l in (work / "fetch-debian.log").read_text(errors="replace").splitlines()
                        if l.startswith("E:")), "see fetch-debian.log") if (work / "fetch-debian.log").exists() else ""
            log(f"ggml: source: apt-get source ggml failed ({why}); using {NPM_PACKAGE}'s llama.cpp bundle")
            shutil.rmtree(work / "src", ignore_errors=True)
            fetch_source_npm(sid_root, work)
        commit = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %cs %s"], capture_output=True,
                                text=True).stdout.strip()[:90] or "unknown"
        env = [f"{k}={os.environ.get(k, d)}" for k, d in (("GGML_BUILD_DIR", str(root / "build-ggml")),
                                                           ("BENCH_GGML_ROUNDS", ""), ("BENCH_GGML_JOBS", "2"),
                                                           ("BENCH_GGML_PIECES_ROUNDS", ""),
                                                           ("BENCH_GGML_PIECES_COLD", "0"))]
        if subprocess.run([str(root / "scripts/sid-run"), str(sid_root), "env", *env, f"BENCH_GGML_COMMIT={commit}",
                           f"PYTHONPATH={root / 'scripts/lib'}", "python3", "-B", "-m", "bench.ggml_stack", inner,
                           "yes" if quick else "no", pieces], stdin=subprocess.DEVNULL).returncode != 0:
            raise BenchError("the ggml stack failed")
        dest = Path(out) if out else Path(tempfile.mkdtemp(prefix="shimctl-bench-ggml.", dir="/tmp"))
        dest.mkdir(parents=True, exist_ok=True)
        for name in ("GGML.md", "results.tsv"):
            shutil.copy(work / name, dest / name)
        log(f"wrote {dest}/GGML.md (all figures: {dest}/results.tsv)")
    finally:
        if keep:
            log(f"ggml: work dir kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
