# Per-target pieces (issue 25) on the sid stack: hipcc 7.0.2 (hipBin) and clang-$SID_LLVM -x hip
# on the ROCm-7-shaped prefix, ccache 4.14.2, GPU targets gfx90a, gfx942 and gfx1100. Runs inside
# the sid root (scripts/test-sid). The stack is a parameter: clang-21 here (the old offload
# driver), clang-23 in sid23_pieces.bash (the new one by default: each piece is the image the
# linker wrapper's own job makes, piece_image.hpp). The cases of pieces.bash (the Debian 12
# stack) on this stack, the driver told apart by its plan (--offload-new-driver on clang-21,
# --no-offload-new-driver on clang-23), --offload-compress, and the pieces' own key.
# Helpers and cases: tests/integration/lib-pieces.bash.

STACK=sid
source "$SRC_DIR/tests/integration/lib-pieces.bash"

suite_requires() {
  command -v ccache >/dev/null && [ -x "/usr/lib/llvm-$SID_LLVM/bin/clang" ] &&
    file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

test_hipcc7_add_remove_change() {
  TEST "hipcc 7/clang-$SID_LLVM: 2 targets, then 3 from another dir (2 pieces hit), 3 -> 2 (all hit), whole hit, header change, SHIMCTL_PIECES=0"
  pz_prefix sid
  pz_use hipcc
  pz_case_add_remove_change gfx90a gfx942 gfx1100
}

test_hipcc7_kernel_less() {
  TEST "hipcc 7/clang-$SID_LLVM -O3 -MD -MT -MF: a TU without kernels first is its host half alone, and the next kernel TU still reuses its host half for a third target; as uncached"
  pz_prefix sid
  pz_use hipcc
  pz_case_kernel_less gfx90a gfx942 gfx1100
}

test_hipcc7_derive() {
  TEST "hipcc 7/clang-$SID_LLVM (default): A,B then A,B,C derived from A,B (C compiled), A,C from A,B,C, kernel-less as it is, header change whole; whole objects only; as uncached"
  pz_prefix sid
  pz_use hipcc
  pz_case_derive gfx90a gfx942 gfx1100
}

test_hipcc7_one_target() {
  TEST "hipcc 7/clang-$SID_LLVM: one target runs whole by default; with SHIMCTL_PIECES=1 its piece serves gfx90a,gfx942 from another dir"
  pz_prefix sid
  pz_use hipcc
  pz_case_one_target gfx90a gfx942
}

test_clang_early_pieces() {
  TEST "clang-$SID_LLVM: the pieces start before the plan as it last asked (not on the first split); a stale memo's pieces are compiled again; objects as uncached"
  pz_prefix sid
  pz_use clang
  pz_case_early_pieces gfx90a gfx942 gfx1100
}

test_hipcc7_rdc() {
  TEST "hipcc 7/clang-$SID_LLVM -fgpu-rdc: 3 targets from another dir reuse 2 bitcode pieces; object as uncached"
  pz_prefix sid
  pz_use hipcc
  pz_case_rdc gfx90a gfx942 gfx1100
}

test_clang_target_ids() {
  TEST "clang-$SID_LLVM -x hip, target IDs (xnack+/sramecc+): 3 targets from another dir reuse 2 pieces; xnack- is its own piece"
  pz_prefix sid
  pz_use clang
  pz_case_ids "gfx90a:xnack+" "gfx942:sramecc+" gfx1100 "gfx90a:xnack-"
}

test_clang_debug_depfile() {
  TEST "clang-$SID_LLVM -x hip -g -MD -MF: another dir misses (DWARF names it), the same dir reuses; objects and depfiles as uncached"
  pz_prefix sid
  pz_use clang
  pz_case_debug_depfile gfx90a gfx942 gfx1100
}

test_hipcc7_compile_error() {
  TEST "hipcc 7/clang-$SID_LLVM: a compile error still fails with the compiler's message and exit code"
  pz_prefix sid
  pz_use hipcc
  pz_case_error gfx90a gfx942
}

test_fallbacks_sid() {
  TEST "what a split cannot reproduce runs whole (trace says why), objects as uncached: -save-temps, -fgpu-sanitize, -Xoffload-linker, several inputs, the user's -cuid=, -emit-llvm, -S, -E"
  pz_prefix sid
  pz_fallbacks gfx90a,gfx942
}

# The driver is told apart by its -### plan, never by a flag. clang-21: --offload-new-driver's
# plan links the object in the linker wrapper after the host compile, and its old driver's
# compressing bundler is not reproduced: both whole. clang-23: --no-offload-new-driver gives the
# old driver's plan (old pieces), --offload-compress the wrapper's compressing bundler (new
# pieces, its verdict of its own): both split, as uncached.
test_driver_from_plan() {
  TEST "clang-$SID_LLVM: the driver told apart by its plan (--offload-new-driver / --no-offload-new-driver), --offload-compress; objects as uncached"
  pz_prefix sid
  pz_use clang
  if [ "$SID_LLVM" -lt 23 ]; then
    pz_fallback "$TEST_DIR/new-driver" "the linker wrapper links the object (no --emit-fatbin-only)" t.o \
      --offload-new-driver $(targets gfx90a,gfx942) -c t.hip -o t.o
    pz_fallback "$TEST_DIR/compress" "the bundler is asked for -compress" t.o \
      --offload-compress $(targets gfx90a,gfx942) -c t.hip -o t.o
    return
  fi
  local flag d
  export XDG_CACHE_HOME=$TEST_DIR/xdg # this test's verdicts only
  mkdir -p "$XDG_CACHE_HOME"
  for flag in --no-offload-new-driver --offload-compress; do
    d=$TEST_DIR/${flag#--}
    corpus "$d"
    pz_compile "$d" -O2 "$flag" $(targets gfx90a,gfx942) -c k.hip -o k.o
    expect_split "$d" 2 "$(sorted gfx90a:miss gfx942:miss)"
    expect_checked "$d"
    pz_ref "$d" k.o -O2 "$flag" $(targets gfx90a,gfx942) -c k.hip -o k.o
    expect_same_file "$d/ref.k.o" "$d/k.o"
  done
  expect_eq "same same" "$(pz_verdicts)" "one verdict per kind of plan (old driver; new driver, compressed)"
  cmp -s "$TEST_DIR/no-offload-new-driver/k.o" "$TEST_DIR/offload-compress/k.o" &&
    fail "the old driver's and the compressed new driver's objects are equal: the test proves nothing"
  # The old driver's pieces are its device-only compiles, the new driver's are images: another
  # key, so the same target is compiled again.
  corpus "$TEST_DIR/default"
  pz_compile "$TEST_DIR/default" -O2 $(targets gfx90a,gfx942) -c k.hip -o k.o
  expect_split "$TEST_DIR/default" 2 "$(sorted gfx90a:miss gfx942:miss)"
  pz_ref "$TEST_DIR/default" k.o -O2 $(targets gfx90a,gfx942) -c k.hip -o k.o
  expect_same_file "$TEST_DIR/default/ref.k.o" "$TEST_DIR/default/k.o"
  expect_checked "$TEST_DIR/default"
  expect_eq "same same same" "$(pz_verdicts)" "verdicts after the new driver's uncompressed objects"
}

# A piece is cached under the command line of a device-only compile, in ccache's depend mode
# (-MD -MF, piece_compile.cpp). On the old driver it is that compile's object; the user's own
# compile of the same arguments, without a depfile, is keyed by its preprocessed source and
# misses all the same. On the new driver it is the linker wrapper's image, which a device-only
# compile does not make (direct lld, llvm#211675): the user's compile must miss and get the
# real device-only object.
test_piece_key_apart() {
  TEST "clang-$SID_LLVM: a device-only compile of a piece's own arguments misses and gets what the compiler makes (clang-23: never the wrapper's image)"
  pz_prefix sid
  pz_use clang
  local d=$TEST_DIR/key cuid before
  corpus "$d"
  pz_compile "$d" -O2 $(targets gfx90a,gfx942) -c k.hip -o k.o
  expect_split "$d" 2 "$(sorted gfx90a:miss gfx942:miss)"
  cuid=$(cd "$d" && shim_cuid k.hip k.o)
  # The piece's command line (lib/pieces: the call's arguments without targets and -o, then these).
  local args=(-O2 -c k.hip "-cuid=$cuid" --cuda-device-only --no-gpu-bundle-output --offload-arch=gfx90a -o dev.o)
  before=$(ccache_hm)
  (cd "$d" && "${PZ_CC[@]}" "${args[@]}" >dev.out 2>&1) || fail "the device-only compile failed: $(cat "$d/dev.out")"
  (cd "$d" && SHIMCTL_DISABLE=1 "${PZ_CC[@]}" "${args[@]/dev.o/ref.dev.o}" >ref.out 2>&1) ||
    fail "the uncached device-only compile failed: $(cat "$d/ref.out")"
  expect_same_file "$d/ref.dev.o" "$d/dev.o"
  local hits=${before%% *} misses=${before##* }
  expect_eq "$hits misses=$((${misses#misses=} + 1))" "$(ccache_hm)" "ccache's statistics: the piece not served"
  [ "$SID_LLVM" -lt 23 ] && return
  # The image in the split object is not the device-only object (else the test proves nothing).
  local bin=$P/lib/llvm/bin
  "$bin/llvm-objcopy" --dump-section ".hip_fatbin=$d/fatbin" "$d/k.o" &&
    "$bin/clang-offload-bundler" -unbundle -type=o -targets=hip-amdgcn-amd-amdhsa--gfx90a \
      "-input=$d/fatbin" "-output=$d/image" || fail "cannot take gfx90a's image out of the object"
  if cmp -s "$d/image" "$d/dev.o"; then
    fail "the wrapper's image equals the device-only object: the test proves nothing"
  fi
}

# sccache 0.17 derives objects too (the default). Its server runs each compile in one of its
# jobserver slots (one per CPU) and the lookup of an earlier target set's object sent from inside a
# compile needs a slot as well: with as many parallel compiles as slots, each would wait for its
# lookup forever unless it lends its slot back meanwhile (pieces/lent_slot.*). Three compiles at
# once (2 CPUs here: 2 slots), under a time limit. sccache says nothing per call about hit or
# miss: the counters come from the shim's marks.
test_sccache_parallel() {
  TEST "sccache 0.17, clang-$SID_LLVM: 3 parallel compiles (more than its slots) derive without a deadlock; 3 targets from another dir derive from the 2-target objects; objects as uncached; status counts them apart"
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
  expect_eq "hit=0 miss=0 split=0" "$(pz_counts "$TEST_DIR/sccache")" "pieces counters after 3 compiles for 2 targets"
  parallel_compiles "$TEST_DIR/three" gfx90a,gfx942,gfx1100
  rc=$?
  expect_eq 0 "$rc" "3 parallel 3-target compiles under sccache: $(tail -3 "$TEST_DIR/three/out")"
  expect_eq "hit=0 miss=0 split=0" "$(pz_counts "$TEST_DIR/sccache")" "pieces counters after the 3-target compiles"
  grep -qx 'derived 3' "$TEST_DIR/sccache/shimctl-pieces" && grep -qx 'lookup_hit 3' "$TEST_DIR/sccache/shimctl-pieces" &&
    grep -qx 'target_compiled 3' "$TEST_DIR/sccache/shimctl-pieces" ||
    fail "not 3 derived objects (3 lookups hit, 3 targets compiled): $(xargs <"$TEST_DIR/sccache/shimctl-pieces")"
  (cd "$TEST_DIR/ref" && for n in 1 2 3; do
    SHIMCTL_DISABLE=1 "${PZ_CC[@]}" -O2 $(targets gfx90a,gfx942,gfx1100) -c k$n.hip -o k$n.o || exit 1
  done) >"$TEST_DIR/ref/out" 2>&1 || fail "uncached references failed: $(tail -3 "$TEST_DIR/ref/out")"
  for n in 1 2 3; do expect_same_file "$TEST_DIR/ref/k$n.o" "$TEST_DIR/three/k$n.o"; done
  cmp -s "$TEST_DIR/two/k1.o" "$TEST_DIR/three/k1.o" && fail "the 2- and 3-target objects are equal: the test proves nothing"
  out=$("$SHIMCTL" status "$P" 2>&1)
  expect_contains "$out" "derived:     3 objects from an earlier target set's (3 targets compiled; 3 of 3 lookups hit)" "status"
  expect_contains "$out" "statistics:  0 hits, 6 misses (whole objects)" "status"
  sc_stop_servers
}
