# store_faults on the sid stack with ccache 4.14.2 (issue 35): the store killed and hung
# mid-build through hipcc 7.0.2. Runs inside the sid root (scripts/test-sid).
STACK=sid
TOOL=ccache
private_mounts
SUITE_PRIVATE_NS=${SHIMCTL_TEST_PRIVATE_NS:-}
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/store_faults.bash
SUITE_TESTS_SKIP='black_hole|slow_store|restarted|s3_stopped'
SUITE_TESTS_SKIP_WHY="ccache's side of these is the shim's, as with ccache 4.7.5 (store_faults)"
source "$SUITE_TESTS_FILE"
