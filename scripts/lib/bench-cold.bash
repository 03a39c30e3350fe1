# scripts/lib/bench-cold.bash: what a cold cache miss costs through the shim (issue 22).
#
# What: for each stack, cache tool and call shape, paired rounds of one HIP compile by the
# uncached original toolchain and of the same compile through the shim, each a guaranteed miss:
#   stacks   debian12: a prefix by scripts/make-rocm-prefix (perl hipcc 5.2, clang-15), ccache 4.7.5
#            (Debian's sccache 0.4 does not cache HIP: not measured);
#            sid: inside scripts/make-sid-root's root, a prefix by make-rocm-prefix --stack sid
#            (hipcc 7.0.2, clang-21), ccache 4.14.2 and sccache 0.17
#   shapes   hipcc; hipcc -MD -MF; the prefix's clang++ -x hip; the same with -MD -MF; and
#            clang++ -x hip --cuda-device-only -MD -MF (one compiler job)
# The uncached side is a pristine prefix; the shim side an identical one after `shimctl install`
# (with verification; its own cache dir). Each round writes a kernel with a round-specific
# constant into two new directories (the same source and the same relative -o k.o on both sides:
# HIP objects embed a CUID derived from the output name) and runs both compiles, the order
# alternating per round, after one untimed warm-up pair. Reported per shape: the median of each
# side, the median of the per-round ratios shim / uncached (target <= 1.03), the cache's own
# counters over the rounds (every shim compile must be a miss), and, from one more compile per
# side under `strace -f -e trace=execve` (for sccache also attached to its server, which runs
# the compiler), how often clang ran: driver runs, cc1 jobs, and of those how many only
# preprocessed (-E); version/triple probes apart.
#
# How to run (as root, on the host; both build dirs must exist):
#   scripts/bench --section cold [--quick] [--out DIR] [--keep]
#     BUILD_DIR      host build (installer/shimctl, shim/shimctl-shim; default <repo>/build)
#     SID_BUILD_DIR  build made inside the sid root (default <repo>/build-sid)
#     BENCH_COLD_ROUNDS (default 11, --quick 3), BENCH_COLD_STACKS (default "debian12 sid"),
#     BENCH_COLD_SHAPES (default all five: hipcc hipcc-MD clang clang-MD clang-device-MD),
#     BENCH_COLD_TOOLS (default "ccache sccache"; sccache on sid only),
#     SHIMCTL_SID_ROOT (default /var/cache/shimctl/sid-root), BENCH_NICE (scripts/bench's)
#   Builds, e.g.:
#     cmake -S . -B build-cold -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C build-cold shimctl shim
#     scripts/sid-run /var/cache/shimctl/sid-root bash -c 'cmake -S /work/main -B /work/main/build-cold-sid \
#       -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo && ninja -C /work/main/build-cold-sid shimctl shim'
# Prints a markdown table and writes it to COLD.md in --out (default: the bench work dir).
#
# scripts/bench sources this file for bench_cold_section; that runs this file as a script once
# per stack (through scripts/sid-run for sid):
#   bash bench-cold.bash stack STACK WORKDIR SHIMCTL ROUNDS TOOL...
# which appends its results to WORKDIR/results.tsv. Sourced, it sets no shell options.

cold_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ---- host side: scripts/bench --section cold ---------------------------------------------------

# bench_cold_section: uses scripts/bench's root, scripts, build, shimctl, W, out, quick, log.
bench_cold_section() {
  local rounds stacks stack sid_root sid_build shapes commit binds d tools
  rounds=${BENCH_COLD_ROUNDS:-$([ "$quick" = yes ] && echo 3 || echo 11)}
  stacks=${BENCH_COLD_STACKS:-debian12 sid}
  shapes=${BENCH_COLD_SHAPES:-}
  sid_root=${SHIMCTL_SID_ROOT:-/var/cache/shimctl/sid-root}
  sid_build=${SID_BUILD_DIR:-$root/build-sid}
  case $sid_build in /*) ;; *) sid_build=$PWD/$sid_build ;; esac
  commit=$(git -C "$root" log -1 --format=%h)
  [ -z "$(git -C "$root" status --porcelain -- shim installer)" ] || commit="$commit + uncommitted changes in shim/ or installer/"
  {
    printf 'info\t-\tstarted\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
    printf 'info\t-\tcommit\t%s\n' "$commit"
    printf 'info\t-\tmachine\t%s cores, %s\n' "$(nproc)" "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    printf 'info\t-\tload_start\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
  } >"$W/cold-info.tsv"
  for stack in $stacks; do
    case $stack in
      debian12)
        tools=$(cold_tools ccache) || continue
        cold_check_build "$build" || return
        log "cold: debian12 stack, $tools, $rounds rounds (shimctl: $build)"
        env BENCH_COLD_SHAPES="$shapes" nice -n "${BENCH_NICE_LEVEL:-0}" \
          bash "$cold_lib/bench-cold.bash" stack debian12 "$W/cold-debian12" "$shimctl" "$rounds" $tools ;;
      sid)
        [ -x "$sid_root/bin/sh" ] || { echo "bench: no sid root at $sid_root: run scripts/make-sid-root $sid_root" >&2; return 1; }
        tools=$(cold_tools ccache sccache) || continue
        cold_check_build "$sid_build" || return
        log "cold: sid stack, $tools, $rounds rounds (shimctl: $sid_build, root $sid_root)"
        # sid-run binds the repository; the work dir too, and a build (and its sources: shimctl
        # reads their manifests/) from elsewhere
        binds=(--bind "$W")
        for d in "$sid_build" "$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$sid_build/CMakeCache.txt")"; do
          case $d/ in "$root"/* | /) ;; *) binds+=(--bind "$d") ;; esac
        done
        "$scripts/sid-run" "${binds[@]}" "$sid_root" env BENCH_COLD_SHAPES="$shapes" \
          nice -n "${BENCH_NICE_LEVEL:-0}" \
          bash "$cold_lib/bench-cold.bash" stack sid "$W/cold-sid" "$sid_build/installer/shimctl" "$rounds" $tools
        rmdir "$sid_root$W" 2>/dev/null || true  # sid-run's mount points, left empty in the root
        for ((d = 3; d < ${#binds[@]}; d += 2)); do rmdir "$sid_root${binds[d]}" 2>/dev/null || true; done ;;
      *) echo "bench: BENCH_COLD_STACKS: unknown stack $stack (debian12, sid)" >&2; return 2 ;;
    esac
  done
  printf 'info\t-\tload_end\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$W/cold-info.tsv"
  cold_report "$W/cold-info.tsv" "$W"/cold-*/results.tsv >"$out/COLD.md"
  cat "$out/COLD.md"
  log "wrote $out/COLD.md"
}

# cold_tools TOOL...: those of the TOOLs that BENCH_COLD_TOOLS (default: all) names; fails if none.
cold_tools() {
  local t picked=()
  for t in "$@"; do
    case " ${BENCH_COLD_TOOLS:-$*} " in *" $t "*) picked+=("$t") ;; esac
  done
  [ ${#picked[@]} -gt 0 ] && echo "${picked[*]}"
}

# cold_check_build DIR: DIR holds shimctl and the shim, and is not older than the shim's sources.
cold_check_build() {
  local dir=$1 newer
  [ -x "$dir/installer/shimctl" ] && [ -x "$dir/shim/shimctl-shim" ] \
    || { echo "bench: no shimctl build in $dir (see scripts/lib/bench-cold.bash, 'Builds')" >&2; return 1; }
  newer=$(find "$root/shim" -name '*.[ch]' -newer "$dir/shim/shimctl-shim" | head -3 | tr '\n' ' ')
  [ -z "$newer" ] || log "cold: warning: $dir/shim/shimctl-shim is older than $newer"
}

# cold_report INFO.tsv RESULTS.tsv...: the markdown report (python: medians and ratios).
cold_report() {
  /usr/bin/python3 - "$@" <<'PY'
import collections, statistics, sys
info, times, runs, outcome, label, notes = {}, collections.defaultdict(list), {}, {}, {}, []
order = []
for f in sys.argv[1:]:
    for line in open(f):
        t = line.rstrip("\n").split("\t")
        if t[0] == "info":
            info[(t[1], t[2])] = t[3]
        elif t[0] == "time":
            k = tuple(t[1:4])
            if k not in order:
                order.append(k)
            times[k].append((float(t[5]), float(t[6])))
        elif t[0] == "runs":
            runs[tuple(t[1:5])] = [int(x) for x in t[5:10]]
        elif t[0] == "outcome":
            outcome[tuple(t[1:4])] = t[4]
        elif t[0] == "label":
            label[(t[1], t[2])] = t[3]
        elif t[0] == "note":
            notes.append(f"{t[1]}: {t[2]}")
def g(stack, key):
    return info.get((stack, key), "?")
def runs_text(r):
    if not r:
        return "?"
    drv, drv_e, cc1, cc1_e, probes = r
    s = f"{drv} drv"
    if drv_e:
        s += f" ({drv_e} -E)"
    s += f", {cc1} cc1"
    if cc1_e:
        s += f" ({cc1_e} -E)"
    return s
print(f"# Cold cache miss through the shim (scripts/bench --section cold, {g('-', 'started')})")
print()
print(f"Commit {g('-', 'commit')}; {g('-', 'machine')}; load {g('-', 'load_start')} -> {g('-', 'load_end')}.")
for stack in dict.fromkeys(k[0] for k in order):
    print(f"- {stack}: {g(stack, 'toolchain')}; {g(stack, 'tools')}; shimctl {g(stack, 'shimctl')}")
print()
print("Paired rounds: one uncached compile by the pristine prefix and one cold miss through the shim of an")
print("installed copy, the same new source (a round-specific constant) and the same `-o k.o` on both sides,")
print("in alternating order; medians of each side and of the per-round ratios shim / uncached (and their")
print("quartiles: the round-to-round noise of this machine). Cache counters:")
print("the change over the timed rounds (no change: the shim ran the compiler without the cache). Clang runs")
print("for one compile (one more compile per side under `strace -f -e trace=execve`; for sccache its server")
print("traced too): driver runs of the real clang, `-E` ones (preprocessing only) counted apart, and cc1 jobs")
print("run as their own processes (clang runs cc1 inside the driver when a compile has a single job, as a")
print("device-only `-E` has); `--version`/`-print-*` probes not counted (in the detail table).")
print()
print("| stack | tool | call shape | uncached median s | shim cold median s | paired ratio median | ratio p25-p75 | target <= 1.03 | rounds | shim side: cache counters | clang runs: uncached | clang runs: shim |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for k in order:
    stack, tool, shape = k
    v = times[k]
    o = statistics.median(x[0] for x in v)
    s = statistics.median(x[1] for x in v)
    ratios = [x[1] / x[0] for x in v]
    r = statistics.median(ratios)
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [r, r, r]
    ok = "met" if r <= 1.03 else "**missed**"
    print(f"| {stack} | {tool} | `{label.get((stack, shape), shape)}` | {o:.3f} | {s:.3f} | {r:.3f} | {q[0]:.2f}-{q[2]:.2f} | {ok} | {len(v)} | "
          f"{outcome.get(k, '?')} | {runs_text(runs.get(k + ('orig',)))} | {runs_text(runs.get(k + ('shim',)))} |")
print()
print("Clang executions of one compile in detail (driver runs, cc1 jobs, -E among them, probes):")
print()
print("| stack | tool | call shape | side | driver runs | of which -E | cc1 jobs | of which -E | probes |")
print("|---|---|---|---|---|---|---|---|---|")
for k in order:
    for side in ("orig", "shim"):
        r = runs.get(k + (side,))
        if r:
            print(f"| {k[0]} | {k[1]} | `{label.get((k[0], k[2]), k[2])}` | {'uncached' if side == 'orig' else 'shim'} | "
                  + " | ".join(map(str, r)) + " |")
for n in notes:
    print(f"\nNote: {n}")
PY
}

# ---- one stack (run as a script: on the host, or inside the sid root) ------------------------

# cold_shape_args SHAPE: the compiler (relative to the prefix: $cold_clang for clang) and the
# arguments of SHAPE, one a line.
cold_shape_args() {
  case $1 in
    hipcc) printf '%s\n' bin/hipcc --offload-arch=gfx90a -c k.hip -o k.o ;;
    hipcc-MD) printf '%s\n' bin/hipcc --offload-arch=gfx90a -c k.hip -o k.o -MD -MF k.d ;;
    clang) printf '%s\n' "$cold_clang" -x hip --offload-arch=gfx90a -c k.hip -o k.o ;;
    clang-MD) printf '%s\n' "$cold_clang" -x hip --offload-arch=gfx90a -c k.hip -o k.o -MD -MF k.d ;;
    clang-device-MD) printf '%s\n' "$cold_clang" -x hip --cuda-device-only --offload-arch=gfx90a -c k.hip -o k.o -MD -MF k.d ;;
    *) echo "bench-cold: unknown shape $1" >&2; return 2 ;;
  esac
}

# cold_source DIR...: a new kernel k.hip (the next constant of this run) in each new DIR.
cold_seq=0
cold_source() {
  local d
  cold_seq=$((cold_seq + 1))
  for d in "$@"; do
    mkdir -p "$d"
    cat >"$d/k.hip" <<EOF
#include <hip/hip_runtime.h>
// scripts/bench --section cold: the constant makes this source, and every compile of it, new.
__global__ void cold_kernel(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 3.0f + ${cold_nonce}${cold_seq}.0f; }
EOF
  done
}

# cold_compile DIR PREFIX SHAPE: runs SHAPE's compile with PREFIX's compiler in DIR; fails
# (with its output) unless it succeeds and writes k.o.
cold_compile() {
  local dir=$1 prefix=$2 argv
  mapfile -t argv < <(cold_shape_args "$3")
  if ! (cd "$dir" && exec "$prefix/${argv[0]}" "${argv[@]:1}") >"$dir/log" 2>&1 || [ ! -s "$dir/k.o" ]; then
    echo "bench-cold: $3 failed in $dir:" >&2; cat "$dir/log" >&2; return 1
  fi
}

# cold_time DIR PREFIX SHAPE: cold_compile's wall time in seconds.
cold_time() {
  local t0 t1
  t0=${EPOCHREALTIME//[.,]/}
  cold_compile "$@" || return
  t1=${EPOCHREALTIME//[.,]/}
  awk -v d=$((t1 - t0)) 'BEGIN { printf "%.6f", d / 1e6 }'
}

# cold_counters: the cache's counters, "name value" lines (ccache: CCACHE_DIR=$cold_cache;
# sccache: the shim's server at $cold_server, flattened JSON).
cold_counters() {
  if [ "$cold_tool" = ccache ]; then
    CCACHE_DIR=$cold_cache ccache --print-stats | awk -F'\t' 'NF == 2 { print $1, $2 }'
  else
    env "$cold_server" sccache --show-stats --stats-format json | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)["stats"]
for k, v in s.items():
    if isinstance(v, int):
        print(k, v)
    elif isinstance(v, dict) and isinstance(v.get("counts"), dict):
        print(k, sum(v["counts"].values()))'
  fi
}

# cold_counter_delta BEFORE AFTER: the counters that changed, "name +N, ..." (sizes and
# timestamps left out).
cold_counter_delta() {
  awk 'NR == FNR { a[$1] = $2; next }
       $1 !~ /timestamp|size|files_in_cache|local_storage|cache_write|cache_read|duration|compilations$/ && $2 != a[$1] {
         printf "%s%s +%d", sep, $1, $2 - a[$1]; sep = ", " }
       END { if (sep == "") printf "no change" }' "$1" "$2"
}

# cold_pids_with_env ENTRY: the sccache processes whose environment holds ENTRY (a regular
# expression over NAME=VALUE).
cold_pids_with_env() {
  local e p
  for e in /proc/[0-9]*/environ; do
    p=${e#/proc/}; p=${p%/environ}
    [ "$(basename "$(readlink "/proc/$p/exe" 2>/dev/null)")" = sccache ] || continue
    grep -qzx -- "$1" "$e" 2>/dev/null && echo "$p"
  done
  return 0
}

# cold_server_pids: the shim prefix's sccache server (the one at $cold_server, however started).
cold_server_pids() { cold_pids_with_env "$(printf '%s' "$cold_server" | sed 's/[].[^$*\\]/\\&/g')"; }

# cold_stop_leftovers: after the rollback, stops the sccache servers of this work dir that are
# still running (rollback stops those the shim started, by their marker) and notes them.
cold_stop_leftovers() {
  local pids p uds i
  mapfile -t pids < <(cold_pids_with_env "SCCACHE_DIR=$cold_work/.*")
  [ ${#pids[@]} -gt 0 ] || return 0
  printf 'note\t%s\t%s\n' "$cold_stack" "after shimctl rollback ${#pids[@]} sccache server(s) of the bench still ran (without the rollback's marker, SHIMCTL_SCCACHE_SERVER_OF: $(for p in "${pids[@]}"; do grep -qz '^SHIMCTL_SCCACHE_SERVER_OF=' "/proc/$p/environ" && echo marked || echo unmarked; done | sort | uniq -c | awk '{ printf "%s%d %s", sep, $1, $2; sep = ", " }')); the bench stopped them" >>"$cold_results"
  for p in "${pids[@]}"; do
    uds=$(tr '\0' '\n' <"/proc/$p/environ" | sed -n 's/^SCCACHE_SERVER_UDS=//p')
    [ -z "$uds" ] || SCCACHE_SERVER_UDS=$uds sccache --stop-server >/dev/null 2>&1 || true
    for ((i = 0; i < 50; i++)); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill "$p" 2>/dev/null || true
  done
}

# cold_count SIDE DIR PREFIX SHAPE: one more compile under strace (sccache's servers traced too);
# prints "DRIVERS DRIVERS_E CC1 CC1_E PROBES" (cold_count_execs).
cold_count() {
  local side=$1 dir=$2 st=$2/strace pids=() spid='' p
  mkdir -p "$st"
  if [ "$side" = shim ] && [ "$cold_tool" = sccache ]; then
    mapfile -t pids < <(cold_server_pids)
    [ ${#pids[@]} -gt 0 ] || { echo "bench-cold: no sccache server of $cold_shim is running" >&2; return 1; }
    strace -f -qq -ff -e trace=execve -e signal=none -s 64 -o "$st/server" "${pids[@]/#/-p}" 2>"$st/attach.err" &
    spid=$!
    sleep 1  # strace attaches
  fi
  strace -f -qq -ff -e trace=execve -e signal=none -s 64 -o "$st/client" -- \
    bash -c "$(declare -f cold_shape_args cold_compile); cold_clang=$cold_clang; cold_compile \"\$@\"" _ "$dir" "$3" "$4"
  if [ -n "$spid" ]; then
    kill -INT "$spid"; wait "$spid" 2>/dev/null || true
  fi
  cold_count_execs "$st"
}

# cold_count_execs DIR: counts the successful execve of a real clang (a file named clang,
# clang++, clang-N, with or without .real, that is no shim: a shim has NAME.real beside it) in
# the strace -ff files of DIR: driver runs (-E among them), cc1 jobs (-E among them) and probes.
cold_count_execs() {
  /usr/bin/python3 - "$1" <<'PY'
import glob, os, re, sys
name = re.compile(r"^clang(\+\+)?(-\d+)?$")
call = re.compile(r'^execve\("((?:[^"\\]|\\.)*)", \[(.*)\]')
arg = re.compile(r'"((?:[^"\\]|\\.)*)"')
drv = drv_e = cc1 = cc1_e = probes = 0
for f in glob.glob(os.path.join(sys.argv[1], "*.*")):
    for line in open(f, errors="replace"):
        m = call.match(line)
        if not m or not line.rstrip().endswith("= 0"):
            continue
        real = os.path.realpath(m.group(1))
        base = os.path.basename(real)
        if base.endswith(".real"):
            base = base[:-5]
        elif os.path.exists(real + ".real"):
            continue  # the shim
        if not name.match(base):
            continue
        args = arg.findall(m.group(2))[1:]
        if args[:1] == ["-cc1"]:
            cc1 += 1
            cc1_e += "-E" in args
        elif any(a in ("--version", "-dumpversion", "-###") or a.startswith("-print-") for a in args):
            probes += 1
        else:
            drv += 1
            drv_e += "-E" in args
print(drv, drv_e, cc1, cc1_e, probes)
PY
}

# cold_shape SHAPE: the warm-up pair, the timed rounds and the traced compiles of SHAPE; appends
# to $cold_results.
cold_shape() {
  local shape=$1 base=$cold_work/$cold_tool/$1 r a b t_orig t_shim before after
  cold_source "$base/warm/orig" "$base/warm/shim"
  cold_compile "$base/warm/orig" "$cold_orig" "$shape"
  cold_compile "$base/warm/shim" "$cold_shim" "$shape"
  before=$base/counters.before; after=$base/counters.after
  cold_counters >"$before"
  for ((r = 1; r <= cold_rounds; r++)); do
    a=$base/r$r/orig; b=$base/r$r/shim
    cold_source "$a" "$b"
    if ((r % 2)); then
      t_orig=$(cold_time "$a" "$cold_orig" "$shape"); t_shim=$(cold_time "$b" "$cold_shim" "$shape")
    else
      t_shim=$(cold_time "$b" "$cold_shim" "$shape"); t_orig=$(cold_time "$a" "$cold_orig" "$shape")
    fi
    printf 'time\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cold_stack" "$cold_tool" "$shape" "$r" "$t_orig" "$t_shim" >>"$cold_results"
    echo "bench-cold: $cold_stack $cold_tool $shape round $r: uncached $t_orig s, shim $t_shim s" >&2
  done
  cold_counters >"$after"
  printf 'outcome\t%s\t%s\t%s\t%s\n' "$cold_stack" "$cold_tool" "$shape" "$(cold_counter_delta "$before" "$after")" >>"$cold_results"
  cold_source "$base/count/orig" "$base/count/shim"
  a=$(cold_count orig "$base/count/orig" "$cold_orig" "$shape")
  b=$(cold_count shim "$base/count/shim" "$cold_shim" "$shape")
  printf 'runs\t%s\t%s\t%s\t%s\t%s\n' "$cold_stack" "$cold_tool" "$shape" orig "${a// /$'\t'}" \
    "$cold_stack" "$cold_tool" "$shape" shim "${b// /$'\t'}" >>"$cold_results"
}

# cold_make_prefix DEST: a fresh prefix of this stack.
cold_make_prefix() {
  local args=()
  [ "$cold_stack" = debian12 ] || args=(--stack sid)
  "$cold_lib/../make-rocm-prefix" "$1" "${args[@]}" >/dev/null
}

# cold_tool_run TOOL: install TOOL on a fresh copy, every shape, rollback (stops sccache's servers).
cold_tool_run() {
  cold_tool=$1
  cold_shim=$cold_work/$1/rocm
  cold_cache=$cold_work/$1/cache
  local shape shapes
  shapes=${BENCH_COLD_SHAPES:-hipcc hipcc-MD clang clang-MD clang-device-MD}
  mkdir -p "$cold_work/$1"
  cold_make_prefix "$cold_shim"
  "$cold_shimctl" install "$cold_shim" --cache "$1" --cache-dir "$cold_cache" >"$cold_work/$1/install.log" 2>&1 \
    || { echo "bench-cold: shimctl install --cache $1 failed:" >&2; cat "$cold_work/$1/install.log" >&2; return 1; }
  cold_installed+=("$cold_shim")
  cold_server=
  if [ "$1" = sccache ]; then
    cold_server=$("$cold_shimctl" status --json "$cold_shim" | /usr/bin/python3 -c \
      'import json, sys; print(json.load(sys.stdin)["cache"].get("server", {}).get("environment", ""))')
    [ -n "$cold_server" ] || { echo "bench-cold: shimctl status names no sccache server" >&2; return 1; }
  fi
  for shape in $shapes; do
    printf 'label\t%s\t%s\t%s\n' "$cold_stack" "$shape" "$(cold_shape_args "$shape" | paste -sd ' ')" >>"$cold_results"
    cold_shape "$shape"
  done
  "$cold_shimctl" rollback "$cold_shim" >>"$cold_work/$1/install.log" 2>&1
  cold_installed=("${cold_installed[@]/$cold_shim}")
  [ "$1" != sccache ] || cold_stop_leftovers
}

# cold_rollback_all: on exit, roll back what is still installed (stops sccache's servers).
cold_rollback_all() {
  local p
  for p in "${cold_installed[@]}"; do
    [ -z "$p" ] || "$cold_shimctl" rollback "$p" >/dev/null 2>&1 || true
  done
  cold_stop_leftovers
}

# cold_versions: the stack's toolchain and tools, as info lines.
cold_versions() {
  local tc tools
  if [ "$cold_stack" = debian12 ]; then
    tc="hipcc (perl) $(dpkg-query -W -f='${Version}' hipcc), $(/usr/lib/llvm-15/bin/clang --version | head -1)"
  else
    tc="hipcc (hipBin) $(dpkg-query -W -f='${Version}' hipcc), $(/usr/lib/llvm-21/bin/clang --version | head -1)"
  fi
  tools=$(ccache --version | head -1)
  [ "$cold_stack" = debian12 ] || tools="$tools, $(sccache --version)"
  printf 'info\t%s\ttoolchain\t%s\n' "$cold_stack" "$tc"
  printf 'info\t%s\ttools\t%s\n' "$cold_stack" "$tools"
  printf 'info\t%s\tshimctl\t%s\n' "$cold_stack" "$("$cold_shimctl" --version 2>&1 | head -1)"
}

# cold_stack STACK WORKDIR SHIMCTL ROUNDS TOOL...
cold_stack() {
  cold_stack=$1 cold_work=$2 cold_shimctl=$3 cold_rounds=$4
  shift 4
  case $cold_stack in
    debian12) cold_clang=llvm/bin/clang++ ;;
    sid) cold_clang=lib/llvm/bin/clang++ ;;
    *) echo "bench-cold: unknown stack $cold_stack" >&2; return 2 ;;
  esac
  cold_results=$cold_work/results.tsv
  cold_orig=$cold_work/orig
  cold_nonce=$(( $(date +%s) % 100000 ))0$$0
  cold_installed=()
  mkdir -p "$cold_work"
  # The shim's probe memo and sccache's socket dir in the work dir; no caller settings.
  export XDG_CACHE_HOME=$cold_work/xdg-cache
  unset XDG_RUNTIME_DIR
  for v in $(env | sed -n 's/^\(\(SHIMCTL\|CCACHE\|SCCACHE\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
  trap cold_rollback_all EXIT
  cold_versions >>"$cold_results"
  [ "$cold_stack" = sid ] || printf 'note\t%s\t%s\n' "$cold_stack" \
    "sccache not measured: Debian 12's 0.4 does not cache HIP (README, Supported toolchains)" >>"$cold_results"
  cold_make_prefix "$cold_orig"
  local tool
  for tool in "$@"; do cold_tool_run "$tool"; done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  trap 'echo "bench-cold: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
  [ "${1:-}" = stack ] && [ $# -ge 6 ] \
    || { echo "usage: $0 stack STACK WORKDIR SHIMCTL ROUNDS TOOL... (run by scripts/bench --section cold)" >&2; exit 2; }
  shift
  cold_stack "$@"
fi
