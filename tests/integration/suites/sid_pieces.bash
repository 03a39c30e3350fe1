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
  TEST "what a split cannot reproduce runs whole (trace says why), objects as uncached: --offload-new-driver, --offload-compress, -save-temps, -fgpu-sanitize, -Xoffload-linker, several inputs, the user's -cuid="
  pz_prefix sid
  pz_use clang
  pz_fallback "$TEST_DIR/new-driver" "--offload-new-driver is given" t.o --offload-new-driver $(targets gfx90a) -c t.hip -o t.o
  pz_fallback "$TEST_DIR/compress" "--offload-compress is given" t.o --offload-compress $(targets gfx90a) -c t.hip -o t.o
  pz_fallback "$TEST_DIR/save-temps" "-save-temps is given" t.o -save-temps $(targets gfx90a) -c t.hip -o t.o
  ls "$TEST_DIR/save-temps"/t-hip-amdgcn-amd-amdhsa-gfx90a* >/dev/null 2>&1 ||
    fail "-save-temps kept no device temporaries in its directory: $(ls "$TEST_DIR/save-temps" | xargs)"
  pz_fallback "$TEST_DIR/sanitize" "-fgpu-sanitize is given" t.o -fgpu-sanitize $(targets gfx90a) -c t.hip -o t.o
  pz_fallback "$TEST_DIR/xoffload" "-Xoffload-linker is given" t.o -Xoffload-linker --no-undefined $(targets gfx90a) -c t.hip -o t.o
  pz_fallback "$TEST_DIR/cuid" "the CUID is not the shim's" t.o -cuid=0123456789abcdef $(targets gfx90a,gfx942) -c t.hip -o t.o
  pz_use hipcc
  pz_fallback "$TEST_DIR/inputs" "several inputs" t.o,t2.o $(targets gfx90a) -c t.hip t2.hip
  expect_eq "hit=0 miss=0 split=0" "$(pz_counts)" "pieces counters after the whole-object compiles"
}
