#include <algorithm>
#include <array>
#include <shimctl/pieces/new_driver.hpp>
#include <string_view>

namespace shimctl::pieces {

namespace {

constexpr std::string_view amdgcn_triple = "amdgcn-amd-amdhsa";

bool job_has(const Job& job, std::string_view arg) {
  return std::ranges::find(job, arg) != job.end();
}

bool is_packager(const std::string& tool) {
  return tool == "llvm-offload-binary" || tool == "clang-offload-packager";
}

// The fields of a packager's --image=file=F,triple=T,arch=A,kind=hip[,feature=...].
std::map<std::string, std::string> image_fields(std::string_view spec) {
  std::map<std::string, std::string> fields;
  while (!spec.empty()) {
    auto comma = spec.find(',');
    std::string_view field = spec.substr(0, comma);
    auto eq = field.find('=');
    if (eq != std::string_view::npos)
      fields[std::string(field.substr(0, eq))] = std::string(field.substr(eq + 1));
    if (comma == std::string_view::npos)
      break;
    spec.remove_prefix(comma + 1);
  }
  return fields;
}

std::string cpu_of_target(std::string_view id) {
  return std::string(id.substr(0, id.find(':')));
}

// The value of an argument NAME=VALUE in JOB ("-mcpu=" gfx90a), or "".
std::string joined_value(const Job& job, std::string_view name) {
  for (const auto& arg : job)
    if (arg.starts_with(name))
      return arg.substr(name.size());
  return {};
}

} // namespace

bool is_new_driver_job(const Job& job) {
  std::string tool = job_tool(job.front());
  return is_packager(tool) || tool == "clang-linker-wrapper";
}

OffloadPlan recognise_new_driver_plan(const std::vector<Job>& jobs,
                                      const std::vector<std::string>& targets,
                                      bool rdc) {
  OffloadPlan plan;
  plan.driver = OffloadDriver::new_driver;
  plan.rdc = rdc;
  auto refuse = [&plan](std::string why) {
    plan.whole_reason = std::move(why);
    return plan;
  };
  std::map<std::string, const Job*> device_by_output;
  const Job* host = nullptr;
  int hosts = 0, packagers = 0, wrappers = 0;
  for (const auto& job : jobs) {
    std::string tool = job_tool(job.front());
    if (job_has(job, "-cc1") && job_value(job, "-triple") == amdgcn_triple) {
      if (!job_has(job, "-emit-llvm-bc"))
        return refuse("a device job of the new offload driver writes no bitcode");
      device_by_output[job_value(job, "-o")] = &job;
    } else if (job_has(job, "-cc1")) {
      hosts++;
      host = &job;
    } else if (is_packager(tool)) {
      packagers++;
      plan.packager = job;
    } else if (tool == "clang-linker-wrapper") {
      wrappers++;
      plan.wrapper = job;
    } else {
      return refuse("the new offload driver runs " + tool);
    }
  }
  if (hosts != 1 || packagers != 1)
    return refuse("not one host job and one packager");
  if (wrappers != (rdc ? 0 : 1))
    return refuse(rdc ? "the linker wrapper runs at compile time with -fgpu-rdc"
                      : "not one linker wrapper");
  if (device_by_output.size() != targets.size())
    return refuse("not one device job per target");
  for (const auto& arg : plan.packager) {
    if (!arg.starts_with("--image="))
      continue;
    auto fields = image_fields(std::string_view(arg).substr(8));
    const std::string& id = fields["arch"];
    if (fields["kind"] != "hip" || fields["triple"] != amdgcn_triple)
      return refuse("the packager's image " + arg + " is not a HIP image for amdgcn");
    if (std::ranges::find(targets, id) == targets.end() || plan.device_jobs.contains(id))
      return refuse("the packager's image for " + id + " is not one of the call's targets");
    auto device = device_by_output.find(fields["file"]);
    if (device == device_by_output.end() ||
        job_value(*device->second, "-target-cpu") != cpu_of_target(id))
      return refuse("the packager's image for " + id + " does not come from its device job");
    plan.device_jobs[id] = *device->second;
    plan.package_images.push_back(id);
  }
  if (plan.package_images.size() != targets.size())
    return refuse("the packager does not take one image per target");
  std::string package = job_value(plan.packager, "-o");
  if (rdc) {
    if (!job_has(*host, "-fembed-offload-object=" + package))
      return refuse("the host job does not embed the device package");
    return plan;
  }
  if (!job_has(plan.wrapper, "--emit-fatbin-only"))
    return refuse("the linker wrapper links the object (no --emit-fatbin-only)");
  if (!job_has(plan.wrapper, package))
    return refuse("the linker wrapper does not read the device package");
  if (job_value(*host, "-fcuda-include-gpubinary") != job_value(plan.wrapper, "-o"))
    return refuse("the host job does not embed the linker wrapper's fat binary");
  return plan;
}

WrapperJobs recognise_wrapper_jobs(const std::vector<Job>& jobs,
                                   const std::vector<std::string>& targets) {
  WrapperJobs wrapper;
  auto refuse = [&wrapper](std::string why) {
    wrapper.whole_reason = std::move(why);
    return wrapper;
  };
  std::map<std::string, std::string> target_of_image;
  int bundlers = 0;
  for (const auto& job : jobs) {
    std::string tool = job_tool(job.front());
    if (tool == "clang-offload-bundler") {
      bundlers++;
      wrapper.bundler = job;
    } else if (tool.starts_with("clang") &&
               job_has(job, "--target=" + std::string(amdgcn_triple))) {
      std::string id = joined_value(job, "-mcpu=");
      if (std::ranges::find(targets, id) == targets.end() || wrapper.image_jobs.contains(id))
        return refuse("the linker wrapper's image job for " + id + " is not one of the call's");
      wrapper.image_jobs[id] = job;
      target_of_image[job_value(job, "-o")] = id;
    } else {
      return refuse("the linker wrapper runs " + tool);
    }
  }
  if (bundlers != 1 || wrapper.image_jobs.size() != targets.size())
    return refuse("the linker wrapper does not run one image job per target and one bundler");
  std::vector<std::string> entries, inputs;
  std::string type;
  for (const auto& arg : wrapper.bundler) {
    if (arg.starts_with("-type="))
      type = arg.substr(6);
    else if (arg.starts_with("-targets=")) {
      std::string_view list = std::string_view(arg).substr(9);
      while (true) {
        auto comma = list.find(',');
        entries.emplace_back(list.substr(0, comma));
        if (comma == std::string_view::npos)
          break;
        list.remove_prefix(comma + 1);
      }
    } else if (arg.starts_with("-input="))
      inputs.push_back(arg.substr(7));
    else if (arg.starts_with("-unbundle") || arg.starts_with("-list"))
      return refuse("the linker wrapper's bundler is asked for " + arg);
  }
  if (type != "o" || entries.size() != inputs.size() || entries.size() != targets.size() + 1)
    return refuse("the linker wrapper's bundler does not bundle one image per target");
  for (std::size_t i = 0; i < entries.size(); i++) {
    if (entries[i].starts_with("host-") && inputs[i] == "/dev/null") {
      wrapper.bundle_inputs.emplace_back();
      continue;
    }
    std::string id = bundle_entry_target(entries[i]);
    auto image = target_of_image.find(inputs[i]);
    if (id.empty() || image == target_of_image.end() || image->second != id)
      return refuse("bundle entry " + entries[i] + " is not its target's image");
    wrapper.bundle_inputs.push_back(id);
  }
  return wrapper;
}

Job packager_with(const Job& packager,
                  const std::vector<std::string>& files,
                  const std::string& output) {
  Job job;
  std::size_t image = 0;
  for (std::size_t i = 0; i < packager.size(); i++) {
    const auto& arg = packager[i];
    if (i > 0 && packager[i - 1] == "-o") {
      job.push_back(output);
    } else if (arg.starts_with("--image=") && image < files.size()) {
      std::string spec = "--image=file=" + files[image++];
      for (const auto& [key, value] : image_fields(std::string_view(arg).substr(8)))
        if (key != "file")
          spec += "," + key + "=" + value;
      job.push_back(spec);
    } else {
      job.push_back(arg);
    }
  }
  return job;
}

Job wrapper_dry_run(const Job& wrapper,
                    const std::string& package_was,
                    const std::string& package,
                    const std::string& output) {
  Job job;
  for (std::size_t i = 0; i < wrapper.size(); i++) {
    if (i > 0 && wrapper[i - 1] == "-o")
      job.push_back(output);
    else
      job.push_back(wrapper[i] == package_was ? package : wrapper[i]);
  }
  job.emplace_back("--dry-run");
  return job;
}

Job image_job_with(const Job& job, const std::string& bitcode, const std::string& output) {
  static constexpr std::array valued{ "-o", "-dumpdir", "-x", "-Xlinker", "-mllvm", "-Xclang" };
  Job out{ job.front() };
  int inputs = 0;
  for (std::size_t i = 1; i < job.size(); i++) {
    const auto& arg = job[i];
    if (std::ranges::find(valued, arg) != valued.end() && i + 1 < job.size()) {
      out.push_back(arg);
      ++i;
      out.push_back(arg == "-o" ? output : job[i]);
    } else if (!arg.starts_with('-')) {
      inputs++;
      out.push_back(bitcode);
    } else {
      out.push_back(arg);
    }
  }
  return inputs == 1 ? out : Job{};
}

} // namespace shimctl::pieces
