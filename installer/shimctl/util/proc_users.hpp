// Which processes are running a file: its executable, or the script an
// interpreter was started on (the kernel passes the script's path as an
// argument). Used before removing a compiler's PATH.real that a running
// compile may start again (a clang driver re-executes itself for -cc1).
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace shimctl::util {

// Processes (other than this one) whose /proc/PID/exe is PATH or whose
// command line holds PATH as an argument. Processes that cannot be read
// (another user's, without privileges) are not counted.
[[nodiscard]] std::vector<pid_t> processes_running(const std::string& path);

// Processes (other than this one) whose environment holds ENTRY
// ("NAME=VALUE") exactly; only those this process may read (root: all).
[[nodiscard]] std::vector<pid_t> processes_with_environment(const std::string& entry);

// NAME's value in process PID's environment; nullopt when unset or unreadable.
[[nodiscard]] std::optional<std::string> process_environment_value(pid_t pid,
                                                                   const std::string& name);

} // namespace shimctl::util
