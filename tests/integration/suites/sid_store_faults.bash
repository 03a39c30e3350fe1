# store_faults on the sid stack (issue 35): the same faults with sccache 0.17 (two tiers,
# disk,redis; the local-only server while the store is out) and hipcc 7.0.2, plus S3 (s3rver)
# stopped mid-build. Runs inside the sid root (scripts/test-sid).
STACK=sid
TOOL=sccache
private_mounts
SUITE_PRIVATE_NS=${SHIMCTL_TEST_PRIVATE_NS:-}
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/store_faults.bash
source "$SUITE_TESTS_FILE"
