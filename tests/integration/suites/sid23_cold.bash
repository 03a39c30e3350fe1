# cold.bash's cold-miss tests on the third stack: clang-23 (the new offload driver by default),
# hipcc 7.0.2, ccache 4.14.2 and sccache 0.17 (sid_cold.bash with SID_LLVM=23).
# The shim's own depfile, its cleanup after a failure, a kill or a race, and where it helps do not
# depend on the offload driver: sid_cold runs those on the same ccache and sccache.
SUITE_TESTS_SKIP='header_change|failing_compile|killed_compile|concurrent_compiles|own_depfile_only'
SUITE_TESTS_SKIP_WHY="the shim's depfile handling does not depend on the driver (sid_cold runs it)"
SID_LLVM=23
source "$(dirname "${BASH_SOURCE[0]}")/sid_cold.bash"
