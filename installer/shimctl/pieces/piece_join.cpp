#include <cstdio>
#include <shimctl/pieces/host_half.hpp>
#include <shimctl/pieces/new_driver.hpp>
#include <shimctl/pieces/piece_join.hpp>
#include <shimctl/util/process.hpp>

namespace shimctl::pieces {

Job bundler_job(const OffloadPlan& plan,
                const std::vector<std::string>& piece_files,
                const std::string& host_input,
                const std::string& bundle) {
  Job job;
  std::size_t input = 0;
  for (const auto& arg : plan.bundler) {
    if (arg.starts_with("-input=")) {
      const auto& piece = input < piece_files.size() ? piece_files[input] : std::string();
      job.push_back(!piece.empty()        ? "-input=" + piece
                    : !host_input.empty() ? "-input=" + host_input
                                          : arg);
      input++;
    } else if (arg.starts_with("-output=")) {
      job.push_back("-output=" + bundle);
    } else {
      job.push_back(arg);
    }
  }
  return job;
}

std::string join_pieces(const PieceRequest& request,
                        const OffloadCall& call,
                        const OffloadPlan& plan,
                        const std::vector<std::string>& piece_files,
                        HostHalf& host_half,
                        const util::ScratchDir& scratch,
                        std::string& messages) {
  std::vector<std::string> host(request.argv.begin() + 1, request.argv.end());
  host.push_back("--cuda-host-only");
  if (plan.driver == OffloadDriver::new_driver && call.rdc) {
    std::string package = scratch.file("device.pkg");
    auto packaged = util::run(packager_with(plan.packager, piece_files, package));
    if (!packaged || !packaged->ok())
      return "the packager failed";
    host.emplace_back("-Xclang");
    host.push_back("-fembed-offload-object=" + package);
    auto host_run = run_compiler(request, host);
    if (!host_run || !host_run->ok())
      return "the host compile failed";
    messages += host_run->err;
    return {};
  }
  // The bundler as the driver (or its linker wrapper) runs it, with the pieces as its inputs.
  std::string bundle = call.rdc ? call.output + ".shimctl-pieces" : scratch.file("bundle.hipfb");
  Job bundler_args = bundler_job(plan, piece_files, call.rdc ? call.output : "", bundle);
  if (call.rdc) {
    host.emplace_back("-Xclang");
    host.push_back("-cuid=" + call.cuid); // clang-15/16 drop -cuid= from a host-only compile
  } else {
    auto bundled = util::run(bundler_args);
    if (!bundled || !bundled->ok())
      return "the bundler failed";
    if (!host_half.file.empty()) { // cached apart: the bundle goes into it (else compiled here)
      if (host_half.may_stand_alone && registers_no_kernel(host_half.file)) {
        host_half.stood_alone = copy_half(host_half.file, call.output);
        if (host_half.stood_alone)
          return {};
        host_half.refused = "cannot copy the host half to the output";
      } else {
        host_half.refused =
          reassemble_object(host_half.objcopy, host_half.file, bundle, scratch, call.output);
        if (host_half.refused.empty())
          return {};
      }
    }
    for (const char* flag : { "-Xclang", "-fcuda-include-gpubinary", "-Xclang" })
      host.emplace_back(flag);
    host.push_back(bundle);
  }
  auto host_run = run_compiler(request, host);
  if (!host_run || !host_run->ok())
    return "the host compile failed";
  messages += host_run->err;
  if (call.rdc) {
    auto bundled = util::run(bundler_args);
    if (!bundled || !bundled->ok() || std::rename(bundle.c_str(), call.output.c_str()) != 0) {
      std::remove(bundle.c_str());
      return "the bundler failed";
    }
  }
  return {};
}

} // namespace shimctl::pieces
