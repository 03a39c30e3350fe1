"""--section pieces, the bytes table (issue 44): what one compile leaves in the cache directory, with
per-target pieces and with whole objects only (SHIMCTL_PIECES=0), for 2, 3 and 8 GPU targets and
each kernel. measure() runs inside a stack (pieces_stack.py, after its setup: the prefix installed,
the toolchain's first split checked); report() renders the table from every stack's bytes.tsv.

Each compile is `CLANG++ -x hip -O2 --offload-arch=X ... -c k.hip -o k.o` (one --offload-arch per
target: clang-21 reads `--offload-arch=a,b` otherwise here) through the shim into its own empty
CCACHE_DIR. Counted afterwards: the entry files of that directory, by kind (the type in ccache 4's
entry header: results and manifests; 4.7 also names them ...R and ...M, 4.14 does not) and any
other file (none expected); left out: ccache's statistics files (stats), CACHEDIR.TAG,
ccache.conf, everything under tmp/ and lock/, lock files (*.lock, *.alive) and shimctl's own
counters (shimctl-pieces). Bytes are the files' sizes (ccache compresses its entries). Targets:
the first 2, 3 or 8 of EIGHT[stack] (A,B,C first); each is checked against the prefix's device
libraries (oclc_isa_version_*.bc) first. Each pieces compile's counters (split, pieces and host
half compiled) go beside its bytes, and its object is cmp'ed with the whole one's.

bytes.tsv: kernel, targets, side (pieces|whole), files, bytes, result files, result bytes,
manifest files, manifest bytes, other files, other bytes, object bytes, counters delta (NAME=N),
cmp (pieces side: same|differ).
"""
from pathlib import Path

from .pieces_project import counters

EIGHT = {  # 8 targets per stack, A,B,C (pieces_stack.STACKS) first; each has device libraries there
    "debian12": ["gfx908", "gfx90a", "gfx1030", "gfx900", "gfx906", "gfx1010", "gfx1031", "gfx803"],
    "sid": ["gfx90a", "gfx942", "gfx1100", "gfx908", "gfx1030", "gfx906", "gfx1101", "gfx950"],
    "sid23": ["gfx90a", "gfx942", "gfx1100", "gfx908", "gfx1030", "gfx906", "gfx1101", "gfx950"],
}
LEFT_OUT = {"stats", "stats.lock", "CACHEDIR.TAG", "ccache.conf", "shimctl-pieces"}


def classify(cache):
    """CACHE's entry files: {kind: [files, bytes]} for kind in result, manifest, other; and the set of
    names left out."""
    kinds = {"result": [0, 0], "manifest": [0, 0], "other": [0, 0]}
    left_out = set()
    root = Path(cache)
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.is_symlink():
            continue
        rel = p.relative_to(root)
        name = p.name
        if rel.parts[0] in ("tmp", "lock") or name in LEFT_OUT or name.endswith((".lock", ".alive")):
            left_out.add(rel.parts[0] + "/" if rel.parts[0] in ("tmp", "lock") else name)
            continue
        kind = entry_kind(p)
        kinds[kind][0] += 1
        kinds[kind][1] += p.stat().st_size
        if kind == "other":
            left_out.add(f"(other: {name})")
    return kinds, left_out


def entry_kind(path):
    """"result", "manifest" or "other": ccache 4's entry header (magic 0xccac, the format version,
    then the type: 0 a result, 1 a manifest); ccache 4.7 also names them ...R and ...M, 4.14 does
    not."""
    with open(path, "rb") as f:
        head = f.read(4)
    if len(head) == 4 and head[:2] == b"\xcc\xac" and head[3] in (0, 1):
        return ("result", "manifest")[head[3]]
    return "other"


def device_lib_targets(prefix):
    """The targets the prefix's device libraries know (gfx + the oclc_isa_version_ suffix)."""
    found = set()
    for d in [Path(prefix) / "amdgcn" / "bitcode", *Path(prefix).glob("lib/llvm/lib/clang/*/amdgcn/bitcode")]:
        for f in d.glob("oclc_isa_version_*.bc"):
            found.add("gfx" + f.name[len("oclc_isa_version_"):-3])
    return found


def measure(stack, kernels, counts):
    """Each kernel, each target count, pieces and whole: one compile into an empty cache."""
    have = device_lib_targets(stack.P)
    eight = EIGHT[stack.stack]
    if eight[:3] != [stack.A, stack.B, stack.C]:
        stack.die(f"bytes: EIGHT[{stack.stack}] must start with A,B,C ({stack.A} {stack.B} {stack.C})")
    missing = [t for t in eight[:max(counts)] if t not in have]
    if missing:
        stack.die(f"bytes: no device libraries for {' '.join(missing)} in {stack.P} (have: {' '.join(sorted(have))})")
    stack.append_tsv("info", "bytes_targets", " ".join(eight[:max(counts)]))
    nonce = stack.seed + 99
    left_out_all = set()
    for k in kernels:
        for n in counts:
            targets = eight[:n]
            stack.say(f"bytes: {k}, {n} targets ({','.join(targets)})")
            row = {}
            # whole: no pieces at all; pieces: the stored pieces (SHIMCTL_PIECES_STORE=1, the layout
            # before issue 44); default: what an install does (derived objects: whole ones only).
            for side, env in (("whole", {"SHIMCTL_PIECES": "0"}), ("pieces", {"SHIMCTL_PIECES_STORE": "1"}),
                              ("default", {})):
                d = stack.W / "bytes" / k / f"{n}-{side}"
                cache = d / "cache"
                cache.mkdir(parents=True)
                before = counters(cache)
                stack.compile(d, k, nonce, targets, {"CCACHE_DIR": str(cache), "SHIMCTL_SHIM_TRACE": "1", **env})
                after = counters(cache)
                delta = " ".join(f"{c}={after.get(c, 0) - before.get(c, 0)}" for c in sorted(set(after) | set(before)))
                kinds, left_out = classify(cache)
                left_out_all |= left_out
                files = sum(v[0] for v in kinds.values())
                size = sum(v[1] for v in kinds.values())
                obj = (d / "k.o").stat().st_size
                row[side] = d
                same = "-"
                if side != "whole":
                    same = "same" if (d / "k.o").read_bytes() == (row["whole"] / "k.o").read_bytes() else "differ"
                stack.append_tsv("bytes.tsv", k, n, side, files, size, *kinds["result"], *kinds["manifest"],
                                 *kinds["other"], obj, delta or "-", same)
    stack.append_tsv("info", "bytes_left_out", " ".join(sorted(left_out_all)) or "-")


def kb(n):
    return f"{n / 1024:.1f} KB"


def report(stacks):
    """The bytes table of STACKS ([{stack, info, bytes: [rows]}]), markdown lines ([] when none)."""
    rows = [(s, l) for s in stacks for l in s.get("bytes", [])]
    if not rows:
        return []
    L = ["", "### Bytes in the cache per compile: pieces / whole objects", "",
         "One compile (`-x hip -O2 --offload-arch=X` per target, `-c k.hip -o k.o`) through the shim into its own "
         "empty cache directory: `SHIMCTL_PIECES=0` (whole objects only), `SHIMCTL_PIECES_STORE=1` (each target's piece and the host half stored beside the object, the layout before issue 44) and the default (an object derived from an earlier target set's: whole objects only): the entry files left there "
         "and their bytes (ccache's compressed entries; left out: its statistics files, CACHEDIR.TAG, tmp/, lock "
         "files, shimctl's counters). Results and manifests: by the type in ccache 4's entry header (a manifest is the "
         "direct mode's, one per entry). Object: the compile's k.o. Pieces' counters: the compile's split, pieces compiled, host half "
         "compiled. cmp: the pieces side's object against the whole side's.", "",
         "| stack | kernel | targets | object | whole: bytes in files (results + manifests) | "
         "stored pieces: bytes in files (results + manifests) | stored pieces / whole bytes | files | pieces' counters | cmp | "
         "default (derived objects) / whole bytes | files | cmp |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    by = {}
    for s, l in rows:
        by.setdefault((s["stack"], l[0], int(l[1])), {})[l[2]] = l
    for (stack, k, n), sides in by.items():
        w, p, d = sides.get("whole"), sides.get("pieces"), sides.get("default")
        if not w or not p:
            continue

        def cell(l):
            return (f"{kb(int(l[4]))} in {l[3]} ({kb(int(l[6]))} in {l[5]} + {kb(int(l[8]))} in {l[7]}"
                    f"{'' if l[9] == '0' else f' + other {kb(int(l[10]))} in {l[9]}'})")

        c = dict(x.split("=", 1) for x in p[12].split() if "=" in x) if p[12] != "-" else {}
        counts = (f"split {c.get('split_compile', '0')}, pieces compiled {c.get('piece_miss', '0')}, "
                  f"host half compiled {c.get('host_miss', '0')}")
        L.append(f"| {stack} | {k} | {n} | {kb(int(w[11]))} | {cell(w)} | {cell(p)} | "
                 f"{int(p[4]) / max(int(w[4]), 1):.2f}x | {p[3]} / {w[3]} | {counts} | {p[13]} | "
                 + (f"**{int(d[4]) / max(int(w[4]), 1):.2f}x** | {d[3]} / {w[3]} | {d[13]} |" if d else "- | - | - |"))
    left = sorted({s["info"].get("bytes_left_out", "-") for s in stacks if s.get("bytes")})
    tg = "; ".join(f"{s['stack']}: {s['info'].get('bytes_targets', '?')}" for s in stacks if s.get("bytes"))
    L += ["", f"Targets (the first 2, 3 or 8): {tg}. Files left out of the count: {' / '.join(left)}."]
    return L
