# anywhere_common.bash on the third stack: clang-23 (the new offload driver by default) with
# hipcc 7.0.2, ccache 4.14.2 and sccache 0.17, in the sid root. The absolute forms, the moved
# tree, the two users' JIT and Make do not depend on the driver, nor sccache's keying (the new
# driver's objects under a cache tool: the ccache test): sid_anywhere runs them.
SUITE_TESTS_SKIP='^test_anywhere_(absolute_forms|moved_tree|jit_two_users|make|jit_from_anywhere|sccache)$'
SUITE_TESTS_SKIP_WHY="the driver plays no part (sid_anywhere runs it)"
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/anywhere_common.bash
source "$(dirname "${BASH_SOURCE[0]}")/sid_anywhere.bash"
