#include <algorithm>
#include <shimctl/pieces/offload_plan.hpp>
#include <string_view>

namespace shimctl::pieces {

std::string job_value(const Job& job, std::string_view name) {
  for (std::size_t i = 0; i + 1 < job.size(); i++)
    if (job[i] == name)
      return job[i + 1];
  return {};
}

std::string job_tool(const std::string& program) {
  auto slash = program.rfind('/');
  return slash == std::string::npos ? program : program.substr(slash + 1);
}

std::string target_file_name(std::string_view id) {
  std::string out(id);
  std::ranges::replace_if(
    out, [](char c) { return c == ':' || c == '/'; }, '_');
  return out;
}

std::string bundle_entry_target(std::string_view entry) {
  static constexpr std::string_view triple = "amdgcn-amd-amdhsa";
  if (!(entry.starts_with("hipv4-") || entry.starts_with("hip-")))
    return {};
  auto at = entry.find(triple);
  if (at == std::string_view::npos)
    return {};
  entry.remove_prefix(at + triple.size());
  // The triple's environment, empty ("--gfx90a", clang-15 to 21 without -fgpu-rdc), absent
  // ("-gfx90a", clang-15/16 with it) or "unknown" ("-unknown-gfx90a", clang-21 with it).
  while (entry.starts_with('-'))
    entry.remove_prefix(1);
  if (entry.starts_with("unknown-"))
    entry.remove_prefix(8);
  return std::string(entry);
}

std::string plan_kind(const OffloadPlan& plan) {
  if (plan.driver == OffloadDriver::old_driver)
    return plan.rdc ? "rdc" : "objects";
  // As the call asks the wrapper; its bundler is checked to agree once the dry run is back.
  bool compressed = std::ranges::find(plan.wrapper, "--compress") != plan.wrapper.end();
  return std::string("new-driver ") + (plan.rdc ? "rdc" : "objects") +
         (compressed ? " compressed" : "");
}

} // namespace shimctl::pieces
