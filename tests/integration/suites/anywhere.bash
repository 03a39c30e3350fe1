# anywhere_common.bash on Debian 12: hipcc 5.2 (perl) with clang-15 and ccache 4.7.5 (sccache 0.4
# caches no HIP: ccache only).
AN_TOOLS="ccache"
SUITE_TESTS_FILE=${SUITE_TESTS_FILE:-$(dirname "${BASH_SOURCE[0]}")/anywhere_common.bash}
source "$SUITE_TESTS_FILE"

suite_requires() {
  command -v ccache >/dev/null && command -v cmake >/dev/null && command -v ninja >/dev/null &&
    command -v python3 >/dev/null && [ -x "$SHIMCTL" ] &&
    [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]
}
