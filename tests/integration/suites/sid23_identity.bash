# sid_identity.bash on the third stack: clang-23, the new offload driver by default (the device
# link runs inside clang-linker-wrapper, through the clang beside it and ld.lld), with
# rocm-device-libs-21, hipcc 7.0.2, ccache 4.14.2 and sccache 0.17, in the sid root.
# Plain sccache's own device-library key (no shimctl) does not depend on the driver.
SUITE_TESTS_SKIP='plain_sccache'
SUITE_TESTS_SKIP_WHY="plain sccache's device-library key does not depend on the driver (sid_identity runs it)"
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_identity.bash
source "$SUITE_TESTS_FILE"
