# Shared caches without cache poisoning (issue 4): `install --shared-cache DIR --group NAME`.
# Real users and a group are created here (unique names, removed at the end): two members share
# hits through the shimmed clang; a non-member compiles fine but cannot write an entry; a
# world-writable directory is refused unless --allow-world-writable.

suite_requires() {
  [ -x "$SHIMCTL" ] && [ -x /usr/lib/llvm-15/bin/clang ] && command -v ccache >/dev/null &&
    [ -f /usr/bin/hipcc.pl ] && [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null &&
    command -v groupadd >/dev/null && command -v runuser >/dev/null
}

# make_accounts: group G with members UA and UB; UC belongs to no such group. Removed on exit.
make_accounts() {
  local tag
  tag=$(printf '%04x%04x' $$ $RANDOM)
  G=shsc$tag; UA=shsa$tag; UB=shsb$tag; UC=shsc${tag}x
  groupadd "$G" || fail "groupadd $G"
  trap 'userdel "$UA" 2>/dev/null; userdel "$UB" 2>/dev/null; userdel "$UC" 2>/dev/null; groupdel "$G" 2>/dev/null' EXIT
  useradd -M -N -s /bin/sh -G "$G" "$UA" || fail "useradd $UA"
  useradd -M -N -s /bin/sh -G "$G" "$UB" || fail "useradd $UB"
  useradd -M -N -s /bin/sh "$UC" || fail "useradd $UC"
}

# as_user USER DIR CMD...: run CMD as USER in DIR with a clean environment.
as_user() {
  local user=$1 dir=$2
  shift 2
  runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$dir" LANG=C sh -c 'cd "$1" && shift && exec "$@"' sh "$dir" "$@"
}

cache_files() { find "$1" -type f | sort; }

test_members_share_hits_and_outsiders_cannot_write() {
  TEST "shared cache: members share hits, a non-member cannot write, modes stay group-only"
  make_accounts
  local fixture P S
  fixture=$(rocm_prefix 15) || fail "cannot build the ROCm fixture"
  # Other users must reach the prefix and their work directories.
  chmod 755 "$SUITE_TMP" "$TEST_DIR"
  P=$TEST_DIR/prefix
  cp -a "$fixture" "$P"
  S=$TEST_DIR/shared
  expect_success "$SHIMCTL" install "$P" --compilers clang --no-verify --shared-cache "$S" --group "$G"
  expect_perm "$S" 2770
  expect_eq "$G" "$(stat -c %G "$S")" "group of the shared cache"
  # DIR is ccache's file storage (a storage it cannot use is a miss, not an error); each user's
  # own cache_dir ($HOME/.cache/ccache here) keeps only statistics.
  local conf=$P/llvm/bin/.shimctl.conf
  grep -qxF "setenv CCACHE_REMOTE_STORAGE=file:$S|umask=002" "$conf" || fail "the shim config does not name $S: $(cat "$conf")"
  grep -qx "setenv CCACHE_REMOTE_ONLY=1" "$conf" || fail "the shim config keeps a local cache"
  grep -qx "setenv CCACHE_UMASK=002" "$conf" || fail "the shim config sets no umask"
  grep -q "^setenv CCACHE_DIR=" "$conf" && fail "the shim config points CCACHE_DIR at the shared cache"
  # The user can turn each default off with ccache's own CCACHE_NO<X> (remote_only included).
  HOME=$TEST_DIR expect_defaults_yield "$conf" "$P/llvm/bin/clang"
  grep -q "^setenv CCACHE_REMOTE_ONLY=1" "$conf" || fail "no remote_only default was checked"
  local w
  for w in a b c; do
    mkdir -p "$TEST_DIR/work-$w"
    printf 'int shared_answer(int x) { return x * 42; }\n' > "$TEST_DIR/work-$w/t.c"
  done
  chown "$UA" "$TEST_DIR/work-a"; chown "$UB" "$TEST_DIR/work-b"; chown "$UC" "$TEST_DIR/work-c"

  as_user "$UA" "$TEST_DIR/work-a" "$P/llvm/bin/clang" -c t.c -o t.o || fail "member A cannot compile"
  expect_misses "$TEST_DIR/work-a/.cache/ccache" 1
  expect_hits "$TEST_DIR/work-a/.cache/ccache" 0
  [ "$(ccache_stat "$TEST_DIR/work-a/.cache/ccache" remote_storage_write)" -ge 1 ] || fail "A wrote no entry"
  [ -n "$(cache_files "$S")" ] || fail "A's compile left nothing in $S"
  as_user "$UB" "$TEST_DIR/work-b" "$P/llvm/bin/clang" -c t.c -o t.o || fail "member B cannot compile"
  expect_hits "$TEST_DIR/work-b/.cache/ccache" 1
  expect_misses "$TEST_DIR/work-b/.cache/ccache" 0
  expect_eq 1 "$(ccache_stat "$TEST_DIR/work-b/.cache/ccache" remote_storage_hit)" "B's hits from $S"
  cmp -s "$TEST_DIR/work-a/t.o" "$TEST_DIR/work-b/t.o" || fail "B's object differs from A's"
  # Every directory ccache made is the group's, group-writable and setgid; files group-writable.
  local bad
  bad=$(find "$S" \( -type d \( ! -perm -2070 -o -perm -0002 \) \) -o \( -type f \( ! -perm -0060 -o -perm -0002 \) \) -o ! -group "$G")
  [ -z "$bad" ] || fail "entries not group-only: $(ls -ld $bad | head -5)"

  # The non-member compiles (the shim falls back to the compiler), but writes nothing.
  cache_files "$S" > "$TEST_DIR/files.before"
  as_user "$UC" "$TEST_DIR/work-c" "$P/llvm/bin/clang" -c t.c -o t.o 2>"$TEST_DIR/c.err" \
    || fail "non-member C cannot compile: $(cat "$TEST_DIR/c.err")"
  [ -s "$TEST_DIR/work-c/t.o" ] || fail "non-member C got no object"
  cmp -s "$TEST_DIR/work-a/t.o" "$TEST_DIR/work-c/t.o" || fail "C's object differs from A's"
  cache_files "$S" > "$TEST_DIR/files.after"
  expect_misses "$TEST_DIR/work-c/.cache/ccache" 1
  expect_eq 0 "$(ccache_stat "$TEST_DIR/work-c/.cache/ccache" remote_storage_write)" "C's writes to $S"
  diff -u "$TEST_DIR/files.before" "$TEST_DIR/files.after" >/dev/null \
    || fail "a non-member changed the shared cache: $(diff "$TEST_DIR/files.before" "$TEST_DIR/files.after" | head)"
  # Nor can a non-member plant a file there by hand.
  as_user "$UC" "$TEST_DIR/work-c" sh -c "echo planted > '$S/planted'" 2>/dev/null \
    && fail "a non-member could write into the shared cache"
  expect_success "$SHIMCTL" rollback "$P"
}

test_world_writable_cache_is_refused() {
  TEST "shared cache: a world-writable directory is refused unless --allow-world-writable"
  make_accounts
  local fixture P W
  fixture=$(rocm_prefix 15) || fail "cannot build the ROCm fixture"
  P=$TEST_DIR/prefix
  cp -a "$fixture" "$P"
  W=$TEST_DIR/tmpcache
  mkdir -m 1777 "$W"
  chmod 1777 "$W"
  local out rc
  out=$("$SHIMCTL" install "$P" --compilers clang --no-verify --shared-cache "$W" --group "$G" 2>&1 >/dev/null)
  rc=$?
  expect_eq 2 "$rc" "exit code for a world-writable cache"
  expect_eq "shimctl: error: shared cache $W is world-writable (mode 1777): any local user could plant cache entries that other users' builds would link; use a directory only the group can write (shimctl creates it as 2770 with --group), or pass --allow-world-writable to accept that risk" \
    "$out" "the refusal"
  [ ! -e "$P/.shimctl" ] || fail "the refused install left $P/.shimctl"
  expect_perm "$W" 1777
  expect_success "$SHIMCTL" install "$P" --compilers clang --no-verify --shared-cache "$W" --group "$G" --allow-world-writable
  grep -qxF "setenv CCACHE_REMOTE_STORAGE=file:$W|umask=002" "$P/llvm/bin/.shimctl.conf" || fail "the shim config does not name $W"
  expect_perm "$W" 1777
  expect_success "$SHIMCTL" rollback "$P"
  # An existing private directory is handed to the group: setgid and group bits added.
  mkdir -m 700 "$TEST_DIR/private"
  expect_success "$SHIMCTL" install "$P" --compilers clang --no-verify --shared-cache "$TEST_DIR/private" --group "$G"
  expect_perm "$TEST_DIR/private" 2770
  expect_eq "$G" "$(stat -c %G "$TEST_DIR/private")" "group of the adopted directory"
  expect_success "$SHIMCTL" rollback "$P"
}
