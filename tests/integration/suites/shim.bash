# Tests of shimctl-shim alone, against "The shim contract" in ARCHITECTURE.md.
# Fixtures are built by hand: a prefix P laid out like /usr (P/lib and P/libexec link to the
# system's, so a copy of gcc in P/bin finds cc1), the shim copied to P/bin/NAME, the original
# beside it as P/bin/NAME.real, and P/bin/.shimctl.conf written here per the contract.

suite_requires() {
  local tool
  for tool in ccache gcc file strings; do command -v "$tool" >/dev/null || return 1; done
  [ -x "$SHIM_BIN" ]
}

# A small program that appends its executable, its argv and its environment to $RECORD_FILE
# and exits with $RECORD_EXIT. Shell scripts cannot stand in for it: the kernel replaces a
# script's argv[0] with the script's path.
recorder() {
  local bin=$SUITE_TMP/recorder
  if [ ! -x "$bin" ]; then
    cat > "$bin.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
extern char** environ;
int main(int argc, char** argv) {
  const char* file = getenv("RECORD_FILE");
  FILE* f = file ? fopen(file, "a") : NULL;
  if (f) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    fprintf(f, "exe=%s\n", exe);
    for (int i = 0; i < argc; i++) fprintf(f, "argv=%s\n", argv[i]);
    for (char** e = environ; *e; e++) fprintf(f, "env:%s\n", *e);
    fclose(f);
  }
  return getenv("RECORD_EXIT") ? atoi(getenv("RECORD_EXIT")) : 0;
}
EOF
    gcc -O2 -o "$bin" "$bin.c" || return 1
  fi
  echo "$bin"
}

# make_prefix: sets P and creates it.
make_prefix() {
  P=$TEST_DIR/prefix
  rm -rf "$P" "$TEST_DIR/ccache"
  mkdir -p "$P/bin" "$P/.shimctl"
  ln -s /usr/lib "$P/lib"
  ln -s /usr/libexec "$P/libexec"
  export CCACHE_DIR=$TEST_DIR/ccache # never the user's cache
  export XDG_CACHE_HOME=$TEST_DIR/xdg-cache # the shim's probe memo: never the user's either
  ulimit -t 10 # CPU seconds: an exec loop (shim -> cache -> shim ...) is one process; end it
}

# install_shim NAME ORIGINAL: P/bin/NAME is the shim, P/bin/NAME.real a copy of ORIGINAL.
install_shim() {
  cp "$SHIM_BIN" "$P/bin/$1"
  cp "$2" "$P/bin/$1.real"
}

# write_conf CACHE [LINE...]: P/bin/.shimctl.conf with the given cache tool and extra lines.
write_conf() {
  local cache=$1
  shift
  {
    echo "shimctl-shim-config 1"
    echo "# written by hand for the shim suite"
    echo "state $P/.shimctl"
    echo "cache $cache"
    echo "cache-kind ccache"
    printf '%s\n' "$@"
  } > "$P/bin/.shimctl.conf"
}

# gcc_fixture: P/bin/cc is the shim over a copy of gcc, cached by the real ccache.
gcc_fixture() {
  make_prefix
  install_shim cc /usr/bin/gcc
  write_conf "$(command -v ccache)" "compiler cc cc.real"
  echo 'int answer(void) { return 42; }' > a.c
}

# recorder_fixture [LINE...]: P/bin/cc is the shim over a recorder; the cache tool is a
# recorder too (TEST_DIR/fakecache), so each call shows who ran and with what.
recorder_fixture() {
  make_prefix
  install_shim cc "$(recorder)"
  cp "$(recorder)" "$TEST_DIR/fakecache"
  write_conf "$TEST_DIR/fakecache" "compiler cc cc.real" "$@"
  export RECORD_FILE=$TEST_DIR/record
  rm -f "$RECORD_FILE"
}

# The recorded calls, one line each: "basename-of-exe|argv0|argv1|...".
calls() {
  [ -f "$RECORD_FILE" ] || return 0
  awk '/^exe=/ { if (line != "") print line; n = split(substr($0, 5), p, "/"); line = p[n] }
       /^argv=/ { line = line "|" substr($0, 6) }
       END { if (line != "") print line }' "$RECORD_FILE"
  rm -f "$RECORD_FILE"
}

# recorded_env NAME: NAME's value in the last recorded call, or "<unset>".
recorded_env() {
  awk -v k="env:$1=" '/^exe=/ { v = "<unset>" } index($0, k) == 1 { v = substr($0, length(k) + 1) }
                      END { print v }' "$RECORD_FILE"
}

test_shim_is_static() {
  TEST "the shim is a static binary that names its version"
  expect_contains "$(file -L "$SHIM_BIN")" "statically linked" "file $SHIM_BIN"
  expect_contains "$(strings "$SHIM_BIN" | grep shimctl-shim)" "@(#)shimctl-shim 0.1.0" "ident"
}

test_direct_exec_keeps_argv() {
  TEST "direct exec passes argv unchanged, argv[0] too"
  recorder_fixture "setenv SHIMCTL_TEST_DEFAULT=1"
  SHIMCTL_ACTIVE=1 "$P/bin/cc" "a b" "" -x "\$HOME" "*"
  expect_eq "cc.real|$P/bin/cc|a b||-x|\$HOME|*" "$(calls)" "argv"
  SHIMCTL_ACTIVE=1 "$P/bin/cc"
  expect_eq "cc.real|$P/bin/cc" "$(calls)" "argv without arguments"
  SHIMCTL_ACTIVE=1 "$P/bin/cc" -c x.c
  expect_eq "<unset>" "$(recorded_env SHIMCTL_TEST_DEFAULT)" "setenv on a direct exec"
}

test_exit_code_propagates() {
  TEST "the compiler's exit code comes back"
  recorder_fixture
  RECORD_EXIT=7 SHIMCTL_ACTIVE=1 "$P/bin/cc" -c x.c
  expect_eq 7 $? "exit code of a direct exec"
  gcc_fixture
  echo 'int broken(void) { return }' > bad.c
  "$P/bin/cc" -c bad.c -o bad.o 2>/dev/null
  expect_eq 1 $? "exit code of a failing compile through ccache"
}

test_stdin_passes_through() {
  TEST "stdin reaches the compiler"
  gcc_fixture
  expect_contains "$(echo 'int x_from_stdin;' | SHIMCTL_ACTIVE=1 "$P/bin/cc" -x c -E -)" \
    "int x_from_stdin;" "direct"
  expect_contains "$(echo 'int x_from_stdin;' | "$P/bin/cc" -x c -E -)" "int x_from_stdin;" \
    "through ccache"
}

test_nothing_on_stdout() {
  TEST "the shim never writes to stdout"
  gcc_fixture
  expect_eq "" "$(SHIMCTL_SHIM_TRACE=1 "$P/bin/cc" -c a.c -o a.o 2>/dev/null)" "compile"
  expect_eq "" "$(SHIMCTL_STRICT=1 "$P/bin/cc" -c a.c -o a.o 2>/dev/null)" "strict compile"
  rm "$P/bin/.shimctl.conf" "$P/bin/cc.real"
  expect_eq "" "$(SHIMCTL_SHIM_TRACE=1 "$P/bin/cc" -c a.c 2>/dev/null)" "error"
}

test_setenv_defaults_only_when_unset() {
  TEST "setenv applies defaults where the variable is unset"
  recorder_fixture "setenv SHIMCTL_TEST_A=default a" "setenv SHIMCTL_TEST_B=default b" \
    "setenv SHIMCTL_TEST_A=second default"
  SHIMCTL_TEST_B=mine "$P/bin/cc" -c x.c
  expect_eq "default a" "$(recorded_env SHIMCTL_TEST_A)" "unset variable"
  expect_eq "mine" "$(recorded_env SHIMCTL_TEST_B)" "variable set by the user"
  expect_eq 1 "$(recorded_env SHIMCTL_ACTIVE)" "SHIMCTL_ACTIVE for the cache"
  expect_eq 1 "$(grep -c '^env:SHIMCTL_TEST_A=' "$RECORD_FILE")" "entries for one name"
}

test_appendenv_appends() {
  TEST "appendenv appends with ':'"
  recorder_fixture "appendenv CCACHE_EXTRAFILES=/opt/x/ident"
  "$P/bin/cc" -c x.c
  expect_eq /opt/x/ident "$(recorded_env CCACHE_EXTRAFILES)" "unset"
  CCACHE_EXTRAFILES=/mine "$P/bin/cc" -c x.c
  expect_eq /mine:/opt/x/ident "$(recorded_env CCACHE_EXTRAFILES)" "set by the user"
  CCACHE_EXTRAFILES='' "$P/bin/cc" -c x.c
  expect_eq /opt/x/ident "$(recorded_env CCACHE_EXTRAFILES)" "set but empty"
}

test_nested_call_goes_direct() {
  TEST "SHIMCTL_ACTIVE set: a nested call goes straight to the original"
  recorder_fixture
  SHIMCTL_ACTIVE=1 "$P/bin/cc" -c x.c
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "nested call"
  "$P/bin/cc" -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cc|-c|x.c" "$(calls)" "outermost call"
}

test_parent_ccache_goes_direct() {
  TEST "under a ccache launcher the shim goes direct: one cache entry"
  gcc_fixture
  expect_success ccache "$P/bin/cc" -c a.c -o a.o
  expect_misses "$CCACHE_DIR" 1
  expect_eq 0 "$(ccache_stat "$CCACHE_DIR" called_for_preprocessing)" "nested ccache calls"
  expect_success ccache "$P/bin/cc" -c a.c -o b.o
  expect_hits "$CCACHE_DIR" 1
  # ccache 4.7 also guards itself (it exports CCACHE_DISABLE=1 to the compiler), so the
  # counters alone cannot show a second ccache exec; the trace can. A miss: a hit runs no compiler.
  echo 'int other(void) { return 1; }' > b.c
  expect_eq "shimctl-shim: direct $P/bin/cc.real" \
    "$(SHIMCTL_SHIM_TRACE=1 ccache "$P/bin/cc" -c b.c -o b.o 2>&1)" "trace"
}

test_parent_named_like_a_cache() {
  TEST "a parent whose executable is named ccache* or sccache* counts as a launcher"
  recorder_fixture
  local name
  # shellcheck disable=SC2016 # $0 is expanded by the launcher's bash
  for name in ccache-4.7 sccache; do
    cp "$(command -v bash)" "$TEST_DIR/$name"
    "$TEST_DIR/$name" -c '"$0" -c x.c; true' "$P/bin/cc" # "; true": bash forks, not execs
    expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "under $name"
  done
  cp "$(command -v bash)" "$TEST_DIR/not-ccache"
  # shellcheck disable=SC2016
  "$TEST_DIR/not-ccache" -c '"$0" -c x.c; true' "$P/bin/cc"
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cc|-c|x.c" "$(calls)" "under not-ccache"
}

test_invocation_forms() {
  TEST "the cache runs the compiler by the path the caller used"
  recorder_fixture "alias cxx cc"
  ln -s cc "$P/bin/cxx"
  mkdir other && ln -s "$P/bin/cc" other/mycc # a name the config does not know
  "$P/bin/cc" -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cc|-c|x.c" "$(calls)" "absolute path"
  prefix/bin/cc -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|prefix/bin/cc|-c|x.c" "$(calls)" "relative path"
  PATH=$P/bin:$PATH cc -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cc|-c|x.c" "$(calls)" "bare name via PATH"
  ./prefix/bin/cxx -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|./prefix/bin/cxx|-c|x.c" "$(calls)" "alias by path"
  PATH=$P/bin:$PATH cxx -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cxx|-c|x.c" "$(calls)" "alias via PATH"
  PATH=$TEST_DIR/other:$PATH mycc -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|$TEST_DIR/other/mycc|-c|x.c" "$(calls)" "unknown name"
  SHIMCTL_ACTIVE=1 PATH=$P/bin:$PATH cxx -c x.c
  expect_eq "cc.real|cxx|-c|x.c" "$(calls)" "alias, direct"
}

test_alias_through_real_ccache() {
  TEST "through the real ccache the original receives the alias as argv[0]"
  recorder_fixture "alias cxx cc"
  sed -i "s|^cache .*|cache $(command -v ccache)|" "$P/bin/.shimctl.conf"
  ln -s cc "$P/bin/cxx"
  ./prefix/bin/cxx --version # ccache execs it in place: SHIMCTL_ACTIVE prevents a loop
  expect_eq "cc.real|./prefix/bin/cxx|--version" "$(calls)" "argv through ccache"
}

test_cache_hit_on_repeat() {
  TEST "a repeated compile through the shim is a ccache hit"
  gcc_fixture
  expect_success "$P/bin/cc" -c a.c -o a1.o
  expect_success "$P/bin/cc" -c a.c -o a2.o
  expect_misses "$CCACHE_DIR" 1
  expect_hits "$CCACHE_DIR" 1
  expect_same_file a1.o a2.o
  expect_success "$P/bin/cc" -c a.c -o a3.o
  expect_hits "$CCACHE_DIR" 2
}

test_cache_missing_falls_back() {
  TEST "cache tool missing: the compile succeeds and the event is logged"
  gcc_fixture
  write_conf "$TEST_DIR/no/ccache" "compiler cc cc.real"
  expect_success "$P/bin/cc" -c a.c -o a.o
  [ -f a.o ] || fail "no object"
  local log; log=$(cat "$P/.shimctl/events.log")
  expect_eq 1 "$(grep -cE "^[0-9]+ cache-missing $TEST_DIR/no/ccache No such file or directory\$" \
    <<< "$log")" "events.log: $log"
  expect_perm "$P/.shimctl/events.log" 644
  rm -r "$P/.shimctl" # the log is best effort
  expect_success "$P/bin/cc" -c a.c -o b.o
}

test_strict_cache_missing_fails() {
  TEST "SHIMCTL_STRICT=1 makes a missing cache tool an error"
  gcc_fixture
  write_conf "$TEST_DIR/no/ccache" "compiler cc cc.real"
  local err
  err=$(SHIMCTL_STRICT=1 "$P/bin/cc" -c a.c -o a.o 2>&1)
  expect_eq 1 $? "exit code"
  expect_eq "shimctl-shim: cache tool $TEST_DIR/no/ccache cannot run: No such file or directory (SHIMCTL_STRICT=1; unset it to compile without the cache)" "$err" "message"
  [ ! -e a.o ] || fail "compiled anyway"
}

test_disable_bypasses() {
  TEST "SHIMCTL_DISABLE=1 bypasses the cache"
  recorder_fixture "setenv SHIMCTL_TEST_DEFAULT=1"
  SHIMCTL_DISABLE=1 "$P/bin/cc" -c x.c
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "disabled"
  SHIMCTL_DISABLE=1 "$P/bin/cc" -c x.c
  expect_eq "<unset>" "$(recorded_env SHIMCTL_ACTIVE)" "SHIMCTL_ACTIVE"
  rm "$RECORD_FILE"
  SHIMCTL_DISABLE=0 "$P/bin/cc" -c x.c
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cc|-c|x.c" "$(calls)" "SHIMCTL_DISABLE=0"
}

test_trace_lines() {
  TEST "SHIMCTL_SHIM_TRACE=1 tells the decision"
  gcc_fixture
  # The nested shim (under ccache) stays silent: ccache would store its line and replay it on hits.
  expect_eq "shimctl-shim: cache $(command -v ccache) $P/bin/cc" \
    "$(SHIMCTL_SHIM_TRACE=1 "$P/bin/cc" -c a.c -o a.o 2>&1)" "through the cache"
  expect_eq "shimctl-shim: cache $(command -v ccache) $P/bin/cc" \
    "$(SHIMCTL_SHIM_TRACE=1 "$P/bin/cc" -c a.c -o a.o 2>&1)" "a hit replays no trace line"
  expect_hits "$CCACHE_DIR" 1
  expect_eq "shimctl-shim: direct $P/bin/cc.real" \
    "$(SHIMCTL_SHIM_TRACE=1 SHIMCTL_DISABLE=1 "$P/bin/cc" -c a.c -o a.o 2>&1)" "disabled"
}

test_missing_config() {
  TEST "no config: NAME.real runs directly, else one line and 127"
  recorder_fixture
  ln -s cc "$P/bin/cxx"
  rm "$P/bin/.shimctl.conf"
  "$P/bin/cc" -c x.c
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "own name"
  "$P/bin/cxx" -c x.c
  expect_eq "cc.real|$P/bin/cxx|-c|x.c" "$(calls)" "alias, falls back to the shim's own name"
  rm "$P/bin/cc.real"
  local err
  err=$("$P/bin/cc" -c x.c 2>&1)
  expect_eq 127 $? "exit code"
  expect_eq "shimctl-shim: cannot read $P/bin/.shimctl.conf: No such file or directory; run 'shimctl verify'" \
    "$err" "message"
}

test_malformed_config() {
  TEST "malformed config: NAME.real runs directly, else file:line and 127"
  recorder_fixture
  local bad err
  for bad in "frobnicate yes" "cache relative/ccache" "cache-kind distcc" "compiler cc" \
    "compiler cc  cc.real" "alias cxx nosuch" "setenv NOVALUE" "state"; do
    write_conf "$TEST_DIR/fakecache" "compiler cc cc.real" "$bad"
    "$P/bin/cc" -c x.c
    expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "with '$bad'"
  done
  write_conf "$TEST_DIR/fakecache" "compiler cc cc" # would exec itself forever
  "$P/bin/cc" -c x.c
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "original = the shim"
  printf 'shimctl-shim-config 2\ncompiler cc cc.real\n' > "$P/bin/.shimctl.conf"
  "$P/bin/cc" -c x.c
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "format 2"
  mv "$P/bin/cc.real" "$P/bin/cc.orig"
  err=$("$P/bin/cc" -c x.c 2>&1)
  expect_eq 127 $? "exit code"
  expect_eq "shimctl-shim: $P/bin/.shimctl.conf:1: expected 'shimctl-shim-config 1', found: shimctl-shim-config 2; run 'shimctl verify'" \
    "$err" "message"
  write_conf "$TEST_DIR/fakecache" "compiler cc cc.orig" "frobnicate yes"
  err=$("$P/bin/cc" -c x.c 2>&1)
  expect_eq "shimctl-shim: $P/bin/.shimctl.conf:7: unknown directive: frobnicate; run 'shimctl verify'" \
    "$err" "message"
}

test_unmapped_name() {
  TEST "a name neither in the config nor the shim's own: one line and 127"
  recorder_fixture
  write_conf "$TEST_DIR/fakecache" "compiler gcc gcc.real"
  "$P/bin/cc" -c x.c
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "with cc.real beside the shim"
  rm "$P/bin/cc.real"
  local err
  err=$("$P/bin/cc" -c x.c 2>&1)
  expect_eq 127 $? "exit code"
  expect_eq "shimctl-shim: no compiler entry for 'cc' in $P/bin/.shimctl.conf; run 'shimctl verify'" \
    "$err" "message"
}

test_original_missing() {
  TEST "original compiler missing: one line naming the prefix, and 127"
  recorder_fixture
  rm "$P/bin/cc.real"
  local err
  err=$(SHIMCTL_ACTIVE=1 "$P/bin/cc" -c x.c 2>&1)
  expect_eq 127 $? "exit code"
  expect_eq "shimctl-shim: original compiler $P/bin/cc.real cannot run: No such file or directory; run 'shimctl verify $P'" \
    "$err" "message"
}

test_original_restored_mid_call() {
  TEST "NAME.real renamed back over NAME mid-call (a rollback): the restored original runs"
  recorder_fixture "alias cxx cc"
  cp "$SHIM_BIN" "$P/bin/cxx" # a shim that started before the rollback renamed cc.real over cc
  mv "$P/bin/cc.real" "$P/bin/cc"
  SHIMCTL_ACTIVE=1 "$P/bin/cxx" -c x.c
  expect_eq 0 $? "exit code"
  expect_eq "cc|$P/bin/cxx|-c|x.c" "$(calls)" "the restored original ran, argv unchanged"
}

FP_SNAPSHOT=1111111111111111111111111111111111111111111111111111111111111111
FP_HELPER=2222222222222222222222222222222222222222222222222222222222222222

# identity_fixture: the recorder fixture with an identity helper (a script that logs its
# arguments to $TEST_DIR/helper.calls, says something on stderr and prints $FP_HELPER, or exits
# with $HELPER_EXIT), two identity inputs and a current snapshot in P/.shimctl/identity.
identity_fixture() { # [LINE...]: more config lines
  recorder_fixture "identity-helper $TEST_DIR/helper" "$@"
  printf '#!/bin/sh\necho "$*" >> %s/helper.calls\necho "helper noise" >&2\n[ -z "$HELPER_EXIT" ] || exit "$HELPER_EXIT"\necho %s\n' \
    "$TEST_DIR" "$FP_HELPER" > "$TEST_DIR/helper"
  chmod 755 "$TEST_DIR/helper"
  mkdir -p "$P/lib-id"
  echo one > "$P/lib-id/a.bc"
  echo two > "$P/lib-id/b.bc"
  write_snapshot "$FP_SNAPSHOT" "$P/lib-id/a.bc" "$P/lib-id/b.bc"
  rm -f "$TEST_DIR/helper.calls"
}

# write_snapshot FINGERPRINT FILE...: P/.shimctl/identity as shimctl writes it.
write_snapshot() {
  python3 - "$P/.shimctl/identity" "$@" <<'PY'
import os, sys
out, fp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
lines, current = ["shimctl-identity 1", "fingerprint " + fp], None
for f in files:
    d, name = os.path.split(f)
    if d != current:
        lines.append("dir " + d); current = d
    st = os.stat(f)
    lines.append(f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {name}")
open(out, "w").write("\n".join(lines) + "\n")
PY
}

helper_calls() { [ -f "$TEST_DIR/helper.calls" ] && wc -l < "$TEST_DIR/helper.calls" || echo 0; }

test_identity_current_snapshot() {
  TEST "identity: a current snapshot keys the cache by its fingerprint, without the helper"
  identity_fixture
  "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq "string:shimctl-${FP_SNAPSHOT:0:32}" "$(recorded_env CCACHE_COMPILERCHECK)" "key"
  expect_eq 0 "$(helper_calls)" "helper calls"
  CCACHE_COMPILERCHECK=content "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq content "$(recorded_env CCACHE_COMPILERCHECK)" "the user's CCACHE_COMPILERCHECK wins"
  expect_eq 0 "$(helper_calls)" "helper calls with the user's CCACHE_COMPILERCHECK"
}

test_identity_stale_snapshot_asks_the_helper() {
  TEST "identity: any input change (touch, new bytes, a replaced file) or a bad snapshot asks the helper"
  identity_fixture
  local n=0 change err
  for change in "touch -d @1 $P/lib-id/a.bc" "echo three >> $P/lib-id/b.bc" \
    "cp $P/lib-id/a.bc $P/lib-id/a.new && mv $P/lib-id/a.new $P/lib-id/a.bc" \
    "rm $P/lib-id/b.bc" "truncate -s -1 $P/.shimctl/identity" "rm $P/.shimctl/identity" \
    "sed -i 1s/1/2/ $P/.shimctl/identity" "sed -i '2s/^fingerprint 1/fingerprint x/' $P/.shimctl/identity"; do
    echo two > "$P/lib-id/b.bc"
    write_snapshot "$FP_SNAPSHOT" "$P/lib-id/a.bc" "$P/lib-id/b.bc"
    "$P/bin/cc" -c x.c >/dev/null 2>&1
    calls >/dev/null
    expect_eq "$n" "$(helper_calls)" "no helper call before: $change"
    eval "$change"
    err=$("$P/bin/cc" -c x.c 2>&1) || fail "compile failed after: $change"
    n=$((n + 1))
    expect_eq "$n" "$(helper_calls)" "helper calls after: $change"
    expect_eq "string:shimctl-${FP_HELPER:0:32}" "$(recorded_env CCACHE_COMPILERCHECK)" "key after: $change"
    expect_eq "" "$err" "the helper's stderr reaches the compile's (after: $change)"
  done
  expect_eq "identity-check $P" "$(tail -1 "$TEST_DIR/helper.calls")" "the helper's arguments"
}

test_identity_unknown_runs_uncached() {
  TEST "identity: the helper fails or is missing: an uncached compile, logged; strict: exit 1"
  identity_fixture
  touch -d @1 "$P/lib-id/a.bc"
  HELPER_EXIT=3 "$P/bin/cc" -c x.c || fail "the compile failed because the helper failed"
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "the original ran directly"
  expect_contains "$(cat "$P/.shimctl/events.log")" "identity-unknown" "events.log"
  rm "$TEST_DIR/helper"
  "$P/bin/cc" -c x.c || fail "the compile failed because the helper is missing"
  expect_eq "cc.real|$P/bin/cc|-c|x.c" "$(calls)" "the original ran directly (helper missing)"
  local err
  err=$(SHIMCTL_STRICT=1 "$P/bin/cc" -c x.c 2>&1)
  expect_eq 1 $? "strict exit code"
  expect_eq "shimctl-shim: cannot establish the toolchain identity: $TEST_DIR/helper identity-check failed (SHIMCTL_STRICT=1; unset it to compile without the cache)" \
    "$err" "strict message"
  expect_eq "" "$(calls)" "strict: nothing ran"
}

test_target_in_the_key() {
  TEST "target: keyenv values, the probe's GPU list and a native CPU join the key; a native GPU without probe runs uncached"
  identity_fixture "keyenv HCC_AMDGPU_TARGET" "keyenv NVCC_APPEND_FLAGS" "target-probe cc $TEST_DIR/probe" \
    "native-probe cc $TEST_DIR/native"
  printf '#!/bin/sh\necho probe >> %s/probe.calls\necho gfx000\necho "${GPUS:-gfx90a}"\n' "$TEST_DIR" > "$TEST_DIR/probe"
  printf '#!/bin/sh\necho native >> %s/probe.calls\necho "${GPUS:-gfx90a}"\n' "$TEST_DIR" > "$TEST_DIR/native"
  chmod 755 "$TEST_DIR/probe" "$TEST_DIR/native"
  local base="string:shimctl-${FP_SNAPSHOT:0:32}"
  probes() { [ -f "$TEST_DIR/probe.calls" ] && wc -l < "$TEST_DIR/probe.calls" || echo 0; }
  "$P/bin/cc" --offload-arch=gfx90a -c x.c || fail "compile failed"
  expect_eq "$base" "$(recorded_env CCACHE_COMPILERCHECK)" "explicit target, no variables"
  expect_eq 0 "$(probes)" "no probe with an explicit target"
  HCC_AMDGPU_TARGET=gfx942 NVCC_APPEND_FLAGS='-G -lineinfo' "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq "$base;HCC_AMDGPU_TARGET=gfx942;NVCC_APPEND_FLAGS=-G -lineinfo" \
    "$(recorded_env CCACHE_COMPILERCHECK)" "variables in the key (HCC_AMDGPU_TARGET names the target)"
  expect_eq 0 "$(probes)" "no probe with HCC_AMDGPU_TARGET"
  "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq "$base;gpus=gfx000,gfx90a," "$(recorded_env CCACHE_COMPILERCHECK)" "no target: the probe's GPUs"
  GPUS=gfx1100 "$P/bin/cc" --offload-arch native -c x.c || fail "compile failed"
  expect_eq "$base;gpus=gfx1100," "$(recorded_env CCACHE_COMPILERCHECK)" "a native target: the native probe's GPUs"
  expect_eq "probe native" "$(paste -sd ' ' "$TEST_DIR/probe.calls")" "probes run"
  HIPCC_COMPILE_FLAGS_APPEND='--offload-arch=gfx908' "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq 2 "$(probes)" "no probe when HIPCC_COMPILE_FLAGS_APPEND names the target"
  "$P/bin/cc" -E -P x.c -o /dev/null || fail "preprocess failed"
  "$P/bin/cc" x.o -o x || fail "link failed"
  expect_eq 2 "$(probes)" "no probe for what the cache passes through (-E, a link)"
  "$P/bin/cc" -S x.c || fail "compile to assembly failed"
  expect_eq 3 "$(probes)" "a probe for -S"
  printf '#!/bin/sh\nexit 3\n' > "$TEST_DIR/probe"
  "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq "$base;gpus=;probe-status=3" "$(recorded_env CCACHE_COMPILERCHECK)" "a failing probe is keyed as such"
  calls >/dev/null
  # Without a native-probe a native target cannot be keyed (the target-probe answers another
  # question): the original runs, uncached, logged.
  identity_fixture "keyenv NVCC_APPEND_FLAGS" "target-probe cc $TEST_DIR/probe"
  "$P/bin/cc" -arch=native -c x.c || fail "compile failed"
  expect_eq "cc.real|$P/bin/cc|-arch=native|-c|x.c" "$(calls)" "-arch=native ran the original directly"
  expect_contains "$(cat "$P/.shimctl/events.log")" "target-unkeyed" "events.log"
  identity_fixture "keyenv NVCC_APPEND_FLAGS"
  # -march=native means this machine's CPU: what /proc/cpuinfo says of it joins the key.
  "$P/bin/cc" -march=native -c x.c || fail "compile failed"
  local key; key=$(recorded_env CCACHE_COMPILERCHECK)
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cc|-march=native|-c|x.c" "$(calls)" "-march=native is cached"
  local model flags
  model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  flags=$(awk -F': ' '/^(flags|Features)/ { print $2; exit }' /proc/cpuinfo)
  expect_contains "$key" ";cpu=" "-march=native key"
  expect_contains "$key" "$model" "-march=native key: model name"
  expect_contains "$key" "$flags" "-march=native key: CPU flags"
  "$P/bin/cc" -Xcompiler -mtune=native,-O2 -c x.c || fail "compile failed"
  expect_contains "$(recorded_env CCACHE_COMPILERCHECK)" "$flags" "-Xcompiler -mtune=native key"
  "$P/bin/cc" -march=x86-64-v3 -c x.c || fail "compile failed"
  expect_eq "string:shimctl-${FP_SNAPSHOT:0:32}" "$(recorded_env CCACHE_COMPILERCHECK)" "an explicit CPU: in the command line only"
}

test_target_key_for_sccache() {
  TEST "target: under sccache the key goes into SCCACHE_C_CUSTOM_CACHE_BUSTER"
  # The shim execs sccache only when its server answers: a listener on a free port stands in.
  python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); time.sleep(300)' >"$TEST_DIR/port" &
  local listener=$!
  wait_until 10 "a listener's port in $TEST_DIR/port" test -s "$TEST_DIR/port"
  recorder_fixture "keyenv HCC_AMDGPU_TARGET" "setenv SCCACHE_C_CUSTOM_CACHE_BUSTER=shimctl-abc" \
    "setenv SCCACHE_SERVER_PORT=$(cat "$TEST_DIR/port")"
  sed -i 's/^cache-kind ccache$/cache-kind sccache/' "$P/bin/.shimctl.conf"
  HCC_AMDGPU_TARGET=gfx90a "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq "shimctl-abc;HCC_AMDGPU_TARGET=gfx90a" "$(recorded_env SCCACHE_C_CUSTOM_CACHE_BUSTER)" "buster"
  "$P/bin/cc" -c x.c || fail "compile failed"
  expect_eq "shimctl-abc" "$(recorded_env SCCACHE_C_CUSTOM_CACHE_BUSTER)" "buster without the variable"
  calls >/dev/null
  # No server and none can be started (this sccache's --start-server starts nothing): a start
  # that failed quickly is tried again, three starts in all, then the compile runs uncached.
  kill "$listener"; wait "$listener" 2>/dev/null
  "$P/bin/cc" -c x.c || fail "compile failed"
  local start="fakecache|$TEST_DIR/fakecache|--start-server"
  expect_eq "$start $start $start cc.real|$P/bin/cc|-c|x.c" "$(calls | paste -sd ' ')" "calls without a server"
}

test_unwritable_cache_dir_falls_back() {
  TEST "a cache dir the user cannot write: the compile runs uncached instead of failing"
  gcc_fixture
  id nobody >/dev/null 2>&1 || { echo "    (no user nobody: skipped)"; return 0; }
  mkdir -p "$TEST_DIR/rootcache" "$TEST_DIR/out"
  chmod 755 "$SUITE_TMP" "$TEST_DIR" "$TEST_DIR/rootcache"
  chmod 777 "$TEST_DIR/out"
  write_conf "$(command -v ccache)" "compiler cc cc.real" "setenv CCACHE_DIR=$TEST_DIR/rootcache"
  # Without the shim's guard ccache itself fails: "Failed to create directory ...".
  runuser -u nobody -- env -u CCACHE_DIR HOME=/tmp CCACHE_DIR="$TEST_DIR/rootcache" \
    ccache "$P/bin/cc.real" -c a.c -o "$TEST_DIR/out/plain.o" 2>/dev/null &&
    fail "ccache unexpectedly compiled into an unwritable cache dir (the test proves nothing)"
  runuser -u nobody -- env -u CCACHE_DIR HOME=/tmp "$P/bin/cc" -c a.c -o "$TEST_DIR/out/a.o" ||
    fail "the compile failed because of the cache layer"
  [ -s "$TEST_DIR/out/a.o" ] || fail "no object"
  [ -z "$(ls -A "$TEST_DIR/rootcache")" ] || fail "something was written to the cache dir"
  local err
  err=$(runuser -u nobody -- env -u CCACHE_DIR HOME=/tmp SHIMCTL_STRICT=1 "$P/bin/cc" -c a.c \
    -o "$TEST_DIR/out/b.o" 2>&1)
  expect_eq 1 $? "strict exit code"
  expect_eq "shimctl-shim: cache directory $TEST_DIR/rootcache is not writable by this user (SHIMCTL_STRICT=1; unset it to compile without the cache)" "$err" "strict message"
}

test_uncacheable_calls_skip_the_cache() {
  TEST "links, -E and one-step calls exec the original directly; measure's stats log names them"
  recorder_fixture
  "$P/bin/cc" a.o b.o -o prog
  expect_eq "cc.real|$P/bin/cc|a.o|b.o|-o|prog" "$(calls)" "a link"
  "$P/bin/cc" -mcumode -x hip -E -P /dev/null -o /dev/null
  expect_eq "cc.real|$P/bin/cc|-mcumode|-x|hip|-E|-P|/dev/null|-o|/dev/null" "$(calls)" "aiter's flag probe"
  "$P/bin/cc" -fPIC -shared k.cpp -o k.so
  expect_eq "cc.real|$P/bin/cc|-fPIC|-shared|k.cpp|-o|k.so" "$(calls)" "a one-step compile and link"
  "$P/bin/cc" -c k.cpp -o k.o
  expect_eq "fakecache|$TEST_DIR/fakecache|$P/bin/cc|-c|k.cpp|-o|k.o" "$(calls)" "a compile"

  # Real ccache: a link through the shim never reaches it; the stats log still has the call.
  gcc_fixture
  echo 'int main(void) { return 0; }' > m.c
  expect_success "$P/bin/cc" -c m.c -o m.o
  expect_success env CCACHE_STATSLOG="$TEST_DIR/stats.log" "$P/bin/cc" m.o -o prog
  expect_success env CCACHE_STATSLOG="$TEST_DIR/stats.log" "$P/bin/cc" m.c -o prog2
  expect_success env CCACHE_STATSLOG="$TEST_DIR/stats.log" "$P/bin/cc" -E m.c -o m.i
  [ -x prog ] && [ -x prog2 ] && [ -s m.i ] || fail "the uncached calls made no output"
  expect_eq 0 "$(ccache_stat "$CCACHE_DIR" called_for_link)" "links ccache saw"
  expect_eq 0 "$(ccache_stat "$CCACHE_DIR" called_for_preprocessing)" "-E calls ccache saw"
  expect_eq "called_for_link one_step_compile_and_link called_for_preprocessing" \
    "$(grep -v '^#' stats.log | paste -sd ' ')" "records in the stats log"
  expect_eq 3 "$(grep -c '^# shimctl-shim: ran without the cache$' stats.log)" "record headers"
}
