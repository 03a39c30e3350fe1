// Identity inputs a toolchain reports itself: the `-###` job list of a probe
// HIP compile names every program the driver runs (clang's cc1, lld,
// clang-offload-bundler, ...), the device libraries it links
// (-mlink-builtin-bitcode) and the config files it read. Layout globs miss
// what a distribution puts elsewhere (Debian: /usr/lib/llvm-N, bitcode in
// clang's resource dir or /usr/lib/<triplet>/amdgcn); the job list does not.
#pragma once

#include <shimctl/util/error.hpp>
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

// The arguments of one job line: ` "prog" "arg" ...`, with clang's quoting
// (a backslash escapes ", \ and $). Empty when LINE is not a job line.
[[nodiscard]] std::vector<std::string> split_job_line(std::string_view line);

[[nodiscard]] JobList parse_job_list(std::string_view text);

// One compiler's probe: what install needs to judge it.
struct ProbedCompiler {
  std::string path;   // relative to the prefix
  std::string family; // hipcc | clang
  bool has_jobs = false;
  bool has_bitcode = false;
  std::string first_error; // the first error line of the probe, if any
};

struct JobInputs {
  // Relative to the prefix (a wrapped compiler by its .real), absolute outside it; sorted, once.
  std::vector<std::string> files;
  std::vector<ProbedCompiler> compilers;
};

struct ProbeTarget {
  std::string path;   // relative to the prefix
  std::string family; // only hipcc and clang compile HIP; others are skipped
};

// Runs `COMPILER -x hip --offload-arch=gfx90a -c probe.hip -o probe.o -###` in
// a scratch directory for each HIP-capable compiler (SHIMCTL_DISABLE=1: an
// installed shim execs the original), once with its default offload driver and
// once with the other one (a flag a build may pass; a compiler that refuses it
// adds nothing), and turns each job list into inputs: the programs, and what a
// linker wrapper among them runs (identity/wrapper_jobs.hpp), every *.bc in each
// directory a linked bitcode file lives in (one probe links only the files its
// flags select), the config files with every *.cfg beside them, and hipcc's
// driver. Paths resolve through symlinks, and a program named by a symlink is
// also an input by that name (an ld.lld link replaced by another file changes
// the identity); WRAPPED (relative paths of the wrapped compilers) are named by
// their .real.
[[nodiscard]] util::Result<JobInputs> probe_job_inputs(const std::string& prefix,
                                                       const std::vector<ProbeTarget>& compilers,
                                                       const std::vector<std::string>& wrapped);

// An install refuses a hipcc whose probe shows a job list without any device
// library: its cache key could not follow the bitcode. The one-line reason, or
// "" when every probed hipcc links device libraries (or shows no job list).
// Only compilers that resolve to one of WRAPPED (relative paths) count.
[[nodiscard]] std::string missing_device_libraries(const std::string& prefix,
                                                   const JobInputs& inputs,
                                                   const std::vector<std::string>& wrapped);

} // namespace shimctl::identity
