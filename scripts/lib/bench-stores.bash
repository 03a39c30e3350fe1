#!/usr/bin/env bash
# scripts/bench --section stores, one stack (issue 24 item 6): a remote hit from each team store
# against a local hit, paired, and the fleet's hit rates. Run by scripts/lib/bench/stores.py, as
# root: on the host for debian12, inside the sid root (scripts/sid-run) for sid.
#
# Usage: bench-stores.bash STACK WORK SHIMCTL ROUNDS RUNS FLEET-UNITS
#   STACK        debian12 (make-rocm-prefix: clang-15, ccache 4.7.5) or sid (--stack sid:
#                clang-21, ccache 4.14.2, sccache 0.17)
#   WORK         a new directory for everything (results: WORK/stores.tsv, WORK/fleet.tsv,
#                WORK/info, hyperfine's JSON in WORK/<store>/json)
#   SHIMCTL      the shimctl build for this stack (its build dir is BUILD_DIR for lib.bash)
#   ROUNDS RUNS  paired rounds per store, hyperfine runs of each side per round
#   FLEET-UNITS  units of the fleet's project (0: no fleet)
# Environment: BENCH_HYPERFINE (default hyperfine: the sid root has none, stores.py stages the
# host's), BENCH_STORES_ONLY (store ids to run, e.g. "ccache-redis sccache-s3 fleet-ccache-redis";
# default all), BENCH_STORES_FLEET_STORES (the fleet's stores, default "redis shards webdav s3":
# each tool on those it takes).
#
# Each store: its server from tests/integration/lib-stores.bash on 127.0.0.1, a fresh copy of the
# stack's prefix installed with `--remote URL --no-verify`, one kernel k.hip compiled as
# `CLANG++ -x hip --offload-arch=gfx90a -c k.hip -o k.o` in one directory. A round is one
# hyperfine invocation of both sides (order alternating per round, one warm-up each):
#   ccache   local:  CCACHE_DIR = a warm local cache (a local hit: ccache never asks the store)
#            remote: CCACHE_DIR = an empty one, emptied by --prepare before every run
#            remote-inode: the same, but with the warm cache's inode cache copied in: ccache
#                    keeps it in the cache dir, and without it a compile re-hashes every header
#                    (tens of ms, nothing to do with the store)
#   sccache  local:  a second prefix installed without --remote (its server's local disk cache)
#            remote: the store's prefix on a warm machine: sccache >= 0.15 keeps its local disk
#                    cache in front of the store (SCCACHE_MULTILEVEL_CHAIN, issue 35), so a
#                    warm hit is read from the disk (older sccache: from the store, after a run
#                    of the preprocessor; the store's share is cache_read_hit_duration per hit)
#            fresh:  the store's prefix on a fresh machine: --prepare stops its server and
#                    empties its disk cache, so each run starts a server and reads the store
#                    (the first hit of a machine that joins the team; the back-filled second
#                    hit is the remote side)
# The counts that prove each side is what it says: ccache's per-compile stats_log
# (CCACHE_STATSLOG) of every run; sccache's server statistics before and after the rounds.
# The fleet: lib-fleet.bash's fleet_test for each tool and store (its checks fail nothing here:
# the figures are read from its machines' stats files). Nothing is gated on time.
# shellcheck disable=SC2034 # suite, FLEET_*, CURRENT_TEST: read by lib.bash and lib-fleet.bash
set -u
[ $# -eq 6 ] || { sed -n '6,13p' "$0" >&2; exit 2; }
STACK=$1 W=$2 SHIMCTL=$3 ROUNDS=$4 RUNS=$5 FLEET_N=$6
case $STACK in debian12 | sid) ;; *) echo "bench-stores: unknown stack $STACK" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "bench-stores: must run as root (the fleet's mount namespaces)" >&2; exit 2; }
# The fleet mounts a tmpfs on /opt: only ever in a private mount namespace of our own.
if [ "${SHIMCTL_TEST_PRIVATE_NS:-}" != 1 ]; then
  SHIMCTL_TEST_PRIVATE_NS=1 exec unshare --mount --propagation private "$BASH" "$0" "$@"
fi
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_DIR=$(cd "$(dirname "$SHIMCTL")/.." && pwd)
export SRC_DIR BUILD_DIR SHIMCTL
HF=${BENCH_HYPERFINE:-hyperfine}
mkdir -p "$W" && cd "$W" || exit 1
W=$(pwd)
# shellcheck source=/dev/null
source "$SRC_DIR/tests/integration/lib.bash" # fail, free_port, wait_until, the store starters
source "$SRC_DIR/tests/integration/lib-fleet.bash"
suite=bench-stores-$STACK
FLEET_FIGURES=$W/fleet-figures.txt
scrub_env
unset XDG_RUNTIME_DIR
export XDG_CACHE_HOME=$W/xdg-cache # the shim's probe memo and sccache's sockets: ours

say() { echo "bench-stores: $STACK: $*" >&2; }

if [ "$STACK" = sid ]; then CLANG=lib/llvm/bin/clang++ PREFIX_ARGS=(--stack sid)
else CLANG=llvm/bin/clang++ PREFIX_ARGS=(); fi
COMPILE=(-x hip --offload-arch=gfx90a -c k.hip -o k.o)
SRC=$W/src
PRISTINE=$W/pristine
INSTALLED=()

# ---- the stack ------------------------------------------------------------------------------
setup_stack() {
  mkdir -p "$SRC"
  cat >"$SRC/k.hip" <<'HIP'
#include <hip/hip_runtime.h>
// scripts/bench --section stores: one small kernel, compiled through each store.
__global__ void store_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = sqrtf(x[i]) * 3.0f + 1.0f;
}
HIP
  "$SRC_DIR/scripts/make-rocm-prefix" "$PRISTINE" "${PREFIX_ARGS[@]}" >"$W/make-prefix.log" 2>&1 ||
    { echo "make-rocm-prefix failed: $(tail -5 "$W/make-prefix.log")" >&2; exit 1; }
  {
    echo "toolchain	$(head -1 < <("$PRISTINE/$CLANG" --version))"
    echo "ccache	$(ccache --version | head -1)"
    command -v sccache >/dev/null && echo "sccache	$(sccache --version)"
    echo "shimctl	$("$SHIMCTL" --version | head -1)"
    echo "hyperfine	$("$HF" --version)"
    echo "compile	$CLANG ${COMPILE[*]}"
  } >"$W/info"
}

# compile_with DIR PREFIX [NAME=VALUE...]: one compile in $SRC by PREFIX's clang++, or fail.
compile_with() {
  local d=$1 p=$2; shift 2
  (cd "$SRC" && env "$@" "$p/$CLANG" "${COMPILE[@]}") >>"$d/compile.log" 2>&1 ||
    fail "a compile by $p failed: $(tail -5 "$d/compile.log")"
}

# install_prefix DIR TOOL [URL [NAME=VALUE...]]: DIR/rocm = a copy of the stack's prefix,
# installed with TOOL (and --remote URL; the NAME=VALUEs in install's environment).
install_prefix() {
  local d=$1 tool=$2 url=${3:-} remote=()
  shift 2; [ $# -gt 0 ] && shift
  [ -n "$url" ] && remote=(--remote "$url")
  mkdir -p "$d" && cp -a "$PRISTINE" "$d/rocm" || fail "cannot copy the prefix to $d"
  env "$@" "$SHIMCTL" install "$d/rocm" --cache "$tool" --cache-dir "$d/cache" "${remote[@]}" --no-verify \
    >>"$d/install.log" 2>&1 || fail "shimctl install $d/rocm --cache $tool failed: $(tail -5 "$d/install.log")"
  INSTALLED+=("$d/rocm")
}

rollback_all() {
  local p
  for p in "${INSTALLED[@]}"; do "$SHIMCTL" rollback "$p" >>"$W/rollback.log" 2>&1; done
  INSTALLED=()
}

# sc_json PREFIX: its sccache server's statistics (JSON) on stdout.
sc_json() {
  local server
  server=$("$SHIMCTL" status --json "$1" | python3 -c \
    'import json, sys; print(json.load(sys.stdin)["cache"].get("server", {}).get("environment", ""))')
  [ -n "$server" ] || { fail "status --json names no sccache server for $1"; return 1; }
  env "$server" sccache --show-stats --stats-format json
}
# sc_hits_misses JSON-FILE: "HITS MISSES READ-MS PREPROCESSOR-CACHE-MODE" of a statistics
# snapshot: hits and misses of every language, the server's cache_read_hit_duration (the time
# its store reads of hits took, summed), and whether it uses the preprocessor cache mode.
sc_hits_misses() {
  python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); s = j["stats"]; d = s.get("cache_read_hit_duration") or {}
print(sum(s["cache_hits"]["counts"].values()), sum(s["cache_misses"]["counts"].values()),
      "%.3f" % (d.get("secs", 0) * 1e3 + d.get("nanos", 0) / 1e6), str(j.get("use_preprocessor_cache_mode", "?")).lower())' "$1"
}

# statslog_counts FILE: "COMPILES LOCAL-HITS REMOTE-HITS MISSES" from ccache's stats_log.
statslog_counts() {
  awk '/^#/ { n++ } $1 == "local_storage_hit" { l++ } $1 == "remote_storage_hit" { r++ }
    $1 == "cache_miss" { m++ } END { printf "%d %d %d %d\n", n, l, r, m }' "$1" 2>/dev/null || echo "0 0 0 0"
}

# words ARG...: ARGs as one command line for hyperfine -N (shell words, no shell runs).
words() { printf '%q ' "$@"; }

# rounds ID NAME PREPARE COMMAND [NAME PREPARE COMMAND]...: the paired rounds, each one hyperfine
# invocation of every command (COMMAND and PREPARE: words), the order rotated per round; the
# JSON in W/ID/json/rN.json.
rounds() {
  local id=$1 r i j n names=() preps=() cmds=() args
  shift
  while [ $# -ge 3 ]; do names+=("$1") preps+=("$2") cmds+=("$3"); shift 3; done
  n=${#names[@]}
  mkdir -p "$W/$id/json"
  for ((r = 1; r <= ROUNDS; r++)); do
    args=()
    for ((i = 0; i < n; i++)); do
      j=$(((i + r - 1) % n))
      args+=(-n "${names[j]}" --prepare "${preps[j]}" "${cmds[j]}")
    done
    (cd "$SRC" && "$HF" -N --style basic --runs "$RUNS" --warmup 1 --export-json "$W/$id/json/r$r.json" \
      "${args[@]}") >>"$W/$id/hyperfine.log" 2>&1 || fail "hyperfine failed (round $r of $id): see $W/$id/hyperfine.log"
  done
}

# ---- one store ------------------------------------------------------------------------------
# start_store KIND: the server (lib-stores.bash) and STORE_URL, STORE_ENV (install's environment).
start_store() {
  STORE_ENV=()
  case $1 in
    redis) start_redis_store && STORE_URL=redis://127.0.0.1:$STORE_PORT ;;
    redis-pw) start_redis_store --password bench-store-pw && STORE_URL=redis://bench-store-pw@127.0.0.1:$STORE_PORT ;;
    shards) start_redis_shards 3 && STORE_URL="redis://*|shards=$(printf '127.0.0.1:%s,' "${SHARD_PORTS[@]}")" &&
      STORE_URL=${STORE_URL%,} ;;
    cluster) start_redis_cluster 3 && STORE_URL="redis://127.0.0.1:${CLUSTER_PORTS[0]}|cluster" ;;
    webdav) start_webdav && STORE_URL=$WEBDAV_BASE/cache ;;
    s3) start_s3 shimbench && STORE_URL="s3://shimbench/bench|endpoint=$S3_ENDPOINT|region=us-east-1" &&
      STORE_ENV=("AWS_ACCESS_KEY_ID=$S3_KEY_ID" "AWS_SECRET_ACCESS_KEY=$S3_SECRET") ;;
    *) fail "unknown store $1" ;;
  esac
}

# store_ccache KIND: ccache's local hit against its remote hit from store KIND.
store_ccache() {
  local id=ccache-$1 d=$W/ccache-$1
  TEST_DIR=$d/servers; mkdir -p "$TEST_DIR"
  start_store "$1" || return 1
  install_prefix "$d" ccache "$STORE_URL" "${STORE_ENV[@]}" || return 1
  local p=$d/rocm warm=(CCACHE_DIR="$d/warm") c
  compile_with "$d" "$p" "${warm[@]}" # a miss: local and remote written
  compile_with "$d" "$p" "${warm[@]}" CCACHE_STATSLOG="$d/check.statslog"
  compile_with "$d" "$p" CCACHE_DIR="$d/probe" CCACHE_STATSLOG="$d/check.statslog"
  read -r -a c < <(statslog_counts "$d/check.statslog")
  [ "${c[1]}" -ge 1 ] && [ "${c[2]}" -ge 1 ] && [ "${c[3]}" = 0 ] ||
    fail "$id: before the rounds, expected a local hit and a remote hit (stats_log: ${c[*]}): $d/check.statslog"
  # remote: an empty CCACHE_DIR; remote-inode: the same with ccache's inode cache (kept in the
  # cache dir: a fresh dir re-hashes every header the manifest lists) copied from the warm one
  # ccache puts no header whose ctime is a moment old into the inode cache, and the prefix is a
  # fresh copy: one more warm compile once it is old enough
  sleep 2
  compile_with "$d" "$p" "${warm[@]}"
  local ino; ino=$(cd "$d/warm" && ls tmp/inode-cache-* 2>/dev/null | head -1)
  [ -n "$ino" ] || echo "bench-stores: $id: no inode cache in $d/warm/tmp: no remote-inode side" >&2
  rounds "$id" \
    local true "$(words env "${warm[@]}" CCACHE_STATSLOG="$d/local.statslog" "$p/$CLANG" "${COMPILE[@]}")" \
    remote "$(words rm -rf "$d/fresh")" \
    "$(words env CCACHE_DIR="$d/fresh" CCACHE_STATSLOG="$d/remote.statslog" "$p/$CLANG" "${COMPILE[@]}")" \
    ${ino:+remote-inode} ${ino:+"$(words sh -c 'rm -rf "$1" && mkdir -p "$1/tmp" && cp "$2" "$1/tmp/"' _ "$d/fresh2" "$d/warm/$ino")"} \
    ${ino:+"$(words env CCACHE_DIR="$d/fresh2" CCACHE_STATSLOG="$d/remote-inode.statslog" "$p/$CLANG" "${COMPILE[@]}")"}
  # COMPILES LOCAL-HITS REMOTE-HITS MISSES of each side's runs (warm-ups included)
  local side
  for side in local remote remote-inode; do
    [ ! -f "$d/$side.statslog" ] || printf '%s\t%s\t%s\n' "$id" "$side" "$(statslog_counts "$d/$side.statslog")" >>"$W/counts.tsv"
  done
}

# store_sccache KIND: sccache's local disk cache (W/sccache-local) against store KIND.
store_sccache() {
  local id=sccache-$1 d=$W/sccache-$1 l=$W/sccache-local
  TEST_DIR=$d/servers; mkdir -p "$TEST_DIR"
  start_store "$1" || return 1
  install_prefix "$d" sccache "$STORE_URL" "${STORE_ENV[@]}" || return 1
  local p=$d/rocm
  compile_with "$d" "$p" # a miss: written to the store
  sc_json "$p" >"$d/stats0.json" || return 1
  compile_with "$d" "$p"
  sc_json "$p" >"$d/stats1.json" && sc_json "$l/rocm" >"$d/local0.json" || return 1
  local h0 m0 h1 m1
  read -r h0 m0 _ < <(sc_hits_misses "$d/stats0.json"); read -r h1 m1 _ < <(sc_hits_misses "$d/stats1.json")
  [ $((h1 - h0)) = 1 ] && [ "$m1" = "$m0" ] || fail "$id: the compile before the rounds was no hit from the store"
  local fresh_port fresh_env
  fresh_port=$(free_port)
  fresh_env=(SCCACHE_DIR="$d/fresh" SCCACHE_SERVER_PORT="$fresh_port")
  rounds "$id" local true "$(words "$l/rocm/$CLANG" "${COMPILE[@]}")" remote true "$(words "$p/$CLANG" "${COMPILE[@]}")" \
    fresh "$(words sh -c 'env SCCACHE_SERVER_PORT="$1" sccache --stop-server >/dev/null 2>&1; rm -rf "$2"' _ "$fresh_port" "$d/fresh")" \
    "$(words env "${fresh_env[@]}" "$p/$CLANG" "${COMPILE[@]}")"
  env SCCACHE_SERVER_PORT="$fresh_port" sccache --stop-server >/dev/null 2>&1
  sc_json "$p" >"$d/stats2.json" && sc_json "$l/rocm" >"$d/local1.json" || return 1
  local lh0 lm0 lr0 lh1 lm1 lr1 lpp h2 m2 r1 r2 pp
  read -r lh0 lm0 lr0 _ < <(sc_hits_misses "$d/local0.json"); read -r lh1 lm1 lr1 lpp < <(sc_hits_misses "$d/local1.json")
  read -r _ _ r1 _ < <(sc_hits_misses "$d/stats1.json"); read -r h2 m2 r2 pp < <(sc_hits_misses "$d/stats2.json")
  # COMPILES LOCAL-HITS REMOTE-HITS MISSES, as for ccache (the local server's hits are local), then
  # the store reads' ms per hit and the preprocessor cache mode
  printf '%s\tlocal\t%s\t%s\t%s\n' "$id" "$((lh1 - lh0 + lm1 - lm0)) $((lh1 - lh0)) 0 $((lm1 - lm0))" \
    "$(python3 -c 'import sys; h = int(sys.argv[1]); print("%.2f" % ((float(sys.argv[3]) - float(sys.argv[2])) / h) if h else "-")' \
      $((lh1 - lh0)) "$lr0" "$lr1")" "$lpp" >>"$W/counts.tsv"
  printf '%s\tremote\t%s\t%s\t%s\n' "$id" "$((h2 - h1 + m2 - m1)) 0 $((h2 - h1)) $((m2 - m1))" \
    "$(python3 -c 'import sys; h = int(sys.argv[1]); print("%.2f" % ((float(sys.argv[3]) - float(sys.argv[2])) / h) if h else "-")' \
      $((h2 - h1)) "$r1" "$r2")" "$pp" >>"$W/counts.tsv"
}

# one_store TOOL KIND: in a subshell (a failure ends that store only); its servers and
# its prefix's sccache server stopped at the end.
one_store() {
  local id=$1-$2 start rc
  [ -z "${BENCH_STORES_ONLY:-}" ] || [[ " $BENCH_STORES_ONLY " == *" $id "* ]] || return 0
  say "$id"
  start=$(date +%s%N)
  (
    INSTALLED=() # this store's prefix only (the local sccache prefix is the stack's)
    trap 'rollback_all; stores_cleanup' EXIT
    "store_$1" "$2"
  ) 2>>"$W/errors.log"
  rc=$?
  printf '%s\t%s\t%s\t%s\n' "$id" "$1" "$2" "$([ $rc = 0 ] && echo ok || echo failed)" >>"$W/stores.tsv"
  [ $rc = 0 ] || say "$id failed: $(grep -m1 '^FAILED' "$W/errors.log" | tail -1)"
  say "$id: $(elapsed_since "$start") s"
}

uncached() {
  mkdir -p "$W/uncached/json"
  (cd "$SRC" && "$HF" -N --style basic --runs "$(((RUNS + 1) / 2 > 2 ? (RUNS + 1) / 2 : 2))" --warmup 1 \
    --export-json "$W/uncached/json/r1.json" -n uncached "$(printf '%q ' "$PRISTINE/$CLANG" "${COMPILE[@]}")") \
    >>"$W/uncached/hyperfine.log" 2>&1 || echo "bench-stores: the uncached compile failed" >&2
}

# ---- the fleet ------------------------------------------------------------------------------
# fleet TOOL KIND: lib-fleet's fleet_test; W/fleet.tsv gets "TOOL KIND MACHINE HITS COMPILES
# WRITES" per machine and "TOOL KIND - result ok|failed" (its checks: hit rates, objects).
fleet() {
  local rc m start
  [ -z "${BENCH_STORES_ONLY:-}" ] || [[ " $BENCH_STORES_ONLY " == *" fleet-$1-$2 "* ]] || return 0
  say "fleet $1 $2 ($FLEET_UNITS units)"
  start=$(date +%s%N)
  TEST_DIR=$W/fleet-$1-$2
  mkdir -p "$TEST_DIR"
  (cd "$TEST_DIR" && CURRENT_TEST="fleet $1 $2" && fleet_test "$1" "$2") >>"$W/fleet.log" 2>&1
  rc=$?
  for m in m1 m2 m3 m4 m5 m6; do
    printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$m" "$(fleet_stats "$TEST_DIR/$m" | tr ' ' '\t')" \
      "$(cat "$TEST_DIR/$m/units" 2>/dev/null || echo "$FLEET_UNITS")" >>"$W/fleet.tsv"
  done
  printf '%s\t%s\tresult\t%s\t%s\n' "$1" "$2" "$([ $rc = 0 ] && echo ok || echo failed)" "$(elapsed_since "$start")" \
    >>"$W/fleet.tsv"
  say "fleet $1 $2: $([ $rc = 0 ] && echo "its checks passed" || echo "a check failed: $W/fleet.log"), $(elapsed_since "$start") s"
  rm -rf "$TEST_DIR"/m?/rocm # a prefix copy per machine: not kept
}

main() {
  trap 'rollback_all; rm -rf "$SUITE_TMP"' EXIT
  : >"$W/stores.tsv"; : >"$W/counts.tsv"; : >"$W/fleet.tsv"
  setup_stack
  uncached
  if [ "$STACK" = debian12 ]; then
    for k in redis redis-pw shards webdav; do one_store ccache "$k"; done
  else
    for k in redis webdav; do one_store ccache "$k"; done
    # the local side of every sccache store: one prefix, one warm server
    if (install_prefix "$W/sccache-local" sccache && compile_with "$W/sccache-local" "$W/sccache-local/rocm" &&
      compile_with "$W/sccache-local" "$W/sccache-local/rocm") 2>>"$W/errors.log"; then
      INSTALLED+=("$W/sccache-local/rocm")
      for k in redis webdav s3 cluster; do one_store sccache "$k"; done
    else
      say "the local sccache prefix failed: $(grep -m1 '^FAILED' "$W/errors.log")"
      INSTALLED+=("$W/sccache-local/rocm")
    fi
    rollback_all
  fi
  if [ "$FLEET_N" -gt 0 ]; then
    FLEET_UNITS=$FLEET_N
    FLEET_M5_UNITS=$(((FLEET_N + 1) / 2))
    local t k
    for t in ccache sccache; do
      [ "$t" = sccache ] && [ "$STACK" = debian12 ] && continue # 0.4: no remote
      for k in ${BENCH_STORES_FLEET_STORES:-redis shards webdav s3}; do
        [ "$t:$k" = ccache:s3 ] || [ "$t:$k" = sccache:shards ] && continue # refused by install
        fleet "$t" "$k"
      done
    done
  fi
  say "done"
}
main
