# Helpers for scripts/bench. Source it; it sets no shell options.
#   bench_build_tools DIR        compiles DIR/rr (interleaved timing harness), DIR/stub (static
#                                exec-only stub: execv(argv[1], argv+1)) and DIR/true (static, exits 0)
#   bench_conf_env CONF [all|plain|bare]   the environment a shim config sets, as NAME=VALUE
#                                lines (setenv and appendenv; `plain` drops the identity variables,
#                                CCACHE_EXTRAFILES and CCACHE_COMPILERCHECK; `bare` also drops
#                                CCACHE_INODECACHE)
#   bench_identity_env PREFIX    mechanism (b)'s two variables for PREFIX, from its identity snapshot
#                                (PREFIX/.shimctl/identity): CCACHE_COMPILERCHECK=string:shimctl-<32 hex
#                                of the fingerprint> and CCACHE_EXTRAFILES=<absolute input paths, ':'>
#   bench_identity_files PREFIX  the number of inputs in PREFIX's identity snapshot
#   bench_now_ms                 monotonic-enough wall clock in milliseconds
#   bench_stat CCACHE_DIR NAME   one counter of `ccache --print-stats`
#   bench_hits / bench_misses CCACHE_DIR   direct+preprocessed hits / cache misses

# The harness: rr REPS OUT VARIANT [;; VARIANT]...
#   VARIANT = NAME [VAR=VALUE]... /ABS/COMMAND [ARG]...
# Runs every variant once per round, REPS rounds, rotating the start each round (so no variant
# always runs first); each run is posix_spawn + waitpid (no shell), stdout/stderr to /dev/null,
# timed with CLOCK_MONOTONIC, CPU time (user+sys) from wait4. Writes "NAME WALL_NS CPU_NS ROUND"
# lines to OUT. Fails on any non-zero exit.
_bench_rr_c() {
  cat <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
extern char** environ;
struct variant { const char* name; char** env; char** argv; };
static char** make_env(char** sets, int n) {
  int base = 0;
  while (environ[base]) base++;
  char** env = calloc((size_t)(base + n + 1), sizeof *env);
  int k = 0;
  for (int i = 0; i < base; i++) {
    int replaced = 0;
    for (int j = 0; j < n; j++) {
      size_t len = strcspn(sets[j], "=") + 1;
      if (strncmp(environ[i], sets[j], len) == 0) replaced = 1;
    }
    if (!replaced) env[k++] = environ[i];
  }
  for (int j = 0; j < n; j++) env[k++] = sets[j];
  env[k] = NULL;
  return env;
}
int main(int argc, char** argv) {
  if (argc < 4) { fprintf(stderr, "usage: rr REPS OUT VARIANT [;; VARIANT]...\n"); return 2; }
  int reps = atoi(argv[1]);
  FILE* out = fopen(argv[2], "w");
  if (!out) { perror(argv[2]); return 1; }
  struct variant v[64];
  int nv = 0;
  for (int i = 3; i < argc && nv < 64;) {
    v[nv].name = argv[i++];
    int first_env = i;
    while (i < argc && argv[i][0] != '/' && strchr(argv[i], '=')) i++;
    v[nv].env = make_env(argv + first_env, i - first_env);
    v[nv].argv = argv + i;
    while (i < argc && strcmp(argv[i], ";;") != 0) i++;
    if (i < argc) argv[i++] = NULL;
    nv++;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  for (int r = 0; r < reps; r++) {
    for (int s = 0; s < nv; s++) {
      struct variant* x = &v[(r + s) % nv];
      struct timespec t0, t1;
      pid_t pid;
      int status;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      int rc = posix_spawn(&pid, x->argv[0], &fa, NULL, x->argv, x->env);
      if (rc != 0) { fprintf(stderr, "rr: %s: %s\n", x->argv[0], strerror(rc)); return 1; }
      struct rusage ru;
      while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {}
      clock_gettime(CLOCK_MONOTONIC, &t1);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "rr: variant %s failed (status %d)\n", x->name, status);
        return 1;
      }
      long long cpu = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                      (long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
      fprintf(out, "%s %lld %lld %d\n", x->name,
              (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec), cpu, r);
    }
  }
  return fclose(out) == 0 ? 0 : 1;
}
EOF
}

bench_build_tools() { # DIR
  local d=$1
  mkdir -p "$d" || return
  _bench_rr_c >"$d/rr.c"
  printf '%s\n' '#include <unistd.h>' \
    'int main(int argc, char** argv) { (void)argc; execv(argv[1], argv + 1); return 127; }' >"$d/stub.c"
  printf '%s\n' 'int main(void) { return 0; }' >"$d/true.c"
  gcc -O2 -o "$d/rr" "$d/rr.c" \
    && gcc -O2 -static -o "$d/stub" "$d/stub.c" \
    && gcc -O2 -static -o "$d/true" "$d/true.c"
}

bench_conf_env() { # CONF [all|plain|bare]
  local mode=${2:-all}
  sed -n 's/^\(setenv\|appendenv\) //p' "$1" | while IFS= read -r kv; do
    case $mode:$kv in
      plain:CCACHE_EXTRAFILES=*|plain:CCACHE_COMPILERCHECK=*) continue ;;
      bare:CCACHE_EXTRAFILES=*|bare:CCACHE_COMPILERCHECK=*|bare:CCACHE_INODECACHE=*) continue ;;
    esac
    printf '%s\n' "$kv"
  done
}

# The snapshot (installer/shimctl/core/identity_snapshot.hpp): "shimctl-identity 1",
# "fingerprint <64 hex>", then "dir D" lines, each followed by "INODE SIZE MTIME CTIME NAME" lines.
bench_identity_env() { # PREFIX
  awk 'NR == 1 && $0 != "shimctl-identity 1" { exit 1 }
       NR == 2 { if ($1 != "fingerprint" || length($2) != 64) exit 1; fp = substr($2, 1, 32); next }
       NR > 2 && /^dir / { d = substr($0, 5); next }
       NR > 2 && NF >= 5 && d != "" { n = $0; for (i = 1; i <= 4; i++) sub(/^[^ ]+ /, "", n)
                                      files = files (files == "" ? "" : ":") d "/" n }
       END { if (fp == "" || files == "") exit 1
             print "CCACHE_COMPILERCHECK=string:shimctl-" fp; print "CCACHE_EXTRAFILES=" files }' \
    "$1/.shimctl/identity"
}

bench_identity_files() { # PREFIX
  awk 'NR > 2 && !/^dir / && NF >= 5 { n++ } END { print n + 0 }' "$1/.shimctl/identity"
}

bench_now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

bench_stat() { # CCACHE_DIR NAME
  CCACHE_DIR=$1 ccache --print-stats 2>/dev/null | awk -v n="$2" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }'
}

bench_hits() { # CCACHE_DIR
  echo $(( $(bench_stat "$1" direct_cache_hit) + $(bench_stat "$1" preprocessed_cache_hit) ))
}

bench_misses() { bench_stat "$1" cache_miss; }

# bench_summarize RRFILE KEYPREFIX [BASE]: "KEYPREFIX.NAME.{n,wall,cpu,wall_p10,wall_p90}\tVALUE"
# lines (milliseconds; medians and the 10th/90th percentiles of the wall time) and, with BASE,
# "KEYPREFIX.NAME.paired_{wall,cpu}": the median over rounds of NAME's time / BASE's time in the
# same round (runs of one round share the machine's load of that moment).
bench_summarize() {
  /usr/bin/python3 - "$1" "$2" "${3:-}" <<'PY'
import collections, statistics, sys
wall, cpu = collections.defaultdict(list), collections.defaultdict(list)
by_round = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    name, w, c, rnd = line.split()
    wall[name].append(int(w) / 1e6)
    cpu[name].append(int(c) / 1e6)
    by_round[rnd][name] = (int(w), max(int(c), 1))
base = sys.argv[3]
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]
for name in wall:
    k = f"{sys.argv[2]}.{name}"
    print(f"{k}.n\t{len(wall[name])}")
    print(f"{k}.wall\t{statistics.median(wall[name]):.3f}")
    print(f"{k}.cpu\t{statistics.median(cpu[name]):.3f}")
    print(f"{k}.wall_p10\t{pct(wall[name], 0.1):.3f}")
    print(f"{k}.wall_p90\t{pct(wall[name], 0.9):.3f}")
    if base and base in wall:
        pw = [x[name][0] / x[base][0] for x in by_round.values() if name in x and base in x]
        pc = [x[name][1] / x[base][1] for x in by_round.values() if name in x and base in x]
        print(f"{k}.paired_wall\t{statistics.median(pw):.3f}")
        print(f"{k}.paired_cpu\t{statistics.median(pc):.3f}")
PY
}

# bench_svg RESULTS.tsv OUT.svg: the chart (standard library only): cold vs warm wall time per
# workload (log scale), and the per-call time of a warm hit through each way of calling the cache.
bench_svg() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import math, sys
from xml.sax.saxutils import escape
r = {}
for line in open(sys.argv[1]):
    k, _, v = line.rstrip("\n").partition("\t")
    r[k] = v
def num(k):
    try: return float(r[k])
    except (KeyError, ValueError): return None
W, bar_h, gap, left = 920, 18, 6, 300
out, y = [], 0
def text(x, y, s, size=12, anchor="start", weight="normal", fill="#222"):
    out.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
               f'font-weight="{weight}" fill="{fill}">{escape(s)}</text>')
def rect(x, y, w, h, fill):
    out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 1):.1f}" height="{h}" fill="{fill}"/>')
plot_w = W - left - 200
# Panel 1: workloads, seconds, log scale.
y += 28; text(12, y, "Wall time: cold vs warm (seconds, log scale)", 15, weight="bold")
groups = [
    (f"CMake project, {r.get('build.units', '?')} HIP units, -j2 (compile phase)", [
        ("cold (empty cache)", num("build.cold.ms"), "#c0504d"),
        ("warm, fresh build dir at another path", num("build.warm.ms"), "#4f81bd"),
        (f"after changing quarter.h ({r.get('build.header.misses', '?')} misses)", num("build.header.ms"), "#9bbb59")]),
    (f"JIT, {r.get('jit.kernels', '?')} kernels by absolute hipcc path", [
        ("pass 1 (cold)", num("jit.pass1.ms"), "#c0504d"),
        ("pass 2 (fresh temp dirs)", num("jit.pass2.ms"), "#4f81bd"),
        ("pass 3 (absolute paths, base_dir)", num("jit.pass3.ms"), "#8064a2")]),
]
vals = [v / 1000 for _, g in groups for _, v, _ in g if v]
lo = 10 ** math.floor(math.log10(min(vals) * 0.5)) if vals else 0.01
hi = 10 ** math.ceil(math.log10(max(vals))) if vals else 100
def xs(v): return left + plot_w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
y += 14
axis_top = y
for title, bars in groups:
    y += 16; text(12, y, title, 12, weight="bold"); y += 6
    for label, v, color in bars:
        if v is None: continue
        s = v / 1000
        text(left - 8, y + 13, label, 11, anchor="end")
        rect(left, y, xs(s) - left, bar_h, color)
        text(xs(s) + 5, y + 13, f"{s:.2f} s", 11)
        y += bar_h + gap
d = lo
while d <= hi * 1.0001:
    x = xs(d)
    out.append(f'<line x1="{x:.1f}" y1="{axis_top}" x2="{x:.1f}" y2="{y}" stroke="#ccc" stroke-dasharray="2,3"/>')
    text(x, y + 14, f"{d:g} s", 10, anchor="middle", fill="#666")
    d *= 10
y += 34
# Panel 2: per call, milliseconds, linear.
text(12, y, "One warm cache hit of a HIP compile, per call (median wall ms; paired ratio to (a))", 15, weight="bold")
y += 10
calls = [
    ("(a0) (a) without the inode cache", "hit.a0", "#d0d0d0"),
    ("(a) ccache hipcc.real, no identity", "hit.a", "#7f7f7f"),
    ("(a') ccache hipcc.real + EXTRAFILES", "hit.a_id", "#a5a5a5"),
    ("(b) shim, identity off", "hit.b", "#4f81bd"),
    ("(c) bash wrapper exec ccache", "hit.c", "#c0504d"),
    ("(d) shim as installed: snapshot guard", "hit.d", "#1f497d"),
    ("(e) shim + EXTRAFILES (mechanism b)", "hit.e", "#8064a2"),
]
floor = [
    ("static true, exec'd directly", "floor.true", "#bbbbbb"),
    ("exec-only static stub -> true", "floor.stub", "#999999"),
    ("shim (real config) -> true", "floor.shim", "#4f81bd"),
    ("shim + snapshot guard -> true", "floor.shim_id", "#1f497d"),
]
base = num("hit.a.wall")
mx = max([num(k + ".wall") or 0 for _, k, _ in calls] + [0.001])
top = y
for label, k, color in calls:
    v = num(k + ".wall")
    if v is None: continue
    y += 4
    text(left - 8, y + 13, label, 11, anchor="end")
    rect(left, y, plot_w * v / mx, bar_h, color)
    paired = num(k + ".paired_wall")
    ratio = f"  ({paired:.2f}x paired)" if paired else (f"  ({v / base:.2f}x)" if base else "")
    text(left + plot_w * v / mx + 5, y + 13, f"{v:.2f} ms{ratio}", 11)
    y += bar_h + gap
db, eb = num("hit_vs_b.d.paired_wall"), num("hit_vs_b.e.paired_wall")
if db and eb:
    y += 16
    text(left, y, f"identity cost, paired to (b): snapshot guard (d)/(b) = {db:.3f}x, "
         f"EXTRAFILES (e)/(b) = {eb:.3f}x ({r.get('identity.files', '?')} inputs)", 11, fill="#444")
y += 20
text(12, y, "The floor: the shim's own cost (median wall ms)", 13, weight="bold")
y += 6
mf = max([num(k + ".wall") or 0 for _, k, _ in floor] + [0.001])
for label, k, color in floor:
    v = num(k + ".wall")
    if v is None: continue
    y += 4
    text(left - 8, y + 13, label, 11, anchor="end")
    rect(left, y, plot_w * v / mf, bar_h, color)
    text(left + plot_w * v / mf + 5, y + 13, f"{v:.3f} ms", 11)
    y += bar_h + gap
y += 24
text(12, y, f"{r.get('machine.summary', '')}", 10, fill="#666")
y += 10
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{y}" viewBox="0 0 {W} {y}" '
       f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
       f'<rect width="{W}" height="{y}" fill="white"/>'] + out + ["</svg>"]
open(sys.argv[2], "w").write("\n".join(svg) + "\n")
PY
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
  printf '%-44s %10s %10s %8s\n' "HIP project ($(g build.units) units)" "compile ms" "hits" "misses"
  for v in cold warm header; do
    printf '%-44s %10s %10s %8s\n' "  $v" "$(g build.$v.ms)" "$(g build.$v.hits)" "$(g build.$v.misses)"
  done
  printf '%-44s %10s %10s %8s\n' "JIT ($(g jit.kernels) kernels)" "ms" "hits" "misses"
  for v in pass1 pass2 pass3; do
    printf '%-44s %10s %10s %8s\n' "  $v" "$(g jit.$v.ms)" "$(g jit.$v.hits)" "$(g jit.$v.misses)"
  done
  printf '%-44s %10s\n' "install (with verify)" "$(g install.verify.ms)" "install --no-verify" "$(g install.noverify.ms)" \
    "rollback" "$(g rollback.ms)"
}
