# distro.bash on the sid stack: Debian sid's ROCm in /usr (hipcc 7.0.2 hipBin, clang-21, device
# libraries in clang's resource dir /usr/lib/llvm-21/lib/clang/21/amdgcn/bitcode), ccache 4.14.2
# and sccache 0.17, inside the sid root, with an overlay over its /usr in a private mount namespace.
STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/distro.bash
source "$SUITE_TESTS_FILE"
