"""The rest of BENCHMARKS.md (the reading of the per-call figures; the GPU-target, base_dir and
runtime-caller sections) and the summary printed on stdout."""
from . import callers, stores
from .report_util import f3, num


def analysis(r):
    """The paragraphs under the targets table."""
    v = lambda k: num(r.get(k))
    s = lambda k: f3(r.get(k))
    a, fs, ft, fst = v("hit.a.wall"), v("floor.shim.wall"), v("floor.true.wall"), v("floor.stub.wall")
    b, d, bc, dc, acpu = v("hit.b.paired_wall"), v("hit.d.paired_wall"), v("ratio.b.cpu"), v("ratio.d.cpu"), v("hit.a.cpu")
    p10, p90, files = v("hit.a.wall_p10"), v("hit.a.wall_p90"), r.get("identity.files")
    stubc, truec, shimc, dbc = v("floor.stub.cpu"), v("floor.true.cpu"), v("floor.shim.cpu"), v("hit_vs_b.d.paired_cpu")
    shim = fs - ft
    L = ["## Reading the per-call figures", "",
         f"The shim adds one exec of a static binary and the parsing of its config: {shim:.3f} ms over a bare",
         f"exec at the floor (an exec-only stub costs {fst - ft:.3f} ms). Against the median plain hit (a) of {a:.2f} ms",
         f"that predicts (b)/(a) = {1 + shim / a:.3f}; the measured paired ratio is {s('hit.b.paired_wall')} (CPU {s('ratio.b.cpu')}). (a) alone spreads from",
         f"{s('hit.a.wall_p10')} to {s('hit.a.wall_p90')} ms (p10-p90) here, {(p90 - p10) / max(shim, 0.001):.0f} times the shim's cost, so a few percent either way is the load",
         "of the shared machine, not the shim.", "",
         f"**Read the CPU column too.** Under this load a hit waits for a core: its wall time ({a:.2f} ms) is",
         ("several times" if acpu > 0 and a / acpu >= 2 else f"{100 * (a / acpu - 1) if acpu > 0 else 0:.0f} % above")
         + f" its CPU time ({acpu:.2f} ms), which inflates the denominator of every wall ratio. On a quiet",
         "machine wall time approaches CPU time, and the CPU ratios are the better forecast:"]
    last = f"(b)/(a) = {s('ratio.b.cpu')}, (d)/(a) = {s('ratio.d.cpu')}, (c)/(a) = {s('ratio.c.cpu')}."
    if bc > 1.05 or dc > 1.07:
        msg = ""
        if bc > 1.05:
            msg += f" (b)/(a) misses 1.05 by {(bc - 1.05) * 100:.1f} points;"
        if dc > 1.07:
            msg += f" (d)/(a) misses 1.07 by {(dc - 1.07) * 100:.1f} points;"
        L += [f"{last} By that measure{msg[:-1]}.",
              f"Why: the shim's cost is one exec (an exec-only static stub costs {stubc - truec:.3f} ms CPU against the shim's",
              f"{shimc - truec:.3f} ms: config parsing and the environment are nearly free), about {100 * (shimc - truec) / acpu:.1f} % of a {acpu:.2f} ms CPU hit; the",
              f"identity check adds one fstatat per input, {files} files ((d)/(b) CPU {s('hit_vs_b.d.paired_cpu')}). The exec is the floor for any",
              "separate-binary shim; closing the rest needs fewer inputs to check (see below), not a leaner shim."]
    else:
        L.append(last)
    if b > 1.05:
        L.append(f"**(b) misses its target by {(b - 1.05) * 100:.1f} points**; the floor says the shim itself accounts for {100 * shim / a:.1f} %.")
    L += ["",
          f"The identity check as installed, mechanism (a) ({files} inputs, one fstatat each against the",
          f"snapshot, no hashing), costs (d)/(b) = {s('hit_vs_b.d.paired_wall')} paired wall (paired CPU {s('hit_vs_b.d.paired_cpu')}); {v('floor.guard_ms'):.3f} ms at the floor.",
          f"Mechanism (b), {files} files in CCACHE_EXTRAFILES, costs (e)/(b) = {s('hit_vs_b.e.paired_wall')} (paired CPU {s('hit_vs_b.e.paired_cpu')}) through the",
          f"shim and (a')/(a) = {s('hit.a_id.paired_wall')} (paired CPU {s('hit.a_id.paired_cpu')}) without it: with the inode cache on, ccache stats each",
          "file and finds its digest in the inode cache instead of re-reading it. Without the inode cache,",
          f"ccache itself is slower: (a0)/(a) = {s('hit.a0.paired_wall')}."]
    if d > 1.07 or dc > 1.07:
        t = (f"**(d) is above 1.07 (wall {s('hit.d.paired_wall')}, CPU {s('ratio.d.cpu')}).** Decomposed on CPU time: the shim (b)/(a) = {s('ratio.b.cpu')} (medians),\n"
             f"the identity check on top of it (d)/(b) = {s('hit_vs_b.d.paired_cpu')} (paired). ")
        if dbc - 1 > bc - 1:
            t += ("What would close it: fewer inputs to stat (the snapshot lists every fingerprint input; a directory-level stamp would "
                  "cut the fstatat count, at the price of trusting whoever rewrites it). Dropping the check is not an option: it is "
                  "what catches a swapped device library.")
        else:
            t += (f"The shim part is larger than the floor predicts ({1 + shim / a:.3f}); with the spread above this is load, not the "
                  f"shim: rerun on a quiet machine, or compare CPU times (d)/(a) = {s('ratio.d.cpu')}.")
        L += ["", t]
    return "\n".join(L) + "\n"


def paired_table(r, key, rows):
    g = lambda k: f3(r.get(k))
    out = ["| command | median wall ms | CPU ms | paired wall / (x) | paired CPU / (x) |", "|---|---|---|---|---|"]
    for v, text in rows:
        pw, pc = ("1", "1") if v == "x" else (g(f"{key}.{v}.paired_wall"), g(f"{key}.{v}.paired_cpu"))
        out.append(f"| ({v}) {text} | {g(f'{key}.{v}.wall')} | {g(f'{key}.{v}.cpu')} | {pw} | {pc} |")
    return "\n".join(out)


def extra_sections(r):
    g = lambda k: f3(r.get(k))
    sec = lambda k: f"{num(r.get(k)) / 1000:.1f}"
    L = []
    if r.get("native.x.wall") is not None:
        L.append(f"""
## GPU targets from the machine (hipcc without --offload-arch)
ROCm's own `rocm_agent_enumerator` (Python, Debian's rocminfo) with a `target.lst`, warm hits,
{g('native.rounds')} rounds, paired against (x) `--offload-arch=gfx90a` in the same round:

{paired_table(r, 'native', [('x', 'explicit `--offload-arch=gfx90a`'), ('n', "no arch, the shim's memoised probe"), ('u', 'no arch, no memo (the enumerator on every call)')])}

Misses in the timed runs: {g('native.misses')} (hits: {g('native.hits')}). After `target.lst` changed
to gfx1030, the next no-arch compile: {g('native.target_lst_change_misses')} miss (a new key).
""")
    if r.get("basedir.units") is not None:
        direct = f" ({g('basedir.fresh.direct')} direct)" if r.get("basedir.fresh.direct") is not None else ""
        L.append(f"""
## Fresh build directories with build-directory paths (the shim's base_dir)
`scripts/gen-hip-project` with {g('basedir.units')} units; every compile names
`-I<build dir>/include` (a header generated by `configure_file`, as hipCUB's tests have).
Release (no `-g`), nothing set but `CCACHE_DIR`; one `ninja -j2` each:

| build | wall s | hits | misses |
|---|---|---|---|
| cold, first build dir | {sec('basedir.cold.median')} | {g('basedir.cold.hits')} | {g('basedir.cold.misses')} |
| fresh build dir, the shim's default base_dir (the build tree) | {sec('basedir.fresh.median')} | {g('basedir.fresh.hits')}{direct} | {g('basedir.fresh.misses')} |
| fresh build dir, `CCACHE_BASEDIR=` (none: plain ccache) | {sec('basedir.off.median')} | {g('basedir.off.hits')} | {g('basedir.off.misses')} |
""")
    if r.get("native16.x.wall") is not None:
        L.append(f"""
## --offload-arch=native (clang-16 prefix)
hipcc and clang++ with `--offload-arch=native`, keyed by the answer of the `amdgpu-arch` the
compiler runs (a stand-in that prints gfx90a: this machine has no GPU), memoised; warm hits,
{g('native16.rounds')} rounds, paired against (x) in the same round:

{paired_table(r, 'native16', [('x', 'hipcc `--offload-arch=gfx90a`'), ('h', 'hipcc `--offload-arch=native`'), ('c', 'clang++ `-x hip --offload-arch=native`')])}

Misses in the timed runs: {g('native16.misses')} (hits: {g('native16.hits')}).
""")
    if r.get("callers.aiter.cold.compile_ms") is not None:
        L.append(f"""
## Runtime callers (scripts/callers/)
Each driver reproduces its caller's own call shapes (README, "Runtime callers") on a shimmed
{g('callers.prefix')}. Cold: empty caches, fresh build directories; pass 2: fresh build
directories, the same cache; fresh container (aiter): a new empty local cache and HOME, Redis the
only source of hits. The drivers' own wall times (ms of each step), medians of {g('callers.rounds')} rounds.

{callers.table(r)}
""")
    L.append(stores.section_md(r))
    return "".join(L)


def summary(r):
    """The table printed on stdout."""
    g = lambda k: f3(r.get(k))
    row = lambda *c: f"{c[0]:<44} " + " ".join(f"{x:>{w}}" for x, w in zip(c[1:], (10, 10, 8, 8)))
    L = [row("warm hit, per call (ratios: paired wall)", "wall ms", "cpu ms", "/ (a)", "/ (b)")]
    for v in ("a0", "a", "a_id", "b", "c", "d", "e"):
        L.append(row(f"({v})", g(f"hit.{v}.wall"), g(f"hit.{v}.cpu"), g(f"hit.{v}.paired_wall"), g(f"hit_vs_b.{v}.paired_wall")))
    for label, k in (("identity (a), snapshot: (d)/(b)", "hit_vs_b.d.paired_wall"),
                     ("identity (b), EXTRAFILES: (e)/(b)", "hit_vs_b.e.paired_wall"),
                     ("identity (b) without a shim: (a')/(a)", "hit.a_id.paired_wall"), ("identity inputs", "identity.files")):
        L.append(row(label, g(k)))
    for v in ("true", "stub", "shim", "shim_id"):
        L.append(row(f"floor: {v}", g(f"floor.{v}.wall"), g(f"floor.{v}.cpu")))
    for key, title, names in (("build", f"HIP project ({g('build.units')} units)", ("cold", "warm", "header")),
                              ("jit", f"JIT ({g('jit.kernels')} kernels)", ("pass1", "pass2", "pass3"))):
        L.append(row(title, "median ms", "hits", "misses"))
        for v in names:
            L.append(row(f"  {v}", g(f"{key}.{v}.median"), g(f"{key}.{v}.hits"), g(f"{key}.{v}.misses")))
    L.append(row("install (with verify), median ms", g("install.install_verify.median")))
    L.append(row("install --no-verify", g("install.install_noverify.median")))
    L.append(row("rollback", g("install.rollback.median")))
    L.append(row("failing: shim without original (top, nested)", g("fail.shim_top.median"), g("fail.shim_nested.median")))
    for v in ("install", "rollback", "status", "verify", "refresh"):
        L.append(row(f"failing: {v} on a locked prefix (median, max)", g(f"fail.locked_{v}.median"), g(f"fail.locked_{v}.max")))
    L.append(row("throughput compiles/s (shims warm, originals)", g("throughput.shim_per_s"), g("throughput.orig_per_s")))
    return "\n".join(x.rstrip() for x in L)
