# anywhere_common.bash on the 2026 stack: hipcc 7.0.2 (hipBin), clang-21, ccache 4.14.2 and
# sccache 0.17, in the sid root (scripts/test-sid).
STACK=sid
AN_TOOLS="ccache sccache"
SUITE_TESTS_FILE=${SUITE_TESTS_FILE:-$(dirname "${BASH_SOURCE[0]}")/anywhere_common.bash}
source "$SUITE_TESTS_FILE"

suite_requires() {
  command -v ccache >/dev/null && command -v sccache >/dev/null && command -v cmake >/dev/null &&
    command -v ninja >/dev/null && command -v python3 >/dev/null &&
    [ -x "$SHIMCTL" ] && [ -x "/usr/lib/llvm-${SID_LLVM:-21}/bin/clang" ] &&
    file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF
}
