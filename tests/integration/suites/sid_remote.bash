# A store shared between machines on the sid stack: remote_common.bash's tests with ccache 4.14.2
# and sccache 0.17 behind the shim (sccache caches HIP, locally and with Redis as its store), on
# copies of the ROCm-7-shaped fixture (hipcc 7.0.2 hipBin, clang-21, lib/llvm/bin). Runs inside
# the sid root (scripts/test-sid). remote runs the same tests on Debian 12.
STACK=sid
LLVM=$SID_LLVM
STORE_FIXTURE=sid
CCACHE_SERIES=4.14
SCCACHE_SERIES=0.17
STORE_KINDS="redis webdav"
SUITE_TESTS_SKIP='^test_verify_checks_the_remote$'
SUITE_TESTS_SKIP_WHY="verify's check of a store does not depend on the stack (remote runs it; sid_team_stores checks verify's warnings)"
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/remote_common.bash
source "$SUITE_TESTS_FILE"
