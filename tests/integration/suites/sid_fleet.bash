# A fleet on one team store (issue 24 item 5), the sid stack: hipcc 7.0.2 (hipBin) with clang-21
# (the ROCm-7-shaped prefix), ccache 4.14.2 against Redis, three sharded Redis servers and nginx
# WebDAV, and sccache 0.17 against Redis, WebDAV (PROPFIND from the dav-ext module) and S3
# (s3rver). Six machines (private mount namespaces, each with its own copy of the prefix at
# /opt/fleet/rocm, its own build directory, HOME, local cache and, for sccache, its own server)
# install with --remote and build the same generated HIP project; see lib-fleet.bash for what
# each machine does and what is checked. Runs inside the sid root (scripts/test-sid).
# WebDAV fleets are left to the Debian 12 fleet (ccache's HTTP backend) and to sid_remote and
# sid_team_stores (sccache's WebDAV, also over https and behind auth): four fleets, not six, keep
# scripts/test within its time.

STACK=sid
private_mounts
source "$SRC_DIR/tests/integration/lib-fleet.bash"

suite_requires() {
  command -v ccache >/dev/null && command -v sccache >/dev/null && command -v unshare >/dev/null &&
    command -v python3 >/dev/null && [ -x /usr/lib/llvm-21/bin/clang ] &&
    file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] &&
    stores_require redis s3
}

test_ccache_redis() {
  TEST "ccache 4.14.2 fleet on Redis: m2..m4 and m6 hit >= 95 % with reference objects; m5's toolchain: 0 hits"
  fleet_test ccache redis
}

test_ccache_sharded_redis() {
  TEST "ccache 4.14.2 fleet on three sharded Redis servers (redis://*|shards=): hits, reference objects, m5 apart"
  fleet_test ccache shards
}

test_sccache_redis() {
  TEST "sccache 0.17 fleet on Redis: m2..m4 and m6 hit >= 95 % with reference objects; m5's toolchain: 0 hits"
  fleet_test sccache redis
}

test_sccache_s3() {
  TEST "sccache 0.17 fleet on S3 (s3rver, s3://BUCKET/PREFIX|endpoint=|region=): hits, reference objects, m5 apart"
  fleet_test sccache s3
}
