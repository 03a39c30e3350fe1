# End to end on an /opt/rocm-shaped prefix with clang-16 (scripts/make-rocm-prefix --llvm 16):
# clang >= 16 derives its driver mode and default config file (clang++.cfg) from the invoked
# name, so the alias tests here prove what clang-15 cannot. Shared tests: rocm_common.bash.

LLVM=16
source "$(dirname "${BASH_SOURCE[0]}")/rocm_common.bash"

suite_requires() { rocm_requires; }

test_hipcc_paths() { rocm_hipcc_paths; }
test_aliases() { rocm_aliases; }
test_launcher() { rocm_launcher; }
test_install_rollback() { rocm_install_rollback; }
test_native_target() { rocm_native_target; }
test_fresh_build_dir_paths() { rocm_fresh_build_dir_paths; }
