# Build speed (issue 23): shimctl-core and shimctl-cli are unity builds. Included from the
# top-level CMakeLists.txt once the targets exist; acts on them by name, so that the source lists
# (installer/CMakeLists.txt's GLOBs) stay as they are.
#
# Most of a translation unit's time here is nlohmann/json, fmt and CLI11: parsing them, and for
# CLI11 2.1 also compiling its namespace-scope validator objects again in every TU that includes
# it. A unity build of SHIMCTL_UNITY_BATCH_SIZE sources pays that once per batch instead of once
# per source (the product, 70 sources, becomes 7 TUs). The unit tests stay one TU per test file
# (tests/CMakeLists.txt: their helpers share names across files).
#
# No precompiled headers (measured, GCC 12): with the unity build they save nothing on the
# product, and nothing on the unit tests, whose time is code generation; and GCC 12 does not keep
# the `#pragma GCC diagnostic` state of a PCH (GCC PR 64117), so libstdc++'s own suppression of
# -Warray-bounds in <bits/char_traits.h> is lost and -Werror fails on its known false positives.
option(SHIMCTL_UNITY "Unity build of shimctl-core and shimctl-cli" ON)
set(SHIMCTL_UNITY_BATCH_SIZE 12 CACHE STRING "Sources per unity translation unit of shimctl-core")

if(SHIMCTL_UNITY)
  if(TARGET shimctl-core)
    set_target_properties(shimctl-core PROPERTIES UNITY_BUILD ON
                                                  UNITY_BUILD_BATCH_SIZE ${SHIMCTL_UNITY_BATCH_SIZE})
  endif()
  # shimctl-cli: one TU whatever its size. Nearly every CLI source includes CLI11, which costs as
  # much as the rest of the target: two batches took 1.7x the CPU of one.
  if(TARGET shimctl-cli)
    set_target_properties(shimctl-cli PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  endif()
  # shimctl-test-hooks links its own core/test_hooks.cpp (with SHIMCTL_TEST_HOOKS) in place of
  # the library's: that object stays alone in the archive, or the linker would pull the hook-less
  # definitions in with whatever else shares its unity object (duplicate symbols).
  if(TARGET shimctl-core)
    get_target_property(core_sources shimctl-core SOURCES)
    list(FILTER core_sources INCLUDE REGEX "(^|/)test_hooks\\.cpp$")
    if(core_sources)
      set_source_files_properties(${core_sources} TARGET_DIRECTORY shimctl-core
                                  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endif()
endif()
# RelWithDebInfo (scripts/setup's build) with line tables only (-g1): file:line in backtraces and
# perf, no local variables in gdb; a quarter less compile time (GCC 12: debug info is a quarter
# of the product's CPU). The code is the same (GCC never lets -g change code generation) and the
# .deb is stripped anyway. SHIMCTL_FULL_DEBUG_INFO=ON (or a Debug build) for full -g.
option(SHIMCTL_FULL_DEBUG_INFO "RelWithDebInfo: full -g instead of line tables only (-g1)" OFF)
if(NOT SHIMCTL_FULL_DEBUG_INFO)
  foreach(t shimctl-shim-formats shimctl-core shimctl-cli shimctl-test-hooks shimctl-unit-tests)
    if(TARGET ${t})
      # After CMAKE_<LANG>_FLAGS_RELWITHDEBINFO's -g on the command line: the last -g level wins.
      target_compile_options(${t} PRIVATE $<$<CONFIG:RelWithDebInfo>:-g1>)
    endif()
  endforeach()
endif()

message(STATUS "shimctl: unity build ${SHIMCTL_UNITY} (batch ${SHIMCTL_UNITY_BATCH_SIZE}), "
               "full debug info ${SHIMCTL_FULL_DEBUG_INFO}")
