// The driver's own plan of a HIP compile (`clang -###`), recognised as the old offload
// driver's: per target a device cc1 (and, without -fgpu-rdc, an lld link), one
// clang-offload-bundler, one host cc1. Anything else (the new driver's packager and linker
// wrapper, a compressing bundler, another job) is not recognised: the compile runs whole.
#pragma once
#include <string>
#include <vector>

namespace shimctl::pieces {

using Job = std::vector<std::string>;

// The jobs `-###` prints on stderr: one line per job, each argument in double quotes.
[[nodiscard]] std::vector<Job> parse_jobs(const std::string& text);

struct OffloadPlan {
  // The bundler job as the driver runs it; its inputs are replaced by the pieces.
  Job bundler;
  // For each -input= of the bundler (in order): the target ID whose piece goes there ("gfx90a",
  // "gfx90a:xnack+"), or "" for the host's input (/dev/null, or the host object with -fgpu-rdc).
  std::vector<std::string> bundle_inputs;
  bool rdc = false;         // the bundler writes the object (device bitcode + host object)
  std::string whole_reason; // why the compile runs whole; empty: recognised
};

// JOBS of a compile for TARGETS (as the call names them), RDC as the call says.
[[nodiscard]] OffloadPlan recognise_plan(const std::vector<Job>& jobs,
                                         const std::vector<std::string>& targets,
                                         bool rdc);

} // namespace shimctl::pieces
