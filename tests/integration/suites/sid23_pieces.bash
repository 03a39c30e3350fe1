# sid_pieces.bash on the third stack: clang-23, the new offload driver by default (each piece is
# the image the linker wrapper's own job makes for its target), with rocm-device-libs-21, hipcc
# 7.0.2, ccache 4.14.2 and sccache 0.17, in the sid root.
# The fallbacks by the call's own arguments (-save-temps, -fgpu-sanitize, several inputs, ...) are
# decided before the driver's plan is read: sid_pieces runs them.
# sccache's jobserver slot, lent while pieces and lookups run, does not depend on the driver:
# sid_pieces runs it.
SUITE_TESTS_SKIP='^test_(fallbacks_sid|sccache_parallel)$'
SUITE_TESTS_SKIP_WHY="refused by the call's own arguments, before the driver's plan; the sccache slot's lending is the driver's no part (sid_pieces runs both)"
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_pieces.bash
source "$SUITE_TESTS_FILE"
