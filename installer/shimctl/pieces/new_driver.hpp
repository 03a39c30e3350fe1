// The new offload driver's plan of a HIP compile (clang 23's default): per target a device cc1
// that writes bitcode, one llvm-offload-binary that packages it, and then either (without
// -fgpu-rdc) clang-linker-wrapper --emit-fatbin-only, whose fat binary the host cc1 embeds
// (-fcuda-include-gpubinary), or (-fgpu-rdc) the host cc1 embedding the package itself
// (-fembed-offload-object). What the wrapper runs is not in `-###`: its `--dry-run` prints it
// (per target a `clang ... -mcpu=X -flto ...` that makes the target's image, then the bundler),
// one line per job, the program quoted and its arguments bare.
#pragma once
#include <shimctl/pieces/offload_plan.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

// A job only the new driver runs (the packager, the linker wrapper).
[[nodiscard]] bool is_new_driver_job(const Job& job);

// JOBS of a compile for TARGETS (as the call names them), RDC as the call says; driver new.
[[nodiscard]] OffloadPlan recognise_new_driver_plan(const std::vector<Job>& jobs,
                                                    const std::vector<std::string>& targets,
                                                    bool rdc);

struct WrapperJobs {
  std::map<std::string, Job> image_jobs; // per target ID: the clang job that makes its image
  Job bundler;                           // the bundler job, as the wrapper runs it
  // For each -input= of the bundler: the target ID whose image goes there, "" for the host's.
  std::vector<std::string> bundle_inputs;
  std::string whole_reason; // empty: recognised
};

// The wrapper's JOBS (its dry run) for TARGETS: one image job per target, then one bundler.
[[nodiscard]] WrapperJobs recognise_wrapper_jobs(const std::vector<Job>& jobs,
                                                 const std::vector<std::string>& targets);

// PACKAGER with FILES as its images' files (in order) and OUTPUT as its -o.
[[nodiscard]] Job packager_with(const Job& packager,
                                const std::vector<std::string>& files,
                                const std::string& output);
// WRAPPER (its plan's job, input PACKAGE_WAS) reading PACKAGE, writing OUTPUT, --dry-run.
[[nodiscard]] Job wrapper_dry_run(const Job& wrapper,
                                  const std::string& package_was,
                                  const std::string& package,
                                  const std::string& output);
// An image JOB reading BITCODE (which must be named *.o: a .bc input is optimised again) and
// writing OUTPUT; empty when the job does not have exactly one input.
[[nodiscard]] Job image_job_with(const Job& job,
                                 const std::string& bitcode,
                                 const std::string& output);

} // namespace shimctl::pieces
