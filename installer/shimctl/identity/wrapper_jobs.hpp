// What a compile runs that its `-###` plan does not show. The new offload driver (clang 23's
// default for HIP, clang 24's only one) plans one `clang-linker-wrapper` job; the wrapper runs,
// per GPU target, the `clang` beside it (which runs `ld.lld`: the device link) and then the
// bundler. A cache key that follows only `-###` misses the linker: a changed ld.lld served the old
// object. The plan is replayed up to the wrapper, the wrapper asked for its own jobs
// (`--dry-run`), and each driver call among them for its `-###`, so that every program that
// really runs is an identity input. Which driver a compiler uses is read from its plan (a wrapper
// job or none), never from a flag.
#pragma once

#include <shimctl/util/process.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::identity {

using JobArgs = std::vector<std::string>;

// The clang-linker-wrapper PLAN (one compile's `-###` jobs) hands the device link to, as the plan
// names it; "" when it has none (the old offload driver).
[[nodiscard]] std::string linker_wrapper_of(const std::vector<JobArgs>& plan);

struct WrapperPrograms {
  std::vector<std::string> programs; // every program the wrapper's jobs run, as they name them
  std::string failure;               // why they could not be read ("" when they were)
};

// The programs PLAN's linker wrapper runs, transitively: the plan's jobs before the wrapper run for
// real with OPTIONS (its cwd a scratch directory, TMPDIR in it: they write their temporary files
// there), the wrapper with --dry-run, each driver call it prints with -###. On a failure, the
// programs a wrapper runs beside itself (clang, ld.lld, lld, clang-offload-bundler) and the reason.
[[nodiscard]] WrapperPrograms wrapper_programs(const std::vector<JobArgs>& plan,
                                               const util::RunOptions& options);

} // namespace shimctl::identity
