# secrets' sccache test on the sid stack: sccache 0.17 has the Redis backend Debian 12's 0.4 lacks,
# so the credential that only the secrets file holds reaches a real `redis-server --requirepass`
# (entries stored), a user who may not read it still compiles, and no output shows it.
# Runs inside the sid root (scripts/test-sid).
STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/secrets.bash
source "$SUITE_TESTS_FILE"
: "${SHIMCTL_TEST_ONLY:=^test_sccache_}"
