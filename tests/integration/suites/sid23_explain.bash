# explain_common.bash on the third stack: clang-23 (the new offload driver by default) with hipcc
# 7.0.2 and ccache 4.14.2, in the sid root; the toolchain part changed is ld.lld.
# The store taken out and sccache's records do not depend on the driver: sid_explain runs them.
SUITE_TESTS_SKIP='^test_explain_(store_out|sccache)$'
SUITE_TESTS_SKIP_WHY="the driver plays no part (sid_explain runs it)"
SID_LLVM=23
# What the driver changes is the toolchain's part (ld.lld): the cold build and that change run
# here; the flags, headers, GPU targets, the checkout's path and eviction are the records' and
# ccache's, whichever driver (sid_explain and explain run them: the test budget).
EX_SKIP="flag header targets place eviction"
EX_CCACHE_STEPS="a toolchain part (ld.lld)"
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_explain.bash
source "$(dirname "${BASH_SOURCE[0]}")/sid_explain.bash"
