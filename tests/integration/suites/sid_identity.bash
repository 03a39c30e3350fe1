# The sid leg's toolchain-identity suite: on the ROCm-7-shaped prefix (hipcc 7.0.2 hipBin, clang-21,
# or clang-23 with sid23_identity.bash: SID_LLVM, the new offload driver; rocm-device-libs-21 in
# clang's resource dir), a device-library change, or a change of any program the compile really
# runs (test_every_program_that_runs_is_keyed), must never be served a
# stale object: proven first to change a fresh object, reproduced as a stale hit with plain
# ccache 4.14.2 (and plain sccache 0.17 on a prefix outside /opt/rocm: a documented limitation),
# and closed by shimctl with ccache and with sccache.
# /opt and /etc/alternatives are private to the suite (private_mounts, private_opt_rocm7); the
# pristine /opt/rocm-7.0.2 is built once and never changed: each test works on a cp -a copy
# (hipBin finds ROCM_PATH from its own path, so a copy anywhere is a complete toolchain).
# Facts this suite designs by: clang-21 embeds the output name in the object (__hip_cuid_<hash>
# follows -o), so objects are compared only for the same -o name, compiled in different
# directories; isinf/isnan alone do not read the finite-only flag (clang folds them), hypotf and
# expf from ocml do. sccache's objects carry another __hip_cuid_ than a direct compile of the same
# command (measured with 0.17): the sccache tests pass an explicit -cuid (CUID) so that their
# objects can be compared with the original compiler's byte for byte.

private_mounts
# TEST scrubs SHIMCTL_* from the environment, SHIMCTL_TEST_PRIVATE_NS too.
SUITE_PRIVATE_NS=${SHIMCTL_TEST_PRIVATE_NS:-}

suite_requires() {
  command -v ccache >/dev/null && command -v sccache >/dev/null && command -v python3 >/dev/null \
    && [ -x "/usr/lib/llvm-$SID_LLVM/bin/clang" ] && file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF \
    && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

BC_REL=lib/llvm/lib/clang/$SID_LLVM/amdgcn/bitcode

# fixture: P = a copy of the pristine /opt/rocm-7.0.2 in $TEST_DIR/rocm (BC: its device libraries),
# the kernel $TEST_DIR/k.hip, and the two finite-only libraries saved in $TEST_DIR/saved.
fixture() {
  SHIMCTL_TEST_PRIVATE_NS=$SUITE_PRIVATE_NS private_opt_rocm7 || exit 1
  P=$TEST_DIR/rocm
  cp -a "$ROCM7" "$P" || fail "cannot copy $ROCM7"
  BC=$P/$BC_REL
  mkdir -p "$TEST_DIR/saved"
  cp -p "$BC/oclc_finite_only_on.bc" "$BC/oclc_finite_only_off.bc" "$TEST_DIR/saved/" || fail "cannot save"
  cmp -s "$BC/oclc_finite_only_on.bc" "$BC/oclc_finite_only_off.bc" \
    && fail "oclc_finite_only_on.bc and _off.bc are identical: a swap proves nothing"
  cat > "$TEST_DIR/k.hip" <<'EOF'
#include <hip/hip_runtime.h>
// hypotf and expf (ocml) read __oclc_finite_only_opt from oclc_finite_only_{on,off}.bc.
__global__ void sid_finite(float* out, const float* in) {
  int i = threadIdx.x;
  out[i] = hypotf(in[i], in[i + 1]) + expf(in[i]) + (isinf(in[i]) || isnan(in[i]) ? 1.0f : 0.0f);
}
EOF
}

# swap_finite / unswap_finite: the two finite-only libraries exchange contents (in place: same
# inodes, as an upgrade that rewrites files does) / get their own contents back (new inodes).
swap_finite() {
  cp "$TEST_DIR/saved/oclc_finite_only_off.bc" "$BC/oclc_finite_only_on.bc" \
    && cp "$TEST_DIR/saved/oclc_finite_only_on.bc" "$BC/oclc_finite_only_off.bc" || fail "swap failed"
}
unswap_finite() {
  local f
  for f in oclc_finite_only_on.bc oclc_finite_only_off.bc; do
    cp -p "$TEST_DIR/saved/$f" "$BC/$f.new" && mv -f "$BC/$f.new" "$BC/$f" || fail "cannot restore $f"
  done
}

HIP_FLAGS=(-x hip --offload-arch=gfx90a -c)
CUID=""

# hip_in DIR COMMAND [ARGS...]: in the new directory $TEST_DIR/DIR, COMMAND compiles k.hip to k.o
# (always the same -o name; -cuid=$CUID if set); the object is $TEST_DIR/DIR/k.o.
hip_in() {
  local dir=$TEST_DIR/$1; shift
  mkdir "$dir" || fail "$dir exists"
  (cd "$dir" && "$@" "${HIP_FLAGS[@]}" ${CUID:+"-cuid=$CUID"} "$TEST_DIR/k.hip" -o k.o) >"$TEST_DIR/compile.out" 2>&1 \
    || fail "$* -o $dir/k.o failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
  [ -s "$dir/k.o" ] || fail "no object $dir/k.o"
}

same() { cmp -s "$TEST_DIR/$1/k.o" "$TEST_DIR/$2/k.o"; }
expect_same() { same "$1" "$2" || fail "$1/k.o and $2/k.o differ"; }
expect_differ() { same "$1" "$2" && fail "$1/k.o and $2/k.o are equal${3:+: $3}"; return 0; }

# ccache counters of $C: "hits=H misses=M".
counts() {
  echo "hits=$(($(ccache_stat "$C" direct_cache_hit) + $(ccache_stat "$C" preprocessed_cache_hit))) misses=$(ccache_stat "$C" cache_miss)"
}

stop_sccache() { env "$SC_SERVER" sccache --stop-server >/dev/null 2>&1; }

# The programs a HIP compile runs besides clang, by the driver its plan shows: clang-23's new
# driver hands the device link to clang-linker-wrapper, which runs the clang beside it, which runs
# ld.lld; none of those two is in `-###`. clang-21's old driver runs lld and the bundler itself.
programs_run() {
  if [ "$SID_LLVM" -ge 23 ]; then echo ld.lld clang-linker-wrapper llvm-offload-binary clang-offload-bundler
  else echo lld clang-offload-bundler; fi
}

# expect_plan: the driver the plan shows is the one this stack's clang uses by default.
expect_plan() {
  local jobs
  jobs=$("$P/bin/hipcc" -### "${HIP_FLAGS[@]}" "$TEST_DIR/k.hip" -o k.o 2>&1) || fail "hipcc -### failed: $jobs"
  if [ "$SID_LLVM" -ge 23 ]; then
    expect_contains "$jobs" '/clang-linker-wrapper" ' "clang-$SID_LLVM's plan (the new driver)"
    case $jobs in *'/ld.lld"'* | *'/lld"'*) fail "clang-$SID_LLVM's plan names the linker: the test proves nothing" ;; esac
  else
    expect_contains "$jobs" '/lld" "-flavor" "gnu"' "clang-$SID_LLVM's plan (the old driver)"
  fi
}

test_finite_only_swap_changes_a_fresh_object() {
  TEST "swapping oclc_finite_only_on.bc and _off.bc changes a fresh compile's object"
  fixture
  # Which file a compile links: _off by default, _on with -ffinite-math-only.
  local jobs
  jobs=$("$P/bin/hipcc" -### "${HIP_FLAGS[@]}" "$TEST_DIR/k.hip" -o k.o 2>&1) || fail "hipcc -### failed: $jobs"
  expect_contains "$jobs" "amdgcn/bitcode/oclc_finite_only_off.bc\"" "the default compile's job list"
  case $jobs in *oclc_finite_only_on.bc*) fail "the default compile links oclc_finite_only_on.bc" ;; esac
  jobs=$("$P/bin/hipcc" -### -ffinite-math-only "${HIP_FLAGS[@]}" "$TEST_DIR/k.hip" -o k.o 2>&1) ||
    fail "hipcc -### -ffinite-math-only failed: $jobs"
  expect_contains "$jobs" "amdgcn/bitcode/oclc_finite_only_on.bc\"" "the -ffinite-math-only job list"
  # The link goes through the compatibility link amdgcn -> lib/llvm/lib/clang/21/amdgcn: the files
  # this suite swaps.
  expect_eq "$(realpath "$BC/oclc_finite_only_off.bc")" "$(realpath "$P/amdgcn/bitcode/oclc_finite_only_off.bc")" \
    "the device libraries hipcc links"
  hip_in before "$P/bin/hipcc"
  swap_finite
  hip_in after "$P/bin/hipcc"
  expect_differ before after "the swap does not change the object"
}

test_plain_ccache_serves_a_stale_object() {
  TEST "plain ccache 4.14.2 on hipcc 7.0.2: after the swap, a stale hit (the bug reproduced)"
  fixture
  export CCACHE_DIR=$TEST_DIR/ccache
  C=$CCACHE_DIR
  hip_in before ccache "$P/bin/hipcc"
  expect_eq "hits=0 misses=1" "$(counts)" "plain ccache counters"
  swap_finite
  hip_in cached ccache "$P/bin/hipcc"
  expect_eq "hits=1 misses=1" "$(counts)" "plain ccache counters after the swap"
  hip_in fresh "$P/bin/hipcc"
  expect_same before cached          # ccache served the pre-swap object...
  expect_differ cached fresh "the swap did not change the object: the test proves nothing"
}

test_shim_ccache_follows_the_toolchain() {
  TEST "through shimctl (ccache): swap a miss equal to a fresh compile; back, touched, re-created: hits; rocm.cfg changed: a miss"
  fixture
  C=$TEST_DIR/ccache
  "$SHIMCTL" install "$P" --cache ccache --cache-dir "$C" --no-verify >"$TEST_DIR/install.out" 2>&1 \
    || fail "install failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  grep -q " oclc_finite_only_off.bc$" "$P/.shimctl/identity" || fail "the identity snapshot lacks the device library"
  hip_in a "$P/bin/hipcc"
  expect_eq "hits=0 misses=1" "$(counts)" "after the first compile"

  swap_finite
  hip_in swapped "$P/bin/hipcc"
  expect_eq "hits=0 misses=2" "$(counts)" "after the swap"
  SHIMCTL_DISABLE=1 hip_in fresh "$P/bin/hipcc"
  expect_same swapped fresh
  expect_differ a swapped "the swap did not change the object: the test proves nothing"
  expect_eq "hits=0 misses=2" "$(counts)" "SHIMCTL_DISABLE=1 bypassed the cache"

  unswap_finite
  hip_in back "$P/bin/hipcc"
  expect_eq "hits=1 misses=2" "$(counts)" "swapped back"
  expect_same a back

  # A config file clang reads (@rocm.cfg from clang++.cfg): a harmless define changes the key.
  local cfg=$P/lib/llvm/bin/rocm.cfg
  cp -p "$cfg" "$TEST_DIR/rocm.cfg.saved"
  echo "-DSHIMCTL_SID_HARMLESS=1" >> "$cfg"
  hip_in cfg1 "$P/bin/hipcc"
  expect_eq "hits=1 misses=3" "$(counts)" "rocm.cfg changed"
  hip_in cfg2 "$P/bin/hipcc"
  expect_eq "hits=2 misses=3" "$(counts)" "rocm.cfg changed, repeated"
  expect_same cfg1 cfg2
  cp -p "$TEST_DIR/rocm.cfg.saved" "$cfg"

  # Every file touched (links themselves, never what they point to outside): same bytes, a hit.
  find "$P" -exec touch -h -d '+1 min' {} + || fail "touch failed"
  hip_in touched "$P/bin/hipcc"
  expect_eq "hits=3 misses=3" "$(counts)" "touched prefix"
  expect_same a touched

  # The installed prefix deleted and copied back (new inodes and ctimes, the same bytes): a hit.
  cp -a "$P" "$TEST_DIR/rocm.copy" && rm -rf "$P" && mv "$TEST_DIR/rocm.copy" "$P" || fail "re-copy failed"
  hip_in recopied "$P/bin/hipcc"
  expect_eq "hits=4 misses=3" "$(counts)" "prefix copied back"
  expect_same a recopied

  # Rebuilt from the packages and installed again: the same bytes, the same key, a hit.
  local key; key=$("$SHIMCTL" cache-key "$P") || fail "cache-key failed"
  rm -rf "$P"
  "$SCRIPTS/make-rocm-prefix" "$P" --stack sid --llvm "$SID_LLVM" >"$TEST_DIR/make.out" 2>&1 || fail "rebuild: $(cat "$TEST_DIR/make.out")"
  "$SHIMCTL" install "$P" --cache ccache --cache-dir "$C" --no-verify >"$TEST_DIR/install.out" 2>&1 \
    || fail "install of the rebuilt prefix failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  expect_eq "$key" "$("$SHIMCTL" cache-key "$P")" "cache-key of the rebuilt prefix"
  hip_in rebuilt "$P/bin/hipcc"
  expect_eq "hits=5 misses=3" "$(counts)" "rebuilt prefix"
  expect_same a rebuilt
}

test_shim_sccache_follows_the_toolchain() {
  TEST "through shimctl (sccache 0.17): swap a miss equal to a fresh compile; back: a hit"
  fixture
  CUID=shimctl-sid
  "$SHIMCTL" install "$P" --cache sccache --cache-dir "$TEST_DIR/sccache" --no-verify >"$TEST_DIR/install.out" 2>&1 \
    || fail "install --cache sccache failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  sc_server_of "$P"
  trap stop_sccache EXIT
  grep -q "^appendenv SCCACHE_EXTRAFILES=.*/$BC_REL/oclc_finite_only_off.bc" "$P/bin/.shimctl.conf" \
    || fail "SCCACHE_EXTRAFILES does not name the device library"
  hip_in a "$P/bin/hipcc"
  expect_eq 'hits={} misses={"HIP": 1}' "$(sc_counts)" "sccache after the first compile"
  swap_finite
  hip_in swapped "$P/bin/hipcc"
  expect_eq 'hits={} misses={"HIP": 2}' "$(sc_counts)" "sccache after the swap"
  SHIMCTL_DISABLE=1 hip_in fresh "$P/bin/hipcc"
  expect_same swapped fresh
  expect_differ a swapped "the swap did not change the object: the test proves nothing"
  unswap_finite
  hip_in back "$P/bin/hipcc"
  expect_eq 'hits={"HIP": 1} misses={"HIP": 2}' "$(sc_counts)" "sccache after swapping back"
  expect_same a back
  expect_eq 'Local disk: "'"$TEST_DIR/sccache"'"' "$(sc_stat 's["cache_location"]')" "sccache's store"
}

test_every_program_that_runs_is_keyed() {
  TEST "each program the compile runs ($(programs_run)), changed alone: a miss equal to an uncached compile; restored: a hit (ccache)"
  fixture
  CUID=shimctl-sid # SHIMCTL_DISABLE=1 compiles get no -cuid from the shim: one fixed CUID for all
  C=$TEST_DIR/ccache
  expect_plan
  "$SHIMCTL" install "$P" --cache ccache --cache-dir "$C" --no-verify >"$TEST_DIR/install.out" 2>&1 \
    || fail "install failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  hip_in a "$P/bin/hipcc"
  hip_in b "$P/bin/hipcc"
  expect_eq "hits=1 misses=1" "$(counts)" "the first compile and its repeat"
  local t hits=1 misses=1
  for t in $(programs_run); do
    grep -q " $t\$" "$P/.shimctl/identity" || fail "the identity snapshot lacks $t:"$'\n'"$(cat "$P/.shimctl/identity")"
    change_tool "$P/lib/llvm/bin" "$t"
    hip_in "$t-changed" "$P/bin/hipcc"
    misses=$((misses + 1))
    expect_eq "hits=$hits misses=$misses" "$(counts)" "$t changed: a miss"
    SHIMCTL_DISABLE=1 hip_in "$t-fresh" "$P/bin/hipcc"
    expect_same "$t-changed" "$t-fresh"
    expect_differ a "$t-changed" "changing $t does not change the object: the test proves nothing"
    restore_tool "$P/lib/llvm/bin" "$t"
    hip_in "$t-restored" "$P/bin/hipcc"
    hits=$((hits + 1))
    expect_eq "hits=$hits misses=$misses" "$(counts)" "$t restored: a hit"
    expect_same a "$t-restored"
  done
}

test_device_linker_is_keyed_sccache() {
  TEST "sccache 0.17: the device linker ($(programs_run | cut -d' ' -f1)) changed: a miss equal to an uncached compile; restored: a hit"
  fixture
  CUID=shimctl-sid
  local t; t=$(programs_run | cut -d' ' -f1)
  "$SHIMCTL" install "$P" --cache sccache --cache-dir "$TEST_DIR/sccache" --no-verify >"$TEST_DIR/install.out" 2>&1 \
    || fail "install --cache sccache failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  sc_server_of "$P"
  trap stop_sccache EXIT
  grep -q "^appendenv SCCACHE_EXTRAFILES=.*/lib/llvm/bin/$t[:]" "$P/bin/.shimctl.conf" \
    || fail "SCCACHE_EXTRAFILES does not name $t: $(grep EXTRAFILES "$P/bin/.shimctl.conf")"
  hip_in a "$P/bin/hipcc"
  change_tool "$P/lib/llvm/bin" "$t"
  hip_in changed "$P/bin/hipcc"
  expect_eq 'hits={} misses={"HIP": 2}' "$(sc_counts)" "sccache after $t changed"
  SHIMCTL_DISABLE=1 hip_in fresh "$P/bin/hipcc"
  expect_same changed fresh
  expect_differ a changed "changing $t does not change the object: the test proves nothing"
  restore_tool "$P/lib/llvm/bin" "$t"
  hip_in restored "$P/bin/hipcc"
  expect_eq 'hits={"HIP": 1} misses={"HIP": 2}' "$(sc_counts)" "sccache after $t was restored"
  expect_same a restored
}

# plain_sccache_swap PREFIX: plain `sccache PREFIX/bin/hipcc` (ROCM_PATH unset, own SCCACHE_DIR
# and server) compiles, the finite-only libraries of $BC are swapped, sccache compiles again; then
# a fresh compile. Leaves objects in before/, cached/, fresh/. The caller stops the server.
plain_sccache_swap() {
  CUID=shimctl-sid
  SC_PORT=$(free_port)
  SC_SERVER=SCCACHE_SERVER_PORT=$SC_PORT
  export SCCACHE_DIR=$TEST_DIR/sccache SCCACHE_SERVER_PORT=$SC_PORT
  unset ROCM_PATH HIP_DEVICE_LIB_PATH HIP_PATH
  hip_in before sccache "$1/bin/hipcc"
  expect_eq 'hits={} misses={"HIP": 1}' "$(sc_counts)" "plain sccache: the first compile"
  swap_finite
  hip_in cached sccache "$1/bin/hipcc"
  hip_in fresh "$1/bin/hipcc"
  expect_differ before fresh "the swap did not change the object: the test proves nothing"
}

test_plain_sccache_device_libraries_outside_rocm_path_are_not_keyed() {
  TEST "plain sccache 0.17, prefix outside /opt/rocm, ROCM_PATH unset: a stale hit (documented limitation)"
  fixture
  # sccache hashes *.bc only under --hip-device-lib-path, HIP_DEVICE_LIB_PATH, ROCM_PATH or
  # /opt/rocm + amdgcn/bitcode: this prefix's libraries (in clang's resource dir, linked through
  # its own amdgcn link) are none of them, so they are not in its key.
  trap stop_sccache EXIT
  plain_sccache_swap "$P"
  expect_eq 'hits={"HIP": 1} misses={"HIP": 1}' "$(sc_counts)" "plain sccache after the swap"
  expect_same before cached
}

test_plain_sccache_at_opt_rocm_keys_device_libraries() {
  TEST "plain sccache 0.17 on /opt/rocm (-> alternatives -> rocm-7.0.2), ROCM_PATH unset: the swap is a miss"
  fixture
  # sccache's last resort, /opt/rocm/amdgcn/bitcode, is this layout's compatibility link to the
  # libraries clang links: there sccache keys them. /opt/rocm becomes this test's copy for the
  # test's lifetime (the alternatives link is private to the suite and restored on exit).
  ln -sfn "$P" /etc/alternatives/rocm || fail "cannot point /etc/alternatives/rocm at $P"
  trap 'stop_sccache; ln -sfn "$ROCM7" /etc/alternatives/rocm' EXIT
  plain_sccache_swap /opt/rocm
  expect_eq 'hits={} misses={"HIP": 2}' "$(sc_counts)" "plain sccache after the swap"
  expect_same cached fresh
}
