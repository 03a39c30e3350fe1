#include <algorithm>
#include <map>
#include <shimctl/pieces/new_driver.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/pieces/offload_plan.hpp>
#include <shimctl/util/job_lines.hpp>
#include <string_view>

namespace shimctl::pieces {

namespace {

std::string base_name(const std::string& path) {
  return job_tool(path);
}

std::string value_after(const Job& job, std::string_view name) {
  return job_value(job, name);
}

bool has(const Job& job, std::string_view arg) {
  return std::ranges::find(job, arg) != job.end();
}

// The processor of a target ID: "gfx90a" of "gfx90a:xnack+".
std::string processor_of(std::string_view id) {
  return std::string(id.substr(0, id.find(':')));
}

std::string target_id_of(std::string_view entry) {
  return bundle_entry_target(entry);
}

std::vector<std::string> split_commas(std::string_view list) {
  std::vector<std::string> out;
  while (true) {
    auto comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos)
      return out;
    list.remove_prefix(comma + 1);
  }
}

} // namespace

OffloadPlan recognise_plan(const std::vector<Job>& jobs,
                           const std::vector<std::string>& targets,
                           bool rdc) {
  // The new driver packages device bitcode (and, without -fgpu-rdc, its linker wrapper makes
  // the fat binary): its own recogniser.
  for (const auto& job : jobs)
    if (is_new_driver_job(job))
      return recognise_new_driver_plan(jobs, targets, rdc);
  OffloadPlan plan;
  plan.rdc = rdc;
  auto refuse = [&plan](std::string why) {
    plan.whole_reason = std::move(why);
    return plan;
  };
  std::map<std::string, std::string> device_output_cpu; // device cc1 -o -> -target-cpu
  std::map<std::string, std::string> linked_from;       // lld -o -> its input
  int host_jobs = 0, bundlers = 0;
  auto is_device_job = [](const Job& job) {
    return has(job, "-cc1") && value_after(job, "-triple") == "amdgcn-amd-amdhsa";
  };
  for (const auto& job : jobs)
    if (is_device_job(job))
      device_output_cpu[value_after(job, "-o")] = value_after(job, "-target-cpu");
  for (const auto& job : jobs) {
    std::string tool = base_name(job[0]);
    if (is_device_job(job)) {
      continue;
    } else if (has(job, "-cc1")) {
      host_jobs++;
      if (!rdc && !has(job, "-fcuda-include-gpubinary"))
        return refuse("the host job embeds no GPU binary");
    } else if ((tool == "lld" || tool == "ld.lld") && !rdc) {
      // Its input: the device job's object among its arguments (clang-21 adds options after).
      auto input = std::ranges::find_if(
        job, [&](const std::string& arg) { return device_output_cpu.contains(arg); });
      if (input == job.end())
        return refuse("an lld job links no device job's object");
      linked_from[value_after(job, "-o")] = *input;
    } else if (tool == "clang-offload-bundler") {
      bundlers++;
      plan.bundler = job;
    } else {
      return refuse("the driver runs " + tool + " (not the old offload driver's pipeline)");
    }
  }
  if (host_jobs != 1 || bundlers != 1)
    return refuse("not one host job and one bundler");
  if (device_output_cpu.size() != targets.size())
    return refuse("not one device job per target");
  std::string type, target_list;
  std::vector<std::string> inputs;
  for (const auto& arg : plan.bundler) {
    if (arg.starts_with("-type="))
      type = arg.substr(6);
    else if (arg.starts_with("-targets="))
      target_list = arg.substr(9);
    else if (arg.starts_with("-input="))
      inputs.push_back(arg.substr(7));
    else if (arg.starts_with("-compress") || arg.starts_with("-unbundle") ||
             arg.starts_with("-list"))
      return refuse("the bundler is asked for " + arg);
  }
  if (type != "o")
    return refuse("the bundler writes type " + type);
  auto entries = split_commas(target_list);
  if (entries.size() != inputs.size() || entries.size() != targets.size() + 1)
    return refuse("the bundler's targets and inputs do not match the call's targets");
  for (std::size_t i = 0; i < entries.size(); i++) {
    if (entries[i].starts_with("host-")) {
      plan.bundle_inputs.emplace_back();
      continue;
    }
    std::string id = target_id_of(entries[i]);
    if (id.empty() || std::ranges::find(targets, id) == targets.end())
      return refuse("bundle entry " + entries[i] + " is not one of the call's targets");
    // The input must come from the device job of that processor (through lld without rdc).
    auto source = rdc ? inputs[i] : linked_from[inputs[i]];
    auto cpu = device_output_cpu.find(source);
    if (cpu == device_output_cpu.end() || cpu->second != processor_of(id))
      return refuse("bundle entry " + entries[i] + " does not come from its target's device job");
    plan.bundle_inputs.push_back(id);
  }
  return plan;
}

std::optional<OffloadPlan> asked_plan(const PieceRequest& request,
                                      const OffloadCall& call,
                                      std::string& why) {
  std::vector<std::string> args(request.argv.begin() + 1, request.argv.end());
  args.push_back("-###");
  auto jobs = run_compiler(request, args);
  if (!jobs || !jobs->ok()) {
    why = "the driver's -### failed";
    return std::nullopt;
  }
  auto plan = recognise_plan(util::job_lines(jobs->err), call.targets, call.rdc);
  if (!(why = plan.whole_reason).empty())
    return std::nullopt;
  if (plan.driver == OffloadDriver::new_driver)
    plan.bundle_inputs = plan.package_images;
  return plan;
}

} // namespace shimctl::pieces
