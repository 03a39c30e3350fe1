# Helpers for scripts/bench. Source it; it sets no shell options.
#   bench_build_tools DIR        compiles DIR/stub (static exec-only stub: execv(argv[1], argv+1))
#                                and DIR/true (static, exits 0)
#   bench_conf_env PREFIX [all|plain|bare]   the environment PREFIX's shims set, as NAME=VALUE
#                                lines (from `shimctl status --json`; `plain` drops the identity variables,
#                                CCACHE_EXTRAFILES and CCACHE_COMPILERCHECK; `bare` also drops
#                                CCACHE_INODECACHE)
#   bench_identity_env PREFIX    mechanism (b)'s two variables for PREFIX, from its identity snapshot
#                                (PREFIX/.shimctl/identity): CCACHE_COMPILERCHECK=string:shimctl-<32 hex
#                                of the fingerprint> and CCACHE_EXTRAFILES=<absolute input paths, ':'>
#   bench_identity_files PREFIX  the number of inputs of PREFIX's fingerprint
#   bench_shim_syscalls STRACE   the system calls (names, one a line) of an `strace -f -o STRACE`
#                                of a shim: from its execve (included) to the next one (excluded)
#   bench_syscall_summary        stdin's names counted: "name N, name N, ...", most first
#   bench_now_ms                 monotonic-enough wall clock in milliseconds
#   bench_stat CCACHE_DIR NAME   one counter of `ccache --print-stats`
#   bench_hits / bench_misses CCACHE_DIR   direct+preprocessed hits / cache misses
#   bench_hf, bench_hf_group, bench_hf_summarize, bench_hf_single, bench_stats_mark,
#   bench_stats_per_run          timings by hyperfine and statistics from its JSON (below)

bench_build_tools() { # DIR
  local d=$1
  mkdir -p "$d" || return
  printf '%s\n' '#include <unistd.h>' \
    'int main(int argc, char** argv) { (void)argc; execv(argv[1], argv + 1); return 127; }' >"$d/stub.c"
  printf '%s\n' 'int main(void) { return 0; }' >"$d/true.c"
  gcc -O2 -static -o "$d/stub" "$d/stub.c" && gcc -O2 -static -o "$d/true" "$d/true.c"
}

bench_conf_env() { # PREFIX [all|plain|bare]
  local mode=${2:-all} kv
  "${shimctl:?}" status "$1" --json | /usr/bin/python3 -c '
import json, sys
env = json.load(sys.stdin)["cache"]["environment"]
print("\n".join(env["defaults"] + env["appends"]))' | while IFS= read -r kv; do
    case $mode:$kv in
      plain:CCACHE_EXTRAFILES=*|plain:CCACHE_COMPILERCHECK=*) continue ;;
      bare:CCACHE_EXTRAFILES=*|bare:CCACHE_COMPILERCHECK=*|bare:CCACHE_INODECACHE=*) continue ;;
    esac
    printf '%s\n' "$kv"
  done
}

# Mechanism (b)'s variables for PREFIX, from `shimctl fingerprint --json` (the fingerprint and its
# inputs; prefix-relative paths made absolute): ccache hashes the inputs itself on every call.
bench_identity_env() { # PREFIX
  "${shimctl:?}" fingerprint "$1" --json | /usr/bin/python3 -c '
import json, os, sys
j, prefix = json.load(sys.stdin), sys.argv[1]
files = [p if p.startswith("/") else os.path.join(prefix, p) for p in (i["path"] for i in j["inputs"])]
if len(j["sha256"]) != 64 or not files:
    sys.exit(1)
print("CCACHE_COMPILERCHECK=string:shimctl-" + j["sha256"][:32])
print("CCACHE_EXTRAFILES=" + ":".join(files))' "$1"
}

bench_identity_files() { # PREFIX
  "${shimctl:?}" fingerprint "$1" --json | /usr/bin/python3 -c 'import json, sys; print(len(json.load(sys.stdin)["inputs"]))'
}

bench_shim_syscalls() { # STRACE
  awk '/execve\(/ { n++ } n == 1 { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' "$1"
}

bench_syscall_summary() {
  sort | uniq -c | sort -rn | awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }'
}

bench_now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

bench_stat() { # CCACHE_DIR NAME
  CCACHE_DIR=$1 ccache --print-stats 2>/dev/null | awk -v n="$2" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }'
}

bench_hits() { # CCACHE_DIR
  echo $(( $(bench_stat "$1" direct_cache_hit) + $(bench_stat "$1" preprocessed_cache_hit) ))
}

bench_misses() { bench_stat "$1" cache_miss; }

# ---- hyperfine: every timing of the bench, and the statistics from its --export-json ----------
# bench_hf JSON [HYPERFINE_ARGS...]: one hyperfine invocation (no shell between hyperfine and the
# commands, -N), at niceness BENCH_NICE_LEVEL, with the NAME=VALUE entries of the array
# bench_hf_env (if set) added to the environment; its JSON in JSON, its output appended to
# BENCH_HF_LOG. Fails when hyperfine fails (a command exiting non-zero without -i).
bench_hf() {
  local json=$1; shift
  mkdir -p "$(dirname "$json")" && echo "== hyperfine $*" >>"${BENCH_HF_LOG:-/dev/null}" || return
  env ${bench_hf_env[@]+"${bench_hf_env[@]}"} nice -n "${BENCH_NICE_LEVEL:-0}" hyperfine -N --style basic --export-json "$json" "$@" \
    >>"${BENCH_HF_LOG:-/dev/null}" 2>&1 \
    || { echo "bench: hyperfine failed (log: ${BENCH_HF_LOG:-none}): $*" >&2; return 1; }
}

# bench_hf_group JSON ROUND RUNS WARMUP [NAME=VALUE...] -- NAME COMMAND [NAME COMMAND]...
# One hyperfine invocation of several named commands, in an environment with NAME=VALUE added;
# the order of the commands is rotated by ROUND (hyperfine runs each command's runs in a block, so
# rotating spreads which command runs first over the rounds).
bench_hf_group() {
  local json=$1 round=$2 runs=$3 warmup=$4; shift 4
  local envs=() cmds=() args=() n i k
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  cmds=("$@"); n=$(( ${#cmds[@]} / 2 ))
  for ((i = 0; i < n; i++)); do
    k=$(( (i + round) % n ))
    args+=(-n "${cmds[2 * k]}" "${cmds[2 * k + 1]}")
  done
  local bench_hf_env=("${envs[@]}")  # bench_hf sees it (dynamic scope)
  bench_hf "$json" --runs "$runs" --warmup "$warmup" "${args[@]}"
}

# bench_hf_summarize KEYPREFIX BASE JSON...: statistics of named commands measured in rounds
# (files named .../r<ROUND>-<anything>.json; one round may span several files). Prints
# "KEYPREFIX.NAME.KEY\tVALUE" lines, milliseconds:
#   n, wall (median of all times[] of all rounds), mean, stddev, min, max, wall_p10, wall_p90,
#   cpu (mean user+system: hyperfine's per-invocation user and system, averaged over rounds);
#   with BASE: paired_wall, the median over rounds of NAME's hyperfine median / BASE's in the same
#   round, and paired_cpu, the same for user+system.
bench_hf_summarize() {
  /usr/bin/python3 - "$@" <<'PY'
import collections, json, re, statistics, sys
prefix, base, files = sys.argv[1], sys.argv[2], sys.argv[3:]
times = collections.defaultdict(list)
cpus = collections.defaultdict(list)
rounds = collections.defaultdict(dict)   # round -> name -> (median s, cpu s)
for f in files:
    m = re.search(r"(?:^|/)r(\d+)-[^/]*\.json$", f)
    rnd = m.group(1) if m else f
    for r in json.load(open(f))["results"]:
        name = r["command"]
        times[name] += r["times"]
        cpus[name].append(r["user"] + r["system"])
        rounds[rnd][name] = (r["median"], max(r["user"] + r["system"], 1e-9))
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]
for name, t in times.items():
    k = f"{prefix}.{name}"
    ms = [x * 1e3 for x in t]
    print(f"{k}.n\t{len(ms)}")
    print(f"{k}.wall\t{statistics.median(ms):.3f}")
    print(f"{k}.mean\t{statistics.mean(ms):.3f}")
    print(f"{k}.stddev\t{statistics.stdev(ms) if len(ms) > 1 else 0:.3f}")
    print(f"{k}.min\t{min(ms):.3f}")
    print(f"{k}.max\t{max(ms):.3f}")
    print(f"{k}.wall_p10\t{pct(ms, 0.1):.3f}")
    print(f"{k}.wall_p90\t{pct(ms, 0.9):.3f}")
    print(f"{k}.cpu\t{statistics.mean(cpus[name]) * 1e3:.3f}")
    pairs = [x for x in rounds.values() if name in x and base in x] if base else []
    if pairs:
        print(f"{k}.paired_wall\t{statistics.median(x[name][0] / x[base][0] for x in pairs):.3f}")
        print(f"{k}.paired_cpu\t{statistics.median(x[name][1] / x[base][1] for x in pairs):.3f}")
        print(f"{k}.rounds\t{len(pairs)}")
PY
}

# bench_hf_single KEYPREFIX JSON: hyperfine's own figures for each named command of one
# invocation: "KEYPREFIX.NAME.{n,median,mean,stddev,min,max,cpu}\tMS" and
# "KEYPREFIX.NAME.exit\t<the distinct exit codes, comma-separated>".
bench_hf_single() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
prefix, f = sys.argv[1], sys.argv[2]
for r in json.load(open(f))["results"]:
    k = f"{prefix}.{r['command']}"
    print(f"{k}.n\t{len(r['times'])}")
    for key in ("median", "mean", "min", "max"):
        print(f"{k}.{key}\t{r[key] * 1e3:.3f}")
    print(f"{k}.stddev\t{(r['stddev'] or 0) * 1e3:.3f}")
    print(f"{k}.cpu\t{(r['user'] + r['system']) * 1e3:.3f}")
    codes = sorted(set(c for c in r.get("exit_codes", []) if c is not None))
    print(f"{k}.exit\t{','.join(map(str, codes))}")
PY
}

# bench_stats_mark FILE LABEL CCACHE_DIR: ccache counters per hyperfine run, without timing them.
# Appends the counters' change since the open mark (if any) to FILE as "LABEL hits misses
# direct_hits" (LABEL: the mark's), then opens a new mark for LABEL ("end": none). A --prepare
# closes the previous run's mark first (LABEL "end"), prepares (ccache -C, configure, ...), and
# opens its own mark last; after the invocation, "end" closes the last run's.
bench_stats_mark() {
  local file=$1 label=$2 dir=$3 h m d ph pm pd pl
  h=$(bench_hits "$dir"); m=$(bench_misses "$dir"); d=$(bench_stat "$dir" direct_cache_hit)
  if [ -f "$file.mark" ]; then
    read -r pl ph pm pd <"$file.mark"
    echo "$pl $((h - ph)) $((m - pm)) $((d - pd))" >>"$file"
    rm -f "$file.mark"
  fi
  [ "$label" = end ] || echo "$label $h $m $d" >"$file.mark"
}

# bench_stats_per_run FILE KEYPREFIX: "KEYPREFIX.LABEL.{hits,misses,direct}\tN" per label of
# bench_stats_mark's FILE: the value of every run when all runs agree, else "MIN-MAX".
bench_stats_per_run() {
  awk -v p="$2" '{ for (i = 2; i <= 4; i++) { k = $1 SUBSEP i
                     if (!(k in lo) || $i < lo[k]) lo[k] = $i; if (!(k in hi) || $i > hi[k]) hi[k] = $i }
                   labels[$1] = 1 }
    END { split("hits misses direct", nm, " ")
          for (l in labels) for (i = 2; i <= 4; i++) { k = l SUBSEP i
            printf "%s.%s.%s\t%s\n", p, l, nm[i - 1], (lo[k] == hi[k]) ? lo[k] : lo[k] "-" hi[k] } }' "$1"
}

# bench_chart RESULTS.tsv DIR OUT.svg: the chart, drawn by gnuplot (scripts/lib/bench.gp) from
# data files written to DIR: cold vs warm wall time per workload (log scale, whiskers min-max over
# hyperfine's runs), the per-call time of a warm hit through each way of calling the cache
# (whiskers p10-p90), and the floor.
bench_chart() {
  mkdir -p "$2" || return
  /usr/bin/python3 - "$1" "$2" <<'PY' || return
import math, sys
r = {}
for line in open(sys.argv[1]):
    k, _, v = line.rstrip("\n").partition("\t")
    r[k] = v
d = sys.argv[2]
def num(k):
    try: return float(r[k])
    except (KeyError, ValueError): return None
def q(s): return '"' + s.replace('"', "'") + '"'
def write(name, rows):
    with open(f"{d}/{name}.dat", "w") as f:
        for i, (label, med, low, high, color, text) in enumerate(rows):
            f.write(f"{-i} {med} {low} {high} {int(color[1:], 16)} {q(label)} {q(text)}\n")
    return len(rows)
def s(k): return num(k) / 1000 if num(k) is not None else None
work = []
for label, k, color in [
        (f"project, {r.get('build.units', '?')} units: cold (empty cache)", "build.cold", "#c0504d"),
        ("project: warm, fresh build dir", "build.warm", "#4f81bd"),
        (f"project: after a header change ({r.get('build.header.misses', '?')} misses)", "build.header", "#9bbb59"),
        (f"JIT, {r.get('jit.kernels', '?')} kernels: pass 1 (cold)", "jit.pass1", "#c0504d"),
        ("JIT: pass 2 (fresh temp dirs)", "jit.pass2", "#4f81bd"),
        ("JIT: pass 3 (absolute paths, base_dir)", "jit.pass3", "#8064a2"),
        ("install with verification", "install.install_verify", "#7f7f7f"),
        ("install --no-verify", "install.install_noverify", "#a5a5a5"),
        ("rollback", "install.rollback", "#a5a5a5")]:
    if s(k + ".median") is None: continue
    n = r.get(k + ".n", "?")
    work.append((label, s(k + ".median"), s(k + ".min"), s(k + ".max"), color,
                 f"{s(k + '.median'):.2f} s (n={n})"))
vals = [x for row in work for x in row[1:4] if x]
lo = 10 ** math.floor(math.log10(min(vals) * 0.8)) if vals else 0.01
hi = 10 ** math.ceil(math.log10(max(vals) * 1.6)) if vals else 100
hits = []
for label, k, color in [
        ("(a) ccache hipcc.real, no identity", "hit.a", "#7f7f7f"),
        ("(a0) (a) without the inode cache", "hit.a0", "#d0d0d0"),
        ("(a') ccache hipcc.real + EXTRAFILES", "hit.a_id", "#a5a5a5"),
        ("(b) shim, identity off", "hit.b", "#4f81bd"),
        ("(c) bash wrapper exec ccache", "hit.c", "#c0504d"),
        ("(d) shim as installed: snapshot guard", "hit.d", "#1f497d"),
        ("(e) shim + EXTRAFILES (mechanism b)", "hit.e", "#8064a2")]:
    v = num(k + ".wall")
    if v is None: continue
    p = num(k + ".paired_wall")
    hits.append((label, v, num(k + ".wall_p10"), num(k + ".wall_p90"), color,
                 f"{v:.2f} ms" + (f", {p:.3f}x (a)" if p and k != "hit.a" else "")))
floor = []
for label, k, color in [
        ("static true, exec'd directly", "floor.true", "#bbbbbb"),
        ("exec-only static stub -> true", "floor.stub", "#999999"),
        ("shim (real config) -> true", "floor.shim", "#4f81bd"),
        ("shim + snapshot guard -> true", "floor.shim_id", "#1f497d")]:
    v = num(k + ".wall")
    if v is None: continue
    floor.append((label, v, num(k + ".wall_p10"), num(k + ".wall_p90"), color, f"{v:.3f} ms"))
n1, n2, n3 = write("workloads", work), write("hits", hits), write("floor", floor)
# Heights: a title and axis per panel plus 26 px a bar.
px = [80 + 26 * n for n in (n1, n2, n3)]
height = sum(px) + 30
db, eb = num("hit_vs_b.d.paired_wall"), num("hit_vs_b.e.paired_wall")
t2 = "One warm hit of a HIP compile (median ms, p10-p90; paired ratio to (a))"
if db and eb:
    t2 += f"\\nidentity, paired to (b): snapshot guard (d) {db:.3f}x, EXTRAFILES (e) {eb:.3f}x"
with open(f"{d}/meta.gp", "w") as f:
    f.write(f"height = {height}\n")
    for i, p in enumerate(px, 1):
        f.write(f"h{i} = {p / height:.4f}\n")
    f.write(f"y1min = {1 - n1}\ny2min = {1 - n2}\ny3min = {1 - n3}\nlo = {lo}\nhi = {hi}\n")
    f.write(f"x2max = {max([h[3] or h[1] for h in hits] + [0.001]) * 1.45:.4f}\n")
    f.write(f"x3max = {max([h[3] or h[1] for h in floor] + [0.001]) * 1.3:.4f}\n")
    f.write(f"title1 = {q('Wall time (seconds, log scale; median, whiskers min-max)')}\n")
    f.write(f"title2 = \"{t2}\"\n")
    f.write(f"title3 = {q('The floor: the shim on its own (median ms, p10-p90)')}\n")
    f.write(f"footer = {q(r.get('machine.summary', '') + '; ' + r.get('bench.mode', ''))}\n")
PY
  gnuplot -e "datadir='$2'; outfile='$3'" "$(dirname "${BASH_SOURCE[0]}")/bench.gp"
}

# bench_check VALUE OP TARGET: "met" or "missed" (OP: le, ge, eq).
bench_check() {
  awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {
    if (v == "" || v == "n/a") { print "n/a"; exit }
    ok = (op == "le") ? (v <= t) : (op == "ge") ? (v >= t) : (v == t)
    print ok ? "met" : "**missed**" }'
}

# bench_table RESULTS: the summary printed on stdout.
bench_table() {
  local R=$1
  g() { awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }' "$R"; }
  printf '%-44s %10s %10s %8s %8s\n' "warm hit, per call (ratios: paired wall)" "wall ms" "cpu ms" "/ (a)" "/ (b)"
  local v
  for v in a0 a a_id b c d e; do
    printf '%-44s %10s %10s %8s %8s\n' "($v)" "$(g hit.$v.wall)" "$(g hit.$v.cpu)" "$(g hit.$v.paired_wall)" "$(g hit_vs_b.$v.paired_wall)"
  done
  printf '%-44s %10s\n' "identity (a), snapshot: (d)/(b)" "$(g hit_vs_b.d.paired_wall)" \
    "identity (b), EXTRAFILES: (e)/(b)" "$(g hit_vs_b.e.paired_wall)" \
    "identity (b) without a shim: (a')/(a)" "$(g hit.a_id.paired_wall)" "identity inputs" "$(g identity.files)"
  for v in true stub shim shim_id; do printf '%-44s %10s %10s\n' "floor: $v" "$(g floor.$v.wall)" "$(g floor.$v.cpu)"; done
  printf '%-44s %10s %10s %8s\n' "HIP project ($(g build.units) units)" "median ms" "hits" "misses"
  for v in cold warm header; do
    printf '%-44s %10s %10s %8s\n' "  $v" "$(g build.$v.median)" "$(g build.$v.hits)" "$(g build.$v.misses)"
  done
  printf '%-44s %10s %10s %8s\n' "JIT ($(g jit.kernels) kernels)" "median ms" "hits" "misses"
  for v in pass1 pass2 pass3; do
    printf '%-44s %10s %10s %8s\n' "  $v" "$(g jit.$v.median)" "$(g jit.$v.hits)" "$(g jit.$v.misses)"
  done
  printf '%-44s %10s\n' "install (with verify), median ms" "$(g install.install_verify.median)" \
    "install --no-verify" "$(g install.install_noverify.median)" "rollback" "$(g install.rollback.median)"
  printf '%-44s %10s %10s\n' "failing: shim without original (top, nested)" "$(g fail.shim_top.median)" "$(g fail.shim_nested.median)"
  for v in install rollback status verify refresh; do
    printf '%-44s %10s %10s\n' "failing: $v on a locked prefix (median, max)" "$(g fail.locked_$v.median)" "$(g fail.locked_$v.max)"
  done
  printf '%-44s %10s %10s\n' "throughput compiles/s (shims warm, originals)" "$(g throughput.shim_per_s)" "$(g throughput.orig_per_s)"
}

# ---- The runtime callers (scripts/callers/*) ----------------------------------------------------
# bench_callers_summarize KEYPREFIX TSV...: the medians over rounds (one results file of a driver
# per round, scripts/lib/callers.bash --results) of each pass's times and counts, as
# "KEYPREFIX.PASS.KEY\tVALUE" (KEY: compile_ms, link_ms, probes_ms, total_ms, compile.compiles,
# compile.hits, compile.misses, remote_hits, ...; ms keys also .min and .max; n = rounds), and
# the ratios: compile-only and total, cold / warm, cold / container, container / warm.
bench_callers_summarize() {
  /usr/bin/python3 - "$@" <<'PY'
import collections, statistics, sys
prefix, files = sys.argv[1], sys.argv[2:]
vals = collections.defaultdict(list)
for f in files:
    for line in open(f):
        k, _, v = line.rstrip("\n").partition("\t")
        try:
            x = float(v)
        except ValueError:
            vals[k + ".text"] = [v]
            continue
        vals[k].append(x)
med = {}
for k, v in sorted(vals.items()):
    if k.endswith(".text"):
        print(f"{prefix}.{k[:-5]}\t{v[0]}")
        continue
    med[k] = statistics.median(v)
    print(f"{prefix}.{k}\t{med[k]:g}")
    if k.endswith("_ms"):
        print(f"{prefix}.{k}.min\t{min(v):g}\n{prefix}.{k}.max\t{max(v):g}\n{prefix}.{k}.n\t{len(v)}")
def ratio(name, a, b):
    if a in med and b in med and med[b] > 0:
        print(f"{prefix}.ratio.{name}\t{med[a] / med[b]:.2f}")
for what in ("compile_ms", "total_ms"):
    w = what[:-3]
    ratio(f"cold_warm.{w}", f"cold.{what}", f"warm.{what}")
    ratio(f"cold_container.{w}", f"cold.{what}", f"container.{what}")
    ratio(f"container_warm.{w}", f"container.{what}", f"warm.{what}")
PY
}

# bench_callers_table RESULTS.tsv: the callers' table (markdown), for stdout and BENCHMARKS.md.
bench_callers_table() {
  local R=$1 d
  g() { awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }' "$R"; }
  s() { awk -v v="$(g "$1")" 'BEGIN { if (v == "") print "n/a"; else printf "%.2f", v / 1000 }'; }
  echo "| caller (sources x targets) | pass | compile s | link s | probes s | total s | cacheable | hits | misses | remote hits | not cacheable |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for d in aiter cpp_extension deepspeed inductor; do
    local p
    for p in cold warm container; do
      [ -n "$(g "callers.$d.$p.compile_ms")" ] || continue
      echo "| $d ($(g "callers.$d.size")) | $p | $(s "callers.$d.$p.compile_ms") | $(s "callers.$d.$p.link_ms") | $(s "callers.$d.$p.probes_ms") | $(s "callers.$d.$p.total_ms") | $(g "callers.$d.$p.compile.compiles") | $(g "callers.$d.$p.compile.hits") | $(g "callers.$d.$p.compile.misses") | $(g "callers.$d.$p.remote_hits") | $(g "callers.$d.$p.compile.uncacheable") |"
    done
  done
  echo
  echo "| caller | cold / pass 2, compile only (target >= 50) | cold / pass 2, total | fresh container / local hits, compile (target <= 1.5) | total | cold / fresh container, compile (target >= 50) |"
  echo "|---|---|---|---|---|---|"
  for d in aiter cpp_extension deepspeed inductor; do
    [ -n "$(g "callers.$d.cold.compile_ms")" ] || continue
    local a b c e f
    a=$(g "callers.$d.ratio.cold_warm.compile"); b=$(g "callers.$d.ratio.cold_warm.total")
    c=$(g "callers.$d.ratio.container_warm.compile"); e=$(g "callers.$d.ratio.container_warm.total")
    f=$(g "callers.$d.ratio.cold_container.compile")
    if [ "$(g "callers.$d.warm.compile.compiles")" = 0 ]; then  # Inductor: one step, no cache can store it
      echo "| $d | ${a:-n/a} (not cacheable: one-step compile and link) | ${b:-n/a} | | | |"
      continue
    fi
    echo "| $d | ${a:-n/a} ($(bench_check "$a" ge 50)) | ${b:-n/a} | ${c:-n/a}${c:+ ($(bench_check "$c" le 1.5))} | ${e:-n/a} | ${f:-n/a}${f:+ ($(bench_check "$f" ge 50))} |"
  done
}
