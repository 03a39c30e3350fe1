# Team stores on the sid stack (issue 24): team_stores_common.bash's tests with ccache 4.14.2 and
# sccache 0.17 behind the shim, on copies of the ROCm-7-shaped fixture (hipcc 7.0.2 hipBin,
# clang-21, lib/llvm/bin). Runs inside the sid root (scripts/test-sid). team_stores runs the same
# tests on Debian 12.
STACK=sid
LLVM=$SID_LLVM
STORE_FIXTURE=sid
CCACHE_SERIES=4.14
SCCACHE_SERIES=0.17
STORE_KINDS="redis tls cluster webdav"
SUITE_TESTS_SKIP='^test_sccache_0_4_'
SUITE_TESTS_SKIP_WHY="sccache 0.17 has remote storage (the test_sccache_* tests use it)"
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/team_stores_common.bash
source "$SUITE_TESTS_FILE"
