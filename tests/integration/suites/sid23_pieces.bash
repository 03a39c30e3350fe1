# sid_pieces.bash on the third stack: clang-23, the new offload driver by default (each piece is
# the image the linker wrapper's own job makes for its target), with rocm-device-libs-21, hipcc
# 7.0.2, ccache 4.14.2 and sccache 0.17, in the sid root.
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_pieces.bash
source "$SUITE_TESTS_FILE"
