# device_links.bash on the third stack: clang-23, the new offload driver (its linker wrapper runs
# the clang beside it, the shim, once per GPU target), rocm-device-libs-21, in the sid root.
# What the store does with an entry (archives, a read-only remote, a shared cache, the switches)
# does not depend on the driver: sid_device_links runs it.
SUITE_TESTS_SKIP='^test_device_links_(in_cache_archives|remote_read_only|shared_cache|disabled_and_read_only)$'
SUITE_TESTS_SKIP_WHY="the driver plays no part (sid_device_links runs it)"
DL_STACK=sid SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/device_links.bash
source "$SUITE_TESTS_FILE"
