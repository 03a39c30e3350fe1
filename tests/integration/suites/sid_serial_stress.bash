# The concurrency suite serial_stress on the sid stack: the prefix lock, and live compiles through
# every wrapped name of the ROCm-7-shaped prefix (hipcc 7.0.2 hipBin, clang-21 and its aliases,
# amdclang{,++} through amdllvm) while install and rollback alternate (ccache 4.14). Runs inside
# the sid root (scripts/test-sid).
STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/serial_stress.bash
source "$SUITE_TESTS_FILE"
