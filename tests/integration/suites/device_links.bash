# Device links per GPU target (issue 36), the stack a parameter (DL_STACK): Debian 12's clang-15
# (this file) and sid's clang-21 (sid_device_links.bash), the old offload driver, run each
# target's `lld -flavor gnu -m elf64_amdgpu` job themselves (the shim puts shimctl first in their
# COMPILER_PATH as `lld`); clang-23 (sid23_device_links.bash), the new one, has its
# clang-linker-wrapper run the clang beside it (the shim) once per target. Each such link of an
# -fgpu-rdc program is kept in the user's store (links/): a fresh build directory links from the store, a new target links only
# itself, a changed TU or linker links again; every program equals an uncached link byte for
# byte. Helpers: tests/integration/lib-pieces.bash (the prefix).
source "$SRC_DIR/tests/integration/lib-pieces.bash"

DL_STACK=${DL_STACK:-15}
case $DL_STACK in
  15) DL_LLVM=15 DL_A=gfx908 DL_B=gfx90a DL_C=gfx1030 DL_PREFIX_ARGS=(--llvm 15) ;;
  sid) DL_LLVM=$SID_LLVM DL_A=gfx90a DL_B=gfx942 DL_C=gfx1100 DL_PREFIX_ARGS=(--stack sid --llvm "$SID_LLVM") ;;
esac

suite_requires() {
  command -v ccache >/dev/null && [ -x "/usr/lib/llvm-$DL_LLVM/bin/clang" ] &&
    [ -x "/usr/lib/llvm-$DL_LLVM/bin/llvm-ar" ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] &&
    { [ "$DL_STACK" = sid ] || [ -f /usr/include/hip/hip_runtime.h ]; }
}

# dl_cc ARGS...: the prefix's clang++ (Debian 12's HIP is found through --rocm-path).
dl_cc() {
  if [ "$DL_STACK" = sid ]; then "$P/llvm/bin/clang++" "$@"; else "$P/llvm/bin/clang++" --rocm-path="$P" "$@"; fi
}

# dl_program DIR [SCALE]: an -fgpu-rdc program in DIR: a.hip (a kernel calling a device function
# of the library), m.hip (main) and libtw.a (an archive of tw.hip's offload object, a static
# device library), compiled uncached (SHIMCTL_DISABLE=1: the compiles are not what is measured)
# for the targets in DL_TARGETS.
dl_program() {
  local d=$1 scale=${2:-2.0f} f
  mkdir -p "$d"
  cat >"$d/a.hip" <<'HIP'
#include <hip/hip_runtime.h>
__device__ float twice(float x);
__global__ void ka(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]) + cosf(x[threadIdx.x]); }
HIP
  printf '#include <hip/hip_runtime.h>\n__device__ float twice(float x) { return %s * sinf(x); }\n' "$scale" >"$d/tw.hip"
  cat >"$d/m.hip" <<'HIP'
#include <hip/hip_runtime.h>
__global__ void ka(float* x);
int main() { float* d = nullptr; (void)hipMalloc(&d, 4); ka<<<1, 1>>>(d); return 0; }
HIP
  for f in a tw m; do
    (cd "$d" && SHIMCTL_DISABLE=1 dl_cc -x hip -fgpu-rdc -O2 $(dl_arch) -c $f.hip -o $f.o) \
      >"$d/compile.out" 2>&1 || fail "compile of $d/$f.hip failed: $(cat "$d/compile.out")"
  done
  (cd "$d" && "/usr/lib/llvm-$DL_LLVM/bin/llvm-ar" rcs libtw.a tw.o) || fail "llvm-ar failed"
}

dl_arch() { local t; for t in ${DL_TARGETS//,/ }; do echo "--offload-arch=$t"; done; }

# dl_link DIR: DIR's program linked through the shim (trace in DIR/trace), then uncached as ref.
dl_link() {
  local d=$1 link=(-fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o)
  (cd "$d" && SHIMCTL_SHIM_TRACE=1 dl_cc "${link[@]}" prog >trace 2>&1) ||
    fail "the link in $d failed: $(cat "$d/trace")"
  (cd "$d" && SHIMCTL_DISABLE=1 dl_cc "${link[@]}" ref >ref.out 2>&1) ||
    fail "the uncached link in $d failed: $(cat "$d/ref.out")"
  expect_same_file "$d/ref" "$d/prog"
}

dl_sorted() { printf '%s\n' "$@" | sort | xargs; }

# links_in DIR: DIR/trace's device links, sorted: "gfx90a:hit gfx942:miss".
links_in() {
  sed -n 's/^shimctl-shim: device link: \([^ ]*\) \(hit\|miss\).*/\1:\2/p' "$1/trace" | sort | xargs
}

test_device_links() {
  TEST "clang-$DL_LLVM -fgpu-rdc with a static device library: 2 targets, a fresh build dir (all hit, the first checked), a third target (only it links), a changed TU (all link); programs as uncached"
  pz_prefix "$DL_STACK"
  DL_TARGETS=$DL_A,$DL_B
  dl_program "$TEST_DIR/b1"
  dl_link "$TEST_DIR/b1"
  expect_eq "$(dl_sorted $DL_A:miss $DL_B:miss)" "$(links_in "$TEST_DIR/b1")" "device links of the first build"
  dl_program "$TEST_DIR/b2"
  dl_link "$TEST_DIR/b2"
  expect_eq "$(dl_sorted $DL_A:hit $DL_B:hit)" "$(links_in "$TEST_DIR/b2")" "device links of a fresh build dir"
  expect_eq 1 "$(grep -c "the toolchain's first: checked against a real link: identical" "$TEST_DIR/b2/trace")" \
    "first hits checked in $TEST_DIR/b2/trace"
  DL_TARGETS=$DL_A,$DL_B,$DL_C
  dl_program "$TEST_DIR/b3"
  dl_link "$TEST_DIR/b3"
  expect_eq "$(dl_sorted $DL_C:miss $DL_A:hit $DL_B:hit)" "$(links_in "$TEST_DIR/b3")" "device links with a third target"
  DL_TARGETS=$DL_A,$DL_B
  dl_program "$TEST_DIR/b4" 3.0f
  dl_link "$TEST_DIR/b4"
  expect_eq "$(dl_sorted $DL_A:miss $DL_B:miss)" "$(links_in "$TEST_DIR/b4")" "device links after a change to the library's TU"
  cmp -s "$TEST_DIR/b1/prog" "$TEST_DIR/b4/prog" && fail "the changed TU's program equals the first: the test proves nothing"
  # status counts them, this user's store (the suite's XDG_CACHE_HOME).
  "$SHIMCTL" status "$P" >"$TEST_DIR/status.out" 2>&1 || fail "status failed: $(cat "$TEST_DIR/status.out")"
  grep -q "^device links: 4 hits, 5 linked, 0 uncached (one per GPU target); store $XDG_CACHE_HOME/shimctl/device-links: 5 entries, .*; yours: every HIP prefix you build with shares it$" \
    "$TEST_DIR/status.out" || fail "status's device links line: $(grep -i 'device links' "$TEST_DIR/status.out")"
  # The budget: the cache's entries against its limit (whole objects: no piece stored here), the
  # device links against their own cap.
  grep -qE "^budget: +[0-9.]+ ([KMG]i)?B of [0-9.]+ ([KMG]i)?B(, the tool's default)? \(whole objects\); device links [1-9][0-9.]* KiB of 2\.0 GiB, a cap of their own$" \
    "$TEST_DIR/status.out" || fail "status's budget line: $(grep -i 'budget' "$TEST_DIR/status.out")"
  # SHIMCTL_DEVICE_LINKS=0: nothing goes to the store.
  (cd "$TEST_DIR/b4" && SHIMCTL_DEVICE_LINKS=0 SHIMCTL_SHIM_TRACE=1 dl_cc -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o off >off.out 2>&1) ||
    fail "the link with SHIMCTL_DEVICE_LINKS=0 failed"
  grep -q 'device link' "$TEST_DIR/b4/off.out" && fail "a device link went to the store with SHIMCTL_DEVICE_LINKS=0"
  expect_same_file "$TEST_DIR/b4/ref" "$TEST_DIR/b4/off"
  # A compile is cached whole by the cache tool: the device links its wrapper runs (a non-rdc
  # compile's images) stay out of the store.
  local entries
  entries=$(find "$XDG_CACHE_HOME/shimctl/device-links" -type f | wc -l)
  corpus "$TEST_DIR/c"
  pz_use clang
  pz_compile "$TEST_DIR/c" -O2 $(targets $DL_A,$DL_B) -c k.hip -o k.o
  expect_eq "$entries" "$(find "$XDG_CACHE_HOME/shimctl/device-links" -type f | wc -l)" \
    "entries in the store after a compile"
}

test_device_link_linker_changed() {
  TEST "clang-$DL_LLVM -fgpu-rdc: a changed linker (its output changes, it warns) misses and links as uncached, and is never kept (a hit could not show its warning); restored, it hits again"
  pz_prefix "$DL_STACK"
  DL_TARGETS=$DL_A,$DL_B
  dl_program "$TEST_DIR/l1"
  dl_link "$TEST_DIR/l1"
  # The program that links: the new driver's ld.lld (run by the per-target clang), the old
  # driver's lld (-flavor gnu, run by the driver).
  local lld=$P/llvm/bin/$([ "$DL_LLVM" -ge 23 ] && echo ld.lld || echo lld)
  cp -P "$lld" "$lld.test-saved"
  rm -f "$lld"
  # lld reads its own name (the script runs it under its own) and -flavor must come first.
  printf '#!/bin/bash\necho "warning: shimctl-test: a linker that warns" >&2\nexec -a "$0" "%s" "$@" --build-id=0xdeadbeef\n' \
    "$(readlink -f "$lld.test-saved")" >"$lld"
  chmod 755 "$lld"
  local d
  for d in l2 l2b; do # the second from a fresh build dir: nothing was kept, it links again and warns
    dl_program "$TEST_DIR/$d"
    dl_link "$TEST_DIR/$d"
    expect_eq "$(dl_sorted $DL_A:miss $DL_B:miss)" "$(links_in "$TEST_DIR/$d")" "device links with another linker ($d)"
    expect_eq 2 "$(grep -c 'not kept: the linker printed' "$TEST_DIR/$d/trace")" "links not kept in $d/trace"
    expect_eq 2 "$(grep -c 'warning: shimctl-test: a linker that warns' "$TEST_DIR/$d/trace")" "the linker's warnings in $d/trace"
  done
  rm -f "$lld" && mv "$lld.test-saved" "$lld"
  cmp -s "$TEST_DIR/l1/prog" "$TEST_DIR/l2/prog" && fail "the changed linker's program equals the first: the test proves nothing"
  dl_program "$TEST_DIR/l3"
  dl_link "$TEST_DIR/l3"
  expect_eq "$(dl_sorted $DL_A:hit $DL_B:hit)" "$(links_in "$TEST_DIR/l3")" "device links with the linker restored"
}

dl_mu_cleanup() {
  remove_test_users
  [ -n "${DL_MU:-}" ] && rm -rf "$DL_MU"
}

test_device_links_other_user() {
  TEST "a root-installed prefix: another user's device links go to that user's own store (0700, the user's files), nothing written in root's home; program as uncached"
  command -v useradd >/dev/null && command -v runuser >/dev/null && [ "$(id -u)" -eq 0 ] ||
    { echo "    (skipped: needs root, useradd and runuser)"; return 0; }
  DL_USER=dlu$(printf '%04x%04x' $$ $RANDOM)
  DL_MU=$(mktemp -d /var/tmp/shimctl-dl.XXXXXX)
  chmod 755 "$DL_MU"
  trap dl_mu_cleanup EXIT
  make_test_user "$DL_USER"
  mkdir -p "$DL_MU/home-root" "$DL_MU/home-user"
  P=$DL_MU/rocm
  "$SCRIPTS/make-rocm-prefix" "$P" "${DL_PREFIX_ARGS[@]}" >/dev/null || fail "make-rocm-prefix"
  HOME=$DL_MU/home-root env -u CCACHE_DIR -u XDG_CACHE_HOME "$SHIMCTL" install "$P" \
    --cache-dir "$DL_MU/home-root/ccache" --no-verify >"$TEST_DIR/install.out" 2>&1 ||
    fail "root's install failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  # Root's home open to everyone (1777): a write there by the user's link would succeed and show.
  chmod 1777 "$DL_MU/home-root"
  local before d=$DL_MU/w store=$DL_MU/home-user/.cache/shimctl/device-links
  before=$(cd "$DL_MU/home-root" && find . -printf '%p %s %T@\n' | sort)
  chown "$DL_USER" "$DL_MU/home-user"
  DL_TARGETS=$DL_A,$DL_B
  dl_program "$d"
  chown -R "$DL_USER" "$d"
  runuser -u "$DL_USER" -- env -i PATH=/usr/bin:/bin HOME="$DL_MU/home-user" LANG=C SHIMCTL_SHIM_TRACE=1 \
    sh -c 'cd "$1" && shift && exec "$@"' sh "$d" "$P/llvm/bin/clang++" $([ "$DL_STACK" = sid ] || echo "--rocm-path=$P") -fgpu-rdc --hip-link $(dl_arch) \
    a.o m.o -L. -ltw -o prog >"$d/trace" 2>&1 || fail "the user's link failed: $(cat "$d/trace")"
  expect_eq "$(dl_sorted $DL_A:miss $DL_B:miss)" "$(links_in "$d")" "the user's device links"
  expect_eq "$DL_USER 700" "$(stat -c '%U %a' "$store")" "owner and mode of the user's store"
  expect_eq "" "$(find "$store" ! -user "$DL_USER" -print -quit)" "files in the user's store not the user's"
  expect_eq 2 "$(find "$store" -mindepth 2 -type f | wc -l)" "entries in the user's store"
  (cd "$d" && SHIMCTL_DISABLE=1 dl_cc -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o ref) \
    >"$d/ref.out" 2>&1 || fail "the uncached link failed: $(cat "$d/ref.out")"
  expect_same_file "$d/ref" "$d/prog"
  expect_eq "$before" "$(cd "$DL_MU/home-root" && find . -printf '%p %s %T@\n' | sort)" "root's home after the user's link"
}

# dl_listing DIR: every file and directory below DIR with its size and mtime ("" when DIR is absent).
dl_listing() { [ -e "$1" ] && (cd "$1" && find . -printf '%p %s %T@\n' | sort); true; }

test_device_links_disabled_and_read_only() {
  TEST "SHIMCTL_DISABLE=1 keeps device links out of the store; read-only use (CCACHE_READONLY=1) hits but writes nothing, misses link uncached; measure counts them; programs as uncached"
  pz_prefix "$DL_STACK"
  export XDG_CACHE_HOME=$TEST_DIR/xdg
  local store=$XDG_CACHE_HOME/shimctl/device-links d=$TEST_DIR/b1
  DL_TARGETS=$DL_A,$DL_B
  dl_program "$d"
  # SHIMCTL_DISABLE=1: no device link goes to the store, none is even made.
  (cd "$d" && SHIMCTL_DISABLE=1 SHIMCTL_SHIM_TRACE=1 dl_cc -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o off >off.out 2>&1) ||
    fail "the link with SHIMCTL_DISABLE=1 failed: $(cat "$d/off.out")"
  grep -q 'device link' "$d/off.out" && fail "a device link went to the store with SHIMCTL_DISABLE=1: $(cat "$d/off.out")"
  [ -e "$store" ] && fail "SHIMCTL_DISABLE=1 made the store: $(dl_listing "$store")"
  if [ "$DL_LLVM" -lt 23 ]; then
    # The old driver's lld handed shimctl anyway (a COMPILER_PATH left over from a shimmed link):
    # SHIMCTL_DISABLE=1 still runs the real lld and keeps nothing.
    mkdir -p "$TEST_DIR/tools" && ln -sf "$SHIMCTL" "$TEST_DIR/tools/lld"
    (cd "$d" && SHIMCTL_DISABLE=1 SHIMCTL_SHIM_TRACE=1 COMPILER_PATH="$TEST_DIR/tools" SHIMCTL_LINK_IDENTITY=$(printf '%064d' 0) \
      "/usr/lib/llvm-$DL_LLVM/bin/clang++" $([ "$DL_STACK" = sid ] || echo "--rocm-path=$P") -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o off2 >off2.out 2>&1) ||
      fail "the link with shimctl as lld and SHIMCTL_DISABLE=1 failed: $(cat "$d/off2.out")"
    [ -e "$store" ] && fail "shimctl as lld with SHIMCTL_DISABLE=1 made the store: $(dl_listing "$store")"
    expect_same_file "$d/off" "$d/off2"
  fi
  # Read-only: both miss, link, and nothing is kept (no store made).
  (cd "$d" && CCACHE_READONLY=1 SHIMCTL_SHIM_TRACE=1 dl_cc -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o ro >ro.out 2>&1) ||
    fail "the read-only link failed: $(cat "$d/ro.out")"
  expect_eq 2 "$(grep -c 'miss (linked, the store read-only: not kept)' "$d/ro.out")" "read-only misses in $d/ro.out"
  [ -e "$store" ] && fail "a read-only link made the store: $(dl_listing "$store")"
  expect_same_file "$d/off" "$d/ro"
  # A trusted link fills the store; a read-only one from a fresh build directory hits and
  # leaves every file of the store as it was (no entry, verdict, count or use time).
  dl_link "$d"
  expect_eq "$(dl_sorted $DL_A:miss $DL_B:miss)" "$(links_in "$d")" "device links of the trusted link"
  local before
  before=$(dl_listing "$store")
  sleep 1.1 # a renewed use time would show
  dl_program "$TEST_DIR/b2"
  # ... under `shimctl measure`, which counts them (the store's counts stay as they are).
  (cd "$TEST_DIR/b2" && CCACHE_READONLY=1 SHIMCTL_SHIM_TRACE=1 "$SHIMCTL" measure -- "$P/llvm/bin/clang++" $([ "$DL_STACK" = sid ] || echo "--rocm-path=$P") \
    -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o prog >trace 2>&1) ||
    fail "the read-only link in $TEST_DIR/b2 failed: $(cat "$TEST_DIR/b2/trace")"
  expect_eq "$(dl_sorted $DL_A:hit $DL_B:hit)" "$(links_in "$TEST_DIR/b2")" "device links of the read-only link"
  grep -q '; device links: 2 hits, 0 linked, 0 uncached;' "$TEST_DIR/b2/trace" ||
    fail "measure's device links: $(grep 'shimctl measure' "$TEST_DIR/b2/trace")"
  expect_eq "$before" "$(dl_listing "$store")" "the store after the read-only link"
  expect_same_file "$d/ref" "$TEST_DIR/b2/prog"
}

dl_sc_cleanup() {
  remove_test_users
  [ -n "${DL_SC:-}" ] && rm -rf "$DL_SC"
}

# dl_sc_link USER DIR OUT: USER links DIR's program (a clean environment, SHIMCTL_SHIM_TRACE=1,
# the trace in DIR/trace).
dl_sc_link() {
  local user=$1 d=$2 out=$3
  runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$DL_SC/home-$user" LANG=C SHIMCTL_SHIM_TRACE=1 \
    sh -c 'cd "$1" && shift && exec "$@"' sh "$d" "$P/llvm/bin/clang++" $([ "$DL_STACK" = sid ] || echo "--rocm-path=$P") \
    -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o "$out" >"$d/trace" 2>&1 ||
    fail "$user's link in $d failed: $(cat "$d/trace")"
}

test_device_links_shared_cache() {
  TEST "install --shared-cache: the device links' store beside it is the group's (2770 dirs, 0660 files): one member's link is another's hit, a non-member links uncached and writes nothing; programs as uncached"
  command -v useradd >/dev/null && command -v groupadd >/dev/null && command -v runuser >/dev/null && [ "$(id -u)" -eq 0 ] ||
    { echo "    (skipped: needs root, useradd, groupadd and runuser)"; return 0; }
  local tag u
  tag=$(printf '%04x%04x' $$ $RANDOM)
  DL_SC_GROUP=dlg$tag DL_SC_USERS="dla$tag dlb$tag dlc$tag"
  DL_SC=$(mktemp -d /var/tmp/shimctl-dlsc.XXXXXX)
  chmod 755 "$DL_SC"
  trap dl_sc_cleanup EXIT
  make_test_group "$DL_SC_GROUP"
  make_test_user "dla$tag" "$DL_SC_GROUP"
  make_test_user "dlb$tag" "$DL_SC_GROUP"
  make_test_user "dlc$tag"
  for u in $DL_SC_USERS; do mkdir -p "$DL_SC/home-$u" && chown "$u" "$DL_SC/home-$u"; done
  P=$DL_SC/rocm
  local S=$DL_SC/shared store=$DL_SC/shared/shimctl-device-links
  "$SCRIPTS/make-rocm-prefix" "$P" "${DL_PREFIX_ARGS[@]}" >/dev/null || fail "make-rocm-prefix"
  HOME=$DL_SC/home-root env -u CCACHE_DIR -u XDG_CACHE_HOME "$SHIMCTL" install "$P" \
    --shared-cache "$S" --group "$DL_SC_GROUP" --no-verify >"$TEST_DIR/install.out" 2>&1 ||
    fail "the install failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  DL_TARGETS=$DL_A,$DL_B
  local a=$DL_SC/a b=$DL_SC/b c=$DL_SC/c
  dl_program "$a" && chown -R "dla$tag" "$a"
  dl_program "$b" && chown -R "dlb$tag" "$b"
  dl_program "$c" && chown -R "dlc$tag" "$c"
  dl_sc_link "dla$tag" "$a" prog
  expect_eq "$(dl_sorted $DL_A:miss $DL_B:miss)" "$(links_in "$a")" "the first member's device links"
  expect_eq "$DL_SC_GROUP 2770" "$(stat -c '%G %a' "$store")" "group and mode of the store"
  expect_eq "" "$(find "$store" \( -type d \( ! -perm 2770 -o ! -group "$DL_SC_GROUP" \) \) -o \( -type f \( ! -perm 0660 -o ! -group "$DL_SC_GROUP" \) \) -print)" \
    "the store's files not the group's (2770 dirs, 0660 files)"
  expect_eq 2 "$(find "$store" -mindepth 2 -type f | wc -l)" "entries in the store"
  [ -e "$DL_SC/home-dla$tag/.cache/shimctl/device-links" ] && fail "the member's own store was made too"
  dl_sc_link "dlb$tag" "$b" prog
  expect_eq "$(dl_sorted $DL_A:hit $DL_B:hit)" "$(links_in "$b")" "the second member's device links (the first's entries)"
  expect_eq "" "$(find "$store" -type f ! -perm 0660 -print)" "store files not 0660 after the second member's link"
  local before
  before=$(dl_listing "$store")
  dl_sc_link "dlc$tag" "$c" prog
  expect_eq "" "$(links_in "$c")" "a non-member's device links (hits or misses)"
  grep -q "device link: uncached: cannot use $store" "$c/trace" || fail "the non-member's trace: $(cat "$c/trace")"
  expect_eq "$before" "$(dl_listing "$store")" "the store after a non-member's link"
  expect_eq "" "$(find "$S" -user "dlc$tag" -print -quit)" "the non-member's files in the shared cache"
  (cd "$a" && SHIMCTL_DISABLE=1 dl_cc -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o ref) \
    >"$a/ref.out" 2>&1 || fail "the uncached link failed: $(cat "$a/ref.out")"
  for u in "$a" "$b" "$c"; do expect_same_file "$a/ref" "$u/prog"; done
  # status names the store beside the shared cache.
  "$SHIMCTL" status "$P" >"$TEST_DIR/status.out" 2>&1 || fail "status failed: $(cat "$TEST_DIR/status.out")"
  grep -q "^device links: 2 hits, 2 linked, [0-9]* uncached (one per GPU target); store $store (shared cache's group): 2 entries, " \
    "$TEST_DIR/status.out" || fail "status's device links line: $(grep -i 'device links' "$TEST_DIR/status.out")"
}

test_device_links_in_cache_archives() {
  TEST "cache export carries the device links' store (entries and verdicts, not its counts); import on a fresh machine makes the device links hits, program as uncached"
  pz_prefix "$DL_STACK"
  export XDG_CACHE_HOME=$TEST_DIR/xdg1
  local store1=$TEST_DIR/xdg1/shimctl/device-links store2=$TEST_DIR/xdg2/shimctl/device-links out
  mkdir -p "$CCACHE_DIR"
  DL_TARGETS=$DL_A,$DL_B
  dl_program "$TEST_DIR/b1"
  dl_link "$TEST_DIR/b1"
  dl_program "$TEST_DIR/b2"
  dl_link "$TEST_DIR/b2" # a hit each: the first checked, its verdict kept
  expect_eq "$(dl_sorted $DL_A:hit $DL_B:hit)" "$(links_in "$TEST_DIR/b2")" "device links of the second build"
  out=$("$SHIMCTL" cache export "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "export failed: $out"
  zstd -dc "$TEST_DIR/c.tar.zst" | tar -tf - >"$TEST_DIR/list" || fail "not a zstd tar"
  expect_eq "$(cd "$store1" && find . -type f ! -name counts | sed 's|^\./|shimctl-device-links/|' | sort)" \
    "$(grep '^shimctl-device-links/' "$TEST_DIR/list" | sort)" "the store's files in the archive"
  expect_eq 3 "$(grep -c '^shimctl-device-links/' "$TEST_DIR/list")" "device-link files in the archive (2 entries, 1 verdict)"
  # A fresh machine: another cache home and compile cache, the same prefix.
  export XDG_CACHE_HOME=$TEST_DIR/xdg2 CCACHE_DIR=$TEST_DIR/ccache2
  out=$("$SHIMCTL" cache import "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "import failed: $out"
  expect_eq "700 600" "$(stat -c %a "$store2") $(stat -c %a "$(find "$store2" -mindepth 2 -type f | head -1)")" "modes of the imported store and an entry"
  [ -e "$store2/counts" ] && fail "the counts travelled"
  dl_program "$TEST_DIR/b3"
  dl_link "$TEST_DIR/b3"
  expect_eq "$(dl_sorted $DL_A:hit $DL_B:hit)" "$(links_in "$TEST_DIR/b3")" "device links after the import"
  grep -q "the toolchain's first: checked" "$TEST_DIR/b3/trace" && fail "the verdict did not travel: $(cat "$TEST_DIR/b3/trace")"
  expect_same_file "$TEST_DIR/b1/ref" "$TEST_DIR/b3/prog"
  # Importing again keeps what is there.
  out=$("$SHIMCTL" cache import "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "second import failed: $out"
  expect_contains "$out" "imported 0 entries" "the second import"
}

test_device_links_remote_read_only() {
  TEST "an install with --remote-read-only (an untrusted build's): device links hit what the store has (an imported archive's) and keep nothing; program as uncached"
  export XDG_CACHE_HOME=$TEST_DIR/xdg CCACHE_DIR=$TEST_DIR/ccache
  local store=$TEST_DIR/xdg/shimctl/device-links d=$TEST_DIR/b1 out
  P=$TEST_DIR/rocm
  "$SCRIPTS/make-rocm-prefix" "$P" "${DL_PREFIX_ARGS[@]}" >/dev/null || fail "make-rocm-prefix"
  "$SHIMCTL" install "$P" --cache-dir "$CCACHE_DIR" --no-verify >"$TEST_DIR/install.out" 2>&1 ||
    fail "the install failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  DL_TARGETS=$DL_A,$DL_B
  dl_program "$d"
  dl_link "$d" # the trusted build: both kept
  mkdir -p "$CCACHE_DIR"
  out=$("$SHIMCTL" cache export "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "export failed: $out"
  # The untrusted runner: the same toolchain, reading the team's store only, an empty cache home.
  "$SHIMCTL" install "$P" --cache-dir "$CCACHE_DIR" --remote redis://127.0.0.1:9 --remote-read-only --no-verify \
    >"$TEST_DIR/install2.out" 2>&1 || fail "the read-only install failed:"$'\n'"$(cat "$TEST_DIR/install2.out")"
  rm -rf "$TEST_DIR/xdg"
  dl_program "$TEST_DIR/b2"
  (cd "$TEST_DIR/b2" && SHIMCTL_SHIM_TRACE=1 dl_cc -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o prog >trace 2>&1) ||
    fail "the read-only install's link failed: $(cat "$TEST_DIR/b2/trace")"
  expect_eq 2 "$(grep -c 'miss (linked, the store read-only: not kept)' "$TEST_DIR/b2/trace")" "read-only misses in $TEST_DIR/b2/trace"
  [ -e "$store" ] && fail "the read-only install's link made the store: $(dl_listing "$store")"
  expect_same_file "$d/ref" "$TEST_DIR/b2/prog"
  out=$("$SHIMCTL" cache import "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "import failed: $out"
  local before
  before=$(dl_listing "$store")
  dl_program "$TEST_DIR/b3"
  (cd "$TEST_DIR/b3" && SHIMCTL_SHIM_TRACE=1 dl_cc -fgpu-rdc --hip-link $(dl_arch) a.o m.o -L. -ltw -o prog >trace 2>&1) ||
    fail "the read-only install's link failed: $(cat "$TEST_DIR/b3/trace")"
  expect_eq "$(dl_sorted $DL_A:hit $DL_B:hit)" "$(links_in "$TEST_DIR/b3")" "device links after the import"
  expect_eq "$before" "$(dl_listing "$store")" "the store after the read-only install's link"
  expect_same_file "$d/ref" "$TEST_DIR/b3/prog"
  "$SHIMCTL" status "$P" >"$TEST_DIR/status.out" 2>&1 || fail "status failed: $(cat "$TEST_DIR/status.out")"
  grep -q "^device links: .*; store $store (read-only): 2 entries, " "$TEST_DIR/status.out" ||
    fail "status's device links line: $(grep -i 'device links' "$TEST_DIR/status.out")"
}
