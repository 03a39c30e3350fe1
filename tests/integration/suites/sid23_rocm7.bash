# sid_rocm7.bash on the third stack: the ROCm-7-shaped /opt/rocm built from clang-23 (the new
# offload driver by default), hipcc 7.0.2 and rocm-device-libs-21, with ccache 4.14.2: install
# through the alternatives chain, verify, status, rollback, aiter's JIT, probes, CMake, CUIDs,
# clang's names.
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_rocm7.bash
source "$SUITE_TESTS_FILE"
