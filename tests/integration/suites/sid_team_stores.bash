# Team stores on the sid stack (issue 24): ccache 4.14.2 and sccache 0.17 behind the shim, with
# the stores a team runs, started by each test on 127.0.0.1 (tests/integration/lib-stores.bash):
# Redis with requirepass and ACL users (a read-write one, a read-only one), nginx WebDAV behind
# auth_basic, TLS (rediss://, https://) with a CA made by openssl and given as |ca=, S3 (s3rver),
# ccache's own shards (3 redis-servers) and sccache's Redis Cluster (3 masters). Everything goes
# through the product: `shimctl install $P --cache ... --remote URL` (issue 24's --remote forms),
# then compiles through $P/bin/hipcc and $P/lib/llvm/bin/clang++.
#
# "Machine X" is the one prefix with an empty local cache of its own ($TEST_DIR/cache-X or
# $TEST_DIR/sc-X, and for sccache a server of its own on a port of its own): only the store is
# shared, so a hit on a new machine can only come from the store. After every re-install a new
# machine is used (a running sccache server keeps the store it started with).
# Every credential is random; no output and no file but PREFIX/.shimctl/secrets (0600) may hold it.
# /opt and /etc/alternatives are private to the suite (private_mounts, private_opt_rocm7); each
# test installs into a cp -a copy of the pristine /opt/rocm-7.0.2.

private_mounts
SUITE_PRIVATE_NS=${SHIMCTL_TEST_PRIVATE_NS:-}
# How long a compile may take with a Redis Cluster master dead (TEST scrubs SHIMCTL_*: read here).
CLUSTER_LIMIT=${SHIMCTL_TEST_CLUSTER_LIMIT:-30}

suite_requires() {
  [ "$(id -u)" -eq 0 ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && command -v python3 >/dev/null &&
    command -v ccache >/dev/null && ccache --version | head -1 | grep -qE ' 4\.(1[4-9]|[2-9][0-9])' &&
    command -v sccache >/dev/null && sccache --version | grep -qE ' 0\.(1[7-9]|[2-9][0-9])' &&
    [ -x /usr/lib/llvm-21/bin/clang ] && file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF &&
    stores_require redis tls cluster webdav
}

# has_s3: s3rver is there (the S3 test says so and passes without it: scripts/setup installs it,
# scripts/test-sid stages it).
has_s3() { stores_require s3 2>/dev/null; }


# fixture: P = a copy of the pristine /opt/rocm-7.0.2; sources x.cpp y.cpp z.cpp w.cpp v.cpp, k.hip
# (a HIP miss costs seconds: the suite has three); out/ for every output; the cleanup trap (the
# sccache servers of this test, the stores).
fixture() {
  trap cleanup EXIT
  SHIMCTL_TEST_PRIVATE_NS=$SUITE_PRIVATE_NS private_opt_rocm7 || exit 1
  P=$TEST_DIR/rocm
  cp -a "$ROCM7" "$P" || fail "cannot copy $ROCM7"
  local s
  for s in x y z w v; do
    printf '#include <vector>\nint team_%s(int n) { std::vector<int> v(n, 3); return (int)v.size() * %d; }\n' \
      "$s" "$(printf '%d' "'$s")" > "$TEST_DIR/$s.cpp"
  done
  printf '#include <hip/hip_runtime.h>\n__global__ void team(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) + 1.0f; }\n' \
    > "$TEST_DIR/k.hip"
  mkdir -p "$TEST_DIR/out"
  export HOME=$TEST_DIR/home
  mkdir -p "$HOME"
}

# cleanup: the sccache servers this test's compiles started (their environment names $TEST_DIR),
# then the stores.
cleanup() {
  local pid
  for pid in $(pgrep -x sccache); do
    { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -q "^SCCACHE_DIR=$TEST_DIR/" &&
      kill "$pid" 2>/dev/null
  done
  stores_cleanup
}


# install TOOL URL [--compilers C] [FLAGS...]: shimctl install $P --cache TOOL --remote URL
# --no-verify FLAGS (output in out/install-N; another tool than the installed one: rollback
# first; --compilers only when not installed). A credential
# (in URL, or AWS_ACCESS_KEY_ID in the environment) lands in the secrets file, 0600; none, none.
INSTALLS=0
install() {
  local tool=$1 url=$2 kind
  shift 2
  INSTALLS=$((INSTALLS + 1))
  kind=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["cache"]["kind"])' \
    "$P/.shimctl/manifest.json" 2>/dev/null)
  if [ -n "$kind" ] && [ "$kind" != "$tool" ]; then
    out "rollback-$INSTALLS" "$SHIMCTL" rollback "$P" || fail "rollback: $(shown "rollback-$INSTALLS")"
  elif [ -n "$kind" ] && [ "${1:-}" = --compilers ]; then
    shift 2 # installed: the same compilers (install refuses --compilers on an installed prefix)
  fi
  out "install-$INSTALLS" "$SHIMCTL" install "$P" --cache "$tool" --cache-dir "$TEST_DIR/cache-install" \
    --remote "$url" --no-verify "$@" || fail "install --cache $tool --remote (redacted) $*:"$'\n'"$(shown "install-$INSTALLS")"
  case $url in
    *://*@*) expect_perm "$P/.shimctl/secrets" 600 ;;
    s3://*) [ -z "${AWS_ACCESS_KEY_ID:-}" ] || expect_perm "$P/.shimctl/secrets" 600 ;;
    *) [ ! -e "$P/.shimctl/secrets" ] || fail "a secrets file for a URL without a credential" ;;
  esac
}

# machine_env X: the environment of machine X: its own empty local cache and, for sccache, its
# own server port (kept in port-X).
machine_env() {
  local x=$1
  [ -f "$TEST_DIR/port-$x" ] || free_port > "$TEST_DIR/port-$x"
  echo "CCACHE_DIR=$TEST_DIR/cache-$x SCCACHE_DIR=$TEST_DIR/sc-$x SCCACHE_SERVER_PORT=$(cat "$TEST_DIR/port-$x")"
}

# cc X SRC [COMPILER]: machine X compiles $TEST_DIR/SRC (x.cpp, k.hip...) in a new directory
# $TEST_DIR/X-SRC to o.o, through COMPILER (default: hipcc for .hip, else the prefix's clang++);
# output in out/cc-X-SRC. Fails the test if the compile fails or makes no object. Sets CC_SECONDS.
cc() {
  local x=$1 src=$2 dir=$TEST_DIR/$1-${2%.*} cc=${3:-} t0 lang=()
  case $src in
    *.hip) cc=${cc:-$P/bin/hipcc}; lang=(-x hip --offload-arch=gfx90a -cuid=shimctl-team) ;;
    *) cc=${cc:-$P/lib/llvm/bin/clang++}; lang=(-O1) ;;
  esac
  mkdir "$dir" || fail "$dir exists"
  t0=$(date +%s%N)
  (cd "$dir" && env $(machine_env "$x") "$cc" "${lang[@]}" -c "$TEST_DIR/$src" -o o.o) \
    > "$TEST_DIR/out/cc-$x-${src%.*}" 2>&1 || fail "machine $x: $cc $src failed:"$'\n'"$(shown "cc-$x-${src%.*}")"
  CC_SECONDS=$(elapsed_since "$t0")
  [ -s "$dir/o.o" ] || fail "machine $x: no object $dir/o.o"
}

# ref SRC: the object SRC compiles to without any cache ($TEST_DIR/ref-SRC/o.o).
ref() { SHIMCTL_DISABLE=1 cc ref "$1"; }

# same A-SRC B-SRC: the two objects are byte-identical.
same() { cmp -s "$TEST_DIR/$1/o.o" "$TEST_DIR/$2/o.o" || fail "$1/o.o and $2/o.o differ"; }

# cstat X COUNTER: ccache's COUNTER for machine X.
cstat() { ccache_stat "$TEST_DIR/cache-$1" "$2"; }

# sstat X 'EXPR over t (the stats)': of machine X's sccache server (sccache --show-stats --stats-format json).
sstat() {
  SCCACHE_SERVER_PORT=$(cat "$TEST_DIR/port-$1") sccache --show-stats --stats-format json 2> /dev/null |
    python3 -c 'import json, sys; s = json.load(sys.stdin); t = s["stats"]; print(eval(sys.argv[1]))' "$2" ||
    fail "sccache --show-stats of machine $1 failed"
}
# scounts X: "hits=H misses=M" of machine X's server (over all languages).
scounts() { sstat "$1" '"hits=%d misses=%d" % (sum(t["cache_hits"]["counts"].values()), sum(t["cache_misses"]["counts"].values()))'; }

# verify_warns NAME SHOWN: `shimctl verify $P` exits 0 (a store problem is a warning: compiles
# still work) and one of its lines names the store as SHOWN (redacted) with a warning.
verify_warns() {
  local rc=0 t0
  t0=$(date +%s%N)
  out "verify-$1" "$SHIMCTL" verify "$P" || rc=$?
  echo "    (verify with $1: $(elapsed_since "$t0") s, exit $rc)"
  expect_eq 0 "$rc" "exit status of verify with $1 (output: $(shown "verify-$1" | grep -i remote | head -3))"
  grep -F -- "$2" "$TEST_DIR/out/verify-$1" | grep -qiE 'warn|unreachable|refused' ||
    fail "verify with $1 names no warning about $2:"$'\n'"$(shown "verify-$1")"
}

# expect_secret_kept PW...: each PW is in no output (out/*) and in no file below the prefix, the
# local caches and the compile directories but PREFIX/.shimctl/secrets (which holds only the
# last install's credential).
expect_secret_kept() {
  local pw hits
  for pw in "$@"; do
    hits=$(grep -lF -- "$pw" "$TEST_DIR"/out/* | xargs -r -n1 basename | tr '\n' ' ')
    [ -z "$hits" ] || fail "a credential is in the output of: $hits"
    expect_eq "" \
      "$(grep -rlF -- "$pw" "$P" "$TEST_DIR"/cache-* "$TEST_DIR"/sc-* "$TEST_DIR"/*-*/ 2>/dev/null |
        grep -vx -e "$P/.shimctl/secrets" | sort -u | tr '\n' ' ' | sed 's/ $//')" \
      "files other than the secrets file holding a credential"
  done
}

# ---- Redis with a password and ACL users ----------------------------------------------------

test_redis_credentials_ccache() {
  TEST "ccache 4.14 + Redis requirepass and ACL users: redis://PW@, :PW@ (as default:PW@), rw fills and serves, ro+read-only hits and stores nothing, ro alone refused"
  fixture
  local pw keys
  pw=$(password Redis)
  start_redis_store --password "$pw" --acl
  local port=$STORE_PORT hostport=127.0.0.1:$STORE_PORT
  # ccache's own form: redis://PASSWORD@HOST.
  install ccache "redis://$pw@$hostport"
  out status "$SHIMCTL" status "$P" || fail "status: $(shown status)"
  expect_contains "$(shown status)" "redis://***@$hostport" "status names the store redacted"
  cc a x.cpp
  expect_eq 2 "$(cstat a remote_storage_write)" "machine a's remote writes"
  expect_eq 2 "$(redis_keys "$port" "$pw")" "keys after machine a"
  cc b x.cpp
  expect_eq 1 "$(cstat b remote_storage_hit)" "machine b's remote hits (requirepass)"
  same a-x b-x
  # redis://:PASSWORD@ (redis-cli's form) becomes redis://default:PASSWORD@ for ccache.
  install ccache "redis://:$pw@$hostport"
  grep -qxF "CCACHE_REMOTE_STORAGE=redis://default:$pw@$hostport" "$P/.shimctl/secrets" ||
    fail "redis://:PW@ is not redis://default:PW@ in the secrets file"
  cc c y.cpp
  expect_eq 2 "$(cstat c remote_storage_write)" "machine c's writes (redis://:PW@)"
  # An ACL user with every command.
  install ccache "redis://rw:rwpw@$hostport"
  cc d y.cpp
  expect_eq 1 "$(cstat d remote_storage_hit)" "machine d's remote hits (ACL user rw)"
  cc d z.cpp
  expect_eq 2 "$(cstat d remote_storage_write)" "machine d's writes (ACL user rw)"
  keys=$(redis_keys "$port" "$pw")
  expect_eq 6 "$keys" "keys after x, y and z"
  # The read-only ACL user (+@all -@write) for pull requests, with --remote-read-only: hits, no write.
  install ccache "redis://ro:ropw@$hostport" --remote-read-only
  cc e x.cpp
  cc e w.cpp
  expect_eq 1 "$(cstat e remote_storage_hit)" "read-only machine e's remote hits"
  expect_eq 1 "$(cstat e cache_miss)" "read-only machine e's misses (w.cpp)"
  expect_eq "0 0" "$(cstat e remote_storage_write) $(cstat e remote_storage_error)" "read-only machine e's writes, errors"
  # The same user without --remote-read-only: the store refuses the write, the compile succeeds.
  install ccache "redis://ro:ropw@$hostport"
  cc f w.cpp
  ref w.cpp
  same f-w ref-w
  [ "$(cstat f remote_storage_error)" -ge 1 ] || fail "the refused write counted no remote_storage_error"
  expect_eq "$keys" "$(redis_keys "$port" "$pw")" "keys after the read-only user's compiles"
  expect_secret_kept "$pw"
}

test_redis_credentials_sccache() {
  TEST "sccache 0.17 + Redis requirepass and ACL users: PW@ (hipcc) and rw fill and serve, ro+read-only hits and stores nothing"
  fixture
  local pw keys
  pw=$(password Redis)
  start_redis_store --password "$pw" --acl
  local port=$STORE_PORT hostport=127.0.0.1:$STORE_PORT
  install sccache "redis://$pw@$hostport"
  ! grep -qF -- "$pw" "$P/bin/.shimctl.conf" || fail "the shim config holds the password"
  cc a k.hip
  expect_eq "hits=0 misses=1" "$(scounts a)" "machine a (hipcc, requirepass)"
  keys=$(redis_keys "$port" "$pw")
  [ "$keys" -ge 2 ] || fail "machine a stored nothing (keys: $keys)"
  cc b k.hip
  expect_eq "hits=1 misses=0" "$(scounts b)" "machine b (empty local cache)"
  same a-k b-k
  # The ACL user rw: its own entries and the requirepass ones.
  install sccache "redis://rw:rwpw@$hostport"
  cc c x.cpp
  cc c k.hip
  expect_eq "hits=1 misses=1" "$(scounts c)" "machine c (ACL user rw)"
  keys=$(redis_keys "$port" "$pw")
  # The read-only user with --remote-read-only: hits, and its miss stores nothing.
  install sccache "redis://ro:ropw@$hostport" --remote-read-only
  cc d x.cpp
  cc d y.cpp
  expect_eq "hits=1 misses=1" "$(scounts d)" "read-only machine d"
  expect_eq "$keys" "$(redis_keys "$port" "$pw")" "keys after the read-only machine"
  ref y.cpp
  same d-y ref-y
  expect_secret_kept "$pw"
}

# A wrong credential, for both tools: every compile succeeds, verify warns naming the store
# (redacted), nothing is stored. Only clang is wrapped (--compilers clang): verify compiles
# through every wrapped compiler, and with sccache each start of its server waits 10 s for Redis.
test_wrong_password_both_tools() {
  TEST "a wrong Redis password (ccache 4.14, sccache 0.17): compiles succeed with the right object, verify warns naming the store, nothing stored"
  fixture
  local pw hostport
  pw=$(password Redis)
  start_redis_store --password "$pw" --acl
  hostport=127.0.0.1:$STORE_PORT
  ref x.cpp
  ref y.cpp
  install ccache "redis://rw:wrong$pw@$hostport" --compilers clang
  cc a x.cpp
  same a-x ref-x
  expect_eq 0 "$(cstat a remote_storage_hit)" "ccache's hits with a wrong password"
  [ "$(cstat a remote_storage_error)" -ge 1 ] || fail "ccache counted no remote_storage_error"
  verify_warns ccache-wrong-password "redis://***@$hostport"
  expect_eq 0 "$(redis_keys "$STORE_PORT" "$pw")" "keys after ccache's compiles with a wrong password"

  install sccache "redis://rw:wrong$pw@$hostport" --compilers clang
  cc b x.cpp
  echo "    (sccache, a wrong Redis password: the first compile $CC_SECONDS s)"
  same b-x ref-x
  cc b y.cpp
  echo "    (the next compile: $CC_SECONDS s)"
  same b-y ref-y
  verify_warns sccache-wrong-password "redis://***@$hostport"
  expect_eq 0 "$(redis_keys "$STORE_PORT" "$pw")" "keys after sccache's compiles with a wrong password"
  expect_secret_kept "$pw" "wrong$pw"
}

# ---- WebDAV behind auth_basic ----------------------------------------------------------------

test_webdav_basic_auth_both_tools() {
  TEST "nginx WebDAV + auth_basic: ccache http://user:pw@ and sccache's WebDAV user fill and serve; a read-only user stores nothing"
  fixture
  local pw host
  pw=$(password Dav)
  start_webdav --auth "bob:$pw" --ro-auth rd:rdpw
  host=${WEBDAV_BASE#http://}
  install ccache "http://bob:$pw@$host/cache"
  cc a k.hip
  expect_eq 2 "$(cstat a remote_storage_write)" "ccache machine a's writes (hipcc)"
  expect_eq 2 "$(webdav_files "$WEBDAV_DIR/cache")" "WebDAV files after ccache's machine a"
  cc b k.hip
  expect_eq 1 "$(cstat b remote_storage_hit)" "ccache machine b's remote hits (hipcc)"
  same a-k b-k
  # The read-only user (GET/HEAD/PROPFIND only): its PUT is refused, the compile succeeds.
  install ccache "http://rd:rdpw@$host/cache"
  cc c y.cpp
  [ "$(cstat c remote_storage_error)" -ge 1 ] || fail "the refused PUT counted no remote_storage_error"
  expect_eq 2 "$(webdav_files "$WEBDAV_DIR/cache")" "WebDAV files after the read-only user"

  install sccache "http://bob:$pw@$host/sc"
  cc d x.cpp
  expect_eq "hits=0 misses=1" "$(scounts d)" "sccache machine d"
  expect_eq 1 "$(webdav_files "$WEBDAV_DIR/sc")" "WebDAV files after sccache's machine d"
  cc e x.cpp
  expect_eq "hits=1 misses=0" "$(scounts e)" "sccache machine e (empty local cache)"
  same d-x e-x
  install sccache "http://rd:rdpw@$host/sc" --remote-read-only
  cc f x.cpp
  cc f z.cpp
  expect_eq "hits=1 misses=1" "$(scounts f)" "sccache read-only machine f"
  expect_eq 1 "$(webdav_files "$WEBDAV_DIR/sc")" "WebDAV files after the read-only machine"
  grep -q '"PROPFIND /sc/' "$WEBDAV_LOG" || fail "sccache sent no PROPFIND"
  expect_secret_kept "$pw"
}

# ---- TLS (sccache) -----------------------------------------------------------------------------

test_sccache_rediss_with_ca_and_a_bad_certificate() {
  TEST "sccache 0.17 rediss:// with the CA as |ca=: fills and serves; a bad certificate: compiles succeed, verify says so"
  fixture
  local pw good bad
  pw=$(password Tls)
  start_redis_store --tls --password "$pw"
  good=$STORE_PORT
  install sccache "rediss://$pw@127.0.0.1:$good|ca=$STORE_CA" --compilers clang
  cc a x.cpp
  expect_eq "hits=0 misses=1" "$(scounts a)" "machine a"
  [ "$(redis_keys "$good" "$pw" --tls)" -ge 2 ] || fail "nothing stored over TLS"
  cc b x.cpp
  expect_eq "hits=1 misses=0" "$(scounts b)" "machine b (empty local cache, over TLS)"
  same a-x b-x
  # The same CA, a server whose certificate it did not sign.
  start_redis_store --tls --bad-cert
  bad=$STORE_PORT
  install sccache "rediss://127.0.0.1:$bad|ca=$STORE_CA" --compilers clang
  cc c y.cpp
  echo "    (a compile against a bad certificate: $CC_SECONDS s)"
  ref y.cpp
  same c-y ref-y
  verify_warns bad-certificate "rediss://127.0.0.1:$bad"
  expect_eq 0 "$(redis_keys "$bad" --tls)" "keys behind the bad certificate"
  expect_secret_kept "$pw"
}

test_sccache_https_webdav() {
  TEST "sccache 0.17 https:// WebDAV with the CA as |ca=: fills and serves; a bad certificate: compiles succeed, verify says so"
  fixture
  local pw
  pw=$(password Https)
  start_webdav --tls --auth "bob:$pw"
  install sccache "https://bob:$pw@${WEBDAV_BASE#https://}/sc|ca=$STORE_CA" --compilers clang
  cc a x.cpp
  expect_eq "hits=0 misses=1" "$(scounts a)" "machine a"
  expect_eq 1 "$(webdav_files "$WEBDAV_DIR/sc")" "files behind https"
  cc b x.cpp
  expect_eq "hits=1 misses=0" "$(scounts b)" "machine b (empty local cache, over https)"
  same a-x b-x
  start_webdav --tls --bad-cert
  install sccache "$WEBDAV_BASE/sc|ca=$STORE_CA" --compilers clang
  cc c y.cpp
  echo "    (a compile against a bad certificate: $CC_SECONDS s)"
  ref y.cpp
  same c-y ref-y
  verify_warns bad-certificate "$WEBDAV_BASE/sc"
  expect_eq 0 "$(webdav_files "$WEBDAV_DIR")" "files behind the bad certificate"
  expect_secret_kept "$pw"
}

# ---- S3 (sccache) ------------------------------------------------------------------------------

test_sccache_s3() {
  TEST "sccache 0.17 + S3 (s3rver): entries under PREFIX, another directory with an empty cache served the same bytes, read-only, wrong key, dead endpoint"
  has_s3 || { echo "    (no s3rver: $(stores_require s3 2>&1); skipped)"; return 0; }
  fixture
  local secret url n
  secret=$(password S3)
  start_s3 shimcache
  url="s3://shimcache/team1|endpoint=$S3_ENDPOINT|region=us-east-1"
  # s3rver checks the key id (S3RVER), never the secret: any secret works, the secrets file keeps it.
  AWS_ACCESS_KEY_ID=$S3_KEY_ID AWS_SECRET_ACCESS_KEY=$secret install sccache "$url"
  grep -qxF "AWS_SECRET_ACCESS_KEY=$secret" "$P/.shimctl/secrets" || fail "the secret key is not in the secrets file"
  cc a k.hip
  expect_eq "hits=0 misses=1" "$(scounts a)" "machine a"
  n=$(s3_objects shimcache team1)
  expect_eq 1 "$n" "objects under team1/"
  expect_eq "$n" "$(s3_objects shimcache)" "objects in the whole bucket (all under team1/)"
  # Two tiers (issue 35): the local disk in front of S3; the chain goes with the store's variables.
  expect_eq "Multi-level (2 levels)" "$(sstat a 's["cache_location"]')" "machine a's cache"
  grep -qx "SCCACHE_MULTILEVEL_CHAIN=disk,s3" "$P/.shimctl/secrets" || fail "no chain in the secrets file"
  # Another directory, an empty local cache: served from S3, the same bytes.
  cc b k.hip
  expect_eq "hits=1 misses=0" "$(scounts b)" "machine b (empty local cache)"
  same a-k b-k
  # Read-only (pull requests): hits, stores nothing.
  AWS_ACCESS_KEY_ID=$S3_KEY_ID AWS_SECRET_ACCESS_KEY=$secret install sccache "$url" --remote-read-only
  cc c k.hip
  cc c y.cpp
  expect_eq "hits=1 misses=1" "$(scounts c)" "read-only machine c"
  expect_eq 1 "$(s3_objects shimcache)" "objects after the read-only machine"
  # A key id the server does not know: 403; compiles succeed (verify's warning: the Redis test).
  AWS_ACCESS_KEY_ID=NOT$S3_KEY_ID AWS_SECRET_ACCESS_KEY=$secret install sccache "$url"
  cc d y.cpp
  ref y.cpp
  same d-y ref-y
  expect_eq 1 "$(s3_objects shimcache)" "objects after the wrong key"
  # The endpoint dead: compiles succeed.
  AWS_ACCESS_KEY_ID=$S3_KEY_ID AWS_SECRET_ACCESS_KEY=$secret install sccache "$url"
  stop_store "$S3_PIDFILE"
  SHIMCTL_SHIM_TRACE=1 cc e y.cpp
  echo "    (a compile with the S3 endpoint dead: $CC_SECONDS s)"
  same e-y ref-y
  # Refused at once (nothing listens): one more try (a store's passing error), then uncached.
  expect_eq 1 "$(grep -c "failed quickly (a store error?): trying once more" "$TEST_DIR/out/cc-e-y")" \
    "retries of a quickly failed server start ($(shown cc-e-y | head -5))"
  grep -q "starting one" "$TEST_DIR/out/cc-e-y" || fail "no server start traced: $(shown cc-e-y | head -5)"
  expect_secret_kept "$secret"
}

# ---- the stores' own scale-out ---------------------------------------------------------------

# ccache 4.14's shard form, as given; 12 sources (24 entries) spread over three redis-servers.
test_ccache_shards() {
  TEST "ccache 4.14 redis://127.0.0.1:*|shards=P1,P2,P3: entries on all three; one killed mid-build breaks nothing, the others hit"
  fixture
  local i url k0 k1 k2 hits=0
  start_redis_shards 3
  url="redis://127.0.0.1:*|shards=${SHARD_PORTS[0]},${SHARD_PORTS[1]},${SHARD_PORTS[2]}"
  for i in $(seq 1 12); do printf 'int shard_%d(int x) { return x * %d + 1; }\n' "$i" "$i" > "$TEST_DIR/s$i.c"; done
  install ccache "$url"
  grep -qxF "setenv CCACHE_REMOTE_STORAGE=$url" "$P/bin/.shimctl.conf" ||
    grep -qxF "CCACHE_REMOTE_STORAGE=$url" "$P/.shimctl/secrets" || fail "the shard URL was not kept as given"
  for i in $(seq 1 12); do cc a "s$i.c" "$P/lib/llvm/bin/clang"; done
  expect_eq 24 "$(cstat a remote_storage_write)" "machine a's writes"
  k0=$(redis_keys "${SHARD_PORTS[0]}"); k1=$(redis_keys "${SHARD_PORTS[1]}"); k2=$(redis_keys "${SHARD_PORTS[2]}")
  echo "    (24 entries over the shards: $k0 $k1 $k2)"
  expect_eq 24 "$((k0 + k1 + k2))" "entries over the three shards"
  [ "$k0" -gt 0 ] && [ "$k1" -gt 0 ] && [ "$k2" -gt 0 ] || fail "a shard got nothing: $k0 $k1 $k2"
  # Machine b: half its build, then shard 1 dies, then the other half.
  for i in $(seq 1 6); do cc b "s$i.c" "$P/lib/llvm/bin/clang"; done
  expect_eq 6 "$(cstat b remote_storage_hit)" "machine b's hits before the kill"
  kill_shard 1
  for i in $(seq 7 12); do cc b "s$i.c" "$P/lib/llvm/bin/clang"; same "a-s$i" "b-s$i"; done
  hits=$(( $(cstat b remote_storage_hit) - 6 ))
  echo "    (after the kill: $hits remote hits, $(cstat b cache_miss) misses, $(cstat b remote_storage_error) remote errors of 6)"
  [ "$hits" -ge 1 ] || fail "no hit from the live shards after the kill"
  expect_eq 6 "$((hits + $(cstat b cache_miss)))" "hits + misses after the kill"
}

test_sccache_redis_cluster() {
  TEST "sccache 0.17 Redis Cluster (3 masters, |cluster): hits from an empty local cache; a master killed: compiles still succeed"
  fixture
  local s
  start_redis_cluster 3
  install sccache "redis://127.0.0.1:${CLUSTER_PORTS[0]}|cluster"
  for s in x y z; do cc a "$s.cpp"; done
  expect_eq "hits=0 misses=3" "$(scounts a)" "machine a"
  expect_eq 4 "$(cluster_keys)" "keys in the cluster (3 entries and .sccache_check)"
  for s in x y z; do cc b "$s.cpp"; same "a-$s" "b-$s"; done
  expect_eq "hits=3 misses=0" "$(scounts b)" "machine b (empty local cache)"

  kill_cluster_master 1
  # A server already running when the master died waits out sccache 0.17's own Redis timeouts on
  # every compile: measured on 2026-12-04 with SHIMCTL_TEST_CLUSTER_RUNNING=1
  # SHIMCTL_TEST_CLUSTER_LIMIT=600: 61.0 s for one compile in one run, 423.0 s and then 548.3 s in
  # another (its pool timeouts, 30 s each, and its cluster client's reconnects to the dead node).
  # The compiles succeed, but too slowly for CI: a known limit of sccache, documented in
  # docs/team-stores.md with the remedy tested below (stop the server).
  ref w.cpp
  ref v.cpp
  if [ "${SHIMCTL_TEST_CLUSTER_RUNNING:-}" = 1 ]; then
    timed_cc b w.cpp "machine b's running server"
    same b-w ref-w
    return 0
  fi
  env $(machine_env b) sccache --stop-server >/dev/null 2>&1
  # Once the cluster has marked the master failed (cluster-node-timeout, 5 s here) it answers
  # CLUSTERDOWN, a new server cannot start (sccache's client gives up after 10 s): the shim
  # compiles uncached; the one after does not wait again (60 s memo). Within the node timeout a
  # new server can start (its check key lives on a live master) and then waits on the dead one
  # like a running server (measured 2026-12-04, redis 8.0.6: past 30 s): sccache's limit above.
  wait_cluster_down 1
  timed_cc b w.cpp "machine b, a new server"
  same b-w ref-w
  CLUSTER_LIMIT=5 timed_cc b v.cpp "machine b, the next compile"
  same b-v ref-v
}

# ---- sccache's two tiers (issue 35) -----------------------------------------------------------

test_sccache_two_tiers() {
  TEST "sccache 0.17 with a store has two tiers: a warm machine's hit comes from its disk (the store hung), a fresh machine's first hit from the store, back-filled to its disk (the store stopped)"
  fixture
  start_redis_store --password "$(password Redis)"
  install sccache "redis://$STORE_PW@127.0.0.1:$STORE_PORT"
  expect_contains "$("$SHIMCTL" status "$P")" \
    "tiers:       local disk cache, then the store (SCCACHE_MULTILEVEL_CHAIN)" "status"
  ref k.hip
  cc a k.hip
  same a-k ref-k
  expect_eq "hits=0 misses=1" "$(scounts a)" "machine a, cold"
  [ "$(redis_keys "$STORE_PORT" "$STORE_PW")" -ge 2 ] ||
    fail "machine a's miss is not in the store (keys: $(redis_keys "$STORE_PORT" "$STORE_PW"))"
  # The store accepts and never answers: machine a's hit is read from its own disk.
  kill -STOP "$(cat "$STORE_PIDFILE")"
  rm -rf "$TEST_DIR/a-k"
  cc a k.hip
  kill -CONT "$(cat "$STORE_PIDFILE")"
  echo "    (machine a's hit with the store hung: $CC_SECONDS s)"
  same a-k ref-k
  expect_eq "hits=1 misses=1" "$(scounts a)" "machine a, the store hung"
  python3 -c "import sys; sys.exit(float(sys.argv[1]) < 2)" "$CC_SECONDS" &&
    fail "machine a's hit with the store hung took $CC_SECONDS s (its disk should serve it)"
  # A fresh machine: its first hit from the store, kept on its disk; then the store is gone.
  cc b k.hip
  same b-k ref-k
  expect_eq "hits=1 misses=0" "$(scounts b)" "machine b (empty disk): from the store"
  stop_pidfile "$STORE_PIDFILE"
  rm -rf "$TEST_DIR/b-k"
  cc b k.hip
  same b-k ref-k
  expect_eq "hits=2 misses=0" "$(scounts b)" "machine b, the store stopped: from its disk"
}

# timed_cc X SRC WHAT: cc X SRC (clang++), under timeout CLUSTER_LIMIT (SHIMCTL_TEST_CLUSTER_LIMIT,
# default 30 s): a compile that takes longer fails the test with its time.
timed_cc() {
  local x=$1 src=$2 dir=$TEST_DIR/$1-${2%.*} t0 rc=0 limit=$CLUSTER_LIMIT
  mkdir "$dir" || fail "$dir exists"
  t0=$(date +%s%N)
  (cd "$dir" && timeout "$limit" env $(machine_env "$x") "$P/lib/llvm/bin/clang++" -O1 -c "$TEST_DIR/$src" -o o.o) \
    > "$TEST_DIR/out/cc-$x-${src%.*}" 2>&1 || rc=$?
  echo "    (a cluster master dead, $3: exit $rc after $(elapsed_since "$t0") s)"
  [ "$rc" != 124 ] || fail "$3: the compile took longer than $limit s with a cluster master dead"
  expect_eq 0 "$rc" "$3: exit status of the compile with a cluster master dead ($(shown "cc-$x-${src%.*}" | head -3))"
}

# ---- ccache refuses what it cannot store to -----------------------------------------------

test_ccache_refuses_tls_and_s3() {
  TEST "ccache: --remote rediss:// https:// s3:// refused (exit 2, one line naming --cache sccache), nothing changed"
  fixture
  local pw url n=0 rc
  pw=$(password Refused)
  tree_listing "$P" > "$TEST_DIR/before.lst"
  for url in "rediss://u:$pw@127.0.0.1:6379" "https://u:$pw@127.0.0.1:8443/cache" \
      "s3://bucket/prefix|endpoint=http://127.0.0.1:9000|region=us-east-1"; do
    n=$((n + 1)); rc=0
    out "refused-$n" "$SHIMCTL" install "$P" --cache ccache --remote "$url" --no-verify || rc=$?
    expect_eq 2 "$rc" "exit status of install --cache ccache --remote ${url%%:*}://"
    expect_eq 1 "$(wc -l < "$TEST_DIR/out/refused-$n")" "lines of the refusal of ${url%%:*}://: $(shown "refused-$n")"
    case $(shown "refused-$n") in "shimctl: error: --remote"*"--cache sccache"*) ;;
      *) fail "the refusal of ${url%%:*}:// does not start with 'shimctl: error: --remote' and name --cache sccache: $(shown "refused-$n")" ;; esac
    [ ! -e "$P/.shimctl" ] || fail "the refused install left $P/.shimctl"
  done
  expect_same_tree "$TEST_DIR/before.lst" "$P"
  expect_secret_kept "$pw"
}
