// The driver's plan of a HIP compile (`clang -###`): its jobs, and what a recogniser makes of
// them (offload_jobs.hpp: the old offload driver's; new_driver.hpp: the new one's).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::pieces {

using Job = std::vector<std::string>;

enum class OffloadDriver { old_driver, new_driver };

struct OffloadPlan {
  OffloadDriver driver = OffloadDriver::old_driver;
  // The bundler job as the driver runs it (new driver: as its linker wrapper runs it); its
  // inputs are replaced by the pieces.
  Job bundler;
  // For each -input= of the bundler (in order): the target ID whose piece goes there ("gfx90a",
  // "gfx90a:xnack+"), or "" for the host's input (/dev/null, or the host object with -fgpu-rdc).
  std::vector<std::string> bundle_inputs;
  bool rdc = false; // the bundler writes the object (device bitcode + host object)
  // The new driver: per target its device cc1 (bitcode), the packager (llvm-offload-binary)
  // with the target ID of each --image= in order, and without -fgpu-rdc the linker wrapper
  // that makes the fat binary (--emit-fatbin-only) the host cc1 embeds.
  std::map<std::string, Job> device_jobs;
  Job packager;
  std::vector<std::string> package_images;
  Job wrapper;
  std::string whole_reason; // why the compile runs whole; empty: recognised
};

// The value after NAME in JOB ("-o" "x"), or "".
[[nodiscard]] std::string job_value(const Job& job, std::string_view name);
// A program's file name ("clang-offload-bundler" of "/usr/bin/clang-offload-bundler").
[[nodiscard]] std::string job_tool(const std::string& program);
// Target ID as a part of a file name ("gfx90a_xnack+" of "gfx90a:xnack+").
[[nodiscard]] std::string target_file_name(std::string_view id);
// A bundler entry "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+" / "hip-amdgcn-amd-amdhsa-gfx90a":
// its target ID; "" for the host's entry ("host-...") or an unknown kind.
[[nodiscard]] std::string bundle_entry_target(std::string_view entry);

// What a first split's verdict is kept for: the kind of PLAN ("objects", "rdc", "new-driver
// objects compressed", ...).
[[nodiscard]] std::string plan_kind(const OffloadPlan& plan);

} // namespace shimctl::pieces
