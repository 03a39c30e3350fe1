# cold.bash's cold-miss tests on the third stack: clang-23 (the new offload driver by default),
# hipcc 7.0.2, ccache 4.14.2 and sccache 0.17 (sid_cold.bash with SID_LLVM=23).
SID_LLVM=23
source "$(dirname "${BASH_SOURCE[0]}")/sid_cold.bash"
