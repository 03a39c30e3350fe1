#include <algorithm>
#include <shimctl/pieces/wrapper_dry_run.hpp>
#include <shimctl/util/job_lines.hpp>
#include <shimctl/util/process.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

namespace {

WrapperJobs dry_run_refused(std::string why) {
  WrapperJobs refused;
  refused.whole_reason = std::move(why);
  return refused;
}

} // namespace

WrapperJobs dry_run_on_placeholders(const OffloadPlan& plan, const util::ScratchDir& scratch) {
  std::vector<std::string> files;
  for (const auto& id : plan.package_images) {
    std::string name = "placeholder-" + target_file_name(id) + ".o";
    if (!scratch.write(name, "shimctl"))
      return dry_run_refused("no scratch space");
    files.push_back(scratch.file(name));
  }
  std::string package = scratch.file("placeholders.pkg");
  auto packaged = util::run(packager_with(plan.packager, files, package));
  if (!packaged || !packaged->ok())
    return dry_run_refused("the packager failed on placeholders");
  auto dry = util::run(wrapper_dry_run(
    plan.wrapper, job_value(plan.packager, "-o"), package, scratch.file("placeholders.hipfb")));
  if (!dry || !dry->ok())
    return dry_run_refused("the linker wrapper's --dry-run failed");
  return recognise_wrapper_jobs(util::wrapper_lines(dry->err), plan.package_images);
}

std::string take_wrapper_bundler(OffloadPlan& plan, WrapperJobs wrapper) {
  if (!wrapper.whole_reason.empty())
    return wrapper.whole_reason;
  bool compresses = std::ranges::any_of(
    wrapper.bundler, [](const std::string& arg) { return arg.starts_with("-compress"); });
  if (compresses != (std::ranges::find(plan.wrapper, "--compress") != plan.wrapper.end()))
    return "the linker wrapper's bundler compresses otherwise than its call asks";
  plan.bundler = std::move(wrapper.bundler);
  plan.bundle_inputs = std::move(wrapper.bundle_inputs);
  return {};
}

} // namespace shimctl::pieces
