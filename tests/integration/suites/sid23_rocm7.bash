# sid_rocm7.bash on the third stack: the ROCm-7-shaped /opt/rocm built from clang-23 (the new
# offload driver by default), hipcc 7.0.2 and rocm-device-libs-21, with ccache 4.14.2: install
# through the alternatives chain, verify, status, rollback, aiter's JIT, probes, CMake, CUIDs,
# clang's names.
# base_dir and CMake's identification go through the same shim and ccache as on clang-21:
# sid_rocm7 runs them.
SUITE_TESTS_SKIP='fresh_build_dir_paths|cmake_hip'
SUITE_TESTS_SKIP_WHY="base_dir and CMake's identification do not depend on the driver (sid_rocm7 runs them)"
SID_LLVM=23
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/sid_rocm7.bash
source "$SUITE_TESTS_FILE"
