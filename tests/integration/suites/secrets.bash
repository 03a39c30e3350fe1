# A remote's credential (issue 21, item 3): `install --remote redis://PASSWORD@host:port` keeps
# the password in PREFIX/.shimctl/secrets only (0600, or 0640 with a shared cache's group): not
# in the shim configs, the manifest, the journal, events.log or the cache, and in no output of
# install, --dry-run, --json, verify, status, rollback or an error. Against a real
# `redis-server --requirepass` on 127.0.0.1 and real compiles: the store still gets entries,
# root's compiles hit from it with an empty local cache, a user created here who may not read the
# secret compiles with the local cache only and `shimctl status` tells them why; a new password
# replaces the old everywhere; a killed install or rotation leaves no credential behind.

suite_requires() {
  [ "$(id -u)" -eq 0 ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && command -v ccache >/dev/null &&
    command -v redis-server >/dev/null && command -v redis-cli >/dev/null &&
    command -v useradd >/dev/null && command -v groupadd >/dev/null && command -v runuser >/dev/null &&
    { [ "${STACK:-debian12}" = sid ] ||
      { [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ] && command -v jq >/dev/null; }; }
}


# start_auth_redis PASSWORD: a redis-server on a free port of 127.0.0.1 that wants PASSWORD
# (REDIS_PORT, REDIS_PW); stopped by cleanup.
start_auth_redis() {
  REDIS_PW=$1
  REDIS_PORT=$(free_port)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --requirepass "$REDIS_PW" --save '' \
    --appendonly no --daemonize yes --pidfile "$TEST_DIR/redis.pid" --dir "$TEST_DIR" \
    --logfile "$TEST_DIR/redis.log" >/dev/null || fail "redis-server did not start"
  wait_until 10 "redis-server on port $REDIS_PORT" eval '[ "$(rcli ping 2>/dev/null)" = PONG ]'
}

# rcli ARGS...: redis-cli with the current password (from the environment: never on a command line).
rcli() { REDISCLI_AUTH=$REDIS_PW redis-cli -p "$REDIS_PORT" "$@"; }

# url PASSWORD: the --remote URL with PASSWORD the way ccache takes it (redis://PASSWORD@host).
url() { echo "redis://$1@127.0.0.1:$REDIS_PORT"; }
shown_url() { echo "redis://***@127.0.0.1:$REDIS_PORT"; }

# Every test: `trap cleanup EXIT` first. Stops Redis, removes the users and groups it made.
cleanup() {
  stop_redis
  remove_test_users
}

# make_user [GROUP]: a new user (name in NEW_USER) with its home in $TEST_DIR, in GROUP if given.
make_user() {
  NEW_USER=shsec$(printf '%04x%04x' $$ $RANDOM)
  make_test_user "$NEW_USER" "${1:-}"
  mkdir -m 700 "$TEST_DIR/home-$NEW_USER"
  printf 'int user_answer(int x) { return x * 17; }\n' > "$TEST_DIR/home-$NEW_USER/u.c"
  chown -R "$NEW_USER" "$TEST_DIR/home-$NEW_USER"
}

# as_user USER CMD...: CMD as USER in its home, with a clean environment.
as_user() {
  local user=$1
  shift
  runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$TEST_DIR/home-$user" LANG=C \
    sh -c 'cd "$HOME" && exec "$@"' sh "$@"
}



# expect_files_holding PASSWORD "EXPECTED" DIR...: the files under the DIRs that hold PASSWORD
# (grep -r: symlinks below a DIR are not followed) are exactly EXPECTED (a list, or "").
expect_files_holding() {
  local pw=$1 expected=$2
  shift 2
  expect_eq "$expected" "$(grep -rlF -- "$pw" "$@" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')" \
    "files holding the password"
}

# remote_hits CCACHE-DIR: ccache's remote_storage_hit there.
remote_hits() { ccache_stat "$1" remote_storage_hit; }

# compile_as_root NAME SOURCE: SOURCE through the prefix's clang as root, with its own, empty
# local cache $TEST_DIR/root-NAME.
compile_as_root() {
  (cd "$TEST_DIR" && CCACHE_DIR=$TEST_DIR/root-$1 "$P/llvm/bin/clang" -c "$2" -o "root-$1.o") ||
    fail "root's compile $1 of $2 failed"
}

# prefix_copy: P = a fresh copy of the clang-15 ROCm fixture (STACK=sid: the ROCm-7 one) at $TEST_DIR/p (reachable by the
# users made here), a source x.c and HOME for root's compiles.
prefix_copy() {
  chmod 755 "$SUITE_TMP" "$TEST_DIR"
  P=$TEST_DIR/p
  if [ "${STACK:-debian12}" = sid ]; then
    cp -a "$(rocm_prefix sid)" "$P" || fail "cannot copy the ROCm-7 fixture"
  else
    copy_rocm_prefix "$P"
  fi
  printf 'int secret_answer(int x) { return x * 3 + 1; }\n' > "$TEST_DIR/x.c"
  printf 'int secret_other(int x) { return x - 11; }\n' > "$TEST_DIR/y.c"
  export HOME=$TEST_DIR/home-root
  mkdir -p "$HOME"
}

test_password_only_in_the_secrets_file_and_in_no_output() {
  TEST "install --remote redis://PASSWORD@...: the password only in .shimctl/secrets (0600), in no output"
  trap cleanup EXIT
  prefix_copy
  local pw pw2 conf m
  pw=$(password Alpha)
  pw2=$(password Bravo)
  start_auth_redis "$pw"
  out dry-run "$SHIMCTL" install "$P" --compilers clang --remote "$(url "$pw")" --dry-run ||
    fail "dry run: $(shown dry-run)"
  expect_contains "$(shown dry-run)" "write .shimctl/secrets (mode 0600)" "the dry run's plan"
  [ ! -e "$P/.shimctl" ] || fail "the dry run made $P/.shimctl"
  out install "$SHIMCTL" install "$P" --compilers clang --cache-dir "$TEST_DIR/cache" \
    --remote "$(url "$pw")" || fail "install: $(shown install)"
  expect_contains "$(shown install)" "$(shown_url)" "install's verify table"
  expect_contains "$(shown install)" "a compile with an empty local cache was served from the remote" \
    "verify (with the credential from the secrets file)"
  expect_perm "$P/.shimctl/secrets" 600
  expect_eq root:root "$(stat -c %U:%G "$P/.shimctl/secrets")" "owner of the secrets file"
  expect_eq "CCACHE_REMOTE_STORAGE=$(url "$pw")" "$(cat "$P/.shimctl/secrets")" "the secrets file"
  conf=$P/llvm/bin/.shimctl.conf
  grep -qxF "secrets $P/.shimctl/secrets" "$conf" || fail "no secrets line in $conf"
  ! grep -q '^setenv CCACHE_REMOTE_STORAGE=' "$conf" || fail "the shim config names a remote: $(grep REMOTE "$conf")"
  m=$P/.shimctl/manifest.json
  validate_manifest "$m"
  expect_eq "$(shown_url) true" "$(jq -r '.cache.remote + " " + (.cache.remote_secret | tostring)' "$m")" \
    "the manifest's remote"
  jq -e '.cache.secret_id | test("^[0-9a-f]{16}$")' "$m" >/dev/null || fail "no secret_id in $m"
  # The store got the verify compile's entries; root's compiles hit from it with empty local caches.
  [ "$(rcli dbsize)" -gt 0 ] || fail "nothing in Redis after install's verify"
  compile_as_root a x.c
  expect_eq 2 "$(ccache_stat "$TEST_DIR/root-a" remote_storage_write)" "root's writes to Redis"
  compile_as_root b x.c
  expect_eq 1 "$(remote_hits "$TEST_DIR/root-b")" "root's remote hits from an empty local cache"
  cmp -s "$TEST_DIR/root-a.o" "$TEST_DIR/root-b.o" || fail "the remote hit's object differs"

  out verify "$SHIMCTL" verify "$P" || fail "verify: $(shown verify)"
  out verify-json "$SHIMCTL" verify "$P" --json || fail "verify --json: $(shown verify-json)"
  out status "$SHIMCTL" status "$P" || fail "status: $(shown status)"
  expect_contains "$(shown status)" "remote:      $(shown_url) (credential in $P/.shimctl/secrets, mode 0600)" "status"
  out status-json "$SHIMCTL" status "$P" --json || fail "status --json: $(shown status-json)"
  expect_eq "$(shown_url) true" \
    "$(jq -r '.cache.remote + " " + (.cache.remote_credential.readable | tostring)' "$TEST_DIR/out/status-json")" \
    "status --json"
  out again "$SHIMCTL" install "$P" --remote "$(url "$pw")" --json || fail "install again: $(shown again)"
  expect_contains "$(shown again)" '"action": "unchanged"' "the same URL again"
  out rotate-dry-run "$SHIMCTL" install "$P" --remote "$(url "$pw2")" --dry-run --json ||
    fail "dry run of a new password: $(shown rotate-dry-run)"
  expect_contains "$(shown rotate-dry-run)" "remote: $(shown_url) -> $(shown_url) (new credential)" \
    "the dry run of a new password"
  expect_eq "CCACHE_REMOTE_STORAGE=$(url "$pw")" "$(cat "$P/.shimctl/secrets")" "secrets after a dry run"
  # An error that names the remote (ccache has no TLS store) shows it redacted.
  copy_rocm_prefix "$TEST_DIR/p-error"
  out error "$SHIMCTL" install "$TEST_DIR/p-error" --remote "https://user:$pw@127.0.0.1:9/c" &&
    fail "ccache with an https remote was accepted"
  expect_contains "$(shown error)" "shimctl: error: --remote: 'https://***@127.0.0.1:9/c' has scheme 'https'" "the error line"
  expect_files_holding "$pw" "$P/.shimctl/secrets" "$P" "$TEST_DIR/cache" "$TEST_DIR"/root-*
  [ ! -e "$P/.shimctl/journal.json" ] || fail "a journal was left"

  out rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown rollback)"
  [ ! -e "$P/.shimctl" ] || fail "rollback left $(ls -A "$P/.shimctl")"
  expect_files_holding "$pw" "" "$P" "$TEST_DIR/cache"
  expect_not_shown "$pw" "$pw2"
}

test_a_user_who_may_not_read_it_compiles_with_the_local_cache() {
  TEST "a user without access to the secret compiles (local cache only); status says why; root still hits"
  trap cleanup EXIT
  prefix_copy
  local pw u keys
  pw=$(password Charlie)
  start_auth_redis "$pw"
  # No --cache-dir: every user has a cache of their own (~/.cache/ccache).
  out install "$SHIMCTL" install "$P" --compilers clang --no-verify --remote "$(url "$pw")" ||
    fail "install: $(shown install)"
  make_user
  u=$NEW_USER
  as_user "$u" cat "$P/.shimctl/secrets" >/dev/null 2>&1 && fail "$u can read the secrets file"
  keys=$(rcli dbsize)
  as_user "$u" "$P/llvm/bin/clang" -c u.c -o u1.o || fail "$u's compile failed"
  as_user "$u" "$P/llvm/bin/clang" -c u.c -o u2.o || fail "$u's second compile failed"
  local ucache=$TEST_DIR/home-$u/.cache/ccache
  expect_misses "$ucache" 1
  expect_hits "$ucache" 1
  expect_eq 0 "$(ccache_stat "$ucache" remote_storage_write)" "$u's writes to a remote"
  expect_eq 0 "$(ccache_stat "$ucache" remote_storage_error)" "$u's remote errors"
  expect_eq "$keys" "$(rcli dbsize)" "Redis keys after $u's compiles"
  cmp -s "$TEST_DIR/home-$u/u1.o" "$TEST_DIR/home-$u/u2.o" || fail "$u's hit differs"
  [ "$(stat -c %U "$TEST_DIR/home-$u/u1.o")" = "$u" ] || fail "$u's object is not $u's"

  out user-status as_user "$u" "$SHIMCTL" status "$P" || fail "status as $u: $(shown user-status)"
  expect_contains "$(shown user-status)" \
    "remote:      $(shown_url) (credential in $P/.shimctl/secrets not readable by this user: compiles use the local cache only)" \
    "status as $u"
  out user-status-json as_user "$u" "$SHIMCTL" status "$P" --json || fail "status --json as $u"
  expect_eq false "$(jq -r '.cache.remote_credential.readable' "$TEST_DIR/out/user-status-json")" \
    "status --json as $u"
  out user-verify as_user "$u" "$SHIMCTL" verify "$P"
  expect_contains "$(shown user-verify)" "not readable by this user" "verify as $u"

  # Root reads the secret: its compiles write to Redis and hit from it with an empty local cache.
  cp "$TEST_DIR/home-$u/u.c" "$TEST_DIR/u.c"
  compile_as_root a u.c
  [ "$(rcli dbsize)" -gt "$keys" ] || fail "root's compile added nothing to Redis"
  compile_as_root b u.c
  expect_eq 1 "$(remote_hits "$TEST_DIR/root-b")" "root's remote hits"
  expect_files_holding "$pw" "$P/.shimctl/secrets" "$P" "$TEST_DIR/home-$u" "$TEST_DIR"/root-*
  out rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown rollback)"
  expect_not_shown "$pw"
}

test_a_new_password_replaces_the_old_everywhere() {
  TEST "rotation: install --remote with a new password; the old one is gone, the new one works"
  trap cleanup EXIT
  prefix_copy
  local pw1 pw2 id1 id2
  pw1=$(password Delta)
  pw2=$(password Echo)
  start_auth_redis "$pw1"
  out install "$SHIMCTL" install "$P" --compilers clang --cache-dir "$TEST_DIR/cache" --no-verify \
    --remote "$(url "$pw1")" || fail "install: $(shown install)"
  id1=$(jq -r .cache.secret_id "$P/.shimctl/manifest.json")
  compile_as_root a x.c
  expect_eq 2 "$(ccache_stat "$TEST_DIR/root-a" remote_storage_write)" "writes with the first password"
  rcli config set requirepass "$pw2" >/dev/null || fail "cannot change Redis's password"
  REDIS_PW=$pw2
  # The old password no longer works (the shim's remote fails; the compile still succeeds).
  compile_as_root stale y.c
  [ "$(ccache_stat "$TEST_DIR/root-stale" remote_storage_error)" -ge 1 ] ||
    fail "the old password still worked"
  out rotate "$SHIMCTL" install "$P" --remote "$(url "$pw2")" || fail "rotation: $(shown rotate)"
  expect_contains "$(shown rotate)" "changed remote: $(shown_url) -> $(shown_url) (new credential)" "rotation"
  expect_contains "$(shown rotate)" "a compile with an empty local cache was served from the remote" \
    "the rotation's verify"
  id2=$(jq -r .cache.secret_id "$P/.shimctl/manifest.json")
  [ "$id2" != "$id1" ] && [ ${#id2} -eq 16 ] || fail "secret_id $id1 -> $id2: not renewed"
  expect_perm "$P/.shimctl/secrets" 600
  expect_eq "CCACHE_REMOTE_STORAGE=$(url "$pw2")" "$(cat "$P/.shimctl/secrets")" "the new secrets file"
  validate_manifest "$P/.shimctl/manifest.json"
  # The new password works: a new entry is written, and both hit from empty local caches.
  compile_as_root b y.c
  expect_eq 0 "$(ccache_stat "$TEST_DIR/root-b" remote_storage_error)" "remote errors with the new password"
  [ "$(ccache_stat "$TEST_DIR/root-b" remote_storage_write)" -ge 1 ] || fail "no write with the new password"
  compile_as_root c y.c
  expect_eq 1 "$(remote_hits "$TEST_DIR/root-c")" "hits of the entry written with the new password"
  compile_as_root d x.c
  expect_eq 1 "$(remote_hits "$TEST_DIR/root-d")" "hits of the entry written with the old password"
  out status "$SHIMCTL" status "$P" || fail "status"
  expect_files_holding "$pw1" "" "$P" "$TEST_DIR/cache" "$TEST_DIR"/root-*
  expect_files_holding "$pw2" "$P/.shimctl/secrets" "$P" "$TEST_DIR/cache" "$TEST_DIR"/root-*
  out rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown rollback)"
  expect_files_holding "$pw2" "" "$P"
  expect_not_shown "$pw1" "$pw2"
}

# killed K PREFIX ARGS...: `shimctl-test-hooks install PREFIX ARGS` killed right after step K.
killed() {
  local k=$1 rc=0
  shift
  need_test_hooks
  # In a subshell of its own, whose "Killed" notice goes to the output file too.
  (SHIMCTL_TEST_KILL_AFTER_STEP=$k "$SHIMCTL_HOOKS" install "$@"; exit $?) > "$TEST_DIR/out/killed-$k" 2>&1 ||
    rc=$?
  expect_eq 137 "$rc" "exit status of the install killed after step $k"
}

test_a_killed_install_or_rotation_leaves_no_credential() {
  TEST "an install or a rotation killed at each step: the journal never holds the password, recovery cleans up"
  trap cleanup EXIT
  prefix_copy
  local pw1 pw2 k rc
  pw1=$(password Foxtrot)
  pw2=$(password Golf)
  start_auth_redis "$pw1"
  mkdir -p "$TEST_DIR/out"
  # Install's steps: link_real, write_secret, the shim config, the shim, the manifest.
  for k in 0 1 2 3 4; do
    rm -rf "$P" && copy_rocm_prefix "$P"
    killed "$k" "$P" --compilers clang --no-verify --remote "$(url "$pw1")"
    [ -f "$P/.shimctl/journal.json" ] || fail "no journal after a kill at step $k"
    ! grep -qF -- "$pw1" "$P/.shimctl/journal.json" || fail "the journal holds the password (step $k)"
    [ "$k" -lt 2 ] || [ "$(stat -c %a "$P/.shimctl/secrets")" = 600 ] ||
      fail "the secrets file after step $k: $(ls -la "$P/.shimctl")"
    # status exits 4 once the recovery undid the install: not installed, as verify says.
    rc=0; out "recover-$k" "$SHIMCTL" status "$P" || rc=$?
    [ "$rc" = 4 ] || fail "recovery (status exit $rc, expected 4): $(shown "recover-$k")"
    expect_contains "$(shown "recover-$k")" "undid an interrupted install" "recovery after step $k"
    expect_files_holding "$pw1" "" "$P"
    ls -A "$P/.shimctl" | grep -q secrets && fail "left in the state dir: $(ls -A "$P/.shimctl")"
  done
  # A rotation's steps: write_secret, the shim config, the manifest.
  rm -rf "$P" && copy_rocm_prefix "$P"
  out install "$SHIMCTL" install "$P" --compilers clang --no-verify --remote "$(url "$pw1")" ||
    fail "install: $(shown install)"
  cp "$P/.shimctl/secrets" "$TEST_DIR/secrets.before"
  for k in 0 1 2; do
    killed "$k" "$P" --no-verify --remote "$(url "$pw2")"
    ! grep -qF -- "$pw2" "$P/.shimctl/journal.json" || fail "the rotation's journal holds the new password"
    out "recover-rotation-$k" "$SHIMCTL" status "$P" || fail "recovery: $(shown "recover-rotation-$k")"
    expect_contains "$(shown "recover-rotation-$k")" "undid an interrupted refresh" "recovery after step $k"
    cmp -s "$TEST_DIR/secrets.before" "$P/.shimctl/secrets" || fail "the old secret is not back (step $k)"
    expect_perm "$P/.shimctl/secrets" 600
    expect_files_holding "$pw2" "" "$P"
    expect_files_holding "$pw1" "$P/.shimctl/secrets" "$P"
  done
  # A rollback killed after it removed the shim config (step 2 of restore, the config, the
  # secrets file, the manifest, events.log): the next command finishes it, the secret goes.
  local rc=0
  (SHIMCTL_TEST_KILL_AFTER_STEP=2 "$SHIMCTL_HOOKS" rollback "$P"; exit $?) > "$TEST_DIR/out/killed-rollback" 2>&1 ||
    rc=$?
  expect_eq 137 "$rc" "exit status of the rollback killed after step 2"
  [ -f "$P/.shimctl/secrets" ] || fail "the secrets file went before its step"
  out finish-rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown finish-rollback)"
  expect_contains "$(shown finish-rollback)" "finished an interrupted rollback" "the next rollback"
  [ ! -e "$P/.shimctl" ] || fail "left after the rollback: $(ls -A "$P/.shimctl")"
  expect_files_holding "$pw1" "" "$P"
  expect_not_shown "$pw1" "$pw2"
}

test_shared_cache_group_reads_the_secret() {
  TEST "--shared-cache --group: the secrets file is 0640 and the group's; members use the remote, others not"
  trap cleanup EXIT
  prefix_copy
  local pw g member outsider keys s=$TEST_DIR/shared
  pw=$(password Hotel)
  start_auth_redis "$pw"
  g=shsg$(printf '%04x%04x' $$ $RANDOM)
  make_test_group "$g"
  make_user "$g"
  member=$NEW_USER
  make_user
  outsider=$NEW_USER
  out install "$SHIMCTL" install "$P" --compilers clang --no-verify --shared-cache "$s" --group "$g" \
    --remote "$(url "$pw")" || fail "install: $(shown install)"
  expect_perm "$P/.shimctl/secrets" 640
  expect_eq "root:$g" "$(stat -c %U:%G "$P/.shimctl/secrets")" "owner and group of the secrets file"
  expect_eq "CCACHE_REMOTE_STORAGE=file:$s|umask=002 $(url "$pw")" "$(cat "$P/.shimctl/secrets")" \
    "the secrets file"
  grep -qxF "setenv CCACHE_REMOTE_STORAGE=file:$s|umask=002" "$P/llvm/bin/.shimctl.conf" ||
    fail "the shim config lost the shared cache: $(grep REMOTE "$P/llvm/bin/.shimctl.conf")"
  keys=$(rcli dbsize)
  as_user "$member" "$P/llvm/bin/clang" -c u.c -o u.o || fail "the member's compile failed"
  [ "$(rcli dbsize)" -gt "$keys" ] || fail "the member's compile wrote nothing to Redis"
  [ -n "$(find "$s" -type f)" ] || fail "the member's compile wrote nothing to $s"
  keys=$(rcli dbsize)
  as_user "$outsider" "$P/llvm/bin/clang" -c u.c -o u.o || fail "the outsider's compile failed"
  expect_eq "$keys" "$(rcli dbsize)" "Redis keys after the outsider's compile"
  out outsider-status as_user "$outsider" "$SHIMCTL" status "$P" || fail "status as the outsider"
  expect_contains "$(shown outsider-status)" \
    "(credential in $P/.shimctl/secrets not readable by this user: compiles run without the remote)" \
    "status as the outsider"
  out member-status as_user "$member" "$SHIMCTL" status "$P" || fail "status as the member"
  expect_contains "$(shown member-status)" "(credential in $P/.shimctl/secrets, mode 0640, group $g)" \
    "status as the member"
  expect_files_holding "$pw" "$P/.shimctl/secrets" "$P" "$s" "$TEST_DIR/home-$member" "$TEST_DIR/home-$outsider"
  out rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown rollback)"
  [ ! -e "$P/.shimctl" ] || fail "rollback left $P/.shimctl"
  expect_not_shown "$pw"
}

# stop_prefix_servers: the sccache servers the shims of $P started (SHIMCTL_SCCACHE_SERVER_OF in
# their environment), should rollback not have stopped them.
stop_prefix_servers() {
  local pid
  for pid in $(pgrep -x sccache); do
    { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null |
      grep -qxF "SHIMCTL_SCCACHE_SERVER_OF=$P/.shimctl" && kill "$pid"
  done
}

test_sccache_gets_its_redis_url_from_the_secrets_file() {
  TEST "sccache: the Redis endpoint and password only in the secrets file; compiles succeed (0.4: refused)"
  command -v sccache >/dev/null || { echo "    (no sccache: skipped)"; return 0; }
  trap 'stop_prefix_servers; cleanup' EXIT
  prefix_copy
  local pw sccache_url conf
  pw=$(password India)
  start_auth_redis "$pw"
  sccache_url="redis://:$pw@127.0.0.1:$REDIS_PORT"
  if [ "$(sccache --version)" = "sccache 0.4.0-pre.6" ]; then
    # Debian 12's build has no Redis backend: every compile would fail ("cache type is not enabled").
    out install "$SHIMCTL" install "$P" --compilers clang --no-verify --cache sccache \
      --cache-dir "$TEST_DIR/sccache" --remote "$sccache_url" && fail "install accepted a remote for sccache 0.4"
    expect_eq "shimctl: error: --remote: sccache 0.4.0-pre.6 has no remote storage (Debian's 0.4 build has none): redis://***@127.0.0.1:$REDIS_PORT would fail every compile; use --cache ccache, or an sccache >= 0.5 with --cache-tool PATH" \
      "$(shown install)" "the refusal"
    [ ! -e "$P/.shimctl" ] || fail "a refused install left $P/.shimctl"
    expect_not_shown "$pw"
    return 0
  fi
  out install "$SHIMCTL" install "$P" --compilers clang --no-verify --cache sccache \
    --cache-dir "$TEST_DIR/sccache" --remote "$sccache_url" || fail "install: $(shown install)"
  expect_perm "$P/.shimctl/secrets" 600
  # The chain of two tiers goes where the store's variables go (sccache >= 0.15: every sccache
  # with remote storage this suite runs, 0.17).
  expect_eq "# remote=$sccache_url"$'\n'"SCCACHE_REDIS_ENDPOINT=redis://127.0.0.1:$REDIS_PORT"$'\n'"SCCACHE_REDIS_PASSWORD=$pw"$'\n'"SCCACHE_MULTILEVEL_CHAIN=disk,redis" \
    "$(cat "$P/.shimctl/secrets")" "the secrets file"
  conf=$P/llvm/bin/.shimctl.conf
  ! grep -q '^setenv SCCACHE_MULTILEVEL_CHAIN' "$conf" || fail "the shim config names the chain"
  grep -qxF "secrets $P/.shimctl/secrets" "$conf" || fail "no secrets line in $conf"
  ! grep -q '^setenv SCCACHE_REDIS' "$conf" || fail "the shim config names the remote"
  (cd "$TEST_DIR" && "$P/llvm/bin/clang" -c x.c -o sc.o) || fail "root's compile through sccache"
  (cd "$TEST_DIR" && SHIMCTL_DISABLE=1 "$P/llvm/bin/clang" -c x.c -o ref.o) || fail "reference compile"
  cmp -s "$TEST_DIR/sc.o" "$TEST_DIR/ref.o" || fail "the object differs from the reference"
  [ "$(rcli dbsize)" -gt 0 ] || fail "sccache wrote nothing to Redis"
  make_user
  as_user "$NEW_USER" "$P/llvm/bin/clang" -c u.c -o u.o || fail "the user's compile through sccache"
  expect_files_holding "$pw" "$P/.shimctl/secrets" "$P" "$TEST_DIR/sccache"
  out rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown rollback)"
  [ ! -e "$P/.shimctl" ] || fail "rollback left $P/.shimctl"
  expect_not_shown "$pw"
}
