# explain_common.bash on the 2026 stack: hipcc 7.0.2 (hipBin), clang-21, ccache 4.14.2 and
# sccache 0.17, in the sid root (scripts/test-sid).
STACK=sid
EX_TOOLS="ccache sccache"
EX_UNITS=8 EX_QUARTER=2 # of the project's units: 2 include quarter.h
source "$(dirname "${BASH_SOURCE[0]}")/explain_common.bash"
EX_CCACHE_STEPS=${EX_CCACHE_STEPS:-"a flag, a header, a toolchain part, the GPU targets, the checkout's path, an eviction"}

suite_requires() {
  command -v ccache >/dev/null && command -v sccache >/dev/null && command -v cmake >/dev/null &&
    command -v ninja >/dev/null && command -v python3 >/dev/null && command -v redis-server >/dev/null &&
    [ -x "$SHIMCTL" ] && [ -x "/usr/lib/llvm-${SID_LLVM:-21}/bin/clang" ] &&
    file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF
}

test_explain_store_out() {
  TEST "ccache + Redis: the store taken out, the local cache empty: every miss says the store was out"
  EX_MISSES=0 EX_SPECIFIC=0
  ex_store_out
}

test_explain_ccache() {
  TEST "ccache: $EX_CCACHE_STEPS: each miss named"
  ex_changes ccache
}

test_explain_sccache() {
  TEST "sccache: a flag, a header, a toolchain part, the GPU targets: each miss named"
  # The checkout's path is the record's, whichever tool ran: ccache's test names it (test budget).
  EX_SKIP=place ex_changes sccache
}
