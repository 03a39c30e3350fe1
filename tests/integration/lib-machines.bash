# Machines sharing a store, for the suites that run on each stack (suites/team_stores_common.bash,
# suites/remote_common.bash). Sourced by those files; uses lib.bash and lib-stores.bash.
#
# The stack is a parameter: a stack's suite file (team_stores, sid_team_stores, remote, sid_remote)
# sets, before it sources the tests file,
#   STACK           debian12 | sid
#   LLVM            the stack's clang (15; $SID_LLVM)
#   STORE_FIXTURE   the fixture prefix (rocm_prefix's argument): 15 (ROCm 5.2, llvm/bin), sid (the
#                   ROCm-7 shape, lib/llvm/bin)
#   CCACHE_SERIES, SCCACHE_SERIES  the major.minor of the stack's ccache and sccache (4.7, 0.4;
#                   4.14, 0.17): stack_tools_are checks them, version-gated cases read them
#
#   store_fixture                   P = a fresh copy of the fixture prefix, HOME, TMPDIR, out/, the
#                                   cleanup trap (this test's sccache servers, its stores); CLANG, CLANGXX, HIPCC
#   install_store TOOL URL [FLAGS]  shimctl install $P --cache TOOL --remote URL --no-verify FLAGS
#   compile_on X SRC [COMPILER]     machine X (an empty local cache of its own, and for sccache a
#                                   server of its own) compiles SRC to $TEST_DIR/X-SRC/o.o
#   ref SRC; same A B; cstat X COUNTER; sstat X EXPR; scounts X; json_of FILE EXPR
#   verify_warns NAME SHOWN [--json]; expect_refused NAME -- INSTALL-ARGS...
#   expect_secrets_hold PW; expect_secret_kept PW... [-- DIR...]
# A hit on a new machine can only come from the store: only the store is shared. After a
# re-install a new machine is used (a running sccache server keeps the store it started with).

# json_of FILE 'PYTHON EXPRESSION over d' [ARG]: the expression over FILE's JSON (d; ARG is
# sys.argv[3]); a string as it is, anything else as JSON (true, not True). (The sid root has no jq.)
json_of() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v))' "$@" || fail "cannot read $2 from $1"
}

# version_lt A B: version A is older than B (sort -V).
version_lt() { [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]; }

# stack_tools_are: the installed ccache (and sccache, when SCCACHE_SERIES is set) are the stack's
# series: a suite does not run on a stack it was not written for (for suite_requires).
stack_tools_are() {
  command -v ccache >/dev/null && ccache --version | head -1 | grep -qF " ${CCACHE_SERIES:?}." || return 1
  [ -z "${SCCACHE_SERIES:-}" ] && return 0
  command -v sccache >/dev/null && sccache --version | grep -qF " $SCCACHE_SERIES."
}

# stack_compilers_are: the stack's compilers are installed (clang-LLVM; perl hipcc 5.2 on Debian
# 12, hipBin on sid).
stack_compilers_are() {
  [ -x "/usr/lib/llvm-$LLVM/bin/clang" ] || return 1
  if [ "$STACK" = sid ]; then file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF; else [ -f /usr/bin/hipcc.pl ]; fi
}

# store_fixture: P = a copy (cp -a) of the stack's fixture prefix (built once per suite);
# sources s1.cpp..s10.cpp and k.hip in $TEST_DIR; HOME and TMPDIR (verify's scratch files) of its own;
# out/ for every output; the cleanup trap. CLANG, CLANGXX, HIPCC: the prefix's compilers.
store_fixture() {
  trap machines_cleanup EXIT
  P=$TEST_DIR/rocm
  copy_rocm_prefix "$P" "$STORE_FIXTURE" || exit 1
  if [ "$STACK" = sid ]; then CLANG=$P/lib/llvm/bin/clang; else CLANG=$P/llvm/bin/clang; fi
  CLANGXX=$CLANG++ HIPCC=$P/bin/hipcc
  local i
  for i in $(seq 10); do
    printf 'int team_%d(int x) { return x * %d + %d; }\n' "$i" "$((i + 2))" "$((i * 7))" > "$TEST_DIR/s$i.cpp"
  done
  printf '#include <hip/hip_runtime.h>\n__global__ void team(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) + 1.0f; }\n' \
    > "$TEST_DIR/k.hip"
  mkdir -p "$TEST_DIR/out"
  # Short paths: sccache puts a socket in TMPDIR (and the shim its server's in HOME's runtime
  # directory), and a socket's path has a length limit (SUN_LEN; TEST_DIR names the test).
  HOME=$(mktemp -d "$SUITE_TMP/h.XXXX") && TMPDIR=$(mktemp -d "$SUITE_TMP/t.XXXX") || fail "mktemp"
  export HOME TMPDIR
  cd "$TEST_DIR" || fail cd
}

# machines_cleanup: the sccache servers this test's compiles started (their environment names
# $TEST_DIR), then the stores.
machines_cleanup() {
  local pid
  for pid in $(pgrep -x sccache); do
    { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -q "^SCCACHE_DIR=$TEST_DIR/" &&
      kill "$pid" 2>/dev/null
  done
  stores_cleanup
}

# install_store TOOL URL [--compilers C] [FLAGS...]: shimctl install $P --cache TOOL --remote URL
# --no-verify FLAGS (output in out/install-N; another tool than the installed one: rollback
# first; --compilers only when not installed). A credential (in URL, or AWS_ACCESS_KEY_ID in the
# environment) lands in the secrets file, 0600; none, none.
INSTALLS=0
install_store() {
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

# machine_env X: the environment of machine X: its own empty local cache (ccache: cache-X,
# sccache: sc-X) and, for sccache, its own server port (kept in port-X).
machine_env() {
  local x=$1
  [ -f "$TEST_DIR/port-$x" ] || free_port > "$TEST_DIR/port-$x"
  echo "CCACHE_DIR=$TEST_DIR/cache-$x SCCACHE_DIR=$TEST_DIR/sc-$x SCCACHE_SERVER_PORT=$(cat "$TEST_DIR/port-$x")"
}

# compile_on X SRC [COMPILER]: machine X compiles $TEST_DIR/SRC (s1.cpp, k.hip...) in a new
# directory $TEST_DIR/X-SRC to o.o (the same -o name everywhere: clang-21 embeds it in the object)
# through COMPILER (default: hipcc for .hip, clang for .c, else clang++); output in out/cc-X-SRC.
# Fails the test if the compile fails, makes no object, or prints anything (a compile never
# prints for the store's sake; SHIMCTL_SHIM_TRACE=1 is let through). Sets CC_SECONDS.
compile_on() {
  local x=$1 src=$2 dir=$TEST_DIR/$1-${2%.*} cc=${3:-} t0 lang=()
  case $src in
    *.hip) cc=${cc:-$HIPCC}; lang=(-x hip --offload-arch=gfx90a -cuid=shimctl-team) ;;
    *.c) cc=${cc:-$CLANG}; lang=(-O1) ;;
    *) cc=${cc:-$CLANGXX}; lang=(-O1) ;;
  esac
  mkdir "$dir" || fail "$dir exists"
  t0=$(date +%s%N)
  (cd "$dir" && env $(machine_env "$x") "$cc" "${lang[@]}" -c "$TEST_DIR/$src" -o o.o) \
    > "$TEST_DIR/out/cc-$x-${src%.*}" 2>&1 || fail "machine $x: $cc $src failed:"$'\n'"$(shown "cc-$x-${src%.*}")"
  CC_SECONDS=$(elapsed_since "$t0")
  [ -s "$dir/o.o" ] || fail "machine $x: no object $dir/o.o"
  [ -n "${SHIMCTL_SHIM_TRACE:-}" ] || [ ! -s "$TEST_DIR/out/cc-$x-${src%.*}" ] ||
    fail "machine $x: $cc $src printed:"$'\n'"$(shown "cc-$x-${src%.*}")"
}

# ref SRC: the object SRC compiles to without any cache ($TEST_DIR/ref-SRC/o.o).
ref() { SHIMCTL_DISABLE=1 compile_on ref "$1"; }

# same A-SRC B-SRC: the two objects are byte-identical.
same() { cmp -s "$TEST_DIR/$1/o.o" "$TEST_DIR/$2/o.o" || fail "$1/o.o and $2/o.o differ"; }

# cstat X COUNTER: ccache's COUNTER for machine X.
cstat() { ccache_stat "$TEST_DIR/cache-$1" "$2"; }

# expect_wrote_nothing X: machine X's compiles wrote nothing to a store.
expect_wrote_nothing() { expect_eq 0 "$(cstat "$1" remote_storage_write)" "machine $1's remote writes"; }

# sstat X 'EXPR over t (the stats) and s (the whole JSON)': of machine X's sccache server
# (sccache >= 0.8: --show-stats --stats-format json).
sstat() {
  SCCACHE_SERVER_PORT=$(cat "$TEST_DIR/port-$1") sccache --show-stats --stats-format json 2> /dev/null |
    python3 -c 'import json, sys; s = json.load(sys.stdin); t = s["stats"]; print(eval(sys.argv[1]))' "$2" ||
    fail "sccache --show-stats of machine $1 failed"
}
# scounts X: "hits=H misses=M" of machine X's server (over all languages).
scounts() { sstat "$1" '"hits=%d misses=%d" % (sum(t["cache_hits"]["counts"].values()), sum(t["cache_misses"]["counts"].values()))'; }

# verify_warns NAME SHOWN [--json]: `shimctl verify $P` exits 0 (a store problem is a warning:
# compiles still work) and its remote check is a warning naming the store as SHOWN (redacted): the
# table's remote row says "remote storage SHOWN ...", or with --json the check named SHOWN.
verify_warns() {
  local rc=0 t0
  t0=$(date +%s%N)
  out "verify-$1" "$SHIMCTL" verify "$P" ${3:+"$3"} || rc=$?
  echo "    (verify with $1: $(elapsed_since "$t0") s, exit $rc)"
  expect_eq 0 "$rc" "exit status of verify with $1 ($(shown "verify-$1" | grep -i remote | head -3))"
  if [ "${3:-}" = --json ]; then
    expect_eq "warning" "$(json_of "$TEST_DIR/out/verify-$1" \
      '",".join(c["result"] for c in d["checks"] if c["subject"] == "remote" and c["check"] == sys.argv[3])' "$2")" \
      "verify --json's remote check for $2"
    return
  fi
  grep -E "^remote +.*warning" "$TEST_DIR/out/verify-$1" | grep -qF -- "remote storage $2" ||
    fail "verify with $1: the remote row is no warning naming $2:"$'\n'"$(shown "verify-$1")"
}

# expect_refused NAME -- INSTALL-ARGS...: `shimctl install $P INSTALL-ARGS` exits 2 with one line
# on stderr starting "shimctl: error: --remote:", nothing on stdout; $P's listing is
# $TEST_DIR/before's, no .shimctl and no cache dir appeared. The line is in out/NAME.
expect_refused() {
  local name=$1 rc=0
  shift 2
  "$SHIMCTL" install "$P" --cache-dir "$TEST_DIR/cache-install" "$@" > "$TEST_DIR/refused.out" \
    2> "$TEST_DIR/out/$name" || rc=$?
  expect_eq 2 "$rc" "exit code of install $*"
  expect_eq 1 "$(wc -l < "$TEST_DIR/out/$name")" "lines on stderr of install $* ($(shown "$name"))"
  case $(shown "$name") in "shimctl: error: --remote:"*) ;;
    *) fail "the refusal of install $* does not start 'shimctl: error: --remote:': $(shown "$name")" ;; esac
  expect_eq "" "$(cat "$TEST_DIR/refused.out")" "stdout of install $*"
  expect_same_tree "$TEST_DIR/before" "$P"
  [ ! -e "$P/.shimctl" ] || fail "install $* left $P/.shimctl"
  [ ! -e "$TEST_DIR/cache-install" ] || fail "install $* made the cache dir"
}

# expect_secrets_hold PW: PREFIX/.shimctl/secrets holds PW, and is root's, mode 0600.
expect_secrets_hold() {
  grep -qF -- "$1" "$P/.shimctl/secrets" 2>/dev/null || fail "the secrets file does not hold the credential"
  expect_perm "$P/.shimctl/secrets" 600
  expect_eq root:root "$(stat -c %U:%G "$P/.shimctl/secrets")" "owner of the secrets file"
}

# expect_secret_kept PW... [-- DIR...]: no captured output (out/*) holds any PW, and no file below
# the prefix, the local caches, the compile directories, HOME, TMPDIR and the DIRs but
# PREFIX/.shimctl/secrets (grep -r, symlinks not followed).
expect_secret_kept() {
  local pws=() dirs=() pw
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pws+=("$1"); shift; done
  [ $# -eq 0 ] || { shift; dirs=("$@"); }
  expect_not_shown "${pws[@]}"
  for pw in "${pws[@]}"; do
    expect_eq "" \
      "$(grep -rlF -- "$pw" "$P" "$TEST_DIR"/cache-* "$TEST_DIR"/sc-* "$TEST_DIR"/*-*/ "$HOME" "$TMPDIR" \
        "${dirs[@]}" 2>/dev/null | grep -vx -e "$P/.shimctl/secrets" | sort -u | tr '\n' ' ' | sed 's/ $//')" \
      "files other than the secrets file holding a credential"
  done
}
