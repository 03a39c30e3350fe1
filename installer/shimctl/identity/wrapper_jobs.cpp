#include <algorithm>
#include <filesystem>
#include <shimctl/identity/job_list.hpp>
#include <shimctl/identity/wrapper_jobs.hpp>
#include <shimctl/util/job_lines.hpp>
#include <shimctl/util/text.hpp>
#include <unistd.h>

namespace shimctl::identity {

namespace {

std::string program_name(std::string_view path) {
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool is_wrapper(const JobArgs& job) {
  return !job.empty() && program_name(job[0]).starts_with("clang-linker-wrapper");
}

// A clang driver call (not a cc1 job, not one of clang's other tools): its own plan is asked for.
bool is_driver_call(const JobArgs& job) {
  auto name = program_name(job[0]);
  if (!name.starts_with("clang") || name.starts_with("clang-offload") ||
      name.starts_with("clang-linker") || name.starts_with("clang-nvlink"))
    return false;
  return job.size() < 2 || (job[1] != "-cc1" && job[1] != "-cc1as");
}

// What a wrapper runs when its jobs cannot be read: the programs it finds beside itself.
WrapperPrograms beside_the_wrapper(const std::string& wrapper, std::string why) {
  WrapperPrograms result;
  auto dir = std::filesystem::path(wrapper).parent_path().string();
  for (const char* name : { "clang", "ld.lld", "lld", "clang-offload-bundler" })
    if (auto path = dir + "/" + name; ::access(path.c_str(), X_OK) == 0)
      result.programs.push_back(path);
  result.failure = std::move(why);
  return result;
}

void add_program(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::ranges::find(list, item) == list.end())
    list.push_back(item);
}

} // namespace

std::string linker_wrapper_of(const std::vector<JobArgs>& plan) {
  auto wrapper = std::ranges::find_if(plan, is_wrapper);
  return wrapper == plan.end() ? std::string() : (*wrapper)[0];
}

WrapperPrograms wrapper_programs(const std::vector<JobArgs>& plan,
                                 const util::RunOptions& options) {
  auto wrapper = std::ranges::find_if(plan, is_wrapper);
  if (wrapper == plan.end())
    return {};
  auto run_options = options;
  run_options.env["TMPDIR"] = options.cwd;
  for (auto job = plan.begin(); job != wrapper; ++job) {
    auto r = util::run(*job, run_options);
    if (!r || !r->ok())
      return beside_the_wrapper((*wrapper)[0],
                                program_name((*job)[0]) +
                                  " failed while the compile was replayed up to the wrapper");
  }
  auto dry = *wrapper;
  dry.emplace_back("--dry-run");
  auto printed = util::run(dry, run_options);
  if (!printed || !printed->ok())
    return beside_the_wrapper((*wrapper)[0], "clang-linker-wrapper --dry-run failed");

  WrapperPrograms result;
  for (const auto& line : util::lines_of(printed->err + "\n" + printed->out)) {
    auto job = util::split_wrapper_line(line);
    if (job.empty())
      continue;
    add_program(result.programs, job[0]);
    if (!is_driver_call(job))
      continue;
    // The device link: its own plan names the linker (ld.lld by the path the driver runs).
    job.emplace_back("-###");
    auto nested = util::run(job, run_options);
    if (!nested)
      continue;
    auto jobs = parse_job_list(nested->out + "\n" + nested->err);
    for (const auto& program : jobs.executables)
      add_program(result.programs,
                  program.find('/') != std::string::npos || jobs.installed_dir.empty()
                    ? program
                    : jobs.installed_dir + "/" + program);
  }
  if (result.programs.empty())
    return beside_the_wrapper((*wrapper)[0], "clang-linker-wrapper --dry-run printed no job");
  return result;
}

} // namespace shimctl::identity
