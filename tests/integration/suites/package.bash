# Shipping: the .deb (scripts/package) unpacked into a temp root runs install → verify → rollback
# from its own files; --help, the man page and the bash completion agree with the parser; the
# completion loads and completes; --version; progress only on a terminal; the README's CI recipe
# runs as written.

LLVM=15
source "$(dirname "${BASH_SOURCE[0]}")/rocm_common.bash"

suite_requires() {
  rocm_requires && command -v dpkg-deb >/dev/null && command -v cpack >/dev/null \
    && [ -f "$BUILD_DIR/CPackConfig.cmake" ] && [ -f "$BUILD_DIR/shimctl.bash" ] \
    && [ -f "$BUILD_DIR/shimctl.1" ]
}

# The package, built once per suite from $BUILD_DIR into $SUITE_TMP/pkg; prints its path.
package_deb() {
  local deb
  deb=$(ls "$SUITE_TMP"/pkg/*.deb 2>/dev/null | head -1)
  if [ -z "$deb" ]; then
    BUILD_DIR=$BUILD_DIR "$SCRIPTS/package" "$SUITE_TMP/pkg" > "$SUITE_TMP/package.out" 2>&1 || return 1
    deb=$(tail -1 "$SUITE_TMP/package.out")
  fi
  echo "$deb"
}

# unpack ROOT: dpkg -x the package into ROOT.
unpack() {
  local deb
  deb=$(package_deb) || fail "scripts/package failed: $(cat "$SUITE_TMP/package.out")"
  dpkg -x "$deb" "$1" || fail "dpkg -x $deb failed"
}

test_package_fields() {
  TEST "the .deb: files in Debian places, Depends from the real sonames, Recommends, Suggests"
  local deb list f
  deb=$(package_deb) || fail "scripts/package failed: $(cat "$SUITE_TMP/package.out")"
  list=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
  for f in ./usr/bin/shimctl ./usr/libexec/shimctl/shimctl-shim ./usr/share/shimctl/layouts/rocm.json \
    ./usr/share/shimctl/layouts/cuda.json ./usr/share/shimctl/manifest.schema.json \
    ./usr/share/bash-completion/completions/shimctl ./usr/share/man/man1/shimctl.1; do
    expect_contains "$list" "$f" "package contents"
  done
  expect_eq shimctl "$(dpkg-deb -f "$deb" Package)" "Package"
  local depends; depends=$(dpkg-deb -f "$deb" Depends)
  # The package owning the library the loader really maps: a name search ("*/libm.so.6") also
  # finds other architectures' copies (libc6-i386's /lib32/libm.so.6).
  local lib path
  for lib in $(objdump -p "$SHIMCTL" | awk '/NEEDED/ { print $2 }'); do
    path=$(ldd "$SHIMCTL" | awk -v lib="$lib" '$1 == lib { print $3 }')
    [ -n "$path" ] || fail "ldd does not resolve $lib of $SHIMCTL"
    local pkg; pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")" 2>/dev/null)
    pkg=$(printf '%s\n' "$pkg" | head -1 | cut -d: -f1)
    [ -n "$pkg" ] && expect_contains "$depends" "$pkg" "Depends covers $lib ($path)"
  done
  expect_contains "$depends" "libc6" "Depends"
  expect_contains "$depends" "libssl3" "Depends"
  expect_contains "$depends" "libarchive13" "Depends"
  expect_contains "$depends" "libfmt9" "Depends"
  expect_eq ccache "$(dpkg-deb -f "$deb" Recommends)" "Recommends"
  expect_eq "sccache, redis-server" "$(dpkg-deb -f "$deb" Suggests)" "Suggests"
}

test_unpacked_cycle() {
  TEST "unpacked and relocated package: install → verify → rollback with its own shim and layouts"
  unpack "$TEST_DIR/root"
  mv "$TEST_DIR/root" "$TEST_DIR/moved" || fail "cannot move the unpacked root"
  local bin=$TEST_DIR/moved/usr/bin/shimctl shim=$TEST_DIR/moved/usr/libexec/shimctl/shimctl-shim out
  new_prefix
  tree_listing "$P" > "$TEST_DIR/before.lst"
  out=$("$bin" install "$P" --cache-dir "$CC" 2>&1) || fail "install from the package failed: $out"
  expect_eq "$(sha256sum < "$shim" | cut -c1-64)" \
    "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shim"]["sha256"])' \
        "$P/.shimctl/manifest.json")" "manifest shim_sha256 = the unpacked libexec shim"
  cmp -s "$shim" "$P/bin/hipcc" || fail "bin/hipcc is not the unpacked shim"
  # A release build: no fault-injection hook (core/test_hooks.*) in the packaged shimctl.
  ! grep -q SHIMCTL_TEST_ "$bin" || fail "the packaged shimctl has test hooks compiled in"
  ! "$bin" --version | grep -q '^test hooks' || fail "the packaged shimctl says it has test hooks"
  out=$("$bin" verify "$P" 2>&1) || fail "verify from the package failed: $out"
  if command -v strace >/dev/null; then
    strace -f -e trace=openat -o "$TEST_DIR/strace" "$bin" fingerprint "$P" >/dev/null 2>&1
    grep -q "$TEST_DIR/moved/usr/share/shimctl/layouts" "$TEST_DIR/strace" \
      || fail "the relocated shimctl did not read its own layouts: $(grep layouts "$TEST_DIR/strace" | head -3)"
  fi
  out=$("$bin" rollback "$P" 2>&1) || fail "rollback from the package failed: $out"
  expect_same_tree "$TEST_DIR/before.lst" "$P"
}

test_version() {
  TEST "--version: shimctl, the shim (from its embedded string) and the cache tool"
  local out version
  version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD_DIR/CMakeCache.txt")
  out=$("$SHIMCTL" --version) || fail "--version failed"
  expect_eq "shimctl $version" "$(sed -n 1p <<<"$out")" "line 1"
  expect_eq "shim: shimctl-shim $version ($(realpath "$SHIM_BIN"))" "$(sed -n 2p <<<"$out")" "line 2"
  expect_eq "cache: ccache $(ccache --version | sed -n '1s/.* //p') ($(realpath "$(command -v ccache)"))" \
    "$(sed -n 3p <<<"$out")" "line 3"
  out=$(PATH=/nonexistent "$SHIMCTL" --version)
  expect_contains "$(sed -n 3p <<<"$out")" "cache: ccache not found" "without ccache in PATH"
  out=$(SHIMCTL_SHIM=$TEST_DIR/none "$SHIMCTL" --version)
  expect_contains "$(sed -n 2p <<<"$out")" "shim: not found at $TEST_DIR/none" "without the shim"
}

# All command paths, from --help ("Subcommands:" sections), recursively.
command_paths() { # [PATH...]
  local sub
  for sub in $("$SHIMCTL" "$@" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
    echo "$* $sub" | sed 's/^ //'
    command_paths "$@" "$sub"
  done
}

# Option names in a --help text, one per line, sorted.
help_options() { sed -n '/^Options:/,/^$/p' | grep -oE '^  -[^ ]*' | tr ',' '\n' | sed 's/^ *//' | sort; }

test_help_every_command() {
  TEST "--help of every command: one line per option, examples, exit codes; man page and completion agree"
  local path help man_opts comp_opts n=0
  source "$BUILD_DIR/shimctl.bash"
  while read -r path; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    help=$("$SHIMCTL" $path --help) || fail "shimctl $path --help failed"
    expect_contains "$help" "Exit codes:" "shimctl $path --help"
    [ -n "${_shimctl_subcommands["shimctl $path"]}" ] \
      || expect_contains "$help" "Examples:" "shimctl $path --help"
    # Every option line carries its description on the same line.
    if sed -n '/^Options:/,/^$/p' <<<"$help" | grep -E '^  -' | grep -qvE '^  -[^ ]+( [A-Z:{},a-z-]+)? {2,}[^ ]'; then
      fail "shimctl $path --help has an option without a one-line description:"$'\n'"$help"
    fi
    help_options <<<"$help" > "$TEST_DIR/help.opts"
    comp_opts=${_shimctl_flags["shimctl $path"]}" "${_shimctl_valued["shimctl $path"]}
    tr ' ' '\n' <<<"$comp_opts" | grep . | sort > "$TEST_DIR/comp.opts"
    diff -u "$TEST_DIR/help.opts" "$TEST_DIR/comp.opts" > "$TEST_DIR/diff" \
      || fail "completion of '$path' differs from --help:"$'\n'"$(cat "$TEST_DIR/diff")"
    # The man page's section for this command: its .TP option headings.
    man_opts=$(H=".SS \"shimctl ${path//-/\\-}\"" awk '$0 == ENVIRON["H"] { on = 1; next } /^\.S[SH] / { on = 0 } on' \
      "$BUILD_DIR/shimctl.1" | grep -A1 '^\.TP' | grep -v '^\.TP\|^--$' | sed 's/\\-/-/g; s/\\f[BIR]//g' \
      | grep -oE '(^|, )--?[a-z0-9-]+' | sed 's/^, //' | sort)
    diff -u "$TEST_DIR/help.opts" <(echo "$man_opts") > "$TEST_DIR/diff" \
      || fail "man page section of '$path' differs from --help:"$'\n'"$(cat "$TEST_DIR/diff")"
  done < <(command_paths)
  [ "$n" -ge 9 ] || fail "only $n commands found in --help"
  "$SHIMCTL" help-man | cmp -s - "$BUILD_DIR/shimctl.1" || fail "build/shimctl.1 is stale"
}

test_completion() {
  TEST "bash completion loads without errors and completes commands, options and values"
  local comp=$BUILD_DIR/shimctl.bash out
  out=$(bash -c "source '$comp' && complete -p shimctl" 2>&1) || fail "loading failed: $out"
  expect_eq "complete -F _shimctl shimctl" "$out" "complete -p"
  complete_words() { # WORDS... (the last is the word at the cursor)
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _shimctl; echo "${COMPREPLY[*]}"' \
      _ "$comp" "$@" 2>&1
  }
  expect_eq install "$(complete_words shimctl ins)" "shimctl ins<TAB>"
  expect_eq "export import" "$(complete_words shimctl cache "")" "shimctl cache <TAB>"
  expect_eq "ccache sccache" "$(complete_words shimctl install --cache "")" "--cache <TAB>"
  expect_eq "--cache --cache-tool --cache-dir" "$(complete_words shimctl install --ca)" "--ca<TAB>"
  mkdir -p "$TEST_DIR/pfx-one" && touch "$TEST_DIR/pfx-file"
  expect_eq "$TEST_DIR/pfx-one" "$(complete_words shimctl verify "$TEST_DIR/pfx")" "PREFIX completes directories"
  # The installed copy is the generated one.
  local root=$TEST_DIR/root
  unpack "$root"
  cmp -s "$comp" "$root/usr/share/bash-completion/completions/shimctl" || fail "the packaged completion differs"
}

test_progress() {
  TEST "progress: a rewritten line on a terminal; nothing without one or with --json"
  new_prefix
  local out
  out=$(script -qec "'$SHIMCTL' fingerprint '$P' > /dev/null" /dev/null | od -c | tr -s ' ' | tr -d '\n')
  expect_contains "$out" '\r f i n g e r p r i n t i n g' "progress on a terminal"
  expect_contains "$out" 'f i l e s' "progress counts files"
  out=$("$SHIMCTL" fingerprint "$P" 2>&1 >/dev/null)
  expect_eq "" "$out" "stderr without a terminal"
  out=$(script -qec "'$SHIMCTL' fingerprint '$P' --json > /dev/null" /dev/null)
  expect_eq "" "$out" "terminal output with --json"
}

test_readme_ci_recipe() {
  TEST "README's plain-shell CI recipe runs as written: the second job imports and hits"
  awk '/^```sh ci-recipe$/ { on = 1; next } /^```$/ { on = 0 } on' "$SRC_DIR/README.md" > "$TEST_DIR/recipe.sh"
  [ -s "$TEST_DIR/recipe.sh" ] || fail "no \`\`\`sh ci-recipe block in README.md"
  if ! "$SHIMCTL" cache export --help >/dev/null 2>&1; then
    echo "  SKIP part: 'shimctl cache export/import' does not exist yet; the recipe is not run"
    return 0
  fi
  local bindir=$TEST_DIR/bin
  mkdir -p "$bindir" "$TEST_DIR/ci-cache" "$TEST_DIR/src"
  ln -s "$SHIMCTL" "$bindir/shimctl"
  cat > "$TEST_DIR/src/k.hip" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
EOF
  printf 'k.o: k.hip\n\t$(ROCM)/bin/hipcc -x hip --offload-arch=gfx90a -c k.hip -o k.o\n' > "$TEST_DIR/src/Makefile"
  local job
  for job in 1 2; do
    # Each job starts from a fresh machine: the same toolchain, no local cache, no build output.
    rm -rf "$TEST_DIR/prefix" "$TEST_DIR/ccache" "$TEST_DIR/src/k.o"
    new_prefix
    (cd "$TEST_DIR/src" && PATH=$bindir:$PATH ROCM=$P CI_CACHE=$TEST_DIR/ci-cache CCACHE_DIR=$CC \
      XDG_CACHE_HOME=$TEST_DIR/xdg$job bash "$TEST_DIR/recipe.sh") > "$TEST_DIR/job$job.out" 2>&1 \
      || fail "CI job $job failed:"$'\n'"$(cat "$TEST_DIR/job$job.out")"
    [ "$job" = 2 ] || ls "$TEST_DIR"/ci-cache/ccache-*.tar.zst >/dev/null 2>&1 \
      || fail "job 1 saved no archive:"$'\n'"$(cat "$TEST_DIR/job1.out")"
    [ "$job" = 2 ] && expect_eq 1 "$(hits_in "$CC")" "cache hits in job 2 (restored from job 1's archive)"
    "$SHIMCTL" rollback "$P" > /dev/null 2>&1 || fail "rollback after job $job failed"
  done
}
