# sccache (Debian's 0.4) as the cache tool: install --cache sccache, its server, statistics and
# verify, and exactly what it caches for each compiler (docs/cache-tools.md quotes these tests).
# Each test's sccache server is this user's own for the configuration (a port derived from it and
# the uid on 0.4) and is stopped when the test ends.

suite_requires() {
  command -v sccache >/dev/null && command -v jq >/dev/null && [ -x "$SHIM_BIN" ] &&
    [ -x /usr/lib/llvm-15/bin/clang ]
}

# install_sccache PREFIX CACHE-DIR [FLAGS...]: sets SC_SERVER (where this user's server is).
install_sccache() {
  local prefix=$1 dir=$2
  shift 2
  expect_success "$SHIMCTL" install "$prefix" --cache sccache --cache-dir "$dir" --no-verify "$@"
  sc_server_of "$prefix"
  trap sc_stop_servers EXIT
}

# sc_json JQ-FILTER: of the statistics of the server at $SC_SERVER.
sc_json() { env "$SC_SERVER" sccache --show-stats --stats-format json | jq -cS "$1"; }
sc_hits() { sc_json '[.stats.cache_hits.counts[]] | add // 0'; }
sc_misses() { sc_json '[.stats.cache_misses.counts[]] | add // 0'; }

hip_fixture() {
  P=$TEST_DIR/rocm
  copy_rocm_prefix "$P"
  cat > k.hip <<'EOF'
#include <hip/hip_runtime.h>
__global__ void sc_k(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) + 1.0f; }
EOF
  printf 'int sc_c(int x) { return x + 5; }\n' > x.c
  printf '#include <vector>\nint sc_cxx() { std::vector<int> v{1, 2}; return v[1]; }\n' > y.cpp
}

test_clang_c_and_cxx_hit_on_repeat() {
  TEST "clang C and C++ through the sccache shim: miss, then hit, same object"
  hip_fixture
  install_sccache "$P" "$TEST_DIR/sc"
  local i
  for i in 1 2; do
    "$P/llvm/bin/clang" -c x.c -o x$i.o || fail "clang -c x.c"
    "$P/llvm/bin/clang++" -c y.cpp -o y$i.o || fail "clang++ -c y.cpp"
  done
  expect_eq 2 "$(sc_hits)" "sccache hits"
  expect_eq 2 "$(sc_misses)" "sccache misses"
  expect_eq '{"C/C++":2}' "$(sc_json .stats.cache_hits.counts)" "hits by language"
  SHIMCTL_DISABLE=1 "$P/llvm/bin/clang" -c x.c -o x-ref.o || fail "reference compile"
  expect_same_file x-ref.o x2.o
  [ -n "$(find "$TEST_DIR/sc" -type f | head -1)" ] || fail "nothing stored in --cache-dir"
}

test_hip_is_not_cached_by_sccache_0_4() {
  TEST "hipcc and clang -x hip through sccache 0.4: compiled, never cached"
  hip_fixture
  install_sccache "$P" "$TEST_DIR/sc"
  local i
  for i in 1 2; do
    "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o h$i.o || fail "hipcc -x hip"
  done
  "$P/llvm/bin/clang++" -x hip --offload-arch=gfx90a -c k.hip -o c1.o || fail "clang++ -x hip"
  "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o n1.o || fail "hipcc k.hip (no -x)"
  expect_eq 0 "$(sc_hits)" "hits"
  expect_eq 0 "$(sc_misses)" "misses"
  expect_eq 4 "$(sc_json .stats.requests_not_cacheable)" "requests not cacheable"
  expect_eq '{"-x":3,"unknown source language":1}' "$(sc_json .stats.not_cached)" "reasons"
  SHIMCTL_DISABLE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o h-ref.o || fail "reference"
  expect_same_file h-ref.o h2.o
}

test_nvcc_hits_on_repeat() {
  TEST "nvcc through the sccache shim: miss, then hit (CUDA), same object"
  [ -x /usr/local/cuda/bin/nvcc ] || { echo "    (no CUDA toolkit: skipped)"; return 0; }
  "$SCRIPTS/make-cuda-prefix" "$TEST_DIR/cuda" >/dev/null || fail "make-cuda-prefix"
  install_sccache "$TEST_DIR/cuda" "$TEST_DIR/sc"
  printf '__global__ void sc_n(float* x) { x[threadIdx.x] *= 2.0f; }\n' > k.cu
  "$TEST_DIR/cuda/bin/nvcc" -arch=sm_90 -c k.cu -o n1.o || fail "nvcc 1"
  "$TEST_DIR/cuda/bin/nvcc" -arch=sm_90 -c k.cu -o n2.o || fail "nvcc 2"
  expect_eq '{"CUDA":1}' "$(sc_json .stats.cache_hits.counts)" "hits"
  expect_eq '{"CUDA":1}' "$(sc_json .stats.cache_misses.counts)" "misses"
  expect_same_file n1.o n2.o
  local out
  out=$("$SHIMCTL" verify "$TEST_DIR/cuda" 2>&1) || fail "verify failed: $out"
  expect_contains "$out" "the repeat compile was a cache hit (sccache statistics delta)" "verify nvcc"
}

test_verify_reports_hipcc_not_cached() {
  TEST "verify: hipcc under sccache 0.4 is reported 'not cached by sccache', not a failure"
  hip_fixture
  install_sccache "$P" "$TEST_DIR/sc" --compilers hipcc
  local out
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify failed: $out"
  expect_contains "$out" "not cached by sccache $(sccache --version | cut -d' ' -f2): -x (it compiles, uncached)" \
    "verify hipcc"
  expect_contains "$out" "identical to the original's object" "verify hipcc reference"
  out=$("$SHIMCTL" status "$P" 2>&1) || fail "status failed: $out"
  expect_contains "$out" "cache dir:   $TEST_DIR/sc" "status"
}

test_server_per_cache_config_and_no_empty_values() {
  TEST "each cache dir gets its own sccache server; the config never sets an empty value"
  hip_fixture
  cp -a "$P" "$TEST_DIR/rocm2"
  install_sccache "$P" "$TEST_DIR/sc-a"
  local server_a=$SC_SERVER
  install_sccache "$TEST_DIR/rocm2" "$TEST_DIR/sc-b"
  [ "$server_a" != "$SC_SERVER" ] || fail "two cache dirs share the server $SC_SERVER"
  again_if_sccache_did_not_start "$P/.shimctl/events.log" "$HOME" "$P/llvm/bin/clang" -c x.c -o a.o ||
    fail "compile a"
  "$TEST_DIR/rocm2/llvm/bin/clang" -c x.c -o b.o || fail "compile b"
  expect_eq 1 "$(sc_misses)" "misses of server b"
  expect_eq 1 "$(SC_SERVER=$server_a sc_misses)" "misses of server a"
  [ -n "$(find "$TEST_DIR/sc-a" -type f | head -1)" ] || fail "nothing in sc-a"
  [ -n "$(find "$TEST_DIR/sc-b" -type f | head -1)" ] || fail "nothing in sc-b"
  if grep -E '^(setenv|appendenv) [A-Z_]+=$' "$P"/bin/.shimctl.conf "$P"/llvm/bin/.shimctl.conf; then
    fail "a shim config sets an empty value"
  fi
  grep -q '^appendenv SCCACHE_EXTRAFILES=/' "$P/llvm/bin/.shimctl.conf" || fail "no SCCACHE_EXTRAFILES"
}

test_device_library_change_is_a_miss() {
  TEST "a device library changed after install: sccache misses (SCCACHE_EXTRAFILES)"
  hip_fixture
  install_sccache "$P" "$TEST_DIR/sc"
  "$P/llvm/bin/clang" -c x.c -o 1.o || fail "compile 1"
  "$P/llvm/bin/clang" -c x.c -o 2.o || fail "compile 2"
  expect_eq 1 "$(sc_hits)" "hits before the change"
  local bc=$P/amdgcn/bitcode
  cp "$bc/oclc_wavefrontsize64_off.bc" "$bc/oclc_wavefrontsize64_on.bc"
  "$P/llvm/bin/clang" -c x.c -o 3.o || fail "compile 3"
  expect_eq 1 "$(sc_hits)" "hits after the change"
  expect_eq 2 "$(sc_misses)" "misses after the change"
}

test_install_refuses_remotes_sccache_0_4_cannot_honour() {
  TEST "install --cache sccache 0.4 (no remote storage built in) refuses every --remote: exit 2, one line, nothing changed"
  hip_fixture
  local out url rc
  for url in http://127.0.0.1:9/cache redis://127.0.0.1:9 'redis://Secret1@127.0.0.1:9' \
    's3://bucket/team|endpoint=http://127.0.0.1:9'; do
    out=$("$SHIMCTL" install "$P" --cache sccache --remote "$url" --no-verify 2>&1)
    rc=$?
    expect_eq 2 "$rc" "exit code for --remote $url"
    expect_eq 1 "$(printf '%s\n' "$out" | wc -l)" "lines for --remote $url"
    expect_contains "$out" "shimctl: error: --remote: $(sccache --version) has no remote storage" "--remote $url"
    expect_contains "$out" "use --cache ccache" "--remote $url"
    case $out in *Secret1*) fail "the refusal shows the password: $out" ;; esac
  done
  out=$("$SHIMCTL" install "$P" --cache sccache --remote redis://127.0.0.1:9 --remote-read-only \
    --no-verify 2>&1) && fail "install accepted a remote for sccache 0.4"
  [ ! -e "$P/bin/hipcc.real" ] && [ ! -e "$P/.shimctl" ] || fail "a refused install changed the prefix"
}

test_server_started_by_one_shim_or_compile_uncached() {
  TEST "no sccache server: the shim starts one (one shim at a time); one that cannot start: uncached, never a failed compile"
  hip_fixture
  install_sccache "$P" "$TEST_DIR/sc"
  ! env "$SC_SERVER" sccache --show-stats >/dev/null 2>&1 || true # (this starts one)
  env "$SC_SERVER" sccache --stop-server >/dev/null 2>&1
  sc_wait_stopped "$SC_SERVER"
  # Eight compiles of a cold build at once: one server, every compile through it.
  local i pids=()
  for i in 1 2 3 4 5 6 7 8; do
    printf 'int sc_p%d(int x) { return x + %d; }\n' "$i" "$i" >p$i.c
    SHIMCTL_SHIM_TRACE=1 "$P/llvm/bin/clang" -c p$i.c -o p$i.o 2>trace$i.txt &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "compile $((i + 1)) of 8 failed: $(cat trace$((i + 1)).txt)"; done
  expect_eq 1 "$(cat trace*.txt | grep -c "no sccache server of this user's answers: starting one")" \
    "shims that started a server (the others waited on the lock, then found it)"
  expect_eq 8 "$(sc_misses)" "compiles sccache saw"

  # A server that cannot start (its error log cannot be opened: sccache's client gives up after
  # its 10 s timeout and fails the compile): the compile runs uncached, and says so in events.log.
  env "$SC_SERVER" sccache --stop-server >/dev/null 2>&1
  local out rc
  out=$(SCCACHE_ERROR_LOG=/proc/none/log "$P/llvm/bin/clang" -c x.c -o x1.o 2>&1); rc=$?
  expect_eq "0 " "$rc $out" "exit code and output of a compile whose sccache server cannot start"
  SHIMCTL_DISABLE=1 "$P/llvm/bin/clang" -c x.c -o x-ref.o || fail "reference compile"
  expect_same_file x-ref.o x1.o
  expect_contains "$(cat "$P/.shimctl/events.log")" "sccache-server-unavailable" "events.log"
  # The next compiles within 60 s do not wait for another start that would fail: uncached at once.
  local t0=$SECONDS
  out=$(SHIMCTL_SHIM_TRACE=1 SCCACHE_ERROR_LOG=/proc/none/log "$P/llvm/bin/clang" -c x.c -o x3.o 2>&1) ||
    fail "the compile after a failed start: $out"
  expect_contains "$out" "its --start-server failed less than 60 s ago" "the shim's trace"
  [ $((SECONDS - t0)) -le 3 ] || fail "the compile after a failed start took $((SECONDS - t0)) s"
  expect_same_file x-ref.o x3.o
  # SHIMCTL_STRICT=1: the compile fails instead, naming why (an unreadable sccache config).
  printf 'garbage = [' >bad.toml
  out=$(SCCACHE_CONF=$PWD/bad.toml SHIMCTL_STRICT=1 "$P/llvm/bin/clang" -c x.c -o x2.o 2>&1); rc=$?
  expect_eq 1 "$rc" "exit code, strict"
  # The message names what sccache's --start-server said (its last line on stderr).
  case $out in
    "shimctl-shim: no sccache server of this user's answers: its --start-server failed: "?*" (SHIMCTL_STRICT=1; unset it to compile without the cache)") ;;
    *) fail "strict message: $out" ;;
  esac
  [ ! -e x2.o ] || fail "strict mode compiled anyway"
}
