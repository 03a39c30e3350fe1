# Per-target pieces (issue 25) on the Debian 12 stack: perl hipcc 5.2 with clang-15, and clang-16
# -x hip directly, GPU targets gfx908, gfx90a and gfx1030 (gfx942/gfx1100 are unknown there).
# On ccache's miss, a HIP compile is made of one ccache-kept device piece per target, the driver's
# bundler and the host compile: a target set that adds or removes a target (from another
# directory) reuses the pieces it shares, and every object equals an uncached compile of the same
# command byte for byte. The cases the split cannot reproduce run whole (the trace says why), also
# with the same bytes. sid_pieces.bash: the same on hipcc 7.0.2 / clang-21.
# Helpers: tests/integration/lib-pieces.bash.

source "$SRC_DIR/tests/integration/lib-pieces.bash"

suite_requires() {
  command -v ccache >/dev/null && [ -x /usr/lib/llvm-15/bin/clang ] && [ -x /usr/lib/llvm-16/bin/clang ] &&
    [ -f /usr/bin/hipcc.pl ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

test_hipcc15_add_remove_change() {
  TEST "hipcc/clang-15: 2 targets, then 3 from another dir (2 pieces hit), 3 -> 2 (all hit), whole hit, header change, SHIMCTL_PIECES=0"
  pz_prefix 15
  pz_use hipcc
  pz_case_add_remove_change gfx908 gfx90a gfx1030
}

test_hipcc15_reassembly_refused() {
  TEST "hipcc/clang-15: a reassembly whose section headers differ from the host half's is refused for that TU alone (the host compiles with the object), the next TU tries its half again; as uncached"
  pz_prefix 15
  pz_use hipcc
  # An llvm-objcopy that also changes .comment's alignment: every reassembly differs from its half.
  local objcopy=$P/llvm/bin/llvm-objcopy
  [ -x "$objcopy" ] || { fail "no llvm-objcopy beside the prefix's clang: $objcopy"; return; }
  mv "$objcopy" "$objcopy.test-real"
  printf '#!/bin/sh\nexec "%s" --set-section-alignment .comment=64 "$@"\n' "$objcopy.test-real" >"$objcopy"
  chmod 755 "$objcopy"
  export XDG_CACHE_HOME=$TEST_DIR/xdg
  corpus "$TEST_DIR/r2"
  corpus "$TEST_DIR/r3"
  pz_compile "$TEST_DIR/r2" -O2 $(targets gfx908,gfx90a) -c k.hip -o k.o
  pz_compile "$TEST_DIR/r3" -O2 $(targets gfx908,gfx90a,gfx1030) -c k.hip -o k.o
  mv "$objcopy.test-real" "$objcopy"
  local d
  for d in r2 r3; do
    grep -qx 'shimctl-shim: pieces: host half not used for this TU: llvm-objcopy changed the header of .comment' \
      "$TEST_DIR/$d/trace" || fail "the refused reassembly in $d is not traced:"$'\n'"$(cat "$TEST_DIR/$d/trace")"
  done
  expect_eq "miss hit" "$(host_in "$TEST_DIR/r2") $(host_in "$TEST_DIR/r3")" "host halves: refused, then tried again (a hit)"
  # The verdicts are kept though the cache home ($XDG_CACHE_HOME) did not exist: r3 is not checked.
  # A refusal is this TU's: no verdict for the toolchain's host half.
  grep -q 'checked against' "$TEST_DIR/r3/trace" && fail "the second split was checked again"
  expect_eq "same" "$(pz_verdicts | tr ' ' '\n' | sort | xargs)" "the verdicts recorded"
  pz_ref "$TEST_DIR/r3" k.o -O2 $(targets gfx908,gfx90a,gfx1030) -c k.hip -o k.o
  expect_same_file "$TEST_DIR/r3/ref.k.o" "$TEST_DIR/r3/k.o"
}

test_hipcc15_kernel_less() {
  TEST "hipcc/clang-15 -O3 -MD -MT -MF: a TU without kernels first is its host half alone, and the next kernel TU still reuses its host half for a third target; as uncached"
  pz_prefix 15
  pz_use hipcc
  pz_case_kernel_less gfx908 gfx90a gfx1030
}

test_hipcc15_derive() {
  TEST "hipcc/clang-15 (default): A,B then A,B,C derived from A,B (C compiled), A,C from A,B,C, kernel-less as it is, header change whole; whole objects only; as uncached"
  pz_prefix 15
  pz_use hipcc
  pz_case_derive gfx908 gfx90a gfx1030
}

test_hipcc15_one_target() {
  TEST "hipcc/clang-15: one target runs whole by default; with SHIMCTL_PIECES=1 its piece serves gfx90a,gfx908 from another dir"
  pz_prefix 15
  pz_use hipcc
  pz_case_one_target gfx90a gfx908
}

test_clang15_early_pieces() {
  TEST "clang-15: the pieces start before the plan as it last asked (not on the first split); a stale memo's pieces are compiled again; objects as uncached"
  pz_prefix 15
  pz_use clang
  pz_case_early_pieces gfx908 gfx90a gfx1030
}

test_hipcc15_rdc() {
  TEST "hipcc/clang-15 -fgpu-rdc: 3 targets from another dir reuse 2 bitcode pieces; object as uncached"
  pz_prefix 15
  pz_use hipcc
  pz_case_rdc gfx908 gfx90a gfx1030
}

test_hipcc15_compile_error() {
  TEST "hipcc/clang-15: a compile error still fails with the compiler's message and exit code"
  pz_prefix 15
  pz_use hipcc
  pz_case_error gfx908 gfx90a
}

test_clang16_target_ids() {
  TEST "clang-16 -x hip, target IDs (xnack+/sramecc+): 3 targets from another dir reuse 2 pieces; xnack- is its own piece"
  pz_prefix 16
  pz_use clang
  expect_eq "" "$(pz_verdicts)" "verdicts before the first split of clang-16"
  pz_case_ids "gfx90a:xnack+" "gfx908:sramecc+" gfx1030 "gfx90a:xnack-"
  expect_checked "$TEST_DIR/ids-2"
}

test_clang16_debug_depfile() {
  TEST "clang-16 -x hip -g -MD -MF: another dir misses (DWARF names it), the same dir reuses; objects and depfiles as uncached"
  pz_prefix 16
  pz_use clang
  pz_case_debug_depfile gfx908 gfx90a gfx1030
}

test_fallbacks_debian() {
  TEST "what a split cannot reproduce runs whole (trace says why), objects as uncached: -save-temps, -fgpu-sanitize, -Xoffload-linker, several inputs, the user's -cuid=, -emit-llvm, -S, -E"
  pz_prefix 16
  pz_fallbacks gfx90a,gfx908
}

# ---- one root-installed prefix, another user ---------------------------------------------------
pz_mu_cleanup() {
  [ -n "${PZ_USER:-}" ] && { pkill -KILL -u "$PZ_USER" 2>/dev/null; userdel "$PZ_USER" 2>/dev/null; }
  [ -n "${PZ_MU:-}" ] && rm -rf "$PZ_MU"
}

# as_user DIR CMD...: CMD as PZ_USER in DIR, with a clean environment: its own HOME and CCACHE_DIR.
as_user() {
  local dir=$1; shift
  runuser -u "$PZ_USER" -- env -i PATH=/usr/bin:/bin HOME="$PZ_MU/home-user" LANG=C \
    CCACHE_DIR="$PZ_MU/home-user/ccache" ${PZ_ENV:+$PZ_ENV} sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$@"
}

test_multiuser() {
  TEST "a root-installed prefix: another user's compiles derive with its own cache and cache home (the earlier target sets, the verdict), nothing written in root's home, objects as uncached"
  command -v useradd >/dev/null && command -v runuser >/dev/null && [ "$(id -u)" -eq 0 ] ||
    { echo "    (skipped: needs root, useradd and runuser)"; return 0; }
  PZ_USER=pzu$(printf '%04x%04x' $$ $RANDOM)
  PZ_MU=$(mktemp -d /var/tmp/shimctl-pz.XXXXXX)
  chmod 755 "$PZ_MU"
  trap pz_mu_cleanup EXIT
  useradd -M -N -s /bin/sh "$PZ_USER" || fail "useradd $PZ_USER"
  # Root's home: open to everyone (1777), so that a write there by the user's compile would succeed
  # and show.
  mkdir -p "$PZ_MU/home-root" "$PZ_MU/home-user"
  P=$PZ_MU/rocm
  "$SCRIPTS/make-rocm-prefix" "$P" --llvm 15 >/dev/null || fail "make-rocm-prefix"
  HOME=$PZ_MU/home-root env -u CCACHE_DIR -u XDG_CACHE_HOME "$SHIMCTL" install "$P" \
    --cache-dir "$PZ_MU/home-root/ccache" --no-verify >"$TEST_DIR/install.out" 2>&1 ||
    fail "root's install failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  chmod 1777 "$PZ_MU/home-root"
  local before; before=$(cd "$PZ_MU/home-root" && find . -printf '%p %s %T@\n' | sort)
  chown "$PZ_USER" "$PZ_MU/home-user"
  local d
  for d in w2 w3; do corpus "$PZ_MU/$d"; chown -R "$PZ_USER" "$PZ_MU/$d"; done
  PZ_CC=("$P/bin/hipcc")
  PZ_ENV=SHIMCTL_SHIM_TRACE=1 as_user "$PZ_MU/w2" "$P/bin/hipcc" -O2 $(targets gfx908,gfx90a) -c k.hip -o k.o \
    >"$PZ_MU/w2/trace" 2>&1 || fail "the user's 2-target compile failed:"$'\n'"$(cat "$PZ_MU/w2/trace")"
  expect_whole "$PZ_MU/w2" "no earlier target set of this TU to derive its object from"
  PZ_ENV=SHIMCTL_SHIM_TRACE=1 as_user "$PZ_MU/w3" "$P/bin/hipcc" -O2 $(targets gfx908,gfx90a,gfx1030) -c k.hip -o k.o \
    >"$PZ_MU/w3/trace" 2>&1 || fail "the user's 3-target compile failed:"$'\n'"$(cat "$PZ_MU/w3/trace")"
  expect_eq "gfx908,gfx90a:gfx1030" "$(derived_in "$PZ_MU/w3")" "the user's 3-target object"
  grep -q 'checked against its one-step compile: identical' "$PZ_MU/w3/trace" ||
    fail "the user's first derived object was not checked:"$'\n'"$(cat "$PZ_MU/w3/trace")"
  mv "$PZ_MU/w3/k.o" "$PZ_MU/w3/shim.k.o"
  PZ_ENV=SHIMCTL_DISABLE=1 as_user "$PZ_MU/w3" "$P/bin/hipcc" -O2 $(targets gfx908,gfx90a,gfx1030) -c k.hip -o k.o \
    >"$PZ_MU/w3/ref.out" 2>&1 || fail "the user's uncached compile failed:"$'\n'"$(cat "$PZ_MU/w3/ref.out")"
  expect_same_file "$PZ_MU/w3/k.o" "$PZ_MU/w3/shim.k.o"
  expect_eq "$PZ_USER" "$(stat -c %U "$PZ_MU/w3/shim.k.o")" "owner of the user's object"
  # The counters in the user's cache, the verdict in the user's cache home, both the user's.
  grep -qx 'derived 1' "$PZ_MU/home-user/ccache/shimctl-pieces" ||
    fail "no 'derived 1' in the user's counters: $(xargs <"$PZ_MU/home-user/ccache/shimctl-pieces")"
  expect_eq "$PZ_USER" "$(stat -c %U "$PZ_MU/home-user/ccache/shimctl-pieces")" "owner of the counters"
  local verdicts
  verdicts=$(find "$PZ_MU/home-user/.cache/shimctl/pieces-checked" "$PZ_MU/home-user/.cache/shimctl/target-sets" \
    -type f -printf '%u ' 2>/dev/null)
  # Two: the derived object's verdict and the TU's target sets.
  expect_eq "$PZ_USER $PZ_USER" "$(echo $verdicts)" "the user's verdict and target-set files (owners)"
  expect_eq "$before" "$(cd "$PZ_MU/home-root" && find . -printf '%p %s %T@\n' | sort)" "root's home after the user's compiles"
  expect_eq "" "$(find "$PZ_MU/home-root" /root -xdev -user "$PZ_USER" -print -quit 2>/dev/null)" \
    "files of the user under root's homes"
}
