# Per-target pieces (issue 25) on the sid stack: hipcc 7.0.2 (hipBin) and clang-21 -x hip on the
# ROCm-7-shaped prefix, ccache 4.14.2, GPU targets gfx90a, gfx942 and gfx1100. Runs inside the sid
# root (scripts/test-sid). The cases of pieces.bash (the Debian 12 stack) on this stack, and the
# options only clang-21 has (--offload-compress) or that make it another pipeline
# (--offload-new-driver): those run whole. Helpers and cases: tests/integration/lib-pieces.bash.

STACK=sid
source "$SRC_DIR/tests/integration/lib-pieces.bash"

suite_requires() {
  command -v ccache >/dev/null && [ -x /usr/lib/llvm-21/bin/clang ] &&
    file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

test_hipcc7_add_remove_change() {
  TEST "hipcc 7/clang-21: 2 targets, then 3 from another dir (2 pieces hit), 3 -> 2 (all hit), whole hit, header change, SHIMCTL_PIECES=0"
  pz_prefix sid
  pz_use hipcc
  pz_case_add_remove_change gfx90a gfx942 gfx1100
}

test_hipcc7_one_target() {
  TEST "hipcc 7: one target runs whole by default; with SHIMCTL_PIECES=1 its piece serves gfx90a,gfx942 from another dir"
  pz_prefix sid
  pz_use hipcc
  pz_case_one_target gfx90a gfx942
}

test_hipcc7_rdc() {
  TEST "hipcc 7 -fgpu-rdc: 3 targets from another dir reuse 2 bitcode pieces; object as uncached"
  pz_prefix sid
  pz_use hipcc
  pz_case_rdc gfx90a gfx942 gfx1100
}

test_clang21_target_ids() {
  TEST "clang-21 -x hip, target IDs (xnack+/sramecc+): 3 targets from another dir reuse 2 pieces; xnack- is its own piece"
  pz_prefix sid
  pz_use clang
  pz_case_ids "gfx90a:xnack+" "gfx942:sramecc+" gfx1100 "gfx90a:xnack-"
}

test_clang21_debug_depfile() {
  TEST "clang-21 -x hip -g -MD -MF: another dir misses (DWARF names it), the same dir reuses; objects and depfiles as uncached"
  pz_prefix sid
  pz_use clang
  pz_case_debug_depfile gfx90a gfx942 gfx1100
}

test_hipcc7_compile_error() {
  TEST "hipcc 7: a compile error still fails with the compiler's message and exit code"
  pz_prefix sid
  pz_use hipcc
  pz_case_error gfx90a gfx942
}

test_fallbacks_sid() {
  TEST "what a split cannot reproduce runs whole (trace says why), objects as uncached: --offload-new-driver, --offload-compress, -save-temps, -fgpu-sanitize, -Xoffload-linker, several inputs, the user's -cuid=, -emit-llvm, -S, -E"
  pz_prefix sid
  pz_use clang
  pz_fallback "$TEST_DIR/new-driver" "--offload-new-driver is given" t.o --offload-new-driver $(targets gfx90a,gfx942) -c t.hip -o t.o
  pz_fallback "$TEST_DIR/compress" "--offload-compress is given" t.o --offload-compress $(targets gfx90a,gfx942) -c t.hip -o t.o
  pz_fallbacks gfx90a,gfx942
}

# sccache 0.17 keeps pieces too. Its server runs each compile in one of its jobserver slots (one
# per CPU) and a piece sent from inside a compile needs a slot as well: with as many parallel
# compiles as slots, each would wait for its pieces forever unless it lends its slot back while
# they run (pieces/lent_slot.*). Three compiles at once (2 CPUs here: 2 slots), under a time limit.
# sccache says nothing per call about hit or miss: the counters come from the shim's marks.
test_sccache_parallel() {
  TEST "sccache 0.17: 3 parallel compiles (more than its slots) split without a deadlock; 3 targets from another dir reuse 2 pieces each; objects as uncached; status counts pieces apart"
  command -v sccache >/dev/null && sccache --version | grep -qE ' 0\.(1[7-9]|[2-9][0-9])' ||
    { fail "sccache >= 0.17 is not installed in the sid root"; return; }
  local shared n out rc
  shared=$(rocm_prefix sid) || { fail "cannot build the sid prefix"; return; }
  P=$TEST_DIR/prefix-sc
  cp -a "$shared" "$P"
  export XDG_CACHE_HOME=$TEST_DIR/xdg
  "$SHIMCTL" install "$P" --cache sccache --cache-dir "$TEST_DIR/sccache" --no-verify >"$TEST_DIR/install.out" 2>&1 ||
    { fail "install --cache sccache failed:"$'\n'"$(cat "$TEST_DIR/install.out")"; return; }
  sc_server_of "$P" || return
  PZ_STACK=sid
  pz_use hipcc
  mkdir -p "$TEST_DIR/two" "$TEST_DIR/three" "$TEST_DIR/ref"
  for n in 1 2 3; do
    corpus "$TEST_DIR/src$n"
    for d in two three ref; do
      sed "s/axpy/axpy$n/g; s/anon_kernel/anon_kernel$n/g" "$TEST_DIR/src$n/k.hip" >"$TEST_DIR/$d/k$n.hip"
      cp "$TEST_DIR/src$n/corpus.h" "$TEST_DIR/$d/"
    done
  done
  parallel_compiles() { # DIR TARGETS
    (cd "$1" && printf '%s\n' 1 2 3 |
      timeout 600 xargs -P3 -I{} "${PZ_CC[@]}" -O2 $(targets "$2") -c k{}.hip -o k{}.o) >"$1/out" 2>&1
  }
  parallel_compiles "$TEST_DIR/two" gfx90a,gfx942
  rc=$?
  expect_eq 0 "$rc" "3 parallel 2-target compiles under sccache (124: a deadlock, killed at 600 s): $(tail -3 "$TEST_DIR/two/out")"
  expect_eq "hit=0 miss=6 split=3" "$(pz_counts "$TEST_DIR/sccache")" "pieces counters after 3 compiles for 2 targets"
  parallel_compiles "$TEST_DIR/three" gfx90a,gfx942,gfx1100
  rc=$?
  expect_eq 0 "$rc" "3 parallel 3-target compiles under sccache: $(tail -3 "$TEST_DIR/three/out")"
  expect_eq "hit=6 miss=9 split=6" "$(pz_counts "$TEST_DIR/sccache")" "pieces counters after the 3-target compiles"
  (cd "$TEST_DIR/ref" && for n in 1 2 3; do
    SHIMCTL_DISABLE=1 "${PZ_CC[@]}" -O2 $(targets gfx90a,gfx942,gfx1100) -c k$n.hip -o k$n.o || exit 1
  done) >"$TEST_DIR/ref/out" 2>&1 || fail "uncached references failed: $(tail -3 "$TEST_DIR/ref/out")"
  for n in 1 2 3; do expect_same_file "$TEST_DIR/ref/k$n.o" "$TEST_DIR/three/k$n.o"; done
  cmp -s "$TEST_DIR/two/k1.o" "$TEST_DIR/three/k1.o" && fail "the 2- and 3-target objects are equal: the test proves nothing"
  out=$("$SHIMCTL" status "$P" 2>&1)
  expect_contains "$out" "pieces:      6 hits, 9 compiled (one per GPU target); 6 objects built from pieces" "status"
  expect_contains "$out" "statistics:  0 hits, 6 misses (whole objects)" "status"
  sc_stop_servers
}
