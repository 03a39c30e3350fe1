// A compile's job plan as clang prints it (`-###`): each job's arguments, the programs, the
// device libraries linked (-mlink-builtin-bitcode), the config files read, hipcc's driver, the
// errors. Read by identity/job_inputs (what the toolchain runs and reads) and
// identity/wrapper_jobs (what a linker wrapper among the jobs runs).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shimctl::identity {

// What one `-###` output shows (stdout and stderr of the probe, in any order).
struct JobList {
  std::vector<std::vector<std::string>> jobs; // each job's arguments, the program first
  std::vector<std::string> executables;       // each job's program, first seen first, once
  std::vector<std::string> bitcode;      // operands of -mlink-builtin-bitcode/-mlink-bitcode-file
  std::vector<std::string> config_files; // "Configuration file: X" (clang >= 16)
  std::string installed_dir;             // "InstalledDir: D"
  std::string driver;                    // hipcc's "hipcc-cmd: DRIVER ..." (HIPCC_VERBOSE=1)
  std::vector<std::string> errors;       // lines holding ": error: "
  [[nodiscard]] bool has_jobs() const {
    return !executables.empty();
  }
};

[[nodiscard]] JobList parse_job_list(std::string_view text);

} // namespace shimctl::identity
