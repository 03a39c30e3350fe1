# A distribution's ROCm in /usr (issue 11, part 5): Debian 12's `apt install hipcc` puts hipcc in
# /usr/bin, clang in /usr/lib/llvm-15 and the device libraries in
# /usr/lib/x86_64-linux-gnu/amdgcn/bitcode, where no layout glob looks. The fingerprint must
# still cover clang and every device library (from hipcc's own `-###` job list), so that a
# changed device library gives a miss, not a stale object.
# The real /usr is never changed: the whole suite runs in a private mount namespace, and every
# test mounts a fresh overlay over /usr (upper and work dirs under its $TEST_DIR), so each write
# lands in the upper dir and disappears with the namespace.

# STACK=sid (sid_distro.bash): Debian sid's hipcc 7.0.2 (hipBin ELF) over clang-21, device
# libraries in clang's resource dir. SID_LLVM=23 (sid23_distro.bash): a distribution whose hipcc
# runs clang-23, the new offload driver (Debian's hipcc pointed at it with HIP_CLANG_PATH, the
# device libraries 21 by HIP_DEVICE_LIB_PATH, HIP 7.0.2's headers made to compile by the test-only
# compat header through HIPCC_COMPILE_FLAGS_APPEND: three variables the shim keys); its `-###`
# names no linker at all.
if [ "${STACK:-debian12}" = sid ]; then
  DISTRO_LLVM=$SID_LLVM
  DISTRO_BC_REL=lib/llvm-21/lib/clang/21/amdgcn/bitcode
  DISTRO_HIPCC_FILES=(bin/hipcc.real share/hip/version)
  DISTRO_LIBS=("lib/x86_64-linux-gnu/libLLVM.so.$SID_LLVM.1" "lib/x86_64-linux-gnu/libclang-cpp.so.$SID_LLVM.1")
  distro_has_hipcc() { file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF; }
  if [ "$SID_LLVM" != 21 ]; then
    export HIP_CLANG_PATH=/usr/lib/llvm-$SID_LLVM/bin HIP_DEVICE_LIB_PATH=/usr/$DISTRO_BC_REL
    export HIPCC_COMPILE_FLAGS_APPEND="-include $SRC_DIR/tests/fixtures/clang23-hip-compat.h"
  fi
else
  DISTRO_LLVM=15
  DISTRO_BC_REL=lib/x86_64-linux-gnu/amdgcn/bitcode
  DISTRO_HIPCC_FILES=(bin/hipcc.real bin/hipcc.pl bin/hipvars.pm share/hip/version)
  DISTRO_LIBS=(lib/x86_64-linux-gnu/libLLVM-15.so.1 lib/llvm-15/lib/libclang-cpp.so.15)
  distro_has_hipcc() { [ -f /usr/bin/hipcc.pl ]; }
fi
DISTRO_BC=/usr/$DISTRO_BC_REL
DISTRO_ARGS=(-x hip --offload-arch=gfx90a -c k.hip -o k.o -ffinite-math-only)

# json_query FILE-OR-- EXPR: a python3 expression over the parsed JSON `j` (jq is not in the sid root).
json_query() {
  python3 -c 'import json, sys; j = json.load(open(sys.argv[1]) if sys.argv[1] != "-" else sys.stdin); print(eval(sys.argv[2]))' "$@"
}

distro_requires() {
  [ "$(id -u)" = 0 ] && command -v ccache >/dev/null && command -v unshare >/dev/null && command -v python3 >/dev/null &&
    [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && distro_has_hipcc &&
    [ -f "$DISTRO_BC/oclc_finite_only_on.bc" ] && [ -x "/usr/lib/llvm-$DISTRO_LLVM/bin/clang" ] &&
    unshare --mount --propagation private true 2>/dev/null
}

# Enter the private mount namespace once, before any test runs: run this suite again inside it.
if [ -z "${DISTRO_SUITE_IN_NAMESPACE:-}" ]; then
  distro_requires || skip_suite "distro: needs root, unshare -m, ccache and Debian's hipcc + rocm-device-libs"
  rm -rf "$SUITE_TMP"
  DISTRO_SUITE_IN_NAMESPACE=1 exec unshare --mount --propagation private "$BASH" "$0" "$@"
fi

suite_requires() { distro_requires; }

# overlay_usr: a fresh overlay over /usr for this test (the previous test's is unmounted first).
overlay_usr() {
  while mountpoint -q /usr && [ "$(findmnt -n -o FSTYPE /usr)" = overlay ]; do umount -l /usr || break; done
  mkdir -p "$TEST_DIR/upper" "$TEST_DIR/ovl-work"
  mount -t overlay overlay -o "lowerdir=/usr,upperdir=$TEST_DIR/upper,workdir=$TEST_DIR/ovl-work" /usr \
    || fail "cannot mount an overlay over /usr"
  [ "$(findmnt -n -o FSTYPE /usr)" = overlay ] || fail "/usr is not the overlay"
  CC=$TEST_DIR/ccache
  cat > "$TEST_DIR/k.hip" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void distro_k(float* x) {
  int i = threadIdx.x;
  float v = x[i];
  x[i] = logf(v) + expf(v) + powf(v, x[i + 1]) + sqrtf(v) + sinf(v) + hypotf(v, 2.0f) + cbrtf(v) +
         (isinf(v) ? 1.0f : 0.0f);
}
EOF
}

# swap A B: exchange two device libraries (in the overlay).
swap() {
  mv "$DISTRO_BC/$1.bc" "$DISTRO_BC/swap.tmp" && mv "$DISTRO_BC/$2.bc" "$DISTRO_BC/$1.bc" \
    && mv "$DISTRO_BC/swap.tmp" "$DISTRO_BC/$2.bc" || fail "cannot swap $1 and $2"
}

# in_dir NAME: cd into $TEST_DIR/NAME holding k.hip (compiles that must compare run in one
# directory with one -o: clang's CUID follows the command line).
in_dir() {
  mkdir -p "$TEST_DIR/$1" && cp "$TEST_DIR/k.hip" "$TEST_DIR/$1/" && cd "$TEST_DIR/$1" || fail "mkdir $1"
}

# compile OUT [ENV...]: /usr/bin/hipcc in the current dir, then k.o copied to OUT.
compile() {
  local out=$1
  shift
  env "$@" /usr/bin/hipcc "${DISTRO_ARGS[@]}" > "$TEST_DIR/compile.out" 2>&1 \
    || fail "hipcc ($*) failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
  cp k.o "$out"
}

# usr_state: what install and rollback may touch under /usr, by name, stat and content.
usr_state() {
  # (no directory sizes: an overlay's copied-up directory reports its upper dir's)
  find /usr/bin "$(dirname "$DISTRO_BC")" \( -type d -printf '%p d %m %u:%g\n' \) \
    -o -printf '%p %y %m %u:%g %s %l\n' 2>/dev/null | sort
  sha256sum /usr/bin/hipcc* "$DISTRO_BC"/*.bc 2>&1
  [ ! -e /usr/.shimctl/manifest.json ] || echo "manifest present"
}

install_usr() { # ARGS...
  "$SHIMCTL" install /usr --cache-dir "$CC" "$@" > "$TEST_DIR/install.out" 2>&1 \
    || fail "install /usr $* failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
}

test_fingerprint_covers_clang_and_device_libraries() {
  TEST "fingerprint /usr lists clang, lld, the bundler, their libraries and every device library"
  overlay_usr
  local out json n_bc
  out=$("$SHIMCTL" fingerprint /usr 2>&1) || fail "fingerprint /usr: $out"
  printf '%s\n' "$out" > "$TEST_DIR/fingerprint.txt"
  local need
  for need in "${DISTRO_HIPCC_FILES[@]}" "lib/llvm-$DISTRO_LLVM/bin/clang" \
    "lib/llvm-$DISTRO_LLVM/bin/clang-offload-bundler" "${DISTRO_LIBS[@]}" "$DISTRO_BC_REL/ocml.bc" \
    "$DISTRO_BC_REL/oclc_finite_only_on.bc" "$DISTRO_BC_REL/oclc_finite_only_off.bc"; do
    grep -q " $need\$" <<<"$out" || fail "$need is not an input of /usr:"$'\n'"$out"
  done
  # hipcc runs /usr/bin/clang++-15, which finds lld as /usr/bin/lld: whichever LLVM that is.
  grep -q " lib/llvm-[0-9]*/bin/lld\$" <<<"$out" || fail "no lld among the inputs"
  # Every *.bc of the directory, not just those the probe's flags link.
  n_bc=$(find "$DISTRO_BC" -maxdepth 1 -name '*.bc' | wc -l)
  expect_eq "$n_bc" "$(grep -c " $DISTRO_BC_REL/.*\.bc\$" <<<"$out")" "device libraries in the fingerprint"
  json=$("$SHIMCTL" fingerprint /usr --json 2>/dev/null) || fail "fingerprint --json"
  expect_eq "$(head -1 <<<"$out" | cut -c1-64)" "$(json_query - 'j["sha256"]' <<<"$json")" "fingerprint --json sha256"
  [ "$(json_query - 'len(j["inputs"])' <<<"$json")" -gt "$((n_bc + 10))" ] || fail "too few inputs: $json"
}

test_device_library_swap_misses_through_the_shim() {
  TEST "a swapped device library: plain ccache serves a stale object, the shim misses and matches a fresh compile"
  overlay_usr
  local A=oclc_finite_only_on B=oclc_finite_only_off
  # 1. The swap really changes the object (fresh, uncached compiles, same dir and -o).
  in_dir fresh
  compile before.o
  swap $A $B
  compile after.o
  swap $A $B
  cmp -s before.o after.o && fail "swapping $A and $B does not change the object: the test proves nothing"

  # 2. The bug, without shimctl: ccache above hipcc returns the pre-swap object after the swap.
  # (Objects are compared within one directory: clang-21's CUID follows the source's path.)
  local plain=$TEST_DIR/plain-ccache
  in_dir plain
  compile p1.o CCACHE_DIR="$plain" ccache
  compile p2.o CCACHE_DIR="$plain" ccache
  expect_hits "$plain" 1
  swap $A $B
  compile p3.o CCACHE_DIR="$plain" ccache
  compile p-fresh.o
  expect_hits "$plain" 2
  expect_same_file p1.o p3.o # stale:
  cmp -s p-fresh.o p3.o && fail "plain ccache's object equals a fresh compile after the swap"
  swap $A $B

  # 3. Through the shim: the swap is a miss whose object equals a forced fresh compile's bytes.
  # The reference is a compile through the same cache with CCACHE_RECACHE=1: ccache reorders the
  # arguments it runs the compiler with, and clang-21's CUID (__hip_cuid_) follows them, so a
  # compile without ccache differs from any ccache compile by that symbol alone (see README).
  install_usr --no-verify
  cmp -s "$SHIM_BIN" /usr/bin/hipcc || fail "/usr/bin/hipcc is not the shim"
  in_dir fresh # the same directory and -o as the fresh compiles
  compile s1.o
  compile s2.o
  expect_hits "$CC" 1
  expect_misses "$CC" 1
  expect_same_file s1.o s2.o
  swap $A $B
  compile s3.o
  expect_misses "$CC" 2
  expect_hits "$CC" 1
  cmp -s s1.o s3.o && fail "the object through the shim did not change with the device library"
  compile fresh-after.o CCACHE_RECACHE=1 # compiles again, whatever the cache holds
  expect_same_file fresh-after.o s3.o
  # 4. Swapped back: the first entry again.
  swap $A $B
  compile s4.o
  expect_hits "$CC" 2
  expect_same_file s1.o s4.o
}

test_install_verify_rollback() {
  TEST "install /usr (verified): the --divert advice; verify, status; rollback leaves /usr as it was"
  overlay_usr
  usr_state > "$TEST_DIR/before.state"
  install_usr
  local out rc
  out=$(cat "$TEST_DIR/install.out")
  expect_contains "$out" "belong to a dpkg package (e.g. bin/hipcc)" "install notes dpkg's ownership"
  expect_contains "$out" "'shimctl install --divert'" "install advises --divert"
  cmp -s "$SHIM_BIN" /usr/bin/hipcc || fail "/usr/bin/hipcc is not the shim"
  [ -f /usr/bin/hipcc.real ] || fail "no /usr/bin/hipcc.real"
  [ ! -e "/usr/lib/llvm-$DISTRO_LLVM/bin/clang.real" ] || fail "install /usr wrapped the system clang"
  expect_eq True "$(json_query /usr/.shimctl/manifest.json \
    "'lib/llvm-$DISTRO_LLVM/bin/clang' in [i['path'] for i in j['fingerprint']['inputs']]")" \
    "the manifest's inputs have clang"
  grep -q "^dir $DISTRO_BC\$" /usr/.shimctl/identity && grep -q " oclc_finite_only_off.bc\$" /usr/.shimctl/identity \
    || fail "the identity snapshot does not guard the device libraries: $(cat /usr/.shimctl/identity)"
  out=$("$SHIMCTL" verify /usr 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code:"$'\n'"$out"
  # refresh re-probes through the installed shim (SHIMCTL_DISABLE=1): the same inputs.
  local key entries
  key=$("$SHIMCTL" cache-key /usr 2>/dev/null)
  entries=$(find "$CC" -type f | wc -l)
  out=$("$SHIMCTL" refresh /usr 2>&1) || fail "refresh: $out"
  expect_eq "$key" "$("$SHIMCTL" cache-key /usr 2>/dev/null)" "cache-key after refresh"
  expect_eq "$entries" "$(find "$CC" -type f | wc -l)" "files in the cache dir after refresh (its probe must bypass the cache)"
  out=$("$SHIMCTL" rollback /usr 2>&1) || fail "rollback: $out"
  usr_state > "$TEST_DIR/after.state"
  diff -u "$TEST_DIR/before.state" "$TEST_DIR/after.state" > "$TEST_DIR/state.diff" \
    || fail "/usr changed after rollback:"$'\n'"$(head -30 "$TEST_DIR/state.diff")"
}

test_refused_without_device_libraries() {
  TEST "no device libraries: install refuses in one line (also with --json), nothing changed"
  overlay_usr
  mv "$(dirname "$DISTRO_BC")" "$(dirname "$DISTRO_BC").hidden" || fail "cannot hide the bitcode"
  usr_state > "$TEST_DIR/before.state"
  local out rc json
  for json in "" --json; do
    rc=0
    out=$("$SHIMCTL" install /usr --cache-dir "$CC" --no-verify $json 2>&1 >/dev/null) || rc=$?
    expect_eq 2 "$rc" "exit code ($json): $out"
    expect_eq 1 "$(grep -c '' <<<"$out")" "stderr lines ($json): $out"
    expect_contains "$out" "shimctl: error: /usr/bin/hipcc links no HIP device library" "the error ($json)"
    expect_contains "$out" "cannot find ROCm device library" "clang's reason ($json)"
    expect_contains "$out" "apt install rocm-device-libs" "what to do ($json)"
  done
  usr_state > "$TEST_DIR/after.state"
  diff -u "$TEST_DIR/before.state" "$TEST_DIR/after.state" > "$TEST_DIR/state.diff" \
    || fail "a refused install changed /usr:"$'\n'"$(head -30 "$TEST_DIR/state.diff")"
  [ ! -e /usr/.shimctl ] || fail "a refused install left /usr/.shimctl"
}

test_new_driver_linker_is_keyed() {
  TEST "a new-driver clang in /usr: its ld.lld (in no -###) changed: a miss equal to a fresh compile; restored: a hit"
  overlay_usr
  local b=/usr/lib/llvm-$DISTRO_LLVM/bin jobs
  jobs=$(/usr/bin/hipcc -### "${DISTRO_ARGS[@]}" 2>&1)
  case $jobs in *'/clang-linker-wrapper" '*) ;; *)
    echo "    (clang-$DISTRO_LLVM's plan runs no linker wrapper: lld is in its -###, keyed as before)"; return 0 ;; esac
  case $jobs in *'ld.lld"'* | *'/lld"'*) fail "the plan names the linker: the test proves nothing" ;; esac
  install_usr --no-verify
  grep -q "^dir $b\$" /usr/.shimctl/identity && grep -q " ld.lld\$" /usr/.shimctl/identity \
    || fail "the identity snapshot lacks $b/ld.lld:"$'\n'"$(cat /usr/.shimctl/identity)"
  in_dir fresh
  compile s1.o
  compile s2.o
  expect_hits "$CC" 1
  # ld.lld, a link to lld, becomes a script that gives the device link a build id.
  local saved; saved=$(readlink "$b/ld.lld") || fail "$b/ld.lld is not a link"
  rm "$b/ld.lld" && printf '#!/bin/sh\nexec "$(dirname "$0")/lld" -flavor gnu "$@" --build-id=0xdeadbeef\n' >"$b/ld.lld" &&
    chmod 755 "$b/ld.lld" || fail "cannot change ld.lld"
  compile s3.o
  expect_misses "$CC" 2
  cmp -s s1.o s3.o && fail "the changed ld.lld did not change the object: the test proves nothing"
  compile fresh.o CCACHE_RECACHE=1
  expect_same_file fresh.o s3.o
  rm "$b/ld.lld" && ln -s "$saved" "$b/ld.lld" || fail "cannot restore ld.lld"
  compile s4.o
  expect_hits "$CC" 2
  expect_same_file s1.o s4.o
}

test_sccache_does_not_break() {
  TEST "install /usr --cache sccache: objects follow the swap (sccache 0.4 caches no HIP; 0.17 does)"
  command -v sccache >/dev/null || { echo "    (no sccache: skipped)"; return 0; }
  overlay_usr
  install_usr --cache sccache --no-verify
  sc_server_of /usr
  trap sc_stop_servers EXIT
  grep -q "^appendenv SCCACHE_EXTRAFILES=.*$DISTRO_BC_REL/ocml.bc" /usr/bin/.shimctl.conf \
    || fail "SCCACHE_EXTRAFILES lacks the device libraries"
  # sccache 0.17 compiles HIP with a CUID of its own unless the command line names one.
  [ "${STACK:-debian12}" != sid ] || DISTRO_ARGS+=(-cuid=shimctl-distro)
  in_dir sc
  compile s1.o
  compile ref1.o SHIMCTL_DISABLE=1
  expect_same_file ref1.o s1.o
  swap oclc_finite_only_on oclc_finite_only_off
  compile s2.o
  compile ref2.o SHIMCTL_DISABLE=1
  expect_same_file ref2.o s2.o
  cmp -s s1.o s2.o && fail "the swap did not change the object through sccache"
  "$SHIMCTL" rollback /usr > /dev/null 2>&1 || fail "rollback"
}
