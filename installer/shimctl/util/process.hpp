// Running a child process and capturing what it prints.
#pragma once

#include <map>
#include <optional>
#include <shimctl/util/error.hpp>
#include <string>
#include <vector>

namespace shimctl::util {

// Changes to a child's environment: NAME set to a value, or unset (nullopt).
using EnvChanges = std::map<std::string, std::optional<std::string>>;

struct RunOptions {
  std::string cwd;        // empty: inherit
  EnvChanges env;         // set (value) or unset (nullopt)
  std::string stdin_data; // fed to the child, then closed
  std::string argv0;      // empty: argv[0] = program
};

struct RunResult {
  int exit_code = -1; // 128+signal when killed by a signal
  std::string out;
  std::string err;
  [[nodiscard]] bool ok() const {
    return exit_code == 0;
  }
};

// Runs ARGV[0] (an absolute or relative path, or a name searched in PATH).
// Fails only when the process cannot be started at all.
[[nodiscard]] Result<RunResult> run(const std::vector<std::string>& argv,
                                    const RunOptions& options = {});

// The running executable's absolute path (/proc/self/exe), "" if unknown.
[[nodiscard]] std::string self_executable();

// PATH is a regular file this process may execute.
[[nodiscard]] bool is_executable_file(const std::string& path);

// Looks NAME up in PATH (or returns it when it holds a '/'), "" if absent.
[[nodiscard]] std::string find_in_path(const std::string& name);

// A TCP port of 127.0.0.1 that nothing listens on now (the kernel's pick).
[[nodiscard]] Result<int> free_tcp_port();

} // namespace shimctl::util
