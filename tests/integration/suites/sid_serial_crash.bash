# The crash series of serial_crash on the sid stack: shimctl killed with SIGKILL after every step
# of install and of rollback on the ROCm-7-shaped prefix (hipcc 7.0.2 hipBin, clang-21 wrapped
# with its aliases, the amdllvm launcher; ccache 4.14). Runs inside the sid root (scripts/test-sid).
STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/serial_crash.bash
source "$SUITE_TESTS_FILE"
