# Team stores for the integration suites (issue 24): real store servers on free ports of
# 127.0.0.1, started by a test and stopped by stores_cleanup. Sourced by lib.bash; uses its
# free_port, wait_until, fail, stop_pidfile and $TEST_DIR.
#
#   trap stores_cleanup EXIT          # first, in every test that starts a store
#   store_ca                          # $TEST_DIR/tls: ca.crt, srv.crt/.key, bad.crt/.key; STORE_CA
#   start_redis_store [--password PW] [--acl] [--tls] [--bad-cert]    STORE_PORT STORE_PW STORE_PIDFILE
#   start_redis_shards N              SHARD_PORTS[] SHARD_PIDFILES[]; kill_shard I
#   start_redis_cluster N             CLUSTER_PORTS[] CLUSTER_PIDFILES[]; kill_cluster_master I
#   start_webdav [--auth U:PW] [--ro-auth U:PW] [--tls] [--bad-cert]  WEBDAV_BASE WEBDAV_DIR WEBDAV_PIDFILE
#   start_s3 BUCKET                   S3_ENDPOINT S3_DATA S3_PIDFILE S3_KEY_ID S3_SECRET (s3rver, npm)
#   redis_keys PORT [PW] [--tls]; cluster_keys; webdav_files DIR; s3_objects BUCKET [PREFIX]
#   stop_store PIDFILE                one server down (the others keep running)
#   stores_require [redis|tls|cluster|webdav|s3]...   for suite_requires: the tools are there
#
# Every server keeps its files in $TEST_DIR/stores/<kind>-<port>/ (config, log, pid, data). A
# credential is never on a command line (other users see those in ps): redis gets its passwords
# from a 0600 config file, redis-cli from REDISCLI_AUTH, htpasswd files are made with
# `openssl passwd -apr1 -stdin` and are 0600. Servers are daemons or run under setsid with their
# output in their log: none holds the test's stdout/stderr (ctest waits for those to close).

# S3RVER_DIR: where `npm install s3rver` put it: scripts/setup installs it into
# /var/cache/shimctl/s3rver on the host; scripts/test-sid stages that into the sid build dir
# ($BUILD_DIR/s3rver there: the sid root has its own /var).
if [ -z "${S3RVER_DIR:-}" ]; then
  for S3RVER_DIR in /var/cache/shimctl/s3rver "${BUILD_DIR:-}/s3rver" ""; do
    [ -x "$S3RVER_DIR/node_modules/.bin/s3rver" ] && break
  done
fi
DAV_EXT_MODULE=${DAV_EXT_MODULE:-/usr/lib/nginx/modules/ngx_http_dav_ext_module.so}

# stores_require [KIND...]: the tools the KINDs (default: all) need are installed; else prints
# what is missing (stderr) and returns 1. KIND: redis (redis-server, redis-cli), tls (openssl),
# cluster (redis, and redis-cli --cluster), webdav (nginx with the DAV module, the dav-ext module
# file, openssl for htpasswd), s3 (node and s3rver in S3RVER_DIR).
stores_require() {
  local kinds=("$@") k missing=()
  [ ${#kinds[@]} -gt 0 ] || kinds=(redis tls cluster webdav s3)
  for k in "${kinds[@]}"; do
    case $k in
      redis | cluster)
        command -v redis-server >/dev/null || missing+=(redis-server)
        command -v redis-cli >/dev/null || missing+=(redis-cli) ;;
      tls) command -v openssl >/dev/null || missing+=(openssl) ;;
      webdav)
        command -v nginx >/dev/null || missing+=(nginx)
        nginx -V 2>&1 | grep -q -- --with-http_dav_module || missing+=("nginx's DAV module")
        [ -f "$DAV_EXT_MODULE" ] || missing+=("$DAV_EXT_MODULE (libnginx-mod-http-dav-ext)")
        command -v openssl >/dev/null || missing+=(openssl) ;;
      s3)
        command -v node >/dev/null || missing+=(node)
        [ -x "${S3RVER_DIR:-}/node_modules/.bin/s3rver" ] ||
          missing+=("s3rver (npm; scripts/setup installs it into /var/cache/shimctl/s3rver)") ;;
      *) echo "stores_require: unknown kind $k" >&2; return 1 ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "stores_require: missing: $(printf '%s, ' "${missing[@]}" | sed 's/, $//')" >&2
  return 1
}

# _store_dir KIND PORT: makes $TEST_DIR/stores/KIND-PORT (0700) and prints it.
_store_dir() {
  local d=$TEST_DIR/stores/$1-$2
  mkdir -p "$d" && chmod 700 "$d" || { fail "cannot make $d"; return 1; }
  echo "$d"
}

# _store_started PIDFILE: stores_cleanup will stop the daemon whose pid PIDFILE holds. Kept in a
# file, so that a server started in a subshell ($(...)) is stopped too.
_store_started() { echo "$1" >> "$TEST_DIR/stores/pidfiles"; }

# port_open PORT: something accepts TCP connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# stop_store PIDFILE: stops that one server (SIGTERM, up to 5 s; lib.bash's stop_pidfile).
stop_store() { stop_pidfile "$1"; }

# stores_cleanup: stops every server this test started (any left running after 5 s: SIGKILL).
# Safe to call twice, and when nothing was started.
stores_cleanup() {
  local list=${TEST_DIR:-/nonexistent}/stores/pidfiles f pid
  [ -f "$list" ] || return 0
  while read -r f; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    stop_pidfile "$f"
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  done < "$list"
  rm -f "$list"
  return 0
}

# store_ca: a throw-away CA in $TEST_DIR/tls (made once per test): ca.crt/ca.key; srv.crt/srv.key
# for 127.0.0.1 (subjectAltName IP:127.0.0.1,DNS:localhost, serverAuth) signed by the CA;
# bad.crt/bad.key the same names, self-signed (not from the CA). EC P-256 keys (fast). Sets
# STORE_CA=$TEST_DIR/tls/ca.crt.
store_ca() {
  local d=$TEST_DIR/tls
  STORE_CA=$d/ca.crt
  [ -f "$d/bad.crt" ] && return 0
  mkdir -p "$d" && chmod 700 "$d"
  cat > "$d/srv.ext" <<'EXT'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
EXT
  cat > "$d/ca.cnf" <<'CNF'
[req]
distinguished_name = dn
x509_extensions = v3_ca
prompt = no
[dn]
CN = shimctl test CA
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
CNF
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  {
    openssl req -x509 "${ec[@]}" -config "$d/ca.cnf" -keyout "$d/ca.key" -out "$d/ca.crt" -days 2 &&
      openssl req -new "${ec[@]}" -subj /CN=127.0.0.1 -keyout "$d/srv.key" -out "$d/srv.csr" &&
      openssl x509 -req -in "$d/srv.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
        -days 2 -extfile "$d/srv.ext" -out "$d/srv.crt" &&
      openssl req -x509 "${ec[@]}" -subj /CN=127.0.0.1 -keyout "$d/bad.key" -out "$d/bad.crt" -days 2 \
        -addext "subjectAltName = IP:127.0.0.1, DNS:localhost" -addext "extendedKeyUsage = serverAuth"
  } > "$d/openssl.log" 2>&1 || { fail "openssl could not make the test CA:"$'\n'"$(cat "$d/openssl.log")"; return 1; }
  openssl verify -CAfile "$d/ca.crt" "$d/srv.crt" >/dev/null 2>&1 || fail "srv.crt does not verify against ca.crt"
}

# _redis_cli PORT [TLS] ARGS...: redis-cli on 127.0.0.1:PORT as the default user with $STORE_AUTH
# (environment, never argv); TLS=--tls: over TLS, certificate not checked.
_redis_cli() {
  local port=$1; shift
  local tls=()
  [ "${1:-}" = --tls ] && { tls=(--tls --insecure); shift; }
  if [ -n "${STORE_AUTH:-}" ]; then
    REDISCLI_AUTH=$STORE_AUTH redis-cli --no-auth-warning -h 127.0.0.1 -p "$port" "${tls[@]}" "$@"
  else
    redis-cli -h 127.0.0.1 -p "$port" "${tls[@]}" "$@"
  fi
}

# _start_redis KIND PORT CONF-LINES: a daemonized redis-server on 127.0.0.1:PORT from a 0600
# config file with CONF-LINES; waits until it answers PING (STORE_AUTH, _REDIS_TLS for that).
# Sets REDIS_STARTED (its pid file). (Not run in $(...): a fail there would not end the test.)
_start_redis() {
  local kind=$1 port=$2 extra=$3 d=$TEST_DIR/stores/$1-$2
  _store_dir "$kind" "$port" >/dev/null || return 1
  (umask 077; cat > "$d/redis.conf" <<CONF
bind 127.0.0.1
protected-mode no
daemonize yes
pidfile $d/redis.pid
logfile $d/redis.log
dir $d
save ""
appendonly no
$extra
CONF
  )
  _store_started "$d/redis.pid"
  redis-server "$d/redis.conf" > "$d/start.out" 2>&1 ||
    { fail "redis-server ($kind) did not start: $(cat "$d/start.out" "$d/redis.log" 2>/dev/null | tail -5)"; return 1; }
  wait_until 10 "redis-server ($kind) on port $port" \
    eval '[ "$(_redis_cli "$port" ${_REDIS_TLS:-} ping 2>/dev/null)" = PONG ]' || return 1
  REDIS_STARTED=$d/redis.pid
}

# start_redis_store [--password PW] [--acl] [--tls] [--bad-cert]: one redis-server.
#   --password PW  requirepass PW (the default user's password); STORE_PW=PW (else "")
#   --acl          users rw (password rwpw, every command) and ro (password ropw, +@all -@write)
#   --tls          TLS only: port 0, tls-port STORE_PORT, srv.crt of store_ca (made if needed),
#                  no client certificates (tls-auth-clients no)
#   --bad-cert     with --tls: the self-signed bad.crt instead (a client that checks refuses it)
# Sets STORE_PORT, STORE_PW, STORE_PIDFILE, STORE_DIR; stopped by stores_cleanup.
start_redis_store() {
  local pw="" acl=0 tls=0 bad=0 conf="" cert=srv
  while [ $# -gt 0 ]; do
    case $1 in
      --password) pw=$2; shift 2 ;;
      --acl) acl=1; shift ;;
      --tls) tls=1; shift ;;
      --bad-cert) bad=1; shift ;;
      *) fail "start_redis_store: unknown option $1"; return 1 ;;
    esac
  done
  STORE_PORT=$(free_port)
  STORE_PW=$pw
  [ -z "$pw" ] || conf+="requirepass $pw"$'\n'
  [ $acl = 0 ] || conf+="user rw on >rwpw ~* &* +@all"$'\n'"user ro on >ropw ~* &* +@all -@write"$'\n'
  local _REDIS_TLS=""
  if [ $tls = 1 ]; then
    store_ca || return 1
    [ $bad = 0 ] || cert=bad
    # Absolute paths: a daemonized redis-server does not find relative ones.
    conf+="port 0"$'\n'"tls-port $STORE_PORT"$'\n'"tls-cert-file $TEST_DIR/tls/$cert.crt"$'\n'
    conf+="tls-key-file $TEST_DIR/tls/$cert.key"$'\n'"tls-ca-cert-file $TEST_DIR/tls/ca.crt"$'\n'
    conf+="tls-auth-clients no"$'\n'
    _REDIS_TLS=--tls
  else
    conf+="port $STORE_PORT"$'\n'
  fi
  STORE_AUTH=$pw _start_redis redis "$STORE_PORT" "$conf" || return 1
  STORE_PIDFILE=$REDIS_STARTED
  STORE_DIR=${STORE_PIDFILE%/redis.pid}
}

# start_redis_shards N: N plain redis-servers (no password), for ccache's
# redis://*|shards=127.0.0.1:P1,... Sets SHARD_PORTS (array) and SHARD_PIDFILES (array).
start_redis_shards() {
  local n=$1 i port
  SHARD_PORTS=(); SHARD_PIDFILES=()
  for ((i = 0; i < n; i++)); do
    port=$(free_port)
    _start_redis shard "$port" "port $port" || return 1
    SHARD_PORTS+=("$port"); SHARD_PIDFILES+=("$REDIS_STARTED")
  done
}

# kill_shard I: shard I (0-based) dies at once (SIGKILL: no goodbye to its clients).
kill_shard() { _kill_pidfile "${SHARD_PIDFILES[$1]}"; }

_kill_pidfile() {
  local pid
  [ -f "$1" ] || { fail "no pid file $1 (already stopped?)"; return 1; }
  pid=$(cat "$1")
  kill -9 "$pid" 2>/dev/null
  wait_until 10 "pid $pid to die" eval '! kill -0 "$pid" 2>/dev/null'
  rm -f "$1"
}

# start_redis_cluster N [NODE-TIMEOUT-MS [REPLICAS]]: a Redis Cluster of N masters (N >= 3), each
# with REPLICAS replicas (default 0), on loopback (redis-cli --cluster create); waits until every
# node says cluster_state:ok and knows all N masters. cluster-node-timeout: NODE-TIMEOUT-MS
# (default 5000; redis' own is 15000). The cluster bus gets a free port of its own (cluster-port;
# the default, PORT + 10000, is past 65535 for a high free port). Sets CLUSTER_PORTS (array, every
# node), CLUSTER_PIDFILES (array). Which nodes are masters: cluster_master_index.
start_redis_cluster() {
  local n=$1 timeout=${2:-5000} replicas=${3:-0} i port d nodes=()
  CLUSTER_PORTS=(); CLUSTER_PIDFILES=()
  for ((i = 0; i < n * (replicas + 1); i++)); do
    port=$(free_port)
    d=$TEST_DIR/stores/cluster-$port
    _start_redis cluster "$port" "port $port
cluster-port $(free_port)
cluster-enabled yes
cluster-config-file $d/nodes.conf
cluster-node-timeout $timeout" || return 1
    CLUSTER_PORTS+=("$port"); CLUSTER_PIDFILES+=("$REDIS_STARTED"); nodes+=("127.0.0.1:$port")
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas "$replicas" --cluster-yes \
    > "$TEST_DIR/stores/cluster-create.out" 2>&1 ||
    { fail "redis-cli --cluster create failed: $(tail -5 "$TEST_DIR/stores/cluster-create.out")"; return 1; }
  for port in "${CLUSTER_PORTS[@]}"; do
    wait_until 30 "cluster_state:ok on port $port" _cluster_ok "$port" "$n" || return 1
  done
}
_cluster_ok() {
  local info; info=$(_cluster_info "$1")
  grep -qx cluster_state:ok <<<"$info" && grep -qx "cluster_size:$2" <<<"$info"
}
_cluster_info() { redis-cli -h 127.0.0.1 -p "$1" cluster info 2>/dev/null | tr -d '\r'; }

# kill_cluster_master I: cluster node I (0-based; a master) dies at once (SIGKILL).
kill_cluster_master() { _kill_pidfile "${CLUSTER_PIDFILES[$1]}"; }

# cluster_master_index K: the index in CLUSTER_PORTS of the K-th node (0-based) whose role is
# master.
cluster_master_index() {
  local i k=0
  for ((i = 0; i < ${#CLUSTER_PORTS[@]}; i++)); do
    if redis-cli -h 127.0.0.1 -p "${CLUSTER_PORTS[i]}" role 2>/dev/null | head -1 | grep -qx master; then
      [ "$k" = "$1" ] && { echo "$i"; return 0; }
      k=$((k + 1))
    fi
  done
  return 1
}

# wait_cluster_down I: waits (30 s at most) until every master but I says cluster_state:fail: the
# cluster has marked master I failed (after its cluster-node-timeout) and answers CLUSTERDOWN.
# Before that, the live masters still serve their slots and only keys on I wait for time-outs.
wait_cluster_down() {
  local i
  for ((i = 0; i < ${#CLUSTER_PORTS[@]}; i++)); do
    [ "$i" = "$1" ] ||
      wait_until 30 "cluster_state:fail on port ${CLUSTER_PORTS[i]}" _cluster_down "${CLUSTER_PORTS[i]}" || return 1
  done
}
_cluster_down() { _cluster_info "$1" | grep -qx cluster_state:fail; }

# redis_keys PORT [PW] [--tls]: the number of keys (DBSIZE) of the redis-server on PORT, as the
# default user with password PW. (sccache also stores a key .sccache_check.)
redis_keys() {
  local port=$1 pw="" tls=""
  shift
  while [ $# -gt 0 ]; do
    case $1 in --tls) tls=--tls ;; *) pw=$1 ;; esac
    shift
  done
  STORE_AUTH=$pw _redis_cli "$port" $tls dbsize | tr -d '\r'
}

# cluster_keys: the keys over the cluster's masters that are alive (sum of DBSIZE).
cluster_keys() {
  local port sum=0 k
  for port in "${CLUSTER_PORTS[@]}"; do
    k=$(redis-cli -h 127.0.0.1 -p "$port" dbsize 2>/dev/null | tr -d '\r') || continue
    case $k in '' | *[!0-9]*) continue ;; esac
    sum=$((sum + k))
  done
  echo "$sum"
}

# _htpasswd FILE USER:PW...: an htpasswd FILE (0600) with an apr1 hash per USER.
_htpasswd() {
  local f=$1 up hash; shift
  (umask 077; : > "$f")
  for up in "$@"; do
    hash=$(printf '%s' "${up#*:}" | openssl passwd -apr1 -stdin) || { fail "openssl passwd failed"; return 1; }
    echo "${up%%:*}:$hash" >> "$f"
  done
}

# start_webdav [--auth USER:PW] [--ro-auth USER:PW] [--tls] [--bad-cert]: nginx serving WebDAV
# (PUT DELETE MKCOL COPY MOVE, and PROPFIND OPTIONS from the dav-ext module: sccache 0.17 needs
# PROPFIND) from WEBDAV_DIR; the URL path /cache is WEBDAV_DIR/cache (made empty), any other
# path works too (create_full_put_path).
#   --auth U:PW     auth_basic: only U (password PW) may do anything
#   --ro-auth U:PW  (with --auth) U may only read: GET HEAD PROPFIND OPTIONS (a write: 401)
#   --tls           https with srv.crt of store_ca (made if needed); --bad-cert: bad.crt
# Sets WEBDAV_BASE (http(s)://127.0.0.1:PORT), WEBDAV_DIR, WEBDAV_PIDFILE, WEBDAV_LOG (the
# access log); stopped by stores_cleanup.
start_webdav() {
  local auth="" ro="" tls=0 bad=0 port d cert=srv listen auth_conf=""
  while [ $# -gt 0 ]; do
    case $1 in
      --auth) auth=$2; shift 2 ;;
      --ro-auth) ro=$2; shift 2 ;;
      --tls) tls=1; shift ;;
      --bad-cert) bad=1; shift ;;
      *) fail "start_webdav: unknown option $1"; return 1 ;;
    esac
  done
  [ -z "$ro" ] || [ -n "$auth" ] || { fail "start_webdav: --ro-auth needs --auth"; return 1; }
  port=$(free_port)
  d=$TEST_DIR/stores/webdav-$port; _store_dir webdav "$port" >/dev/null || return 1
  WEBDAV_DIR=$d/dav
  mkdir -p "$WEBDAV_DIR/cache" "$d/tmp"
  listen="listen 127.0.0.1:$port;"
  if [ $tls = 1 ]; then
    store_ca || return 1
    [ $bad = 0 ] || cert=bad
    listen="listen 127.0.0.1:$port ssl;
    ssl_certificate $TEST_DIR/tls/$cert.crt;
    ssl_certificate_key $TEST_DIR/tls/$cert.key;"
  fi
  if [ -n "$auth" ]; then
    # Everyone in all.htpasswd may read; a write needs rw.htpasswd.
    _htpasswd "$d/all.htpasswd" "$auth" ${ro:+"$ro"} || return 1
    _htpasswd "$d/rw.htpasswd" "$auth" || return 1
    auth_conf="auth_basic cache;
      auth_basic_user_file $d/all.htpasswd;
      limit_except GET HEAD PROPFIND OPTIONS {
        auth_basic cache-write;
        auth_basic_user_file $d/rw.htpasswd;
      }"
  fi
  cat > "$d/nginx.conf" <<CONF
load_module $DAV_EXT_MODULE;
user root;
worker_processes 1;
daemon on;
pid $d/nginx.pid;
error_log $d/error.log;
events { worker_connections 64; }
http {
  access_log $d/access.log;
  client_body_temp_path $d/tmp;
  client_max_body_size 256m;
  server {
    $listen
    root $WEBDAV_DIR;
    location / {
      dav_methods PUT DELETE MKCOL COPY MOVE;
      dav_ext_methods PROPFIND OPTIONS;
      create_full_put_path on;
      dav_access user:rw group:rw all:r;
      $auth_conf
    }
  }
}
CONF
  _store_started "$d/nginx.pid"
  nginx -e "$d/error.log" -p "$d" -c "$d/nginx.conf" > "$d/start.out" 2>&1 ||
    { fail "nginx (WebDAV) did not start: $(cat "$d/start.out" "$d/error.log" 2>/dev/null | tail -5)"; return 1; }
  wait_until 10 "nginx (WebDAV) on port $port" port_open "$port" || return 1
  WEBDAV_PIDFILE=$d/nginx.pid
  WEBDAV_LOG=$d/access.log
  if [ $tls = 1 ]; then WEBDAV_BASE=https://127.0.0.1:$port; else WEBDAV_BASE=http://127.0.0.1:$port; fi
}

# webdav_files DIR: the files below DIR (a path below WEBDAV_DIR), sccache's .sccache_check not
# counted.
webdav_files() { find "$1" -type f ! -name .sccache_check | wc -l; }

# start_s3 BUCKET: s3rver (npm, S3RVER_DIR) on 127.0.0.1 with BUCKET made, under setsid with its
# output in its log. Path-style URLs only. Its one account: access key id S3RVER (S3_KEY_ID),
# secret S3RVER (S3_SECRET). Measured with sccache 0.17: another key id is refused (403
# InvalidAccessKeyId: a wrong credential), but the secret and the signature are never checked.
# Sets S3_ENDPOINT (http://127.0.0.1:PORT), S3_DATA (its files: S3_DATA/BUCKET/KEY._S3rver_object),
# S3_PIDFILE, S3_KEY_ID, S3_SECRET; stopped by stores_cleanup.
start_s3() {
  local bucket=$1 port d
  port=$(free_port)
  d=$TEST_DIR/stores/s3-$port; _store_dir s3 "$port" >/dev/null || return 1
  S3_DATA=$d/data
  mkdir -p "$S3_DATA"
  S3_PIDFILE=$d/s3rver.pid
  S3_ENDPOINT=http://127.0.0.1:$port
  S3_KEY_ID=S3RVER S3_SECRET=S3RVER
  setsid node "$S3RVER_DIR/node_modules/.bin/s3rver" -d "$S3_DATA" -p "$port" -a 127.0.0.1 \
    --configure-bucket "$bucket" > "$d/s3rver.log" 2>&1 < /dev/null &
  echo $! > "$S3_PIDFILE"
  _store_started "$S3_PIDFILE"
  wait_until 30 "s3rver on port $port with bucket $bucket" _s3_bucket_up "$bucket" ||
    { fail "s3rver did not come up: $(tail -5 "$d/s3rver.log")"; return 1; }
}
_s3_bucket_up() {
  kill -0 "$(cat "$S3_PIDFILE")" 2>/dev/null || return 1
  python3 - "$S3_ENDPOINT/$1" <<'PY' 2>/dev/null
import sys, urllib.request
sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=2).status == 200 else 1)
PY
}

# s3_objects BUCKET [PREFIX]: the objects in BUCKET (below PREFIX) in s3rver's S3_DATA (its
# *._S3rver_object files), sccache's .sccache_check not counted.
s3_objects() {
  local dir=$S3_DATA/$1${2:+/$2}
  [ -d "$dir" ] || { echo 0; return 0; }
  find "$dir" -type f -name '*._S3rver_object' ! -name '.sccache_check._S3rver_object' | wc -l
}
