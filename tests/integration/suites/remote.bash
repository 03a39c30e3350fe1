# A store shared between machines on the Debian 12 stack: remote_common.bash's tests with ccache
# 4.7.5 behind the shim, on copies of the clang-15 ROCm 5.2 fixture (perl hipcc, llvm/bin).
# sid_remote runs the same tests on the sid stack.
STACK=debian12
LLVM=15
STORE_FIXTURE=15
CCACHE_SERIES=4.7
STORE_KINDS=redis
# ccache's HTTP store on Debian 12: remote_http. sccache 0.4 caches no HIP and has no remote
# storage (suites/sccache, team_stores' refusal).
SUITE_TESTS_SKIP='^test_(ccache_http_store|sccache_)'
SUITE_TESTS_SKIP_WHY="remote_http runs ccache's HTTP store here; sccache 0.4 caches no HIP and has no store (suites/sccache)"
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/remote_common.bash
source "$SUITE_TESTS_FILE"
