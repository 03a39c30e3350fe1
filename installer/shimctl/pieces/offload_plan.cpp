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

std::vector<Job> parse_jobs(const std::string& text) {
  std::vector<Job> jobs;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string::npos)
      end = text.size();
    std::string_view line(text.data() + at, end - at);
    at = end + 1;
    if (!line.starts_with(" \""))
      continue; // the driver's banner: version, target, thread model, InstalledDir
    Job job;
    std::string arg;
    bool quoted = false;
    for (std::size_t i = 1; i < line.size(); i++) {
      char c = line[i];
      if (!quoted && c == '"') {
        quoted = true;
        arg.clear();
      } else if (quoted && c == '\\' && i + 1 < line.size()) {
        arg += line[++i];
      } else if (quoted && c == '"') {
        quoted = false;
        job.push_back(arg);
      } else if (quoted) {
        arg += c;
      }
    }
    if (!job.empty())
      jobs.push_back(std::move(job));
  }
  return jobs;
}

} // namespace shimctl::pieces
