# CI cache archives (issue 6): `shimctl cache export|import` on an installed clang-15
# ROCm-shaped prefix (scripts/make-rocm-prefix, once per suite), each test with its own copy of it
# and its own cache dir.

suite_requires() {
  command -v ccache >/dev/null && command -v zstd >/dev/null && command -v python3 >/dev/null \
    && [ -x "$SHIMCTL" ] && [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]
}

# new_installed DIR CACHE: P = a fresh prefix at DIR, installed with --cache-dir CACHE.
# Not the caller's cache home: an archive carries the device links' store in it (device_links.bash).
export XDG_CACHE_HOME=$SUITE_TMP/xdg

new_installed() {
  P=$1
  # Each "machine" its own cache home: the device links' store travels too (device_links.bash).
  export XDG_CACHE_HOME=$2.xdg
  rm -rf "$P"
  copy_rocm_prefix "$P"
  "$SHIMCTL" install "$P" --cache-dir "$2" --no-verify --compilers clang >"$TEST_DIR/install.out" 2>&1 \
    || fail "install failed: $(cat "$TEST_DIR/install.out")"
}

compile_c() { # prefix
  echo 'int twice(int x) { return 2 * x; }' > "$TEST_DIR/a.c"
  "$1/llvm/bin/clang" -c "$TEST_DIR/a.c" -o "$TEST_DIR/a.o" || fail "compile through $1 failed"
}

# exported ARCHIVE: a real archive of a one-compile cache (prefix $TEST_DIR/src).
exported() {
  new_installed "$TEST_DIR/src" "$TEST_DIR/src-cache"
  compile_c "$TEST_DIR/src"
  expect_success "$SHIMCTL" cache export "$1" "$TEST_DIR/src"
}

test_export_import_hit() {
  TEST "export after a compile; import into an empty cache of a reinstalled prefix: a hit"
  local C1=$TEST_DIR/cache1 C2=$TEST_DIR/cache2 out
  new_installed "$TEST_DIR/P" "$C1"
  compile_c "$P"
  expect_misses "$C1" 1
  out=$("$SHIMCTL" cache export "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "export failed: $out"
  expect_contains "$out" "exported 2 entries" "export summary (manifest + result)"
  zstd -dc "$TEST_DIR/c.tar.zst" | tar -tf - > "$TEST_DIR/list" || fail "not a zstd tar"
  expect_eq shimctl-cache.json "$(head -1 "$TEST_DIR/list")" "first entry"
  expect_eq shimctl-cache.sha256 "$(tail -1 "$TEST_DIR/list")" "last entry"
  grep -qE '(^|/)(stats|CACHEDIR.TAG|ccache.conf)$|^tmp/' "$TEST_DIR/list" && fail "per-machine files travelled: $(cat "$TEST_DIR/list")"
  local key; key=$("$SHIMCTL" cache-key "$P")
  expect_eq "$key" "$(zstd -dc "$TEST_DIR/c.tar.zst" | tar -xOf - shimctl-cache.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["cache_key"])')" "header cache_key"
  # A new machine: the same toolchain at the same path, an empty cache.
  new_installed "$TEST_DIR/P" "$C2"
  out=$("$SHIMCTL" cache import "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "import failed: $out"
  expect_contains "$out" "imported 2 entries" "import summary"
  compile_c "$P"
  expect_hits "$C2" 1
  expect_misses "$C2" 0
  # Importing again keeps what is there.
  out=$("$SHIMCTL" cache import "$TEST_DIR/c.tar.zst" "$P" 2>&1) || fail "second import failed: $out"
  expect_contains "$out" "imported 0 entries" "second import"
  ls -A "$(dirname "$C2")" | grep -q '^\.shimctl-import' && fail "staging directory left behind"
  true
}

# evil ARCHIVE KIND: a valid header (from a real export) followed by a hostile entry.
evil() {
  python3 - "$TEST_DIR/good.tar.zst" "$1" "$2" "$TEST_DIR/outside" <<'PY'
import io, subprocess, sys, tarfile
good, out, kind, outside = sys.argv[1:]
raw = subprocess.run(["zstd", "-dc", good], check=True, capture_output=True).stdout
src = tarfile.open(fileobj=io.BytesIO(raw))
header = src.extractfile("shimctl-cache.json").read()
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
    def add(name, data=b"x", type_=tarfile.REGTYPE, link=""):
        ti = tarfile.TarInfo(name); ti.type = type_; ti.linkname = link; ti.size = len(data) if type_ == tarfile.REGTYPE else 0
        t.addfile(ti, io.BytesIO(data) if type_ == tarfile.REGTYPE else None)
    add("shimctl-cache.json", header)
    if kind == "absolute": add(outside + "/abs-evil")
    if kind == "dotdot": add("0/../../outside/dotdot-evil")
    if kind == "symlink":
        add("0/1/link", type_=tarfile.SYMTYPE, link=outside)
        add("0/1/link/through-evil")
    if kind == "hardlink": add("0/1/hard", type_=tarfile.LNKTYPE, link=outside + "/canary")
    if kind == "fifo": add("0/1/fifo", type_=tarfile.FIFOTYPE)
    if kind == "config": add("ccache.conf", b"prefix_command = /bin/false\n")
    # The device links' store: a good entry first (it must not land either), then its counts or
    # a name that is no entry.
    if kind in ("linkcounts", "linkstray"): add("shimctl-device-links/ab/ab" + "0" * 62, b"image")
    if kind == "linkcounts": add("shimctl-device-links/counts", b"link_hit 99\n")
    if kind == "linkstray": add("shimctl-device-links/ab/run-me.sh", b"#!/bin/sh\n")
    add("shimctl-cache.sha256", b"")
subprocess.run(["zstd", "-q", "-f", "-o", out], input=buf.getvalue(), check=True)
PY
}

test_hostile_archives() {
  TEST "absolute, .., symlink, hard link, fifo, config and device-link store entries that are no entry are refused; cache, store and canary unchanged"
  exported "$TEST_DIR/good.tar.zst"
  mkdir -p "$TEST_DIR/outside"
  echo canary > "$TEST_DIR/outside/canary"
  new_installed "$TEST_DIR/P" "$TEST_DIR/cache"
  compile_c "$P"
  tree_listing "$TEST_DIR/cache" > "$TEST_DIR/cache.lst"
  tree_listing "$TEST_DIR/outside" > "$TEST_DIR/outside.lst"
  local kind out rc
  for kind in absolute dotdot symlink hardlink fifo config linkcounts linkstray; do
    evil "$TEST_DIR/$kind.tar.zst" "$kind" || fail "cannot build the $kind archive"
    out=$("$SHIMCTL" cache import "$TEST_DIR/$kind.tar.zst" "$P" 2>&1); rc=$?
    expect_eq 2 "$rc" "exit code for the $kind archive ($out)"
    expect_contains "$out" "the cache in $TEST_DIR/cache is unchanged" "$kind message"
    expect_same_tree "$TEST_DIR/cache.lst" "$TEST_DIR/cache"
    expect_same_tree "$TEST_DIR/outside.lst" "$TEST_DIR/outside"
    case $kind in
      linkcounts) expect_contains "$out" "entry 'shimctl-device-links/counts' is not a cache entry" "$kind message" ;;
      linkstray) expect_contains "$out" "entry 'shimctl-device-links/ab/run-me.sh' is not a cache entry" "$kind message" ;;
    esac
    [ -e "$XDG_CACHE_HOME/shimctl/device-links" ] && fail "the $kind archive made the device links' store"
  done
  [ ! -e "$TEST_DIR/abs-evil" ] && [ ! -e "$TEST_DIR/dotdot-evil" ] || fail "an entry escaped"
  ls -A "$TEST_DIR" | grep -q '^\.shimctl-import' && fail "staging directory left behind"
  true
}

test_fingerprint_mismatch() {
  TEST "an archive of another toolchain is refused (exit 1, both keys named) unless --force"
  local Q=$TEST_DIR/other out rc
  copy_rocm_prefix "$Q"
  printf 'x' >> "$(ls "$Q"/amdgcn/bitcode/*.bc | head -1)"   # another toolchain identity
  "$SHIMCTL" install "$Q" --cache-dir "$TEST_DIR/qcache" --no-verify --compilers clang >/dev/null 2>&1 \
    || fail "install $Q"
  compile_c "$Q"
  expect_success "$SHIMCTL" cache export "$TEST_DIR/q.tar.zst" "$Q"
  new_installed "$TEST_DIR/P" "$TEST_DIR/cache"
  local qkey pkey
  qkey=$("$SHIMCTL" cache-key "$Q"); pkey=$("$SHIMCTL" cache-key "$P")
  [ "$qkey" != "$pkey" ] || fail "the two toolchains have one key $pkey"
  out=$("$SHIMCTL" cache import "$TEST_DIR/q.tar.zst" "$P" 2>&1); rc=$?
  expect_eq 1 "$rc" "exit code ($out)"
  expect_eq 1 "$(printf '%s\n' "$out" | wc -l)" "one-line error"
  expect_contains "$out" "$qkey" "archive key named"
  expect_contains "$out" "$pkey" "installed key named"
  [ ! -e "$TEST_DIR/cache" ] || [ -z "$(find "$TEST_DIR/cache" -type f -name '*[MR]')" ] || fail "entries imported"
  out=$("$SHIMCTL" cache import "$TEST_DIR/q.tar.zst" "$P" --force 2>&1) || fail "--force failed: $out"
  expect_contains "$out" "imported 2 entries" "forced import"
}

test_corrupt_archives() {
  TEST "a truncated or bit-flipped archive is refused; the existing cache is untouched"
  exported "$TEST_DIR/good.tar.zst"
  new_installed "$TEST_DIR/P" "$TEST_DIR/cache"
  echo 'int other(void) { return 7; }' > "$TEST_DIR/b.c"
  "$P/llvm/bin/clang" -c "$TEST_DIR/b.c" -o "$TEST_DIR/b.o" || fail "compile"
  tree_listing "$TEST_DIR/cache" > "$TEST_DIR/cache.lst"
  local size out rc
  size=$(stat -c %s "$TEST_DIR/good.tar.zst")
  head -c $((size / 2)) "$TEST_DIR/good.tar.zst" > "$TEST_DIR/half.tar.zst"
  python3 -c '
import sys; d = bytearray(open(sys.argv[1], "rb").read())
for i in range(len(d) // 3, len(d) - 16, 61): d[i] ^= 0x20
open(sys.argv[2], "wb").write(d)' "$TEST_DIR/good.tar.zst" "$TEST_DIR/flip.tar.zst"
  # Data damaged where zstd cannot see it: an entry's bytes changed inside a valid zstd stream.
  zstd -dc "$TEST_DIR/good.tar.zst" > "$TEST_DIR/plain.tar"
  python3 -c '
import sys; d = bytearray(open(sys.argv[1], "rb").read())
d[1536 + 10] ^= 0x01  # header 0-511, JSON 512-1023, entry header 1024-1535, its data from 1536
open(sys.argv[1], "wb").write(d)' "$TEST_DIR/plain.tar"
  zstd -q -f "$TEST_DIR/plain.tar" -o "$TEST_DIR/silent.tar.zst"
  for f in half flip silent; do
    out=$("$SHIMCTL" cache import "$TEST_DIR/$f.tar.zst" "$P" 2>&1); rc=$?
    [ "$rc" -ne 0 ] || fail "the $f archive was accepted: $out"
    expect_contains "$out" "the cache in $TEST_DIR/cache is unchanged" "$f message"
    [ "$f" != silent ] || expect_contains "$out" "is damaged (SHA-256 differs" "silent damage found by the trailer"
    expect_same_tree "$TEST_DIR/cache.lst" "$TEST_DIR/cache"
  done
  ls -A "$TEST_DIR" | grep -q '^\.shimctl-import' && fail "staging directory left behind"
  true
}

# compile_hip PREFIX OPT: k.hip compiled through PREFIX's clang shim in $TEST_DIR/work with OPT
# (-O3, -O2), -o k.o: the same object path on both "machines".
compile_hip() {
  mkdir -p "$TEST_DIR/work"
  printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n' > "$TEST_DIR/work/k.hip"
  (cd "$TEST_DIR/work" && "$1/llvm/bin/clang" -x hip --offload-arch=gfx90a -c k.hip "$2" -o k.o) \
    >"$TEST_DIR/hip.log" 2>&1 || fail "HIP compile through $1 failed: $(cat "$TEST_DIR/hip.log")"
}

test_explain_against_archive() {
  TEST "explain --against ARCHIVE names CI's flag; an archive without records or none at all: exit 2, one line"
  local out rc ci_xdg
  # CI: compiles with -O3, exports; the archive carries its record (its cache home is CI's).
  new_installed "$TEST_DIR/P" "$TEST_DIR/ci-cache"
  ci_xdg=$XDG_CACHE_HOME
  compile_hip "$P" -O3
  [ -n "$(find "$ci_xdg/shimctl/records" -name '*.json' 2>/dev/null)" ] || fail "CI's miss wrote no record"
  expect_success "$SHIMCTL" cache export "$TEST_DIR/ci.tar.zst" "$P"
  zstd -dc "$TEST_DIR/ci.tar.zst" | tar -tf - > "$TEST_DIR/list" || fail "not a zstd tar"
  grep -q '^shimctl-records/1\.json$' "$TEST_DIR/list" || fail "no record in the archive: $(cat "$TEST_DIR/list")"
  grep -q '  shimctl-records/1\.json$' <(zstd -dc "$TEST_DIR/ci.tar.zst" | tar -xOf - shimctl-cache.sha256) \
    || fail "the record is not in the trailer"
  expect_eq 1 "$(zstd -dc "$TEST_DIR/ci.tar.zst" | tar -xOf - shimctl-cache.json | python3 -c 'import json,sys; print(json.load(sys.stdin)["records"])')" "header records"
  # A developer: another cache home, another copy of the prefix at the same path, -O2.
  new_installed "$TEST_DIR/P" "$TEST_DIR/dev-cache"
  [ "$XDG_CACHE_HOME" != "$ci_xdg" ] || fail "one cache home for both"
  compile_hip "$P" -O2
  out=$(cd "$TEST_DIR/work" && "$SHIMCTL" explain --against "$TEST_DIR/ci.tar.zst" k.o 2>&1); rc=$?
  expect_eq 0 "$rc" "explain's exit code ($out)"
  expect_eq "CI compiled it with -O3, here -O2" "$(head -1 <<<"$out")" "explain's first line"
  expect_contains "$out" "(CI's record)" "compared with CI's record"
  out=$(cd "$TEST_DIR/work" && "$SHIMCTL" explain --json --against "$TEST_DIR/ci.tar.zst" k.o 2>&1) \
    || fail "explain --json failed: $out"
  expect_eq flags "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["reason"])' <<<"$out")" "--json reason"
  # The import leaves the records out of the cache and still checks them against the trailer.
  out=$("$SHIMCTL" cache import "$TEST_DIR/ci.tar.zst" "$P" 2>&1) || fail "import failed: $out"
  expect_contains "$out" "imported 2 entries" "import summary (records are no cache entries)"
  [ -z "$(find "$TEST_DIR/dev-cache" -path '*shimctl-records*')" ] || fail "records went into the cache"
  zstd -dc "$TEST_DIR/ci.tar.zst" | sed 's/"-O3"/"-O4"/' | zstd -q -o "$TEST_DIR/edited.tar.zst"
  out=$("$SHIMCTL" cache import "$TEST_DIR/edited.tar.zst" "$P" 2>&1); rc=$?
  expect_eq 2 "$rc" "exit code for an edited record ($out)"
  expect_contains "$out" "entry 'shimctl-records/1.json' is damaged" "edited record found by the trailer"
  # An archive from before records: the same archive without them (and without "records").
  python3 - "$TEST_DIR/ci.tar.zst" "$TEST_DIR/old.tar.zst" <<'PY' || fail "cannot build the old archive"
import io, json, subprocess, sys, tarfile
raw = subprocess.run(["zstd", "-dc", sys.argv[1]], check=True, capture_output=True).stdout
src = tarfile.open(fileobj=io.BytesIO(raw))
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
    for m in src.getmembers():
        if m.name.startswith("shimctl-records/"):
            continue
        data = src.extractfile(m).read()
        if m.name == "shimctl-cache.json":
            h = json.loads(data); del h["records"]; data = json.dumps(h).encode()
        if m.name == "shimctl-cache.sha256":
            data = b"".join(l + b"\n" for l in data.splitlines() if b"shimctl-records/" not in l)
        m.size = len(data)
        t.addfile(m, io.BytesIO(data))
subprocess.run(["zstd", "-q", "-f", "-o", sys.argv[2]], input=buf.getvalue(), check=True)
PY
  out=$(cd "$TEST_DIR/work" && "$SHIMCTL" explain --against "$TEST_DIR/old.tar.zst" k.o 2>&1); rc=$?
  expect_eq 2 "$rc" "exit code for an archive without records ($out)"
  expect_eq 1 "$(printf '%s\n' "$out" | wc -l)" "one-line error"
  expect_contains "$out" "$TEST_DIR/old.tar.zst carries no compile records" "no-records message"
  out=$("$SHIMCTL" cache import "$TEST_DIR/old.tar.zst" "$P" 2>&1) || fail "import of an old archive failed: $out"
  # No archive at all: nothing made where it was named.
  out=$(cd "$TEST_DIR/work" && "$SHIMCTL" explain --against "$TEST_DIR/none.tar.zst" k.o 2>&1); rc=$?
  expect_eq 2 "$rc" "exit code for a missing archive ($out)"
  expect_eq 1 "$(printf '%s\n' "$out" | wc -l)" "one-line error"
  expect_contains "$out" "cannot read $TEST_DIR/none.tar.zst: " "missing-archive message"
  expect_contains "$out" "name a file made by 'shimctl cache export'" "missing-archive hint"
  [ ! -e "$TEST_DIR/none.tar.zst" ] || fail "explain made the archive it was named"
  true
}
