// Fault injection for the integration tests, live only in the executable
// shimctl-test-hooks (CMake option SHIMCTL_TEST_HOOKS, on in scripts/setup's
// build), which compiles test_hooks.cpp with SHIMCTL_TEST_HOOKS defined:
// shimctl itself, installed and packaged, has no kill switch in its environment. The black-box
// crash tests (a real SIGKILL from outside) need none of this.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace shimctl::core::test_hooks {

// True in a build with the hooks (`shimctl version` says so).
[[nodiscard]] bool enabled();

// SHIMCTL_TEST_KILL_AFTER_STEP=K: SIGKILL this process right after step K
// (1-based; 0 = right after the journal is written) of any transaction.
void kill_after_step(std::size_t step_number);

// SHIMCTL_TEST_AFTER_PLAN=COMMAND: run COMMAND with /bin/sh between an
// install's plan and its transaction (a package upgrade racing the install).
void after_plan();

// For scripts/bench's comparison of identity mechanisms, in the ccache shims'
// environment (cache/cache_backend.cpp): SHIMCTL_TEST_SHIM_IDENTITY=off leaves
// out the snapshot guard (no identity helper: the shim keys by nothing of the
// toolchain); SHIMCTL_TEST_SHIM_ENV (NAME=VALUE lines) adds defaults, e.g.
// CCACHE_EXTRAFILES for ccache to hash the inputs itself.
[[nodiscard]] bool shim_identity_off();
[[nodiscard]] std::vector<std::string> shim_extra_environment();

} // namespace shimctl::core::test_hooks
