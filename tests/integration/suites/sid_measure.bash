# `shimctl measure` on the sid stack (issue 23, item 9: each tool's counters come from the tool):
# a small CMake project (scripts/gen-hip-project: N HIP units in a static library, plus a shared
# library of one more source, whose link runs through hipcc) built through a ROCm-7-shaped prefix
# (hipcc 7.0.2, clang-21) installed with sccache 0.17 and with ccache 4.14.2. measure's compiles,
# hits and misses must be what the tool itself counted for that build:
# - sccache: measure's build gets fresh servers of its own (named after its log); the build
#   command reads the statistics of the server the shim used before measure stops it, and a
#   control build through the user's usual server (no measure) moves that server's statistics by
#   exactly as much; the usual server's statistics do not move while measure runs.
# - ccache: the difference of `ccache --print-stats` over the build (a private cache dir).
# The link is in `not_sent` (the shim ran it without the cache), never a counter of the tool.
# Runs inside the sid root (scripts/test-sid).
LLVM=21
STACK=sid
source "$(dirname "${BASH_SOURCE[0]}")/measure_common.bash"

suite_requires() {
  command -v ccache >/dev/null && command -v sccache >/dev/null && command -v cmake >/dev/null \
    && command -v ninja >/dev/null && command -v python3 >/dev/null \
    && [ -x /usr/lib/llvm-21/bin/clang ] && file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF \
    && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

N=5 # HIP units: with app.cpp, N + 1 compiles and one link per build

# fixture: P = a private copy of the ROCm-7 fixture prefix; SRC = the project (made once).
fixture() {
  local shared
  shared=$(rocm_prefix sid) || fail "cannot build the ROCm-7 fixture prefix"
  P=$TEST_DIR/rocm
  cp -a "$shared" "$P" || fail "cannot copy $shared"
  SRC=$SUITE_TMP/project
  [ -d "$SRC" ] && return 0
  "$SCRIPTS/gen-hip-project" "$SRC.new" "$N" >/dev/null || fail "gen-hip-project failed"
  cat >> "$SRC.new/CMakeLists.txt" <<'EOF'
# One more compile, and a link through the compiler (no cache stores a link).
add_library(bench_app SHARED app.cpp)
target_compile_options(bench_app PRIVATE -x hip --offload-arch=${BENCH_ARCH})
EOF
  printf 'extern "C" int bench_answer() { return 42; }\n' > "$SRC.new/app.cpp"
  mv "$SRC.new" "$SRC"
}

install_p() { # FLAGS...
  "$SHIMCTL" install "$P" --no-verify "$@" >"$TEST_DIR/install.out" 2>&1 \
    || fail "install $*:"$'\n'"$(cat "$TEST_DIR/install.out")"
}

# configure BUILD: a fresh build tree at BUILD with $P/bin/hipcc (CMake's checks compile too).
# The same path every time: the compiles name -I<build dir>/include (gen-hip-project), which is
# in sccache's key.
configure() {
  rm -rf "$1"
  cmake -S "$SRC" -B "$1" -G Ninja -DCMAKE_CXX_COMPILER="$P/bin/hipcc" -DBENCH_ARCH=gfx90a \
    >"$1.configure.log" 2>&1 || fail "configure $1 failed:"$'\n'"$(tail -30 "$1.configure.log")"
}

test_sccache_counts_are_sccaches() {
  TEST "sccache 0.17: measure's compiles, hits and misses are sccache's own for the build; the link is the shim's"
  fixture
  install_p --cache sccache --cache-dir "$TEST_DIR/sc"
  sc_server_of "$P" # SC_SERVER: this user's usual server for the prefix
  trap 'sc_stop_servers' EXIT
  local b=$TEST_DIR/b usual
  configure "$b" # CMake's checks compile through the usual server (and start it)

  # Cold: every compile a miss. Nobody's statistics move: the usual server counts nothing.
  usual=$(server_counts "$SC_SERVER") || return
  measured cold "$b"
  expect_usual_unmoved "$usual"
  expect_eq 1 "$(wc -l < "$TEST_DIR/cold.servers")" "servers the cold build used"
  grep -q "^measured $(command -v sccache) SCCACHE_SERVER_UDS=" "$TEST_DIR/cold.shim-log" \
    || fail "no record of a server of the build's own:"$'\n'"$(cat "$TEST_DIR/cold.shim-log")"
  [ "$(cat "$TEST_DIR/cold.servers")" != "$SC_SERVER" ] || fail "the measured build used the usual server"
  expect_eq "$(own cold)" "$(field cold '"%d %d %d" % (d["calls"], d["hits"], d["misses"])')" \
    "measure's calls hits misses against sccache's own statistics of the cold build"
  expect_eq "sccache $((N + 1)) $((N + 1)) 0 $((N + 1))" \
    "$(field cold '"%s %d %d %d %d" % (d["tool"], d["calls"], d["compiles"], d["hits"], d["misses"])')" \
    "cold: tool calls compiles hits misses"
  expect_eq '{} {"link": 1}' "$(field cold 'json.dumps(d["uncacheable"]) + " " + json.dumps(d["not_sent"])')" \
    "cold: sccache's not-cacheable calls and the shim's"
  expect_eq "$((N + 1))" "$(grep -c '^# shimctl-shim: sccache$' "$TEST_DIR/cold.shim-log")" "the shim's sccache records"
  expect_stopped cold

  # Warm, a fresh tree at the same path: every compile a hit.
  configure "$b"
  usual=$(server_counts "$SC_SERVER") || return
  measured warm "$b"
  expect_usual_unmoved "$usual"
  expect_eq "$(own warm)" "$(field warm '"%d %d %d" % (d["calls"], d["hits"], d["misses"])')" \
    "measure's calls hits misses against sccache's own statistics of the warm build"
  expect_eq "$((N + 1)) $((N + 1)) $((N + 1)) 0 1.0" \
    "$(field warm '"%d %d %d %d %s" % (d["calls"], d["compiles"], d["hits"], d["misses"], d["hit_rate"])')" \
    "warm: calls compiles hits misses rate"
  expect_eq '{"link": 1}' "$(field warm 'json.dumps(d["not_sent"])')" "warm: the shim's calls"
  expect_eq "[]" "$(field warm 'json.dumps(d["warnings"])')" "warm: warnings"
  expect_stopped warm
  [ "$(cat "$TEST_DIR/cold.servers")" != "$(cat "$TEST_DIR/warm.servers")" ] \
    || fail "two measured builds shared a server"

  # The control: the same build without measure, through the usual server (restarted, so that
  # it reads the entries the measured builds stored), moves its statistics by what measure said.
  stop_server "$SC_SERVER"
  wait_until 30 "the usual server stopped" eval "! answers '$SC_SERVER'"
  configure "$b"
  local before after c0 h0 m0 c1 h1 m1
  before=$(server_counts "$SC_SERVER") || return
  cmake --build "$b" >"$TEST_DIR/control.log" 2>&1 || fail "control build failed:"$'\n'"$(tail -30 "$TEST_DIR/control.log")"
  after=$(server_counts "$SC_SERVER") || return
  read -r c0 h0 m0 <<<"$before"
  read -r c1 h1 m1 <<<"$after"
  expect_eq "$(field warm '"%d %d %d" % (d["calls"], d["hits"], d["misses"])')" \
    "$((c1 - c0)) $((h1 - h0)) $((m1 - m0))" "the control build's calls hits misses (sccache --show-stats)"

  # Text output: the tool's counts, then the shim's calls.
  configure "$b"
  local out
  out=$("$SHIMCTL" measure -- cmake --build "$b" 2>&1 >/dev/null) || fail "text measure failed: $out"
  expect_contains "$out" "$((N + 1)) compiles through the cache: $((N + 1)) hits, 0 misses, hit rate 100.0% (sccache)" "text: the counts"
  expect_contains "$out" "1 calls the shim ran without the cache: 1 link" "text: the shim's calls"
}

test_sccache_users_own_server() {
  TEST "sccache 0.17: with the user's own SCCACHE_SERVER_UDS, measure reports its counts over the build and leaves it running"
  fixture
  install_p --cache sccache --cache-dir "$TEST_DIR/sc"
  local b=$TEST_DIR/b own=SCCACHE_SERVER_UDS=$SUITE_TMP/own.sock
  sc_server_of "$P" # the usual server, which CMake's checks start
  trap "stop_server '$own'; sc_stop_servers" EXIT
  configure "$b"
  measured cold "$b" # fills the store through a server of its own
  # The user's server (started by hand: parallel sccache clients that find none each start one,
  # and the last to bind the socket orphans the others), with prior counts: a build through it.
  env "$own" SCCACHE_DIR="$TEST_DIR/sc" sccache --start-server >"$TEST_DIR/start.log" 2>&1 \
    || fail "sccache --start-server at $own failed: $(cat "$TEST_DIR/start.log")"
  configure "$b"
  env "$own" cmake --build "$b" >"$TEST_DIR/prior.log" 2>&1 || fail "build through the user's server failed"
  local before c0 h0 m0 c1 h1 m1
  before=$(server_counts "$own") || return
  read -r c0 h0 m0 <<<"$before"
  [ "$c0" -ge "$((N + 1))" ] || fail "the user's server counted $c0 calls for the prior build"
  configure "$b"
  export "$own"
  measured users "$b"
  expect_eq "$own" "$(cat "$TEST_DIR/users.servers")" "the server the shim used"
  grep -q "^shared $(command -v sccache) $own\$" "$TEST_DIR/users.shim-log" \
    || fail "the user's server is not recorded as shared:"$'\n'"$(cat "$TEST_DIR/users.shim-log")"
  read -r c1 h1 m1 <<<"$(server_counts "$own")" || return
  expect_eq "$((c1 - c0)) $((h1 - h0)) $((m1 - m0))" "$(field users '"%d %d %d" % (d["calls"], d["hits"], d["misses"])')" \
    "measure's counts: the user's server's over the build"
  expect_eq "$((N + 1)) $((N + 1)) 0" "$(field users '"%d %d %d" % (d["calls"], d["hits"], d["misses"])')" \
    "calls hits misses"
  expect_contains "$(field users 'json.dumps(d["warnings"])')" "the server you chose ($own)" "the warning"
}

test_ccache_counts_are_ccaches() {
  TEST "ccache 4.14: measure's hits and misses are the difference of ccache's own counters; the link is the shim's"
  fixture
  install_p --cache-dir "$TEST_DIR/cc"
  local b=$TEST_DIR/b pass before after name
  for pass in cold warm; do
    CCACHE_DIR=$TEST_DIR/configure-ccache configure "$b"
    before=$(CCACHE_DIR=$TEST_DIR/cc ccache --print-stats)
    measured "$pass" "$b"
    after=$(CCACHE_DIR=$TEST_DIR/cc ccache --print-stats)
    delta() { # COUNTER...: their sum's difference over the build
      local n=0 c
      for c in "$@"; do
        n=$((n + $(awk -v k="$c" '$1 == k { print $2 }' <<<"$after") - $(awk -v k="$c" '$1 == k { print $2 }' <<<"$before")))
      done
      echo "$n"
    }
    expect_eq "$(delta direct_cache_hit preprocessed_cache_hit) $(delta cache_miss)" \
      "$(field "$pass" '"%d %d" % (d["hits"], d["misses"])')" "$pass: measure's hits misses against ccache --print-stats"
    expect_eq "0" "$(delta called_for_link)" "$pass: links ccache counted"
    expect_eq '{"link": 1}' "$(field "$pass" 'json.dumps(d["not_sent"])')" "$pass: the shim's calls"
    expect_eq "ccache $((N + 1)) {}" "$(field "$pass" '"%s %d %s" % (d["tool"], d["calls"], json.dumps(d["uncacheable"]))')" \
      "$pass: tool calls uncacheable"
  done
  expect_eq "$((N + 1)) 0" "$(field cold '"%d %d" % (d["misses"], d["hits"])')" "cold: misses hits"
  expect_eq "$((N + 1)) 0" "$(field warm '"%d %d" % (d["hits"], d["misses"])')" "warm: hits misses"
}
