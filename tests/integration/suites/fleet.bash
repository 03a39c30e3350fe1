# A fleet on one team store (issue 24 item 5), the Debian 12 stack: hipcc (ROCm 5.2 perl) with
# clang-15 and ccache 4.7.5, against Redis, three sharded Redis servers and nginx WebDAV. Six
# machines (private mount namespaces, each with its own copy of the prefix at /opt/fleet/rocm,
# its own build directory, HOME and local cache) install with --remote and build the same
# generated HIP project; see lib-fleet.bash for what each machine does and what is checked.
# The control shows that m5's check has teeth: with the toolchain's identity out of ccache's key
# (the user's CCACHE_COMPILERCHECK=none), m5 is served the others' objects, wrong for its own
# toolchain.
# sid_fleet runs ccache 4.14.2 and sccache 0.17 on the sid stack.

private_mounts
source "$SRC_DIR/tests/integration/lib-fleet.bash"

suite_requires() {
  command -v ccache >/dev/null && command -v unshare >/dev/null && command -v python3 >/dev/null &&
    [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] &&
    stores_require redis webdav
}

test_ccache_redis() {
  TEST "ccache 4.7.5 fleet on Redis: m2..m4 and m6 hit >= 95 % with reference objects; m5's toolchain: 0 hits"
  fleet_test ccache redis
}

test_ccache_sharded_redis() {
  TEST "ccache 4.7.5 fleet on three sharded Redis servers (redis://*|shards=): hits, reference objects, m5 apart"
  fleet_test ccache shards
}

test_ccache_webdav() {
  TEST "ccache 4.7.5 fleet on nginx WebDAV (http://): hits, reference objects, m5 apart"
  fleet_test ccache webdav
}

test_control_without_the_identity_m5_gets_the_fleets_objects() {
  TEST "control: with CCACHE_COMPILERCHECK=none (no toolchain identity in the key) m5 hits and gets the others' objects"
  fleet_control redis
}
