# The runtime callers shimctl exists for (issue 13), through the drivers in scripts/callers/:
# aiter's JIT, torch.utils.cpp_extension, DeepSpeed's op builder and PyTorch Inductor's ROCm
# backend, each with its own call shapes (see each driver's header), against a private copy of
# the clang-15 ROCm fixture prefix. Each test runs a cold pass and a pass from a fresh build
# directory with the same cache, then rolls the prefix back and runs the same build unshimmed
# (the driver's reference pass: the shim's -cuid= given explicitly) to compare bytes.
# Small kernel counts here; scripts/bench's callers section runs bigger ones.

suite_requires() {
  command -v ccache >/dev/null && command -v ninja >/dev/null && command -v python3 >/dev/null &&
    command -v redis-server >/dev/null && command -v redis-cli >/dev/null &&
    [ -x "$SHIMCTL" ] && [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]
}

# callers_prefix [INSTALL FLAGS...]: P = a private prefix copy, installed (--no-verify).
callers_prefix() {
  P=$TEST_DIR/rocm
  copy_rocm_prefix "$P"
  expect_success "$SHIMCTL" install "$P" --no-verify --cache-dir "$TEST_DIR/unused-cache" "$@"
  export XDG_CACHE_HOME=$TEST_DIR/xdg-cache
}

# drive NAME ARGS...: scripts/callers/NAME on $P, work dir $TEST_DIR/work, results in R.
drive() {
  local name=$1
  shift
  R=$TEST_DIR/results.tsv
  "$SCRIPTS/callers/$name" "$P" --work "${DRIVE_WORK:-$TEST_DIR/work}" --results "$R" --shimctl "$SHIMCTL" "$@" \
    >>"$TEST_DIR/driver.log" 2>&1 || fail "scripts/callers/$name $* failed: $(tail -30 "$TEST_DIR/driver.log")"
}

r() { awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }' "$R"; }

# expect_all_hits PASS N: the pass's compile step had N cacheable compiles, all hits.
expect_all_hits() {
  expect_eq "$2 $2 0" "$(r "$1.compile.compiles") $(r "$1.compile.hits") $(r "$1.compile.misses")" \
    "$1: cacheable compiles, hits, misses"
}

# expect_same_outputs A B: the passes A and B produced the same files, byte for byte (their
# probes' records too: exit codes and the hashes of stdout and stderr).
expect_same_outputs() {
  local a=$TEST_DIR/work/out/$1 b=$TEST_DIR/work/out/$2 f n=0
  expect_eq "$(cd "$b" && find . -type f | sort)" "$(cd "$a" && find . -type f | sort)" "files of $1 and $2"
  while IFS= read -r f; do
    cmp -s "$a/$f" "$b/$f" || fail "$1 and $2 differ: $f"
    n=$((n + 1))
  done < <(cd "$a" && find . -type f)
  [ "$n" -ge 2 ] || fail "only $n files compared"
}

# unshimmed: roll the prefix back (its originals at their own paths), then the reference pass.
unshimmed() {
  local name=$1
  shift
  expect_success "$SHIMCTL" rollback "$P"
  [ ! -e "$P/bin/hipcc.real" ] || fail "rollback left bin/hipcc.real"
  drive "$name" --passes reference "$@"
  expect_eq "0" "$(r reference.compile.compiles)" "compiles that reached a cache, unshimmed"
}

test_aiter() {
  TEST "aiter: probes as unshimmed, pass 2 from a fresh module dir all hits, objects and .so as unshimmed"
  callers_prefix
  local args=(--kernels 2 --archs gfx90a,gfx940)
  drive aiter "${args[@]}" --passes cold
  # Pass 2 takes pass 1's probe verdicts (the probes cost ~9 s a pass with perl hipcc; the
  # reference pass below runs them again, unshimmed, and they must agree with pass 1's).
  drive aiter "${args[@]}" --passes warm --reuse-probes cold
  expect_eq "2 0 2" "$(r cold.compile.compiles) $(r cold.compile.hits) $(r cold.compile.misses)" "cold"
  expect_all_hits warm 2
  # The link names its objects in a response file: it reaches ccache, which does not cache it.
  expect_eq "called_for_link=1" "$(r warm.link.uncacheable)" "warm: the link, not cached (ccache's count)"
  # Every -E probe went to the original directly (none reached the cache).
  expect_eq 0 "$(r cold.probes.compiles)" "probes that reached the cache"
  expect_contains "$(r cold.probes.not_sent)" "preprocess=" "probes the shim ran without the cache"
  [ "$(r cold.probes_failed)" -ge 1 ] || fail "no probe failed: the comparison must cover a failing one"
  [ "$(r cold.probes)" -ge 20 ] || fail "only $(r cold.probes) probes"
  unshimmed aiter "${args[@]}"
  expect_same_outputs warm reference
  expect_same_file "$TEST_DIR/work/out/cold/probes.tsv" "$TEST_DIR/work/out/reference/probes.tsv"
  # The sources were compiled as aiter compiles them: copies, as .cu, in the module's build/srcs.
  expect_same_file "$TEST_DIR/work/aiter/jit/build/module_callers_0/build/srcs/kernel_1.cu" \
    "$TEST_DIR/work/aiter/csrc/kernels/module_callers_0/kernel_1.cpp"
}

# The same JIT at two roots (issue 42): each in its own work dir with its packages in a venv's
# site-packages (aiter's csrc and JIT dir, the extension's sources; torch's build dir under each
# root's HOME), one cache: the second root's compiles all hit.
test_jit_two_roots() {
  TEST "aiter and cpp_extension at two roots (venvs, HOMEs), one cache: the second root hits every compile"
  callers_prefix
  local name root cache=$TEST_DIR/shared-ccache
  for name in aiter cpp_extension; do
    for root in one two; do
      DRIVE_WORK=$TEST_DIR/$root-$name/work drive "$name" --kernels 2 --cache-dir "$cache-$name" \
        ${CALLERS_TWO_ROOTS_ARCHS:+--archs "$CALLERS_TWO_ROOTS_ARCHS"} \
        --packages "$TEST_DIR/$root-$name/venv/lib/python3.11/site-packages" \
        --passes "$([ $root = one ] && echo cold || echo warm)"
    done
    [ "$name" = aiter ] && expect_eq "2 0 2" "$(r cold.compile.compiles) $(r cold.compile.hits) $(r cold.compile.misses)" "aiter at root one"
    [ "$name" = aiter ] && expect_all_hits warm 2
    [ "$name" = cpp_extension ] && expect_all_hits warm 3
  done
}

test_cpp_extension() {
  TEST "cpp_extension: -MMD host compiles and hipcc compiles all hit from a fresh build dir; bytes as unshimmed"
  callers_prefix
  drive cpp_extension --kernels 1 --passes cold,warm
  expect_eq "2 2" "$(r cold.compile.compiles) $(r cold.compile.misses)" "cold: compiles, misses"
  expect_all_hits warm 2
  expect_eq "-" "$(r warm.compile.uncacheable)" "warm: calls of the compile step no cache could store"
  local b
  b=$(find "$TEST_DIR/work/home/.cache/torch_extensions" -name build.ninja -printf '%h\n')
  # ninja read the host compile's depfile (deps = gcc: into .ninja_deps, the .d removed).
  expect_contains "$(cd "$b" && ninja -t deps callers_ext_0.o)" "/callers_ext_0/callers_ext_0.h" "the -MMD depfile's headers"
  expect_contains "$(cat "$b/build.ninja")" 'command = $cxx -MMD -MF $out.d $cflags -c $in -o $out $post_cflags' "the host rule"
  unshimmed cpp_extension --kernels 1
  expect_same_outputs warm reference
}

test_deepspeed() {
  TEST "deepspeed: fused_adam (hipcc) and cpu_adam (-march=native) ops all hit from fresh build dirs; bytes as unshimmed"
  callers_prefix
  drive deepspeed --kernels 1 --passes cold,warm
  expect_eq "4 4" "$(r cold.compile.compiles) $(r cold.compile.misses)" "cold: compiles, misses"
  expect_all_hits warm 4
  expect_eq "-" "$(r warm.compile.uncacheable)" "warm: calls of the compile step no cache could store"
  unshimmed deepspeed --kernels 1
  expect_same_outputs warm reference
}

test_inductor() {
  TEST "inductor: realpath(llvm/bin/clang) one-step compile+link calls are named one_step_compile_and_link, never misses"
  callers_prefix
  drive inductor --kernels 2 --passes cold,warm
  local pass
  for pass in cold warm; do
    expect_eq "0 0 0" "$(r $pass.compile.compiles) $(r $pass.compile.hits) $(r $pass.compile.misses)" "$pass: cacheable compiles"
    expect_eq "one_step_compile_and_link=2" "$(r $pass.compile.not_sent)" "$pass: calls the shim ran without the cache"
    expect_eq "-" "$(r $pass.compile.uncacheable)" "$pass: calls ccache counted as not cacheable"
  done
  # Nothing reached ccache at all: the shim ran the original directly.
  expect_eq 0 "$(ccache_stat "$TEST_DIR/work/ccache" cache_miss)" "ccache's misses"
  expect_eq 0 "$(ccache_stat "$TEST_DIR/work/ccache" called_for_link)" "ccache's link calls"
  expect_contains "$(head -1 "$TEST_DIR/work/inductor-commands")" "$P/llvm/bin/clang -O3 -x hip" "the compiler, realpath'd"
  unshimmed inductor --kernels 2
  expect_same_outputs warm reference
}

first_object() { compgen -G "$TEST_DIR/work/aiter/jit/build/module_callers_0/build/kernel_*.cuda.o" >/dev/null; }

test_aiter_fresh_container_from_redis() {
  TEST "aiter in a fresh container: an empty local cache, every compile a Redis hit; Redis killed mid-pass: every compile succeeds"
  start_redis
  callers_prefix --remote "$REDIS_URL"
  drive aiter --kernels 2 --archs gfx90a --passes cold
  drive aiter --kernels 2 --archs gfx90a --passes container --reuse-probes cold
  [ "$(redis-cli -p "$REDIS_PORT" dbsize)" -ge 4 ] || fail "the cold pass wrote $(redis-cli -p "$REDIS_PORT" dbsize) keys to Redis"
  expect_all_hits container 2
  expect_eq 2 "$(r container.remote_hits)" "container: remote hits"
  local fresh=$TEST_DIR/work/ccache.container
  expect_eq "2 0 0" "$(ccache_stat "$fresh" remote_storage_hit) $(ccache_stat "$fresh" local_storage_hit) $(ccache_stat "$fresh" cache_miss)" \
    "the fresh container's cache: remote hits, local hits, misses"
  expect_same_outputs container cold
  mv "$TEST_DIR/work/out/container" "$TEST_DIR/work/out/container-1"
  # Again from a new empty cache, with a third source Redis does not hold: Redis is killed
  # (SIGKILL) once the first object is written; the third compile (a miss of ~2 s) then writes
  # to a dead Redis at the latest, whatever the timing of the other two.
  local pid log=$TEST_DIR/killed.log
  "$SCRIPTS/callers/aiter" "$P" --work "$TEST_DIR/work" --results "$TEST_DIR/killed.tsv" --shimctl "$SHIMCTL" \
    --kernels 3 --archs gfx90a --passes container --reuse-probes cold >"$log" 2>&1 &
  pid=$!
  wait_until 300 "the first object of the pass" first_object
  kill -9 "$(cat "$TEST_DIR/redis.pid")" || fail "cannot kill redis-server"
  wait "$pid" || fail "the pass failed with Redis killed: $(tail -30 "$log")"
  R=$TEST_DIR/killed.tsv
  expect_eq 3 "$(r container.compile.compiles)" "compiles with Redis killed"
  expect_eq 3 "$(($(r container.compile.hits) + $(r container.compile.misses)))" "hits + misses"
  [ "$(r container.remote_errors)" -ge 1 ] || fail "no remote_storage_error: was Redis down for any compile?"
  [ "$(r container.compile.misses)" -ge 1 ] || fail "no miss after Redis was killed"
  # The same three sources through the cold pass's local cache (two hits, one compile).
  drive aiter --kernels 3 --archs gfx90a --passes warm --reuse-probes cold
  expect_eq "1" "$(r warm.compile.misses)" "the local cache's misses"
  expect_same_outputs container warm
}
