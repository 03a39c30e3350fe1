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
set(SHIMCTL_UNITY_BATCH_SIZE 12 CACHE STRING "Sources per unity translation unit (shimctl-core, shimctl-cli)")

if(SHIMCTL_UNITY)
  foreach(t shimctl-core shimctl-cli)
    if(TARGET ${t})
      set_target_properties(${t} PROPERTIES UNITY_BUILD ON
                                            UNITY_BUILD_BATCH_SIZE ${SHIMCTL_UNITY_BATCH_SIZE})
    endif()
  endforeach()
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
message(STATUS "shimctl: unity build ${SHIMCTL_UNITY} (batch ${SHIMCTL_UNITY_BATCH_SIZE})")
