# Team stores on the Debian 12 stack (issue 24): team_stores_common.bash's tests with ccache 4.7.5
# and sccache 0.4 behind the shim, on copies of the clang-15 ROCm 5.2 fixture (perl hipcc,
# llvm/bin). sid_team_stores runs the same tests on the sid stack.
STACK=debian12
LLVM=15
STORE_FIXTURE=15
CCACHE_SERIES=4.7
SCCACHE_SERIES=0.4
STORE_KINDS="redis webdav"
# The tests named test_sccache_ and a letter are sccache 0.17's stores.
SUITE_TESTS_SKIP='^test_sccache_[a-z]'
SUITE_TESTS_SKIP_WHY="sccache 0.4 has no remote storage (test_sccache_0_4_refuses_every_remote: refused)"
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/team_stores_common.bash
source "$SUITE_TESTS_FILE"
