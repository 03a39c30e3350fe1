# multiuser's tests on the sid stack: hipcc 7.0.2/clang-21 (the ROCm-7-shaped prefix), sccache
# 0.17 (each user's server on a unix socket in the user's private directory), ccache 4.14.2.
# Runs inside the sid root (scripts/test-sid).
STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/multiuser.bash
source "$SUITE_TESTS_FILE"
