# ccache >= 4.13 reads a ccache.conf from the compile's working directory or a parent (the sid
# leg: ccache 4.14.2). A file planted in a JIT build directory must not give a shimmed compile a
# stale or wrong object, fail it, switch its cache off silently or drop shimctl's identity: the
# shim names the working directory in CCACHE_CEILING_DIRS, so ccache reads no such file, and
# reports one it finds in events.log (once). Each planted file is first shown to act on plain
# ccache 4.14.2 (so that the test proves something), then compiled through the shim.
# One ROCm-7-shaped prefix for the whole suite, in a private /opt (private_opt_rocm7), installed
# once without verification; each test has its own CCACHE_DIR (the shim's default applies only
# where the variable is unset).

private_mounts

suite_requires() {
  [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && command -v ccache >/dev/null && command -v gcc >/dev/null &&
    [ -x /usr/lib/llvm-21/bin/clang ] && file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF &&
    ccache_at_least 4 13
}

# ccache_at_least MAJOR MINOR: the ccache in PATH is that version or newer.
ccache_at_least() {
  local v; v=$(ccache --version | sed -n '1s/^ccache version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
  [ -n "$v" ] || return 1
  set -- "$1" "$2" $v
  [ "$3" -gt "$1" ] || { [ "$3" -eq "$1" ] && [ "$4" -ge "$2" ]; }
}

# Each dangerous file: a name, its content, and what plain ccache 4.14.2 does with it: "honour"
# (ccache --show-config names this file as the origin) or "error:<message part>" (every compile
# in the directory fails).
CASES=(
  "mtime|compiler_check = mtime|honour"
  "sloppy|sloppiness = include_file_mtime,include_file_ctime,time_macros,system_headers,pch_defines|honour"
  "disable|disable = true|honour"
  "hashdir|hash_dir = false|honour"
  "basedir|base_dir = /|honour"
  "ignore|ignore_options = -DVALUE=*|honour"
  "secondcpp|run_second_cpp = false|error:unknown configuration option \"run_second_cpp\""
  "remote|remote_storage = redis://127.0.0.1:1|error:\"remote_storage\" is considered unsafe"
  "cachedir|cache_dir = /tmp/shimctl-planted-cache|error:\"cache_dir\" is not allowed in directory configuration files"
)

CLANG=/opt/rocm/lib/llvm/bin/clang
HIPCC=/opt/rocm/bin/hipcc

# setup: the suite's prefix, installed once (with the sid ccache) into a private /opt; this
# test's cache; an empty events.log.
setup() {
  private_opt_rocm7
  if [ ! -f "$ROCM7/.shimctl/manifest.json" ]; then
    "$SHIMCTL" install /opt/rocm --cache-dir "$SUITE_TMP/cache" --no-verify >"$SUITE_TMP/install.out" 2>&1 ||
      fail "install /opt/rocm failed:"$'\n'"$(cat "$SUITE_TMP/install.out")"
  fi
  EVENTS=$ROCM7/.shimctl/events.log
  : >"$EVENTS"
  export CCACHE_DIR=$TEST_DIR/ccache
  printf 'int value(void) { return VALUE; }\n' >"$TEST_DIR/x.c"
}

# plant DIR CONTENT: DIR/ccache.conf with CONTENT (mode 644, as ccache requires).
plant() {
  mkdir -p "$1" && printf '%s\n' "$2" >"$1/ccache.conf" && chmod 644 "$1/ccache.conf"
}

hits() { echo $(($(ccache_stat "$CCACHE_DIR" direct_cache_hit) + $(ccache_stat "$CCACHE_DIR" preprocessed_cache_hit))); }
misses() { ccache_stat "$CCACHE_DIR" cache_miss; }

# shim_c DIR VALUE OUT: through the shim, in DIR, clang -g -DVALUE=VALUE -c x.c -o x.o; the
# object moves to OUT. fresh_c likewise, without the cache (the shim execs the original).
shim_c() {
  (cd "$1" && cp "$TEST_DIR/x.c" . && "$CLANG" -g -DVALUE="$2" -c x.c -o x.o 2>"$TEST_DIR/c.err" && mv x.o "$3") ||
    fail "shimmed clang in $1 failed:"$'\n'"$(cat "$TEST_DIR/c.err")"
}
fresh_c() {
  (cd "$1" && cp "$TEST_DIR/x.c" . && SHIMCTL_DISABLE=1 "$CLANG" -g -DVALUE="$2" -c x.c -o x.o 2>"$TEST_DIR/c.err" &&
    mv x.o "$3") || fail "fresh clang in $1 failed:"$'\n'"$(cat "$TEST_DIR/c.err")"
}

# event_count PATH: lines of events.log reporting PATH as an ignored ccache.conf.
event_count() { grep -c " ccache-conf-ignored $(command -v ccache) $1\$" "$EVENTS"; }

test_plain_ccache_honours_the_planted_files() {
  TEST "plain ccache 4.14.2 reads each planted ccache.conf, in the working directory or a parent"
  setup
  local c name content effect where dir out
  for c in "${CASES[@]}"; do
    IFS='|' read -r name content effect <<<"$c"
    for where in cwd parent; do
      dir=$TEST_DIR/$name-$where/proj/build
      mkdir -p "$dir"
      if [ $where = cwd ]; then plant "$dir" "$content"; else plant "${dir%/build}" "$content"; fi
      local file; file=$([ $where = cwd ] && echo "$dir" || echo "${dir%/build}")/ccache.conf
      out=$(cd "$dir" && ccache --show-config 2>&1)
      case $effect in
        honour) expect_contains "$out" "($file) ${content%% = *} = " "ccache --show-config in $dir" ;;
        error:*) expect_contains "$out" "ccache: error: $file:1: " "ccache --show-config in $dir"
                 expect_contains "$out" "${effect#error:}" "ccache --show-config in $dir" ;;
      esac
    done
  done
}

test_plain_ccache_gives_wrong_objects_and_failures() {
  TEST "plain ccache 4.14.2 under a planted file: a wrong object (hash_dir, ignore_options), no cache (disable), failed compiles"
  setup
  local p=$TEST_DIR/proj
  mkdir -p "$p/b1" "$p/b2"
  plant "$p" $'hash_dir = false\nignore_options = -DVALUE=*'
  cp x.c "$p/b1/"; cp x.c "$p/b2/"
  (cd "$p/b1" && ccache gcc -g -DVALUE=1 -c x.c -o x.o) || fail "ccache gcc in b1 failed"
  (cd "$p/b2" && ccache gcc -g -DVALUE=2 -c x.c -o x.o) || fail "ccache gcc in b2 failed"
  expect_eq 1 "$(hits)" "plain ccache hits under hash_dir = false and ignore_options"
  expect_same_file "$p/b1/x.o" "$p/b2/x.o" # b2 was served b1's object (VALUE=1, b1's directory)
  mv "$p/b2/x.o" "$p/served.o"
  (cd "$p/b2" && gcc -g -DVALUE=2 -c x.c -o x.o) || fail "gcc in b2 failed"
  cmp -s "$p/b2/x.o" "$p/served.o" && fail "plain ccache's object in b2 is what gcc makes there: the test proves nothing"

  plant "$p" 'disable = true'
  (cd "$p/b1" && ccache gcc -c x.c -DVALUE=3 -o y.o) || fail "ccache gcc under disable = true failed"
  expect_eq "1 1" "$(hits) $(misses)" "counters after a compile under disable = true (not cached)"

  plant "$p" 'run_second_cpp = false'
  local out
  out=$(cd "$p/b1" && ccache gcc -c x.c -DVALUE=4 -o z.o 2>&1) && fail "ccache gcc under run_second_cpp succeeded"
  expect_contains "$out" 'unknown configuration option "run_second_cpp"' "plain ccache's error"
}

test_shim_reads_no_planted_file() {
  TEST "through the shim: every planted file, in the working directory or a parent, is ignored, reported once; objects equal fresh ones"
  setup
  local c name content effect where base b1 b2 h m file1 file2
  for c in "${CASES[@]}"; do
    IFS='|' read -r name content effect <<<"$c"
    for where in cwd parent; do
      base=$TEST_DIR/$name-$where/proj
      b1=$base/b1; b2=$base/b2
      mkdir -p "$b1" "$b2"
      if [ $where = cwd ]; then
        plant "$b1" "$content"; plant "$b2" "$content"; file1=$b1/ccache.conf; file2=$b2/ccache.conf
      else
        plant "$base" "$content"; file1=$base/ccache.conf; file2=$file1
      fi
      h=$(hits); m=$(misses)
      fresh_c "$b1" 1 "$base/fresh1.o"
      fresh_c "$b2" 2 "$base/fresh2.o"
      shim_c "$b1" 1 "$base/s1.o"
      shim_c "$b1" 1 "$base/s1-again.o"
      shim_c "$b2" 2 "$base/s2.o"
      expect_same_file "$base/fresh1.o" "$base/s1.o"
      expect_same_file "$base/fresh1.o" "$base/s1-again.o"
      expect_same_file "$base/fresh2.o" "$base/s2.o"
      # Cached (even under disable = true), keyed by the directory of a -g compile and by -D.
      expect_eq "hits=$((h + 1)) misses=$((m + 2))" "hits=$(hits) misses=$(misses)" "$name/$where counters"
      expect_eq 1 "$(event_count "$file1")" "$name/$where: events.log lines for $file1"
      expect_eq 1 "$(event_count "$file2")" "$name/$where: events.log lines for $file2"
    done
  done
  [ -e /tmp/shimctl-planted-cache ] && fail "a planted cache_dir was used"
  local status; status=$("$SHIMCTL" status /opt/rocm 2>&1) || fail "status failed: $status"
  expect_contains "$status" "ccache-conf-ignored" "status names the shim's report"
}

test_device_library_change_under_planted_files() {
  TEST "hipcc through the shim under planted files: a device-library swap gives a miss equal to a fresh compile"
  setup
  local B=$ROCM7/lib/llvm/lib/clang/21/amdgcn/bitcode
  local p=$TEST_DIR/proj
  mkdir -p "$p/incwd" "$p/inparent/build" "$p/fresh0" "$p/fresh1" "$p/saved"
  write_sid_kernel "$TEST_DIR/m.hip"
  local keys=$'compiler_check = mtime\nsloppiness = include_file_mtime,include_file_ctime,system_headers\nhash_dir = false\nbase_dir = /\nignore_options = --offload-arch=* -ffinite-math-only'
  plant "$p/incwd" "$keys"
  plant "$p/inparent" "$keys"
  expect_contains "$(cd "$p/inparent/build" && ccache --show-config)" "($p/inparent/ccache.conf) compiler_check = mtime" \
    "plain ccache reads the planted file"
  hip_in "$p/incwd" before-cwd.o
  hip_in "$p/inparent/build" before-parent.o
  SHIMCTL_DISABLE=1 hip_in "$p/fresh0" fresh0.o
  expect_same_file "$p/fresh0/fresh0.o" "$p/incwd/before-cwd.o"
  expect_eq "hits=1 misses=1" "hits=$(hits) misses=$(misses)" "counters before the swap"

  cp -p "$B/oclc_finite_only_on.bc" "$B/oclc_finite_only_off.bc" "$p/saved/"
  cp "$B/oclc_finite_only_on.bc" "$B/oclc_finite_only_off.bc.new" && mv "$B/oclc_finite_only_off.bc.new" "$B/oclc_finite_only_off.bc"
  SHIMCTL_DISABLE=1 hip_in "$p/fresh1" fresh1.o
  cmp -s "$p/fresh0/fresh0.o" "$p/fresh1/fresh1.o" &&
    { restore_bitcode; fail "the device-library swap does not change a fresh object: the test proves nothing"; }
  hip_in "$p/incwd" after-cwd.o
  hip_in "$p/inparent/build" after-parent.o
  restore_bitcode
  expect_same_file "$p/fresh1/fresh1.o" "$p/incwd/after-cwd.o"
  expect_same_file "$p/fresh1/fresh1.o" "$p/inparent/build/after-parent.o"
  expect_eq "hits=2 misses=2" "hits=$(hits) misses=$(misses)" "counters after the swap (one miss, then a hit)"
  expect_eq 1 "$(event_count "$p/incwd/ccache.conf")" "events for the file in the working directory"
  expect_eq 1 "$(event_count "$p/inparent/ccache.conf")" "events for the file in the parent"
}

# write_sid_kernel FILE: a kernel whose code depends on oclc_finite_only_off.bc (sqrtf, sinf).
write_sid_kernel() {
  cat >"$1" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void planted(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(in[i]) * sinf(in[i]) + 3.0f;
}
EOF
}

# hip_in DIR OUT: hipcc (through the shim unless SHIMCTL_DISABLE=1) compiles m.hip in DIR to m.o,
# which moves to DIR/OUT (the same -o name everywhere: clang-21 embeds it in the object).
hip_in() {
  (cd "$1" && cp "$TEST_DIR/m.hip" . &&
    "$HIPCC" -x hip --offload-arch=gfx90a -c m.hip -o m.o >"$TEST_DIR/hip.err" 2>&1 && mv m.o "$2") ||
    fail "hipcc in $1 failed:"$'\n'"$(cat "$TEST_DIR/hip.err")"
}

# restore_bitcode: the swapped device library back (the prefix is shared by the suite).
restore_bitcode() {
  cp -p "$TEST_DIR/proj/saved/oclc_finite_only_off.bc" \
    "$ROCM7/lib/llvm/lib/clang/21/amdgcn/bitcode/oclc_finite_only_off.bc"
}

test_colon_in_working_directory() {
  TEST "a working directory with ':' (ccache cannot name it as a ceiling): cached without a ccache.conf, uncached and reported with one"
  setup
  local d=$TEST_DIR/a:b/build
  mkdir -p "$d"
  fresh_c "$d" 1 "$TEST_DIR/fresh.o"
  shim_c "$d" 1 "$TEST_DIR/s1.o"
  shim_c "$d" 1 "$TEST_DIR/s2.o"
  expect_eq "hits=1 misses=1" "hits=$(hits) misses=$(misses)" "counters without a ccache.conf"
  plant "${d%/build}" 'hash_dir = false'
  shim_c "$d" 1 "$TEST_DIR/s3.o"
  expect_eq "hits=1 misses=1" "hits=$(hits) misses=$(misses)" "counters with a ccache.conf (uncached)"
  local o; for o in s1 s2 s3; do expect_same_file "$TEST_DIR/fresh.o" "$TEST_DIR/$o.o"; done
  expect_eq 1 "$(grep -c " ccache-conf-unpinned $(command -v ccache) $TEST_DIR/a:b/ccache.conf\$" "$EVENTS")" \
    "events.log reports the compile it could not pin"
  local out
  out=$(cd "$d" && SHIMCTL_STRICT=1 "$CLANG" -DVALUE=1 -c x.c -o x.o 2>&1) && fail "SHIMCTL_STRICT=1 compiled anyway"
  expect_contains "$out" "cannot keep ccache from reading $TEST_DIR/a:b/ccache.conf" "the strict message"
}

test_callers_ceiling_and_tools() {
  TEST "the caller's CCACHE_CEILING_DIRS is kept; shimctl status works from a directory with a broken ccache.conf"
  setup
  local d=$TEST_DIR/proj/build
  mkdir -p "$d"
  plant "$d" 'run_second_cpp = false'
  fresh_c "$d" 1 "$TEST_DIR/fresh.o"
  CCACHE_CEILING_DIRS=$TEST_DIR/elsewhere shim_c "$d" 1 "$TEST_DIR/s1.o"
  expect_same_file "$TEST_DIR/fresh.o" "$TEST_DIR/s1.o"
  # The shim's trace names the file it keeps from ccache.
  local trace
  trace=$(cd "$d" && CCACHE_CEILING_DIRS=$TEST_DIR/elsewhere SHIMCTL_SHIM_TRACE=1 "$CLANG" -g -DVALUE=1 -c x.c -o x.o 2>&1)
  expect_same_file "$TEST_DIR/fresh.o" "$d/x.o"
  expect_contains "$trace" "ignoring $d/ccache.conf" "the shim's trace"
  expect_eq "hits=1 misses=1" "hits=$(hits) misses=$(misses)" "counters"
  local status; status=$(cd "$d" && "$SHIMCTL" status /opt/rocm 2>&1) || fail "status in $d failed: $status"
  expect_contains "$status" "statistics:  1 hits, 1 misses" "status read the statistics despite $d/ccache.conf"
}

# The private /opt and its prefix, built once before the tests run (TEST scrubs SHIMCTL_*
# variables, the namespace marker among them).
if [ "${SHIMCTL_TEST_PRIVATE_NS:-}" = 1 ] && suite_requires; then
  private_opt_rocm7
fi
