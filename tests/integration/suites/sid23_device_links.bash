# device_links.bash on the third stack: clang-23, the new offload driver (its linker wrapper runs
# the clang beside it, the shim, once per GPU target), rocm-device-libs-21, in the sid root.
DL_STACK=sid SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/device_links.bash
source "$SUITE_TESTS_FILE"
