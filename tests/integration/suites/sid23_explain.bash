# explain_common.bash on the third stack: clang-23 (the new offload driver by default) with hipcc
# 7.0.2, ccache 4.14.2 and sccache 0.17, in the sid root; the toolchain part changed is ld.lld.
# The store taken out and sccache's records do not depend on the driver: sid_explain runs them.
SUITE_TESTS_SKIP='^test_explain_(store_out|sccache)$'
SUITE_TESTS_SKIP_WHY="the driver plays no part (sid_explain runs it)"
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_explain.bash
source "$(dirname "${BASH_SOURCE[0]}")/sid_explain.bash"
