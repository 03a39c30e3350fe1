# device_links.bash on the sid stack: clang-21, the old offload driver (its per-target lld jobs
# through shimctl as `lld`), hipcc 7.0.2, rocm-device-libs-21, in the sid root.
DL_STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/device_links.bash
source "$SUITE_TESTS_FILE"
