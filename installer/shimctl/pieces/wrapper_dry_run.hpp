// What the new offload driver's linker wrapper runs for a plan's images, asked without running it:
// its --dry-run on a package of placeholder images. The jobs do not depend on the images' bytes
// (clang 23: a package of real bitcode and one of placeholders give the same jobs, but for their
// temporary names), so the dry run needs no device code and can run beside the device jobs.
#pragma once
#include <shimctl/pieces/new_driver.hpp>
#include <shimctl/pieces/offload_plan.hpp>
#include <shimctl/util/scratch.hpp>

namespace shimctl::pieces {

// The wrapper's jobs for PLAN (the new driver without -fgpu-rdc): one image job per image of its
// packager and the bundler; its files in SCRATCH ("placeholder*"). whole_reason says why not.
[[nodiscard]] WrapperJobs dry_run_on_placeholders(const OffloadPlan& plan,
                                                  const util::ScratchDir& scratch);

// The bundler job and its inputs' order from the linker wrapper's dry run (WRAPPER) into PLAN.
// "" or why the call runs whole.
[[nodiscard]] std::string take_wrapper_bundler(OffloadPlan& plan, WrapperJobs wrapper);

} // namespace shimctl::pieces
