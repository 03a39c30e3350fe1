# Toolchain identity (issue 3): every cache key follows the current contents of the files that
# decide the object (device libraries, clang, ptxas, ...), never their mtimes or inodes.
# Real compiles through the shim (hipcc and nvcc by absolute path) on throwaway prefixes built by
# scripts/make-rocm-prefix / make-cuda-prefix: the ROCm prefix is built once per suite
# (rocm_prefix 15) and each test changes its own copy (cp -a); each test has its own cache dir
# (install --cache-dir). Installs skip verification (--no-verify) so that the cache counters
# count only the compiles made here.

source "$SRC_DIR/scripts/lib/toolchains.bash"

suite_requires() {
  command -v ccache >/dev/null && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && have_rocm 15 \
    && command -v python3 >/dev/null
}

HIP_FLAGS=(-x hip --offload-arch=gfx90a -c m.hip)

# new_rocm NAME: P = $TEST_DIR/NAME, a copy (cp -a: new inodes, same bytes and mtimes) of the
# suite's ROCm-shaped prefix (clang-15, built once by rocm_prefix 15); C = this test's cache.
new_rocm() {
  local shared
  P=$TEST_DIR/$1
  C=$TEST_DIR/ccache
  shared=$(rocm_prefix 15) || fail "cannot build the suite's rocm prefix (scripts/make-rocm-prefix)"
  cp -a "$shared" "$P" || fail "cannot copy $shared to $P"
}

# touch_until_changed FILE...: touches FILE... (touch -h: links themselves, never what they
# point to) until the first one's stat data (mtime, ctime) differ from what they were: on a
# coarse clock a touch can land in the tick of the last change, and then it changes nothing.
touch_until_changed() {
  local before; before=$(stat -c '%y %z' "$1")
  wait_until 10 "a touch to change the stat data of $1" touched_since "$before" "$@"
}
touched_since() { # STAT FILE...
  local before=$1; shift
  touch -h "$@" && [ "$(stat -c '%y %z' "$1")" != "$before" ]
}

# install_p [ARGS...]: shimctl install $P --cache-dir $C --no-verify.
install_p() {
  "$SHIMCTL" install "$P" --cache-dir "$C" --no-verify "$@" >"$TEST_DIR/install.out" 2>&1 \
    || fail "install $P $* failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
}

# hip OUT: compile m.hip through the shim ($P/bin/hipcc by absolute path) into OUT. Every compile
# names the same output, m.o (the shim's CUID follows -o: other names would be other keys), and
# the object moves to OUT after.
hip() {
  "$P/bin/hipcc" "${HIP_FLAGS[@]}" -o m.o >"$TEST_DIR/compile.out" 2>&1 && mv m.o "$1" \
    || fail "hipcc -o $1 failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
}

# fresh_hip OUT: the same compile without the cache (the shim execs the originals).
fresh_hip() {
  SHIMCTL_DISABLE=1 "$P/bin/hipcc" "${HIP_FLAGS[@]}" -o m.o >"$TEST_DIR/compile.out" 2>&1 && mv m.o "$1" \
    || fail "fresh hipcc -o $1 failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
}

# expect_counts HITS MISSES: the counters of this test's cache.
expect_counts() {
  local d p m
  d=$(ccache_stat "$C" direct_cache_hit); p=$(ccache_stat "$C" preprocessed_cache_hit)
  m=$(ccache_stat "$C" cache_miss)
  expect_eq "hits=$1 misses=$2" "hits=$((d + p)) misses=$m" "cache counters in $C"
}

# replace_content FILE SOURCE: FILE gets SOURCE's bytes (a new inode; mode kept).
replace_content() {
  cp -p "$2" "$1.identity-new" && mv -f "$1.identity-new" "$1" || fail "cannot replace $1"
}

# append_bytes FILE: the same program with bytes appended (an ELF file still runs).
append_bytes() {
  cp -p "$1" "$1.identity-new" && printf 'shimctl identity test\n' >> "$1.identity-new" \
    && mv -f "$1.identity-new" "$1" || fail "cannot change $1"
}

shimctl_out() { # ARGS...: stdout of shimctl; fails the test on a non-zero exit
  local out rc
  out=$("$SHIMCTL" "$@" 2>"$TEST_DIR/shimctl.err"); rc=$?
  [ $rc -eq 0 ] || fail "shimctl $* exited $rc: $(cat "$TEST_DIR/shimctl.err")"
  printf '%s' "$out"
}

test_device_library_swap() {
  TEST "device libraries swapped: a miss equal to a fresh compile; swapped back: a hit"
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  local B=$P/amdgcn/bitcode
  mkdir saved && cp -p "$B/oclc_correctly_rounded_sqrt_on.bc" "$B/oclc_finite_only_off.bc" saved/

  hip before.o
  expect_counts 0 1
  expect_eq "identity-helper $SHIMCTL" "$(grep '^identity-helper ' "$P/bin/.shimctl.conf")" \
    "the shim config names its identity helper"
  grep -q ' oclc_correctly_rounded_sqrt_on.bc$' "$P/.shimctl/identity" ||
    fail "the identity snapshot does not list the device library"

  # A device-library update, as the issue reproduces it (in place: same inodes, new contents).
  cp "$B/oclc_correctly_rounded_sqrt_off.bc" "$B/oclc_correctly_rounded_sqrt_on.bc"
  cp "$B/oclc_finite_only_on.bc" "$B/oclc_finite_only_off.bc"
  hip swapped.o
  expect_counts 0 2
  expect_eq "fingerprint $(shimctl_out fingerprint "$P" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["sha256"])')" \
    "$(sed -n 2p "$P/.shimctl/identity")" "the snapshot holds the new contents' fingerprint"
  fresh_hip fresh1.o
  fresh_hip fresh2.o
  expect_same_file fresh1.o fresh2.o              # the toolchain is deterministic
  expect_same_file fresh1.o swapped.o             # the cache served what a fresh compile makes
  cmp -s before.o swapped.o && fail "the swap did not change the object: the test proves nothing"
  expect_counts 0 2                               # SHIMCTL_DISABLE=1 never touched the cache

  # Swapped back (new inodes this time): the first entries are valid again.
  replace_content "$B/oclc_correctly_rounded_sqrt_on.bc" saved/oclc_correctly_rounded_sqrt_on.bc
  replace_content "$B/oclc_finite_only_off.bc" saved/oclc_finite_only_off.bc
  hip back.o
  expect_counts 1 2
  expect_same_file before.o back.o
}

# asks OUT: compiles m.hip to OUT through the shim; prints how often the shim asked its identity
# helper to re-hash (its trace line).
asks() { # (one output name for every compile: the shim's CUID follows -o; then moved to OUT)
  SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" "${HIP_FLAGS[@]}" -o m.o 2>&1 | grep -c 'identity snapshot stale'
  mv m.o "$1"
}

test_guard_asks_the_helper_only_after_a_change() {
  TEST "the identity guard: no re-hash while nothing changed, one after a touch, a hit throughout"
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  expect_eq 0 "$(asks first.o)" "re-hashes on the first compile after install"
  expect_eq 0 "$(asks second.o)" "re-hashes on a hit"
  expect_counts 1 1
  local before; before=$(cat "$P/.shimctl/identity")
  touch_until_changed "$P/amdgcn/bitcode/ocml.bc"
  expect_eq 1 "$(asks third.o)" "re-hashes after a touch"
  expect_counts 2 1
  expect_same_file first.o third.o
  [ "$(sed -n 2p "$P/.shimctl/identity")" = "$(sed -n 2p <<<"$before")" ] ||
    fail "a touch changed the fingerprint"
  [ "$(cat "$P/.shimctl/identity")" != "$before" ] || fail "the snapshot was not rewritten"
  expect_eq 0 "$(asks fourth.o)" "re-hashes once the snapshot is rewritten"
  expect_counts 3 1
}

# as_user NAME OUT: as user nobody (HOME $TEST_DIR/home, cache $TEST_DIR/ucache), compiles m.hip
# to OUT through the shim with its trace on; the trace goes to $TEST_DIR/NAME.trace.
as_user() {
  runuser -u nobody -- env HOME="$TEST_DIR/home" CCACHE_DIR="$TEST_DIR/ucache" \
    SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" "${HIP_FLAGS[@]}" -o "$TEST_DIR/out/m.o" \
    2>"$TEST_DIR/$1.trace" && mv "$TEST_DIR/out/m.o" "$TEST_DIR/out/$2" \
    || fail "compile as nobody failed: $(cat "$TEST_DIR/$1.trace")"
}

test_user_who_cannot_write_the_prefix_rehashes_once() {
  TEST "a user who may not write the prefix re-hashes once after a change, then uses their own snapshot"
  id nobody >/dev/null 2>&1 || { echo "    (no user nobody: skipped)"; return 0; }
  chmod 755 "$SUITE_TMP" "$TEST_DIR"
  runuser -u nobody -- test -x "$SHIMCTL" ||
    { echo "    ($SHIMCTL is not executable by nobody at this path: skipped)"; return 0; }
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  mkdir -p "$TEST_DIR/home" "$TEST_DIR/ucache" "$TEST_DIR/out"
  chown nobody "$TEST_DIR/home" "$TEST_DIR/ucache" "$TEST_DIR/out"
  chmod 700 "$TEST_DIR/home"
  local mine=$TEST_DIR/home/.cache/shimctl/identity/$(printf '%s' "$P" | sed -e 's/%/%25/g' -e 's|/|%2F|g')
  touch_until_changed "$P/amdgcn/bitcode/ocml.bc" # what a package upgrade with the same bytes looks like
  as_user first first.o
  expect_contains "$(cat "$TEST_DIR/first.trace")" "identity snapshot stale" "first compile after the touch"
  [ -f "$mine" ] || fail "no user snapshot at $mine"
  expect_eq "nobody 644" "$(stat -c '%U %a' "$mine")" "owner and mode of the user snapshot"
  expect_eq "dir $P/.shimctl" "$(sed -n 3p "$mine")" "the user snapshot starts with the prefix's manifest"
  as_user second second.o
  expect_contains "$(cat "$TEST_DIR/second.trace")" "identity current (user snapshot $mine)" "second compile"
  expect_eq "hits=1 misses=1" "hits=$(( $(ccache_stat "$TEST_DIR/ucache" direct_cache_hit) + \
    $(ccache_stat "$TEST_DIR/ucache" preprocessed_cache_hit) )) misses=$(ccache_stat "$TEST_DIR/ucache" cache_miss)" \
    "nobody's cache counters"
  # A real change: the user snapshot is stale too, the compile misses and equals a fresh compile.
  local B=$P/amdgcn/bitcode
  cp "$B/oclc_finite_only_on.bc" "$B/oclc_finite_only_off.bc"
  as_user third third.o
  expect_contains "$(cat "$TEST_DIR/third.trace")" "identity snapshot stale" "compile after a content change"
  SHIMCTL_DISABLE=1 "$P/bin/hipcc" "${HIP_FLAGS[@]}" -o fresh.o || fail "fresh compile failed"
  expect_same_file fresh.o "$TEST_DIR/out/third.o"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/ucache" cache_miss)" "misses after the content change"
  # A re-install writes a new manifest: the user snapshot no longer counts, whatever it says.
  "$SHIMCTL" refresh "$P" >/dev/null 2>&1 || fail "refresh failed"
  rm "$P/.shimctl/identity"
  as_user fourth fourth.o
  expect_contains "$(cat "$TEST_DIR/fourth.trace")" "identity snapshot stale" "compile after refresh (no prefix snapshot)"
  # Someone else's file at that path is never trusted.
  "$SHIMCTL" refresh "$P" >/dev/null 2>&1 || fail "refresh failed"
  as_user fifth fifth.o
  expect_contains "$(cat "$TEST_DIR/fifth.trace")" "identity current (snapshot)" "compile after refresh"
  rm "$P/.shimctl/identity"
  as_user sixth sixth.o # writes nobody's snapshot again
  chown root "$mine"
  as_user seventh seventh.o
  expect_contains "$(cat "$TEST_DIR/seventh.trace")" "identity snapshot stale" "a user snapshot owned by root"
}

# hip_env OUT [VAR=VALUE...]: compile m.hip through the shim, without --offload-arch, with the
# given environment; FRESH=1 compiles without the cache.
hip_noarch() {
  local out=$1; shift
  env "$@" ${FRESH:+SHIMCTL_DISABLE=1} "$P/bin/hipcc" -x hip -c m.hip -o m.o \
    >"$TEST_DIR/compile.out" 2>&1 && mv m.o "$out" \
    || fail "hipcc -o $out failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
}

test_gpu_target_outside_the_command_line() {
  TEST "the GPU target from HCC_AMDGPU_TARGET or the machine's GPUs is in the key: no other GPU's object"
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  hip_noarch a90.o HCC_AMDGPU_TARGET=gfx90a
  hip_noarch a1030.o HCC_AMDGPU_TARGET=gfx1030
  expect_counts 0 2
  FRESH=1 hip_noarch fresh1030.o HCC_AMDGPU_TARGET=gfx1030
  expect_same_file fresh1030.o a1030.o
  cmp -s a90.o a1030.o && fail "gfx90a and gfx1030 objects are equal: the test proves nothing"
  hip_noarch b90.o HCC_AMDGPU_TARGET=gfx90a
  expect_counts 1 2
  expect_same_file a90.o b90.o
  # No target at all: hipcc builds for what bin/rocm_agent_enumerator reports (this prefix's
  # stands in for the GPUs of the machine).
  hip_noarch auto90.o
  expect_counts 1 3 # the key names the GPUs, not the variable: a miss
  expect_same_file a90.o auto90.o
  local enum=$P/bin/rocm_agent_enumerator
  cp -p "$enum" "$TEST_DIR/enumerator.saved"
  printf '#!/bin/sh\necho gfx000\necho gfx1030\n' > "$enum"
  hip_noarch auto1030.o
  expect_counts 1 4
  expect_same_file fresh1030.o auto1030.o
  cp -p "$TEST_DIR/enumerator.saved" "$enum"
  hip_noarch auto90b.o
  expect_counts 2 4
  expect_same_file a90.o auto90b.o
}

test_target_probe_memo() {
  TEST "the GPU probe runs once across compiles; a new enumerator, visibility or namespace probes again"
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  export HOME=$TEST_DIR/home
  mkdir -p "$HOME"
  local enum=$P/bin/rocm_agent_enumerator runs=$TEST_DIR/enum.runs i
  # It counts the shim's runs only (hipcc runs it too, under ccache: SHIMCTL_ACTIVE set).
  printf '#!/bin/sh\n[ -n "$SHIMCTL_ACTIVE" ] || echo run >> %s\necho gfx000\necho gfx90a\n' "$runs" > "$enum"
  wait_until 10 "the enumerator to settle" settled "$enum"
  for i in 1 2 3 4 5; do hip_noarch n$i.o; done
  expect_eq 1 "$(wc -l < "$runs")" "enumerator runs for 5 compiles"
  expect_counts 4 1
  for i in 2 3 4 5; do expect_same_file n1.o n$i.o; done
  local memo
  memo=$(find "$HOME/.cache/shimctl/probes" -type f)
  [ "$(echo "$memo" | wc -l)" = 1 ] && [ "$(stat -c '%U %a' "$memo")" = "root 600" ] \
    || fail "memo: '$memo' $(stat -c '%U %a' $memo)"
  # A visibility variable: a new probe and a new key (a miss), then memoised again.
  hip_noarch v1.o ROCR_VISIBLE_DEVICES=0
  hip_noarch v2.o ROCR_VISIBLE_DEVICES=0
  expect_eq 2 "$(wc -l < "$runs")" "runs after ROCR_VISIBLE_DEVICES=0 (twice)"
  expect_counts 5 2
  # Another mount namespace (another container on this host): probed again.
  unshare -m env "$P/bin/hipcc" -x hip -c m.hip -o m.o || fail "compile in a new mount namespace"
  expect_eq 3 "$(wc -l < "$runs")" "runs after a compile in a new mount namespace"
  # A memo this user does not own is never read.
  hip_noarch p1.o
  expect_eq 4 "$(wc -l < "$runs")" "runs back in this namespace"
  chown nobody "$memo"
  hip_noarch p2.o
  expect_eq 5 "$(wc -l < "$runs")" "runs with a memo owned by another user"
  # The enumerator changes (another GPU): probed again, the other GPU's object, never this one's.
  printf '#!/bin/sh\n[ -n "$SHIMCTL_ACTIVE" ] || echo run >> %s\necho gfx000\necho gfx1030\n' "$runs" > "$enum"
  wait_until 10 "the enumerator to settle" settled "$enum"
  hip_noarch g1030.o
  hip_noarch g1030b.o
  expect_eq 6 "$(wc -l < "$runs")" "runs after the enumerator changed"
  FRESH=1 HCC_AMDGPU_TARGET=gfx1030 hip_noarch fresh1030.o
  cmp -s n1.o fresh1030.o && fail "gfx90a and gfx1030 objects are equal: the test proves nothing"
  expect_same_file fresh1030.o g1030.o
  expect_same_file fresh1030.o g1030b.o
}

test_real_enumerator_with_target_lst() {
  TEST "ROCm's own rocm_agent_enumerator (Python) with a target.lst: memoised; a changed target.lst changes the key"
  [ -f /usr/bin/rocm_agent_enumerator ] || { echo "  (skipped: no rocminfo package)"; return 0; }
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  export HOME=$TEST_DIR/home
  mkdir -p "$HOME"
  cp /usr/bin/rocm_agent_enumerator "$P/bin/rocm_agent_enumerator"
  echo gfx90a > "$P/bin/target.lst"
  wait_until 10 "the enumerator and target.lst to settle" settled "$P/bin/rocm_agent_enumerator" "$P/bin/target.lst"
  hip_noarch a1.o
  hip_noarch a2.o
  expect_counts 1 1
  expect_same_file a1.o a2.o
  SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" -x hip -c m.hip -o m.o 2> trace || fail "traced compile"
  expect_contains "$(cat trace)" "probe answer from the memo" "trace of a memoised probe"
  touch_until_changed "$P/bin/target.lst"
  echo gfx1030 > "$P/bin/target.lst"
  hip_noarch b1.o # (a fresh target.lst: probed, not yet memoised)
  expect_counts 2 2
  FRESH=1 HCC_AMDGPU_TARGET=gfx1030 hip_noarch fresh1030.o
  expect_same_file fresh1030.o b1.o
}

test_verify_names_a_missing_identity_helper() {
  TEST "verify fails when the shim's identity helper is gone; refresh names the current shimctl"
  new_rocm rocm
  install_p --compilers clang
  local conf=$P/llvm/bin/.shimctl.conf out rc
  sed -i "s|^identity-helper .*|identity-helper $TEST_DIR/gone/shimctl|" "$conf"
  out=$("$SHIMCTL" verify "$P" 2>&1); rc=$?
  expect_eq 1 "$rc" "verify exit code"
  expect_contains "$out" "the shim's identity helper $TEST_DIR/gone/shimctl does not run: after a toolchain change compiles would run uncached; run 'shimctl refresh $P' with the shimctl you use now" "verify"
  shimctl_out refresh "$P" >/dev/null
  expect_eq "identity-helper $SHIMCTL" "$(grep '^identity-helper ' "$conf")" "after refresh"
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify after refresh: $out"

  # A config the shim cannot read (its compiles would all run uncached): verify says so.
  local lines; lines=$(wc -l <"$conf")
  echo "identity-check $SHIMCTL" >>"$conf"
  out=$("$SHIMCTL" verify "$P" 2>&1); rc=$?
  expect_eq 1 "$rc" "verify exit code, unreadable config"
  expect_contains "$out" "the shims cannot read their config ($conf:$((lines + 1)): unknown directive: identity-check): every compile runs uncached; run 'shimctl refresh $P' to rewrite it" "verify"
  shimctl_out refresh "$P" >/dev/null
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify after the second refresh: $out"
}

test_shared_library_outside_the_prefix() {
  TEST "a shared library a toolchain executable loads from outside the prefix: changed, a miss"
  new_rocm rocm
  # llvm/bin/llvm-link (an identity input hipcc -c never runs) becomes a program that loads
  # libtoy.so from $TEST_DIR/ext through its rpath: outside the prefix, like Debian's libLLVM.
  mkdir -p "$TEST_DIR/ext"
  echo 'int toy(void) { return 1; }' > "$TEST_DIR/toy.c"
  gcc -shared -fPIC -o "$TEST_DIR/ext/libtoy.so" "$TEST_DIR/toy.c" || fail "cannot build libtoy.so"
  echo 'int toy(void); int main(void) { return toy() - 1; }' > "$TEST_DIR/main.c"
  gcc -o "$P/llvm/bin/llvm-link" "$TEST_DIR/main.c" -L"$TEST_DIR/ext" -ltoy -Wl,-rpath,"$TEST_DIR/ext" ||
    fail "cannot build the toy llvm-link"
  "$P/llvm/bin/llvm-link" || fail "the toy llvm-link does not run"
  install_p
  grep -q " libtoy.so$" "$P/.shimctl/identity" || fail "libtoy.so is not in the identity snapshot"
  expect_contains "$(shimctl_out fingerprint "$P")" "$TEST_DIR/ext/libtoy.so" "fingerprint"
  write_hip_kernel m.hip
  hip first.o
  hip second.o
  expect_counts 1 1
  echo 'int toy(void) { return 1 + 0 * 2; } int other(void) { return 2; }' > "$TEST_DIR/toy.c"
  gcc -shared -fPIC -o "$TEST_DIR/ext/libtoy.so" "$TEST_DIR/toy.c" || fail "cannot rebuild libtoy.so"
  hip third.o
  expect_counts 1 2
  hip fourth.o
  expect_counts 2 2
  local out; out=$("$SHIMCTL" verify "$P" --offload-arch gfx90a 2>&1)
  expect_contains "$out" "toolchain changed since install: $TEST_DIR/ext/libtoy.so;" "verify"
}

test_clang_binary_change() {
  TEST "the prefix's clang replaced by a build with other bytes: a miss"
  new_rocm rocm
  install_p
  [ -f "$P/llvm/bin/clang.real" ] || fail "llvm/bin/clang is not wrapped: $(cat "$TEST_DIR/install.out")"
  write_hip_kernel m.hip
  hip first.o
  expect_counts 0 1
  append_bytes "$P/llvm/bin/clang.real"
  expect_contains "$("$P/llvm/bin/clang.real" --version 2>&1)" "clang version" "the changed clang runs"
  hip second.o
  expect_counts 0 2
  hip third.o
  expect_counts 1 2
  expect_same_file second.o third.o
}

test_every_program_that_runs_is_keyed() {
  TEST "lld and the bundler (the old driver's device link and bundle), each changed alone: a miss equal to an uncached compile; restored: a hit"
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  local jobs t hits=0 misses=1
  jobs=$("$P/bin/hipcc" -### "${HIP_FLAGS[@]}" -o m.o 2>&1)
  expect_contains "$jobs" "$P/llvm/bin/lld\" \"-flavor\" \"gnu\"" "clang-15's plan runs the prefix's lld"
  hip first.o
  expect_counts 0 1
  for t in lld clang-offload-bundler; do
    grep -q " $t\$" "$P/.shimctl/identity" || fail "the identity snapshot lacks $t"
    change_tool "$P/llvm/bin" "$t"
    hip "$t-changed.o"
    misses=$((misses + 1))
    expect_counts "$hits" "$misses"
    fresh_hip "$t-fresh.o"
    expect_same_file "$t-fresh.o" "$t-changed.o"
    cmp -s first.o "$t-changed.o" && fail "changing $t does not change the object: the test proves nothing"
    restore_tool "$P/llvm/bin" "$t"
    hip "$t-restored.o"
    hits=$((hits + 1))
    expect_counts "$hits" "$misses"
    expect_same_file first.o "$t-restored.o"
  done
}

test_recreated_and_touched_prefix_hits() {
  TEST "a prefix deleted and re-created with identical files, then touched: hits"
  new_rocm rocm
  install_p
  write_hip_kernel m.hip
  hip first.o
  expect_counts 0 1
  local key1 listing1
  key1=$(shimctl_out cache-key "$P")
  listing1=$(tree_listing "$P" | awk '$1 == "F" { print $2, $NF }')
  local ino1 mtime1
  ino1=$(stat -c %i "$P/amdgcn/bitcode/ocml.bc")
  mtime1=$(stat -c %y "$P/amdgcn/bitcode/ocml.bc")

  # Re-created with the same bytes: new inodes, and new mtimes (not preserved: the time of the
  # copy, long after the suite's prefix was built).
  rm -rf "$P"
  cp -a --no-preserve=timestamps "$(rocm_prefix 15)" "$P" || fail "cannot re-create $P"
  [ "$mtime1" != "$(stat -c %y "$P/amdgcn/bitcode/ocml.bc")" ] ||
    fail "the re-created prefix has the old mtimes: the test proves nothing"
  install_p
  expect_eq "$key1" "$(shimctl_out cache-key "$P")" "cache-key of the re-created prefix"
  expect_eq "$listing1" "$(tree_listing "$P" | awk '$1 == "F" { print $2, $NF }')" \
    "file contents of the re-created prefix"
  [ "$ino1" != "$(stat -c %i "$P/amdgcn/bitcode/ocml.bc")" ] || echo "  (note: the inode was reused)"
  hip second.o
  expect_counts 1 1
  expect_same_file first.o second.o

  # Every file, link and directory: new mtimes and ctimes, the same bytes.
  local all; mapfile -t all < <(echo "$P/amdgcn/bitcode/ocml.bc"; find "$P")
  touch_until_changed "${all[@]}"
  hip third.o
  expect_counts 2 1
  expect_same_file first.o third.o
}

test_cuda_ptxas_change() {
  TEST "CUDA: ptxas changed: a miss; libdevice changed: a miss, and verify names both"
  if ! have_cuda; then echo "  (skipped: nvcc cannot compile for sm_90 here)"; return 0; fi
  P=$TEST_DIR/cuda
  C=$TEST_DIR/ccache
  "$SCRIPTS/make-cuda-prefix" "$P" >/dev/null || fail "make-cuda-prefix failed"
  install_p
  write_cuda_kernel k.cu
  local nvcc=(-arch=sm_90 -c k.cu)
  "$P/bin/nvcc" "${nvcc[@]}" -o k1.o >"$TEST_DIR/nvcc.out" 2>&1 || fail "nvcc: $(cat "$TEST_DIR/nvcc.out")"
  "$P/bin/nvcc" "${nvcc[@]}" -o k2.o >"$TEST_DIR/nvcc.out" 2>&1 || fail "nvcc: $(cat "$TEST_DIR/nvcc.out")"
  expect_counts 1 1
  expect_same_file k1.o k2.o

  append_bytes "$P/bin/ptxas"
  expect_contains "$("$P/bin/ptxas" --version 2>&1)" "ptxas" "the changed ptxas runs"
  "$P/bin/nvcc" "${nvcc[@]}" -o k3.o >"$TEST_DIR/nvcc.out" 2>&1 || fail "nvcc: $(cat "$TEST_DIR/nvcc.out")"
  expect_counts 1 2

  # CUDA 13's cicc does not read libdevice for nvcc -c, so a libdevice change need not change an
  # object; it is a fingerprint input all the same: the next compile misses, and verify names it.
  local lib
  lib=$(cd "$P" && ls nvvm/libdevice/*.bc | head -1)
  [ -n "$lib" ] || fail "no nvvm/libdevice/*.bc in the CUDA prefix"
  append_bytes "$P/$lib"
  "$P/bin/nvcc" "${nvcc[@]}" -o k4.o >"$TEST_DIR/nvcc.out" 2>&1 || fail "nvcc: $(cat "$TEST_DIR/nvcc.out")"
  expect_counts 1 3
  local out rc
  out=$("$SHIMCTL" verify "$P" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code (a changed toolchain is a warning)"$'\n'"$out"
  expect_contains "$out" "toolchain changed since install: bin/ptxas, $lib;" "verify output"
  expect_contains "$(shimctl_out cache-key "$P")" "cuda-" "cache-key"
}

test_verify_refresh_fingerprint_cache_key() {
  TEST "verify warns about a changed toolchain, refresh clears it; fingerprint and cache-key"
  new_rocm a
  local A=$P
  new_rocm b
  local Bp=$P
  P=$A
  local key_a key_b
  key_a=$(shimctl_out cache-key "$A")
  key_b=$(shimctl_out cache-key "$Bp")
  [[ $key_a =~ ^rocm-[0-9a-f]{16}$ ]] || fail "cache-key: '$key_a' is not rocm-<16 hex>"
  expect_eq "$key_a" "$key_b" "cache-key of identical prefixes at different paths"

  # clang only: its verification compiles are quick C/C++ compiles.
  install_p --compilers clang
  expect_eq "$key_a" "$(shimctl_out cache-key "$A")" "cache-key after install (.real counted as the original)"

  local json
  json=$(shimctl_out fingerprint "$A" --json)
  printf '%s' "$json" >"$TEST_DIR/fp.json"
  python3 - "$A" "$key_a" "$TEST_DIR/fp.json" <<'EOF' >"$TEST_DIR/fp.check" 2>&1 \
    || fail "fingerprint --json: $(cat "$TEST_DIR/fp.check")"
import hashlib, json, sys, re
prefix, key = sys.argv[1], sys.argv[2]
fp = json.load(open(sys.argv[3]))
assert re.fullmatch(r"[0-9a-f]{64}", fp["sha256"]), fp["sha256"]
assert fp["cache_key"] == key, (fp["cache_key"], key)
assert key == "rocm-" + fp["sha256"][:16]
paths = [i["path"] for i in fp["inputs"]]
assert paths == sorted(paths), "inputs are not sorted"
for need in ["llvm/bin/clang.real", "bin/hipcc", "llvm/bin/lld", "llvm/bin/clang-offload-bundler",
             "amdgcn/bitcode/ocml.bc", "amdgcn/bitcode/oclc_finite_only_off.bc", "share/hip/version"]:
    assert need in paths, need + " is not an input"
assert "llvm/bin/clang" not in paths, "the shim itself is an input"
for need in ["/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1", "/usr/lib/llvm-15/lib/libclang-cpp.so.15",
             "/usr/lib/x86_64-linux-gnu/libm.so.6"]:
    assert need in paths, need + " (a library clang loads) is not an input"
for i in fp["inputs"]:
    data = open(i["path"] if i["path"].startswith("/") else prefix + "/" + i["path"], "rb").read()
    assert i["sha256"] == hashlib.sha256(data).hexdigest(), i["path"]
    assert i["size"] == len(data), i["path"]
EOF

  local out rc
  out=$("$SHIMCTL" verify "$A" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code, unchanged toolchain"$'\n'"$out"
  case $out in *"toolchain changed"*) fail "verify reports a change before any: $out" ;; esac
  expect_contains "$out" "inputs match fingerprint ${key_a#rocm-}" "verify identity line"
  expect_contains "$(shimctl_out status "$A")" "identity:    snapshot current: compiles keyed by ${key_a#rocm-} without re-hashing" "status, unchanged"
  # status --json names the environment the shims give ccache: exactly the config's setenv lines.
  expect_eq "$(sed -n 's/^setenv //p' "$A/llvm/bin/.shimctl.conf")" \
    "$(shimctl_out status "$A" --json | python3 -c 'import json,sys; e=json.load(sys.stdin)["cache"]["environment"]; assert e["appends"] == []; print("\n".join(e["defaults"]))')" \
    "status --json cache.environment"
  expect_contains "$(sed -n 's/^setenv //p' "$A/llvm/bin/.shimctl.conf")" "CCACHE_DIR=$C" "the config's environment"

  # A device-library update in A.
  cp "$A/amdgcn/bitcode/oclc_finite_only_on.bc" "$A/amdgcn/bitcode/oclc_finite_only_off.bc"
  out=$("$SHIMCTL" verify "$A" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code, changed toolchain (a warning)"$'\n'"$out"
  expect_contains "$out" "toolchain changed since install: amdgcn/bitcode/oclc_finite_only_off.bc; cache keys follow the new contents; run 'shimctl refresh' to record them" "verify warning"
  expect_eq "toolchain identity warning" "$(grep 'toolchain changed since install' <<<"$out" | awk '{ print $1, $2, $3 }')" "verify table row"
  expect_contains "$out" "verify: all checks passed" "verify summary"
  out=$("$SHIMCTL" verify "$A" --json 2>&1); rc=$?
  expect_eq 0 "$rc" "verify --json exit code"
  expect_eq "True warning" "$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["ok"], [c["result"] for c in j["checks"] if c["check"] == "identity"][0])' <<<"$out")" "verify --json"
  out=$(shimctl_out status "$A")
  expect_contains "$out" ", 1 changed since install" "status"
  expect_contains "$out" "identity:    snapshot stale (1 of its inputs changed, e.g. $A/amdgcn/bitcode/oclc_finite_only_off.bc): the next compile re-hashes; run 'shimctl refresh $A'" "status, snapshot stale"
  expect_eq "['$A/amdgcn/bitcode/oclc_finite_only_off.bc']" \
    "$(shimctl_out status "$A" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["identity_snapshot"]["stale_inputs"])')" "status --json"

  local key_changed
  key_changed=$(shimctl_out cache-key "$A")
  [ "$key_changed" != "$key_a" ] || fail "cache-key did not change after a device-library change"
  [[ $key_changed =~ ^rocm-[0-9a-f]{16}$ ]] || fail "cache-key: '$key_changed'"

  out=$(shimctl_out refresh "$A")
  expect_contains "$out" "refreshed: fingerprint ${key_changed#rocm-}" "refresh output"
  expect_contains "$(sed -n 2p "$A/.shimctl/identity")" "fingerprint ${key_changed#rocm-}" \
    "the identity snapshot holds the new fingerprint"
  out=$("$SHIMCTL" verify "$A" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code after refresh"
  case $out in *"toolchain changed"*) fail "verify still reports a change after refresh: $out" ;; esac
  expect_contains "$out" "inputs match fingerprint ${key_changed#rocm-}" "verify after refresh"
  expect_eq "$key_changed" "$(shimctl_out cache-key "$A")" "cache-key after refresh"
  expect_contains "$(shimctl_out status "$A")" "identity:    snapshot current: compiles keyed by ${key_changed#rocm-} without re-hashing" "status after refresh"
  rm "$A/.shimctl/identity"
  expect_contains "$(shimctl_out status "$A")" "identity:    no snapshot: each compile re-hashes the toolchain until 'shimctl refresh $A'" "status without a snapshot"
  shimctl_out refresh "$A" >/dev/null
  expect_eq "$key_b" "$(shimctl_out cache-key "$Bp")" "cache-key of the untouched prefix"

  # Many changes: verify names the first five (in path order) and counts the rest.
  local f
  for f in ockl ocml oclc_daz_opt_off oclc_daz_opt_on oclc_isa_version_90a oclc_unsafe_math_on hip; do
    append_bytes "$A/amdgcn/bitcode/$f.bc"
  done
  out=$("$SHIMCTL" verify "$A" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code, seven changes"
  expect_contains "$out" "toolchain changed since install: amdgcn/bitcode/hip.bc, amdgcn/bitcode/ockl.bc, amdgcn/bitcode/oclc_daz_opt_off.bc, amdgcn/bitcode/oclc_daz_opt_on.bc, amdgcn/bitcode/oclc_isa_version_90a.bc and 2 more;" "verify with seven changes"
}
