// Identity inputs a toolchain reports itself: the `-###` job list of a probe
// HIP compile names every program the driver runs (clang's cc1, lld,
// clang-offload-bundler, ...), the device libraries it links
// (-mlink-builtin-bitcode) and the config files it read. Layout globs miss
// what a distribution puts elsewhere (Debian: /usr/lib/llvm-N, bitcode in
// clang's resource dir or /usr/lib/<triplet>/amdgcn); the job list does not.
#pragma once

#include <shimctl/identity/job_list.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::identity {

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
