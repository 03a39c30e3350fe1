// Fault injection for the integration tests, live only in the executable
// shimctl-test-hooks (CMake option SHIMCTL_TEST_HOOKS, on in scripts/setup's
// build), which compiles test_hooks.cpp with SHIMCTL_TEST_HOOKS defined:
// shimctl itself, installed and packaged, has no kill switch in its environment. The black-box
// crash tests (a real SIGKILL from outside) need none of this.
#pragma once

#include <cstddef>

namespace shimctl::core::test_hooks {

// True in a build with the hooks (`shimctl version` says so).
[[nodiscard]] bool enabled();

// SHIMCTL_TEST_KILL_AFTER_STEP=K: SIGKILL this process right after step K
// (1-based; 0 = right after the journal is written) of any transaction.
void kill_after_step(std::size_t step_number);

// SHIMCTL_TEST_AFTER_PLAN=COMMAND: run COMMAND with /bin/sh between an
// install's plan and its transaction (a package upgrade racing the install).
void after_plan();

} // namespace shimctl::core::test_hooks
