# explain_common.bash on Debian 12: hipcc 5.2 (perl) with clang-15 and ccache 4.7.5 (sccache 0.4
# caches no HIP: ccache only).
EX_TOOLS="ccache"
source "$(dirname "${BASH_SOURCE[0]}")/explain_common.bash"

suite_requires() {
  command -v ccache >/dev/null && command -v cmake >/dev/null && command -v ninja >/dev/null &&
    command -v python3 >/dev/null && command -v redis-server >/dev/null && [ -x "$SHIMCTL" ] &&
    [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]
}

test_explain_store_out() {
  TEST "ccache + Redis: the store taken out, the local cache empty: every miss says the store was out"
  EX_MISSES=0 EX_SPECIFIC=0
  ex_store_out
}

test_explain_ccache() {
  TEST "ccache: a flag, a header, a device library, the GPU targets, the checkout's path, an eviction: each miss named"
  ex_changes ccache
}
