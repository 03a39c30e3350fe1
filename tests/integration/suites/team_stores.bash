# Team stores on the Debian 12 leg (issue 24): ccache 4.7.5 behind the shim against stores that
# ask for a credential, refuse writes, or are spread over several servers, all through the
# product (`shimctl install PREFIX --remote URL`) and real compiles of the clang-15 ROCm fixture.
#   - Redis with requirepass: redis://PW@ and redis://:PW@ (written as redis://default:PW@,
#     since ccache sends no AUTH for an empty user); an ACL user redis://rw:rwpw@.
#   - read-only: an ACL user without write permission, and --remote-read-only: every compile
#     succeeds, nothing is stored, a populated store still serves hits.
#   - a wrong credential (Redis, WebDAV): compiles succeed, nothing stored, verify exits 0 and
#     warns naming the store redacted.
#   - nginx WebDAV behind auth_basic: http://USER:PW@HOST:PORT/cache.
#   - shards: redis://*|shards=H:P1,H:P2,H:P3, and the issue's redis://H:*|shards=P1,P2,P3
#     (ccache 4.7.5 cannot parse a '*' port: install writes the first form); a shard killed
#     mid-build breaks no compile, the live shards still hit.
#   - refusals (exit 2, one line, nothing changed): ccache with rediss://, https://, s3://;
#     sccache 0.4 (no remote storage at all) with redis://, http://, s3://.
# No credential in any output or in any file but PREFIX/.shimctl/secrets (0600).
# Servers: tests/integration/lib-stores.bash.

# lib.bash sources lib-stores.bash (the store servers); once more here should it not.
declare -F start_redis_store >/dev/null || source "$SRC_DIR/tests/integration/lib-stores.bash"

suite_requires() {
  [ "$(id -u)" -eq 0 ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && command -v ccache >/dev/null &&
    stores_require redis webdav && command -v jq >/dev/null &&
    [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]
}

# ---- outputs and credentials (as suites/secrets.bash) ----------------------------------------




# expect_only_secrets_hold PASSWORD DIR...: under $P, $TMPDIR and the DIRs only $P/.shimctl/secrets holds
# PASSWORD (grep -r, symlinks not followed), and that file is root's, mode 0600.
expect_only_secrets_hold() {
  local pw=$1
  shift
  expect_eq "$P/.shimctl/secrets" \
    "$(grep -rlF -- "$pw" "$P" "$TMPDIR" "$@" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')" \
    "files holding the password"
  expect_perm "$P/.shimctl/secrets" 600
  expect_eq root:root "$(stat -c %U:%G "$P/.shimctl/secrets")" "owner of the secrets file"
}

# ---- the prefix, sources and compiles ---------------------------------------------------------

# fixture: P = a fresh copy of the clang-15 ROCm fixture, N=10 small C++ sources s1..s10.cpp and
# k.hip in $TEST_DIR (the current directory), HOME and TMPDIR (verify's scratch files) there.
fixture() {
  P=$TEST_DIR/rocm
  copy_rocm_prefix "$P"
  export HOME=$TEST_DIR/home TMPDIR=$TEST_DIR/tmp
  mkdir -p "$HOME" "$TMPDIR"
  cd "$TEST_DIR" || fail cd
  local i
  for i in $(seq 10); do
    printf 'int team_%d(int x) { return x * %d + %d; }\n' "$i" "$((i + 2))" "$((i * 7))" > "s$i.cpp"
  done
  cat > k.hip <<'SRC'
#include <hip/hip_runtime.h>
__global__ void team_k(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 5.0f; }
SRC
}

# install_remote NAME URL [FLAGS...]: `shimctl install $P --no-verify --cache-dir cache
# --remote URL FLAGS`, output in out/NAME; the first install wraps clang only (verify then
# compiles C and C++ only: the suite's verify runs stay cheap), again: the new remote.
install_remote() {
  local name=$1 url=$2 first=()
  shift 2
  [ -f "$P/.shimctl/manifest.json" ] || first=(--compilers clang)
  out "$name" "$SHIMCTL" install "$P" "${first[@]}" --no-verify --cache-dir "$TEST_DIR/cache" \
    --remote "$url" "$@" || fail "install --remote ($name): $(shown "$name")"
}

# cxx CACHE SRC: SRC through the shimmed clang++ with the local ccache dir $TEST_DIR/CACHE, object
# CACHE-SRC.o (exit status and output checked: a compile must never fail for the store's sake).
cxx() {
  local o=$1-${2%.*}.o
  (cd "$TEST_DIR" && CCACHE_DIR=$TEST_DIR/$1 "$P/llvm/bin/clang++" -c "$2" -o "$o") \
    > "$TEST_DIR/cxx.out" 2>&1 || fail "compile of $2 with cache $1 failed: $(cat "$TEST_DIR/cxx.out")"
  [ ! -s "$TEST_DIR/cxx.out" ] || fail "compile of $2 with cache $1 printed: $(cat "$TEST_DIR/cxx.out")"
  [ -s "$TEST_DIR/$o" ] || fail "compile of $2 with cache $1 made no object"
}

# hip CACHE: k.hip through the shimmed hipcc (gfx90a) with the local ccache dir CACHE, object
# CACHE-k.o (every compile names the same -o: the shim's HIP CUID follows it).
hip() {
  (cd "$TEST_DIR" && CCACHE_DIR=$TEST_DIR/$1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o k.o &&
    mv k.o "$1-k.o") > "$TEST_DIR/hip.out" 2>&1 || fail "hipcc with cache $1 failed: $(cat "$TEST_DIR/hip.out")"
}

# reference SRC: SRC compiled by the original compiler (SHIMCTL_DISABLE=1), ref-SRC.o.
reference() {
  (cd "$TEST_DIR" && SHIMCTL_DISABLE=1 "$P/llvm/bin/clang++" -c "$1" -o "ref-${1%.*}.o") ||
    fail "reference compile of $1"
}

stat_of() { ccache_stat "$TEST_DIR/$1" "$2"; }

# expect_wrote_nothing CACHE: the compiles with CACHE wrote nothing to a remote.
expect_wrote_nothing() { expect_eq 0 "$(stat_of "$1" remote_storage_write)" "remote writes of the compiles with $1"; }

# expect_verify_warns NAME SHOWN [--json]: `shimctl verify $P` exits 0 and its remote check is a
# warning that names the store as SHOWN (redacted); in the table, or with --json in its JSON.
expect_verify_warns() {
  if [ "${3:-}" = --json ]; then
    out "$1" "$SHIMCTL" verify "$P" --json || fail "verify --json exited non-zero: $(shown "$1")"
    expect_eq "warning" "$(jq -r --arg u "$2" '[.checks[] | select(.subject == "remote" and (.check == $u)) | .result] | join(",")' \
      "$TEST_DIR/out/$1")" "verify --json's remote check for $2"
    return
  fi
  out "$1" "$SHIMCTL" verify "$P" || fail "verify exited non-zero: $(shown "$1")"
  grep -E "^remote +.*warning" "$TEST_DIR/out/$1" | grep -qF -- "remote storage $2 is" ||
    fail "verify's remote row is no warning naming $2: $(grep '^remote' "$TEST_DIR/out/$1")"
}

# ---- the tests --------------------------------------------------------------------------------

test_redis_requirepass_both_password_forms() {
  TEST "requirepass Redis: redis://PW@ and redis://:PW@ (written as default:PW) store, and an empty cache hits"
  trap stores_cleanup EXIT
  fixture
  local pw port shown_url
  pw=$(password Alpha)
  start_redis_store --password "$pw"
  port=$STORE_PORT
  shown_url="redis://***@127.0.0.1:$port"
  # redis://PASSWORD@, hipcc and clang wrapped: install verifies that an empty local cache is
  # served from the store.
  out install "$SHIMCTL" install "$P" --cache-dir "$TEST_DIR/cache" \
    --remote "redis://$pw@127.0.0.1:$port" || fail "install: $(shown install)"
  expect_contains "$(shown install)" "a compile with an empty local cache was served from the remote" \
    "install's verify"
  expect_eq "CCACHE_REMOTE_STORAGE=redis://$pw@127.0.0.1:$port" "$(cat "$P/.shimctl/secrets")" "the secrets file"
  local keys; keys=$(redis_keys "$STORE_PORT" "$STORE_PW")
  cxx a s1.cpp
  expect_eq 2 "$(stat_of a remote_storage_write)" "writes of s1.cpp (a manifest and a result)"
  expect_eq $((keys + 2)) "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after s1.cpp"
  cxx b s1.cpp
  expect_eq 1 "$(stat_of b remote_storage_hit)" "remote hits of an empty local cache"
  expect_same_file a-s1.o b-s1.o
  # One HIP compile through hipcc: stored, and served to an empty local cache byte for byte.
  hip a
  expect_eq 4 "$(stat_of a remote_storage_write)" "writes after hipcc"
  hip b
  expect_eq 2 "$(stat_of b remote_storage_hit)" "remote hits of hipcc with an empty local cache"
  expect_same_file a-k.o b-k.o

  # redis://:PASSWORD@ (redis-cli's and redis-py's form): ccache 4.7.5 sends no AUTH for an
  # empty user, so install writes redis://default:PASSWORD@.
  install_remote colon "redis://:$pw@127.0.0.1:$port"
  expect_eq "CCACHE_REMOTE_STORAGE=redis://default:$pw@127.0.0.1:$port" "$(cat "$P/.shimctl/secrets")" \
    "the secrets file for redis://:PW@"
  ! grep -q 'CCACHE_REMOTE_STORAGE' "$P/llvm/bin/.shimctl.conf" ||
    fail "the shim config names a remote: $(grep REMOTE "$P/llvm/bin/.shimctl.conf")"
  out status-json "$SHIMCTL" status "$P" --json || fail "status --json: $(shown status-json)"
  expect_eq "$shown_url" "$(jq -r .cache.remote "$TEST_DIR/out/status-json")" "status --json's remote"
  expect_eq "$shown_url" "$(jq -r .cache.remote "$P/.shimctl/manifest.json")" "the manifest's remote"
  keys=$(redis_keys "$STORE_PORT" "$STORE_PW")
  cxx c s2.cpp
  expect_eq 0 "$(stat_of c remote_storage_error)" "remote errors with redis://:PW@"
  expect_eq 2 "$(stat_of c remote_storage_write)" "writes of s2.cpp with redis://:PW@"
  expect_eq $((keys + 2)) "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after s2.cpp"
  cxx d s2.cpp
  cxx d s1.cpp
  expect_eq 2 "$(stat_of d remote_storage_hit)" "remote hits with redis://:PW@ (s2 and s1)"
  expect_eq 0 "$(stat_of d cache_miss)" "misses with redis://:PW@"
  expect_same_file c-s2.o d-s2.o
  out status "$SHIMCTL" status "$P" || fail "status: $(shown status)"
  expect_contains "$(shown status)" "remote:      $shown_url (credential in $P/.shimctl/secrets, mode 0600)" "status"
  expect_only_secrets_hold "$pw" "$TEST_DIR/cache" "$TEST_DIR"/[a-d] "$HOME"
  out rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown rollback)"
  expect_not_shown "$pw"
}

test_redis_acl_users_read_write_and_read_only() {
  TEST "ACL users: rw stores and hits; ro (no write) and --remote-read-only: compiles succeed, nothing stored, hits"
  trap stores_cleanup EXIT
  fixture
  local port rw ro
  start_redis_store --acl
  port=$STORE_PORT
  rw="redis://rw:rwpw@127.0.0.1:$port"
  ro="redis://ro:ropw@127.0.0.1:$port"
  install_remote rw "$rw"
  expect_eq "CCACHE_REMOTE_STORAGE=$rw" "$(cat "$P/.shimctl/secrets")" "the secrets file for the rw user"
  cxx a s1.cpp
  cxx a s2.cpp
  expect_eq 4 "$(stat_of a remote_storage_write)" "the rw user's writes"
  expect_eq 4 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after the rw user's compiles"
  cxx b s1.cpp
  expect_eq 1 "$(stat_of b remote_storage_hit)" "the rw user's remote hits from an empty local cache"
  expect_same_file a-s1.o b-s1.o

  # A user the store refuses writes (ACL -@write): the miss compiles, nothing is stored; what
  # the store holds is still served.
  install_remote ro "$ro"
  cxx c s3.cpp
  reference s3.cpp
  expect_same_file ref-s3.o c-s3.o
  expect_wrote_nothing c
  expect_eq 4 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after the ro user's miss"
  cxx c s2.cpp
  expect_eq 1 "$(stat_of c remote_storage_hit)" "the ro user's remote hits"
  expect_same_file a-s2.o c-s2.o
  # verify's own compile is refused its write: a warning naming the store, exit 0.
  expect_verify_warns verify-ro "redis://***@127.0.0.1:$port"
  expect_eq 4 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after verify with the ro user"

  # The rw user with --remote-read-only: no write is even tried (no error), hits still served.
  install_remote read-only "$rw" --remote-read-only
  out status-json "$SHIMCTL" status "$P" --json || fail "status --json: $(shown status-json)"
  expect_eq "redis://***@127.0.0.1:$port true" \
    "$(jq -r '.cache.remote + " " + (.cache.remote_read_only | tostring)' "$TEST_DIR/out/status-json")" \
    "status --json's remote and read-only"
  cxx d s4.cpp
  cxx d s1.cpp
  expect_wrote_nothing d
  expect_eq 0 "$(stat_of d remote_storage_error)" "remote errors of the read-only client"
  expect_eq 1 "$(stat_of d remote_storage_hit)" "the read-only client's remote hits"
  expect_eq 1 "$(stat_of d cache_miss)" "the read-only client's misses (s4.cpp)"
  expect_eq 4 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after the read-only client"
  out verify "$SHIMCTL" verify "$P" || fail "verify (read-only): $(shown verify)"
  expect_contains "$(shown verify)" "redis://***@127.0.0.1:$port" "verify (read-only)"
  expect_eq 4 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after verify of the read-only client"
  # ccache's own spelling, URL|read-only, the same.
  install_remote bar-read-only "$rw|read-only"
  out status-json-bar "$SHIMCTL" status "$P" --json || fail "status --json: $(shown status-json-bar)"
  expect_eq "true" "$(jq -r '.cache.remote_read_only | tostring' "$TEST_DIR/out/status-json-bar")" \
    "status --json's read-only for URL|read-only"
  grep -q "|read-only|read-only" "$P/.shimctl/secrets" && fail "the secrets file says |read-only twice"
  cxx e s5.cpp
  cxx e s2.cpp
  expect_wrote_nothing e
  expect_eq 0 "$(stat_of e remote_storage_error)" "remote errors with |read-only"
  expect_eq 1 "$(stat_of e remote_storage_hit)" "remote hits with |read-only"
  expect_eq 4 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after the |read-only client"
  expect_only_secrets_hold rwpw "$TEST_DIR/cache" "$TEST_DIR"/[a-e] "$HOME"
  # The ro user's password went with the re-install.
  [ -z "$(grep -rlF ropw "$P" "$TEST_DIR/cache" "$TEST_DIR"/[a-e] 2>/dev/null)" ] ||
    fail "ropw is still in: $(grep -rlF ropw "$P" "$TEST_DIR/cache" "$TEST_DIR"/[a-e])"
  expect_not_shown rwpw ropw
}

test_wrong_credential_compiles_and_verify_warns() {
  TEST "a wrong Redis password or user: compiles succeed, nothing stored, verify exits 0 and warns (redacted)"
  trap stores_cleanup EXIT
  fixture
  local pw bad port shown_url
  pw=$(password Bravo)
  bad=$(password Wrong)
  start_redis_store --password "$pw"
  port=$STORE_PORT
  shown_url="redis://***@127.0.0.1:$port"
  reference s1.cpp
  reference s2.cpp
  # install itself verifies: it succeeds and warns.
  out install "$SHIMCTL" install "$P" --compilers clang --cache-dir "$TEST_DIR/cache" \
    --remote "redis://$bad@127.0.0.1:$port" || fail "install with a wrong password: $(shown install)"
  grep -E "^remote +.*warning" "$TEST_DIR/out/install" | grep -qF -- "remote storage $shown_url is" ||
    fail "install's verify does not warn naming $shown_url: $(grep '^remote' "$TEST_DIR/out/install")"
  cxx a s1.cpp
  cxx a s2.cpp
  expect_same_file ref-s1.o a-s1.o
  expect_same_file ref-s2.o a-s2.o
  expect_wrote_nothing a
  [ "$(stat_of a remote_storage_error)" -ge 1 ] || fail "ccache recorded no remote error"
  cxx b s1.cpp
  expect_eq 1 "$(stat_of b cache_miss)" "an empty local cache with the wrong password"
  expect_verify_warns verify "$shown_url"
  expect_eq 0 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis"
  # The other forms of a wrong credential: redis://:BAD@ and redis://USER:BAD@.
  install_remote colon "redis://:$bad@127.0.0.1:$port"
  cxx c s3.cpp
  expect_wrote_nothing c
  [ "$(stat_of c remote_storage_error)" -ge 1 ] || fail "ccache recorded no remote error for redis://:BAD@"
  install_remote user "redis://rw:$bad@127.0.0.1:$port"
  cxx d s4.cpp
  expect_wrote_nothing d
  expect_verify_warns verify-user "$shown_url" --json
  expect_eq 0 "$(redis_keys "$STORE_PORT" "$STORE_PW")" "keys in Redis after every wrong credential"
  out status "$SHIMCTL" status "$P" || fail "status: $(shown status)"
  expect_only_secrets_hold "$bad" "$TEST_DIR/cache" "$TEST_DIR"/[a-d] "$HOME"
  expect_not_shown "$bad" "$pw"
}

test_webdav_behind_auth_basic() {
  TEST "nginx WebDAV behind auth_basic: http://U:PW@ stores and an empty cache hits; a wrong password: compiles succeed, verify warns"
  trap stores_cleanup EXIT
  fixture
  local pw bad port dir url
  pw=$(password Charlie)
  bad=$(password Wrong)
  start_webdav --auth "team:$pw"
  port=${WEBDAV_BASE##*:}
  dir=$WEBDAV_DIR
  url="http://team:$pw@127.0.0.1:$port/cache"
  install_remote webdav "$url"
  expect_eq "CCACHE_REMOTE_STORAGE=$url" "$(cat "$P/.shimctl/secrets")" "the secrets file"
  expect_eq 0 "$(webdav_files "$WEBDAV_DIR/cache")" "files in the store before any compile"
  cxx a s1.cpp
  cxx a s2.cpp
  expect_eq 4 "$(stat_of a remote_storage_write)" "writes to the WebDAV store"
  expect_eq 4 "$(webdav_files "$WEBDAV_DIR/cache")" "files in the store (a manifest and a result per compile)"
  cxx b s1.cpp
  cxx b s2.cpp
  expect_eq 2 "$(stat_of b remote_storage_hit)" "remote hits of an empty local cache"
  expect_eq 0 "$(stat_of b cache_miss)" "misses of an empty local cache"
  expect_same_file a-s1.o b-s1.o
  expect_same_file a-s2.o b-s2.o
  out verify "$SHIMCTL" verify "$P" || fail "verify: $(shown verify)"
  expect_contains "$(shown verify)" "a compile with an empty local cache was served from the remote" "verify"
  expect_contains "$(shown verify)" "http://***@127.0.0.1:$port/cache" "verify"
  local files; files=$(webdav_files "$WEBDAV_DIR/cache")

  # A wrong password: GET 401 is a miss, PUT 401 an error; never a failed compile.
  install_remote wrong "http://team:$bad@127.0.0.1:$port/cache"
  cxx c s3.cpp
  reference s3.cpp
  expect_same_file ref-s3.o c-s3.o
  cxx c s1.cpp
  expect_wrote_nothing c
  expect_eq 0 "$(stat_of c remote_storage_hit)" "remote hits with a wrong password"
  expect_eq "$files" "$(webdav_files "$WEBDAV_DIR/cache")" "files in the store after compiles with a wrong password"
  expect_verify_warns verify-wrong "http://***@127.0.0.1:$port/cache"
  expect_eq "$files" "$(webdav_files "$WEBDAV_DIR/cache")" "files in the store after verify with a wrong password"
  expect_only_secrets_hold "$bad" "$TEST_DIR/cache" "$TEST_DIR"/[a-c] "$HOME" "$dir"
  [ -z "$(grep -rlF -- "$pw" "$P" "$TEST_DIR/cache" "$dir" 2>/dev/null)" ] || fail "the old password is still in a file"
  expect_not_shown "$pw" "$bad"
}

test_redis_shards_spread_and_survive_a_killed_shard() {
  TEST "three Redis shards: both spellings, entries on every shard, an empty cache hits all; a shard killed mid-build"
  trap stores_cleanup EXIT
  fixture
  local p1 p2 p3 i n hits
  # result_shard TU: the index (0-2) of the shard holding TU's result entry (ccache:KEY, KEY
  # from the log of its compile with cache a).
  result_shard() {
    local key port j=0
    key=$(sed -n 's/.*Result key: //p' "$TEST_DIR/log-$1" | head -1)
    [ -n "$key" ] || { fail "no result key in the log of $1"; return 1; }
    for port in "${SHARD_PORTS[@]}"; do
      [ "$(redis-cli -h 127.0.0.1 -p "$port" exists "ccache:$key" | tr -d '\r')" = 1 ] && { echo "$j"; return 0; }
      j=$((j + 1))
    done
    fail "no shard holds the result ccache:$key of $1"
  }
  start_redis_shards 3
  p1=${SHARD_PORTS[0]}
  p2=${SHARD_PORTS[1]}
  p3=${SHARD_PORTS[2]}
  local portable="redis://*|shards=127.0.0.1:$p1,127.0.0.1:$p2,127.0.0.1:$p3"
  install_remote shards "$portable"
  grep -qxF "setenv CCACHE_REMOTE_STORAGE=$portable" "$P/llvm/bin/.shimctl.conf" ||
    fail "the shim config's remote: $(grep REMOTE "$P/llvm/bin/.shimctl.conf")"
  # Each compile's log names its result key; the shard that holds it is asked below.
  for i in $(seq 10); do CCACHE_LOGFILE=$TEST_DIR/log-s$i cxx a "s$i.cpp"; done
  expect_eq 20 "$(stat_of a remote_storage_write)" "writes of 10 compiles"
  local spread; spread="$(redis_keys "$p1") $(redis_keys "$p2") $(redis_keys "$p3")"
  for n in $spread; do [ "$n" -gt 0 ] || fail "a shard holds no entry (keys per shard: $spread)"; done
  expect_eq 20 "$(($(echo "$spread" | tr ' ' +)))" "keys over the shards ($spread)"
  echo "    (keys per shard after 10 compiles: $spread)"
  for i in $(seq 10); do cxx b "s$i.cpp"; done
  expect_eq 10 "$(stat_of b remote_storage_hit)" "remote hits of an empty local cache"
  for i in $(seq 10); do expect_same_file "a-s$i.o" "b-s$i.o"; done

  # The issue's spelling: a '*' port, the shards as ports. ccache 4.7.5 fails every compile on
  # it ("Port '*' ... is invalid"), so install writes the portable form.
  install_remote star-port "redis://127.0.0.1:*|shards=$p1,$p2,$p3"
  grep -qxF "setenv CCACHE_REMOTE_STORAGE=$portable" "$P/llvm/bin/.shimctl.conf" ||
    fail "redis://127.0.0.1:*|shards=... is not rewritten for ccache 4.7.5: $(grep REMOTE "$P/llvm/bin/.shimctl.conf")"
  for i in 1 2 3; do cxx c "s$i.cpp"; done
  expect_eq 3 "$(stat_of c remote_storage_hit)" "remote hits with the rewritten form"

  # Mid-build: the first three compiles hit, then a shard dies (SIGKILL); the other seven still
  # compile, and those whose result is on a live shard hit (a lost manifest only costs the
  # direct mode: the preprocessor finds the same result key). The shard to kill holds the
  # result of one of the seven at least, and leaves one of them whole (shards are picked by
  # hashing with the port in the name, so which shard that is changes from run to run).
  local dead="" k shards_of
  shards_of=$(for i in $(seq 4 10); do result_shard "s$i"; done | tr '\n' ' ')
  for k in 0 1 2; do
    n=$(echo "$shards_of" | tr ' ' '\n' | grep -cx "$k")
    [ "$n" -gt 0 ] && [ "$n" -lt 7 ] && { dead=$k; break; }
  done
  # All seven results on one shard (p = 0.14 %): that one dies, no live-shard hit after it.
  [ -n "$dead" ] || { dead=${shards_of%% *}; n=7; }
  local expected=$((7 - n))
  kill_shard "$dead"
  for i in $(seq 4 10); do cxx c "s$i.cpp"; done
  for i in $(seq 4 10); do expect_same_file "a-s$i.o" "c-s$i.o"; done
  hits=$(stat_of c remote_storage_hit)
  expect_eq $((3 + expected)) "$hits" "remote hits: 3 before the kill, and the seven whose result is on a live shard"
  expect_eq "$n" "$(stat_of c cache_miss)" "misses: the compiles whose result was on the dead shard"
  [ "$(stat_of c remote_storage_error)" -ge "$n" ] || fail "fewer remote errors than results on the dead shard"
  echo "    (after killing shard $dead: $expected of 7 compiles hit from the live shards, $n missed)"
  out verify "$SHIMCTL" verify "$P" || fail "verify with a dead shard: $(shown verify)"
}

# expect_refused NAME -- INSTALL-ARGS...: `shimctl install $P INSTALL-ARGS` exits 2 with one
# line on stderr starting "shimctl: error: --remote:", nothing on stdout; $P's listing is
# ./before's, no .shimctl and no cache dir appeared. The line is in out/NAME.
expect_refused() {
  local name=$1 rc=0
  shift 2
  "$SHIMCTL" install "$P" --cache-dir "$TEST_DIR/cache" "$@" > "$TEST_DIR/refused.out" \
    2> "$TEST_DIR/out/$name" || rc=$?
  expect_eq 2 "$rc" "exit code of install $*"
  expect_eq 1 "$(wc -l < "$TEST_DIR/out/$name")" "lines on stderr of install $* ($(shown "$name"))"
  case $(shown "$name") in "shimctl: error: --remote:"*) ;;
    *) fail "the refusal of install $* does not start 'shimctl: error: --remote:': $(shown "$name")" ;; esac
  expect_eq "" "$(cat "$TEST_DIR/refused.out")" "stdout of install $*"
  expect_same_tree "$TEST_DIR/before" "$P"
  [ ! -e "$P/.shimctl" ] || fail "install $* left $P/.shimctl"
  [ ! -e "$TEST_DIR/cache" ] || fail "install $* made the cache dir"
}

test_ccache_refuses_tls_and_s3() {
  TEST "ccache 4.7.5 with rediss://, https://, s3://: exit 2, one line naming --cache sccache, nothing changed"
  fixture
  mkdir -p "$TEST_DIR/out"
  tree_listing "$P" > "$TEST_DIR/before"
  local pw; pw=$(password Delta)
  local url name
  for url in "rediss://:$pw@127.0.0.1:9" "https://team:$pw@127.0.0.1:9/cache" \
    "s3://bucket/p|endpoint=http://127.0.0.1:9"; do
    name=${url%%:*}
    expect_refused "$name" -- --remote "$url"
    expect_contains "$(shown "$name")" "--cache sccache" "the refusal of $name"
  done
  expect_refused tls-ro -- --remote "rediss://:$pw@127.0.0.1:9" --remote-read-only
  expect_not_shown "$pw"
}

test_sccache_0_4_refuses_every_remote() {
  TEST "sccache 0.4 (no remote storage) with redis://, http://, s3://: exit 2, one line, nothing changed"
  command -v sccache >/dev/null || { echo "    (no sccache: skipped)"; return 0; }
  case $(sccache --version) in
    "sccache 0.4."*) ;;
    *) echo "    ($(sccache --version) is not 0.4: skipped)"; return 0 ;;
  esac
  fixture
  mkdir -p "$TEST_DIR/out"
  tree_listing "$P" > "$TEST_DIR/before"
  local pw; pw=$(password Echo)
  local url name
  for url in "redis://:$pw@127.0.0.1:9" "redis://127.0.0.1:9" "http://team:$pw@127.0.0.1:9/cache" \
    "s3://bucket/p|endpoint=http://127.0.0.1:9|region=us-east-1"; do
    name=sccache-${url%%:*}-$RANDOM
    expect_refused "$name" -- --cache sccache --remote "$url"
    expect_contains "$(shown "$name")" "has no remote storage" "the refusal of $url"
    expect_contains "$(shown "$name")" "--cache ccache" "what the refusal of $url names instead"
  done
  expect_not_shown "$pw"
}
