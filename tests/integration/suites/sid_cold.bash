# The cold-miss tests of cold.bash on the sid stack: hipcc 7.0.2 (hipBin), clang-21, ccache 4.14.2,
# where a device-only -MD -MF compile writes no depfile at all. Runs inside the sid root
# (scripts/test-sid). sid23_cold.bash runs them on clang-23 (SID_LLVM=23).
LLVM=$SID_LLVM
STACK=sid
SUITE_TESTS_FILE=$(dirname "${BASH_SOURCE[0]}")/cold.bash
source "$SUITE_TESTS_FILE"
LLVM=$SID_LLVM
STACK=sid

suite_requires() {
  command -v ccache >/dev/null && [ -x "/usr/lib/llvm-$SID_LLVM/bin/clang" ] &&
    file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}
