#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <future>
#include <shimctl/pieces/new_driver.hpp>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/pieces/piece_image.hpp>
#include <shimctl/pieces/wrapper_dry_run.hpp>
#include <shimctl/util/job_lines.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <string_view>

namespace shimctl::pieces {

namespace {

int image_failed(std::string_view why) {
  fmt::print(stderr, "shimctl: error: compile-pieces: no image for this piece: {}\n", why);
  return 1;
}

// Runs JOB (its program as named) without the piece's own variables; its stderr passed on.
util::Result<util::RunResult> run_image_step(const Job& job) {
  util::RunOptions options;
  options.env[piece_image_env] = std::nullopt;
  options.env["SHIMCTL_PIECE_MARK"] = std::nullopt;
  auto run = util::run(job, options);
  if (run)
    std::fwrite(run->err.data(), 1, run->err.size(), stderr);
  return run;
}

// The depfile compile-pieces names for the cache tool's depend mode (-MD -MF FILE, in that
// spelling: piece_compile.cpp), taken out of ARGS: the device job writes it; "" when none.
std::string take_piece_depfile(std::vector<std::string>& args) {
  auto md = std::ranges::find(args, "-MD");
  auto mf = std::ranges::find(args, "-MF");
  if (md == args.end() || mf == args.end() || mf + 1 == args.end())
    return {};
  std::string depfile = *(mf + 1);
  args.erase(mf, mf + 2);
  args.erase(std::ranges::find(args, "-MD"));
  return depfile;
}

} // namespace

bool is_piece_image_call(const PieceRequest& request) {
  const char* asked = std::getenv(piece_image_env);
  return asked && std::string_view(asked) == "1" &&
         std::ranges::find(request.argv, "--cuda-device-only") != request.argv.end();
}

int compile_piece_image(const PieceRequest& request) {
  // The call without its device-only options: the one-target compile whose plan holds the jobs.
  std::vector<std::string> args;
  for (std::size_t i = 1; i < request.argv.size(); i++)
    if (request.argv[i] != "--cuda-device-only" && request.argv[i] != "--no-gpu-bundle-output")
      args.push_back(request.argv[i]);
  std::string depfile = take_piece_depfile(args);
  OffloadCall call = read_offload_call(args, true);
  if (!call.whole_reason.empty())
    return image_failed(call.whole_reason);
  if (call.targets.size() != 1 || call.rdc)
    return image_failed("not one target without -fgpu-rdc");
  auto plan_args = args;
  plan_args.insert(plan_args.begin(), request.real);
  plan_args.push_back("-###");
  util::RunOptions as_called;
  as_called.argv0 = request.argv[0];
  auto printed = util::run(plan_args, as_called);
  if (!printed || !printed->ok())
    return image_failed("the driver's -### failed");
  OffloadPlan plan = recognise_plan(util::job_lines(printed->err), call.targets, false);
  if (plan.whole_reason.empty() && plan.driver != OffloadDriver::new_driver)
    plan.whole_reason = "not the new offload driver's plan";
  if (!plan.whole_reason.empty())
    return image_failed(plan.whole_reason);
  const std::string& target = call.targets.front();

  auto scratch = util::ScratchDir::create("piece-image");
  if (!scratch)
    return image_failed("no scratch directory: " + scratch.error().message);
  // The bitcode's name ends in .o, as the wrapper names it: a .bc input is optimised again.
  std::string bitcode = scratch->file("device.bc.o");
  Job device;
  for (const auto& arg : plan.device_jobs[target])
    device.push_back(!device.empty() && device.back() == "-o" ? bitcode : arg);
  if (!depfile.empty()) // the headers the cache tool's depend mode reads, as -MD would list them
    device.insert(device.end(),
                  { "-dependency-file", depfile, "-MT", call.output, "-sys-header-deps" });
  // The wrapper's image job, asked beside the device job (its dry run needs no device code).
  auto dry_run =
    std::async(std::launch::async, dry_run_on_placeholders, std::cref(plan), std::cref(*scratch));
  auto compiled = run_image_step(device);
  WrapperJobs wrapper = dry_run.get();
  if (!compiled || !compiled->ok())
    return compiled ? compiled->exit_code : image_failed("the device job cannot run");
  if (!wrapper.whole_reason.empty())
    return image_failed(wrapper.whole_reason);
  Job image = image_job_with(wrapper.image_jobs[target], bitcode, call.output);
  if (image.empty())
    return image_failed("the linker wrapper's image job has not one input");
  auto linked = run_image_step(image);
  if (!linked)
    return image_failed("the image job cannot run");
  return linked->exit_code;
}

} // namespace shimctl::pieces
