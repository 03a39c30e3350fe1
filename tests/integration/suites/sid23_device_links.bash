# sid_device_links.bash on the third stack: clang-23, the new offload driver (its linker wrapper
# runs the clang beside it, the shim, once per GPU target), with rocm-device-libs-21, in the sid
# root.
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_device_links.bash
source "$SUITE_TESTS_FILE"
