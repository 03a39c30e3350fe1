# A fleet of machines on one team store (issue 24 item 5), for suites/fleet.bash (Debian 12:
# ccache 4.7.5, hipcc/clang-15) and suites/sid_fleet.bash (ccache 4.14.2, sccache 0.17, hipcc
# 7.0.2/clang-21). Source it after lib.bash (and lib-stores.bash for the store starters).
#
# A "machine" is a private mount namespace (unshare --mount --propagation private) in which its
# own copy of the toolchain is bind-mounted at the same path as everyone's ($FLEET_PREFIX,
# /opt/fleet/rocm) and its own build directory at $FLEET_BUILD (/opt/fleet/build: the -o names,
# which HIP objects embed, are the same on every machine), with its own HOME and so its own local
# cache (ccache's ~/.cache/ccache; sccache's server on a socket under ~/.cache/shimctl-run, with
# its disk cache in ~/.cache). Inside it the machine runs `shimctl install $FLEET_PREFIX
# --no-verify --remote URL [--cache sccache]` as a real fleet would, then compiles the generated
# HIP project (scripts/gen-hip-project, FLEET_UNITS units) with the prefix's hipcc, two at a time,
# and records its cache tool's statistics. Only the store is shared.
#
# fleet_test TOOL STORE runs one combination (fleet_store starts the store, fleet_run the fleet):
#   m1           fills the store (all misses);
#   m2, m3, m4   the fleet, at the same time: each >= 95 % remote hits, every object
#                byte-identical to a fresh compile of the same name by the real compiler;
#   m5           at the same time as m2..m4, a toolchain that differs in one device library
#                (FLEET_SWAP's _on.bc and _off.bc swapped in its copy: every fresh object it
#                makes changes, checked once per suite), compiling the first FLEET_M5_UNITS
#                units: 0 hits, objects equal to its own toolchain's fresh compiles, its entries
#                written to the store;
#   m6           after m5, the original toolchain with an empty local cache: >= 95 % hits and only
#                objects identical to the reference (m5's entries are never served to it).
# It prints one line per machine (hits/compiles, wall time) and one per combination: the figures
# for the closing note, also appended to $FLEET_FIGURES (default $BUILD_DIR/fleet-figures.txt:
# ctest shows a passing suite's output only with -V). The reference objects (the original toolchain's and m5's, each unit
# compiled once by the uninstalled prefix with the -cuid= the shim would pass) are made once per
# suite.

FLEET_ROOT=/opt/fleet
FLEET_PREFIX=$FLEET_ROOT/rocm
FLEET_BUILD=$FLEET_ROOT/build
FLEET_SRC=$FLEET_ROOT/src
FLEET_UNITS=${FLEET_UNITS:-6}
# m5 (and its references) compiles the first FLEET_M5_UNITS units only: each is a miss, the most
# expensive part of a combination, and half the project shows "0 hits" as well as all of it.
FLEET_M5_UNITS=${FLEET_M5_UNITS:-4}
FLEET_LIB=${BASH_SOURCE[0]}
FLEET_FIGURES=${FLEET_FIGURES:-${BUILD_DIR:-/tmp}/fleet-figures.txt}
# The device-library pair m5 swaps: on clang-15 and clang-21 alike a swap changes the objects of
# every unit (sqrtf/sinf through ocml). Not every pair does: oclc_unsafe_math_* and
# oclc_wavefrontsize64_* differ in bytes, yet swapping either leaves a gfx90a object of this
# project unchanged (measured with clang-15), so a byte change alone proves nothing.
FLEET_SWAP=oclc_finite_only

# ---- inside a machine (a fresh bash in its own mount namespace) ----------------------------

# fleet_machine_main DIR MODE: the machine whose files are DIR (rocm, build, home) runs MODE:
# "reference" compiles every unit with the uninstalled prefix (the real compiler, the shim's
# -cuid=); "install" installs with FLEET_TOOL/FLEET_URL/FLEET_INSTALL_ENV, compiles through the
# shim and writes the tool's statistics to DIR/stats. DIR/log has what went wrong.
fleet_machine_main() {
  local dir=$1 mode=$2 unit start
  set -u
  exec >>"$dir/log" 2>&1
  source "$SRC_DIR/scripts/lib/cuid.bash" # shim_cuid
  mount --bind "$dir/rocm" "$FLEET_PREFIX" && mount --bind "$dir/build" "$FLEET_BUILD" ||
    { echo "cannot bind the machine's prefix and build directory"; return 1; }
  export HOME=$dir/home
  unset XDG_CACHE_HOME XDG_RUNTIME_DIR XDG_CONFIG_HOME
  mkdir -p "$FLEET_BUILD/include"
  printf '#pragma once\n#define BENCH_BLOCK 256\n' >"$FLEET_BUILD/include/bench_config.h"
  if [ "$mode" = install ]; then
    start=$(date +%s%N)
    # shellcheck disable=SC2086 # FLEET_INSTALL_ENV: NAME=VALUE words
    env ${FLEET_INSTALL_ENV:-} "$SHIMCTL" install "$FLEET_PREFIX" --no-verify --remote "$FLEET_URL" \
      --cache "$FLEET_TOOL" || { echo "install failed"; return 1; }
    fleet_seconds_since "$start" >"$dir/install.seconds"
    "$SHIMCTL" status --json "$FLEET_PREFIX" >"$dir/status.json" || { echo "status failed"; return 1; }
    # shellcheck disable=SC2086 # FLEET_COMPILE_ENV: NAME=VALUE words (fleet_control's)
    [ -z "${FLEET_COMPILE_ENV:-}" ] || export ${FLEET_COMPILE_ENV?}
  fi
  start=$(date +%s%N)
  # shellcheck disable=SC2016 # expanded by the child bash
  for ((unit = 0; unit < $(cat "$dir/units"); unit++)); do printf 'unit_%03d\n' "$unit"; done |
    xargs -P 2 -I UNIT "$BASH" -c 'source "$1"; source "$2"; fleet_compile "$3" "$4"' _ \
      "$SRC_DIR/scripts/lib/cuid.bash" "$FLEET_LIB" UNIT "$mode" ||
    { echo "a compile failed"; fleet_machine_stats "$dir" "$mode"; return 1; }
  fleet_seconds_since "$start" >"$dir/compile.seconds"
  fleet_machine_stats "$dir" "$mode"
}

# fleet_seconds_since NANOSECONDS: seconds since then, one decimal (lib.bash's elapsed_since).
fleet_seconds_since() {
  local ns=$(($(date +%s%N) - $1))
  printf '%d.%d\n' $((ns / 1000000000)) $((ns / 100000000 % 10))
}

# fleet_compile UNIT MODE: compiles src/UNIT.hip to UNIT.o in the build directory.
fleet_compile() {
  local unit=$1 src=$FLEET_SRC/src/$1.hip cuid=()
  [ "$2" = reference ] && cuid=(-cuid="$(shim_cuid "$src" "$unit.o")")
  cd "$FLEET_BUILD" && "$FLEET_PREFIX/bin/hipcc" -x hip --offload-arch=gfx90a -I"$FLEET_BUILD/include" \
    -I"$FLEET_SRC/include" "${cuid[@]}" -c "$src" -o "$unit.o" || { echo "compile of $unit failed"; return 1; }
}

# fleet_machine_stats DIR MODE: DIR/stats = "HITS COMPILES WRITES": the tool's own counts (ccache:
# remote_storage_hit, hits + misses, remote_storage_write; sccache: its server's hits, hits +
# misses, and - for writes; with a remote its only store is the remote, named in DIR/location);
# its server is stopped.
fleet_machine_stats() {
  local dir=$1 server
  [ "$2" = install ] || return 0
  case $FLEET_TOOL in
    ccache)
      CCACHE_DIR=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cache"]["location"])' \
        "$dir/status.json") ccache --print-stats >"$dir/ccache-stats" || return 1
      awk '{ v[$1] = $2 } END { printf "%d %d %d\n", v["remote_storage_hit"],
        v["direct_cache_hit"] + v["preprocessed_cache_hit"] + v["cache_miss"], v["remote_storage_write"] }' \
        "$dir/ccache-stats" >"$dir/stats" ;;
    sccache)
      server=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cache"]["server"]["environment"])' \
        "$dir/status.json") || return 1
      env "$server" sccache --show-stats --stats-format json >"$dir/sccache-stats.json" || return 1
      env "$server" sccache --stop-server >/dev/null 2>&1
      python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
hits = sum(s["cache_hits"]["counts"].values()); misses = sum(s["cache_misses"]["counts"].values())
print(hits, hits + misses, "-")' "$dir/sccache-stats.json" >"$dir/stats" &&
      python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cache_location"])' \
        "$dir/sccache-stats.json" >"$dir/location" ;;
  esac
}

# ---- the test's side -------------------------------------------------------------------------

# fleet_suite_setup: inside private_mounts: a tmpfs on /opt with $FLEET_ROOT/{rocm,build} (the
# mount points) and $FLEET_SRC (the project, shared by every machine, as identical checkouts at
# the same path would be); FLEET_PRISTINE = the stack's fixture prefix. Once per suite.
fleet_suite_setup() {
  [ -d "$FLEET_SRC" ] && return 0
  [ "${SHIMCTL_TEST_PRIVATE_NS:-}" = 1 ] || { fail "fleet_suite_setup outside private_mounts"; return 1; }
  mount -t tmpfs -o mode=755 shimctl-test-fleet /opt || { fail "cannot mount a tmpfs on /opt"; return 1; }
  mkdir -p "$FLEET_PREFIX" "$FLEET_BUILD" || { fail "cannot make $FLEET_ROOT"; return 1; }
  # gen-hip-project makes 4 units at least; a machine compiles the first FLEET_UNITS of them.
  "$SCRIPTS/gen-hip-project" "$FLEET_SRC" $((FLEET_UNITS < 4 ? 4 : FLEET_UNITS)) >/dev/null ||
    { fail "gen-hip-project failed"; return 1; }
}

fleet_pristine() {
  if [ "${STACK:-debian12}" = sid ]; then rocm_prefix sid; else rocm_prefix 15; fi
}

# fleet_new_machine DIR [swap]: DIR/{rocm,build,home}, rocm a copy of the fixture prefix; with
# "swap", FLEET_SWAP's _on and _off device libraries traded places in the copy. DIR/units: how
# many units it compiles (FLEET_UNITS; with swap FLEET_M5_UNITS).
fleet_new_machine() {
  local dir=$1 pristine lib
  pristine=$(fleet_pristine) || { fail "cannot build the fixture prefix (scripts/make-rocm-prefix)"; return 1; }
  mkdir -p "$dir/build" "$dir/home" && cp -a "$pristine" "$dir/rocm" || { fail "cannot copy the prefix to $dir"; return 1; }
  : >"$dir/log"
  echo "$FLEET_UNITS" >"$dir/units"
  [ "${2:-}" = swap ] || return 0
  echo "$FLEET_M5_UNITS" >"$dir/units"
  lib=$(find "$dir/rocm" -name "${FLEET_SWAP}_on.bc" -type f)
  [ -n "$lib" ] && [ "$(wc -l <<<"$lib")" = 1 ] && [ -f "${lib%_on.bc}_off.bc" ] ||
    { fail "no single regular ${FLEET_SWAP}_on.bc beside an _off.bc in the prefix: '$lib'"; return 1; }
  cmp -s "$lib" "${lib%_on.bc}_off.bc" && { fail "${FLEET_SWAP}_on.bc and _off.bc are identical: no change"; return 1; }
  mv "$lib" "$lib.swap" && mv "${lib%_on.bc}_off.bc" "$lib" && mv "$lib.swap" "${lib%_on.bc}_off.bc" ||
    fail "cannot swap the ${FLEET_SWAP} libraries"
}

# fleet_machine DIR MODE: runs machine DIR (fleet_machine_main) in its own mount namespace.
# shellcheck disable=SC2016 # expanded by the machine's bash
fleet_machine() {
  FLEET_TOOL=${FLEET_TOOL:-} FLEET_URL=${FLEET_URL:-} FLEET_INSTALL_ENV=${FLEET_INSTALL_ENV:-} \
    FLEET_COMPILE_ENV=${FLEET_COMPILE_ENV:-} \
    SHIMCTL=$SHIMCTL SRC_DIR=$SRC_DIR FLEET_UNITS=$FLEET_UNITS \
    unshare --mount --propagation private "$BASH" -c 'source "$1"; fleet_machine_main "$2" "$3"' \
    _ "$FLEET_LIB" "$1" "$2"
}

# fleet_references: FLEET_REF (the original toolchain's objects) and FLEET_REF_SWAP (m5's), each
# unit compiled once per suite by the uninstalled prefix; every unit's two objects differ.
fleet_references() {
  FLEET_REF=$SUITE_TMP/fleet-ref FLEET_REF_SWAP=$SUITE_TMP/fleet-ref-swap
  [ -f "$SUITE_TMP/fleet-ref.ok" ] && return 0
  fleet_suite_setup || return 1
  rm -rf "$FLEET_REF" "$FLEET_REF_SWAP"
  fleet_new_machine "$FLEET_REF" && fleet_new_machine "$FLEET_REF_SWAP" swap || return 1
  local start unit o; start=$(date +%s%N)
  fleet_machine "$FLEET_REF" reference & fleet_machine "$FLEET_REF_SWAP" reference
  local rc=$?; wait $! || rc=1
  [ $rc -eq 0 ] || { fail "reference compiles failed:"$'\n'"$(cat "$FLEET_REF/log" "$FLEET_REF_SWAP/log")"; return 1; }
  for ((unit = 0; unit < FLEET_M5_UNITS; unit++)); do
    o=$(printf 'unit_%03d.o' "$unit")
    [ -s "$FLEET_REF/build/$o" ] && [ -s "$FLEET_REF_SWAP/build/$o" ] || { fail "no reference $o"; return 1; }
    cmp -s "$FLEET_REF/build/$o" "$FLEET_REF_SWAP/build/$o" &&
      { fail "swapping ${FLEET_SWAP}_on/_off leaves $o unchanged: pick a device library the kernels use"; return 1; }
  done
  fleet_say "${suite:-fleet}: reference objects ($FLEET_UNITS + $FLEET_M5_UNITS units, two toolchains at once): $(elapsed_since "$start") s"
  touch "$SUITE_TMP/fleet-ref.ok"
}

# fleet_expect_objects DIR REF: every unit's object in DIR/build is byte-identical to REF/build's.
fleet_expect_objects() {
  local unit o bad=""
  for ((unit = 0; unit < $(cat "$1/units"); unit++)); do
    o=$(printf 'unit_%03d.o' "$unit")
    cmp -s "$1/build/$o" "$2/build/$o" || bad="$bad $o"
  done
  [ -z "$bad" ] || fail "${1##*/}: objects differ from a fresh compile of the same name (${2##*/}):$bad"
}

# fleet_stats DIR: "HITS COMPILES WRITES" of machine DIR.
fleet_stats() { cat "$1/stats" 2>/dev/null || echo "? ? ?"; }

# fleet_expect_hit_rate DIR MIN-PERCENT [MAX-PERCENT]: machine DIR compiled every unit through its
# cache tool, with a remote hit rate within the bounds.
fleet_expect_hit_rate() {
  local hits compiles
  read -r hits compiles _ < <(fleet_stats "$1")
  expect_eq "$(cat "$1/units")" "$compiles" "${1##*/}: compiles its cache tool counted" || return 1
  [ $((hits * 100)) -ge $(($2 * compiles)) ] && [ $((hits * 100)) -le $((${3:-100} * compiles)) ] ||
    fail "${1##*/}: $hits remote hits of $compiles compiles: outside $2..${3:-100} %"
}

# fleet_line DIR: "NAME HITS/COMPILES (RATE %) install I s, compiles C s" for the figures.
fleet_line() {
  local hits compiles
  read -r hits compiles _ < <(fleet_stats "$1")
  printf '%s %s/%s hits (%s %%), install %s s, compiles %s s' "${1##*/}" "$hits" "$compiles" \
    "$( [ "$compiles" -gt 0 ] 2>/dev/null && echo $((hits * 100 / compiles)) || echo '?')" \
    "$(cat "$1/install.seconds" 2>/dev/null || echo '?')" "$(cat "$1/compile.seconds" 2>/dev/null || echo '?')"
}

# fleet_say LINE: LINE on stdout (indented) and, dated, in $FLEET_FIGURES.
fleet_say() {
  echo "    $1"
  echo "$(date -u +%FT%TZ) $1" >>"$FLEET_FIGURES" 2>/dev/null || true
}

# fleet_run TOOL STORE-NAME COUNT-FUNCTION: one combination on the store already started at
# FLEET_URL (FLEET_INSTALL_ENV: install's extra environment, e.g. S3 keys); COUNT-FUNCTION prints
# how many entries the store holds.
fleet_run() {
  local tool=$1 store=$2 count=$3 start phase m w rc=0 pids=() before after1 after2 after3
  FLEET_TOOL=$tool
  fleet_references || return 1
  start=$(date +%s%N)
  for m in m1 m2 m3 m4 m6; do fleet_new_machine "$TEST_DIR/$m" || return 1; done
  fleet_new_machine "$TEST_DIR/m5" swap || return 1
  before=$($count)

  phase=$(date +%s%N)
  fleet_machine "$TEST_DIR/m1" install || fail "machine m1 failed:"$'\n'"$(cat "$TEST_DIR/m1/log")"
  local t1; t1=$(elapsed_since "$phase")
  after1=$($count)
  [ "$after1" -gt "$before" ] || fail "m1 stored nothing in the $store store ($before entries before, $after1 after)"

  phase=$(date +%s%N)
  for m in m2 m3 m4 m5; do fleet_machine "$TEST_DIR/$m" install & pids+=($!); done
  for m in "${pids[@]}"; do wait "$m" || rc=1; done
  local t2; t2=$(elapsed_since "$phase")
  [ $rc -eq 0 ] || fail "a machine of m2..m5 failed:"$'\n'"$(for m in m2 m3 m4 m5; do echo "--- $m"; cat "$TEST_DIR/$m/log"; done)"
  after2=$($count)

  phase=$(date +%s%N)
  fleet_machine "$TEST_DIR/m6" install || fail "machine m6 failed:"$'\n'"$(cat "$TEST_DIR/m6/log")"
  local t3; t3=$(elapsed_since "$phase")
  after3=$($count)

  fleet_say "${suite:-fleet} $tool/$store: $FLEET_UNITS units (m5: $FLEET_M5_UNITS); store entries $before -> m1 $after1 -> m2..m5 $after2 -> m6 $after3"
  for m in m1 m2 m3 m4 m5 m6; do fleet_say "  $(fleet_line "$TEST_DIR/$m")"; done
  [ ! -f "$TEST_DIR/m1/location" ] || fleet_say "  sccache's store (m1's server): $(cat "$TEST_DIR/m1/location")"
  fleet_say "${suite:-fleet} $tool/$store: wall m1 $t1 s, m2..m5 at once $t2 s, m6 $t3 s; combination $(elapsed_since "$start") s"

  fleet_expect_hit_rate "$TEST_DIR/m1" 0 0
  fleet_expect_objects "$TEST_DIR/m1" "$FLEET_REF"
  for m in m2 m3 m4 m6; do
    fleet_expect_hit_rate "$TEST_DIR/$m" 95
    fleet_expect_objects "$TEST_DIR/$m" "$FLEET_REF"
  done
  # m5's toolchain differs: no hit from the others, its own toolchain's objects, its entries stored.
  fleet_expect_hit_rate "$TEST_DIR/m5" 0 0
  fleet_expect_objects "$TEST_DIR/m5" "$FLEET_REF_SWAP"
  # The store's entries per compile, from m1 (ccache: a manifest and a result; sccache: one, and
  # one .sccache_check key in Redis, which the division drops): m5 added exactly its own
  # misses' entries, m2..m4 (at the same time) and m6 none.
  local per=$(((after1 - before) / FLEET_UNITS))
  [ "$per" -ge 1 ] || fail "m1 stored $((after1 - before)) entries for $FLEET_UNITS compiles in the $store store"
  expect_eq $((per * FLEET_M5_UNITS)) $((after2 - after1)) "$store store entries added by m2..m5 (m5's $FLEET_M5_UNITS misses, $per each)"
  expect_eq "$after2" "$after3" "$store store entries after m6 (hits only)"
  # Each machine's credential went to its secrets file only: no install output, log or status shows it.
  if [ -n "${FLEET_SECRET:-}" ]; then
    local shown
    shown=$(grep -rlF -- "$FLEET_SECRET" "$TEST_DIR"/m?/log "$TEST_DIR"/m?/status.json "$TEST_DIR"/m?/*stats* 2>/dev/null)
    [ -z "$shown" ] || fail "the $store store's credential is shown in: $shown"
  fi
  if [ "$tool" = sccache ]; then
    for m in m1 m2 m3 m4 m5 m6; do
      case $(cat "$TEST_DIR/$m/location") in
        "Local disk"*) fail "$m's sccache server used its local disk, not the $store store" ;;
      esac
    done
  fi
  if [ "$tool" = ccache ]; then
    for m in m2 m3 m4 m6; do
      read -r _ _ w < <(fleet_stats "$TEST_DIR/$m")
      expect_eq 0 "$w" "$m's remote writes"
    done
  fi
}

# ---- the stores (lib-stores.bash's servers) ------------------------------------------------

# fleet_store NAME: starts store NAME for the test (stopped by stores_cleanup): FLEET_URL (the
# --remote every machine installs with), FLEET_INSTALL_ENV, FLEET_COUNT (a function printing
# the store's entries), FLEET_SECRET (its credential, "" for none). NAME: redis (requirepass),
# shards (3 redis-servers without a password, ccache's |shards=), webdav (nginx, auth_basic),
# s3 (s3rver, bucket shimfleet, prefix fleet; s3rver takes its own key S3RVER only).
fleet_store() {
  trap stores_cleanup EXIT
  FLEET_INSTALL_ENV="" FLEET_SECRET=""
  case $1 in
    redis)
      FLEET_SECRET=fleet-redis-$RANDOM$RANDOM
      start_redis_store --password "$FLEET_SECRET" || return 1
      FLEET_URL=redis://$FLEET_SECRET@127.0.0.1:$STORE_PORT FLEET_COUNT=fleet_count_redis ;;
    shards)
      start_redis_shards 3 || return 1
      FLEET_URL="redis://*|shards=$(printf '127.0.0.1:%s,' "${SHARD_PORTS[@]}")"
      FLEET_URL=${FLEET_URL%,} FLEET_COUNT=fleet_count_shards ;;
    webdav)
      FLEET_SECRET=fleet-dav-$RANDOM$RANDOM
      start_webdav --auth "fleet:$FLEET_SECRET" || return 1
      FLEET_URL=${WEBDAV_BASE/:\/\//://fleet:$FLEET_SECRET@}/cache FLEET_COUNT=fleet_count_webdav ;;
    s3)
      start_s3 shimfleet || return 1
      FLEET_URL="s3://shimfleet/fleet|endpoint=$S3_ENDPOINT|region=us-east-1" FLEET_COUNT=fleet_count_s3
      FLEET_INSTALL_ENV="AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER" ;;
    *) fail "fleet_store: unknown store $1"; return 1 ;;
  esac
}
fleet_count_redis() { redis_keys "$STORE_PORT" "$FLEET_SECRET"; }
fleet_count_shards() {
  local p sum=0 k
  for p in "${SHARD_PORTS[@]}"; do k=$(redis_keys "$p") && sum=$((sum + k)); done
  echo "$sum"
}
fleet_count_webdav() { webdav_files "$WEBDAV_DIR/cache"; }
fleet_count_s3() { s3_objects shimfleet fleet; }

# fleet_test TOOL STORE: a test's whole body: the store, then the fleet (fleet_run).
fleet_test() {
  fleet_store "$2" || return 1
  fleet_run "$1" "$2" "$FLEET_COUNT"
}

# fleet_control STORE: the teeth of m5's check, with ccache. When the toolchain's identity is out
# of ccache's key (the user's own CCACHE_COMPILERCHECK=none wins over the shim's identity key),
# ccache alone cannot see a device library: m5 (FLEET_SWAP swapped) is served m1's entries,
# 100 % remote hits, and gets the original toolchain's objects instead of its own.
fleet_control() {
  local store=$1 m
  FLEET_TOOL=ccache
  fleet_references || return 1
  fleet_store "$store" || return 1
  fleet_new_machine "$TEST_DIR/m1" && fleet_new_machine "$TEST_DIR/m5" swap || return 1
  for m in m1 m5; do
    FLEET_COMPILE_ENV=CCACHE_COMPILERCHECK=none fleet_machine "$TEST_DIR/$m" install ||
      fail "machine $m failed:"$'\n'"$(cat "$TEST_DIR/$m/log")"
  done
  for m in m1 m5; do fleet_say "${suite:-fleet} control ccache/$store, CCACHE_COMPILERCHECK=none: $(fleet_line "$TEST_DIR/$m")"; done
  fleet_expect_hit_rate "$TEST_DIR/m1" 0 0
  fleet_expect_objects "$TEST_DIR/m1" "$FLEET_REF"
  fleet_expect_hit_rate "$TEST_DIR/m5" 100
  fleet_expect_objects "$TEST_DIR/m5" "$FLEET_REF" # the others' objects: wrong for m5's toolchain
}
