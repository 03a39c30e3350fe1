// The object from its pieces: the driver's bundler (or its linker wrapper's; the new driver with
// -fgpu-rdc: its packager), then the host compile, or the host half cached apart with the bundle
// put into it (host_half.hpp).
#pragma once
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/offload_plan.hpp>
#include <shimctl/pieces/piece_request.hpp>
#include <shimctl/util/scratch.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

struct HostHalf {
  std::string file;    // the host half's object; empty: the host is compiled here
  std::string objcopy; // the llvm-objcopy that puts the bundle into it
  // A half with no .hip_fatbin (a TU that registers no kernel) may be the object as it is: not
  // once this toolchain's check found it otherwise.
  bool may_stand_alone = false;
  // What join_pieces did with it: the object is the half alone, or why the half could not take
  // the bundle (this TU's host was then compiled here).
  bool stood_alone = false;
  std::string refused;
};

// PLAN's bundler job writing BUNDLE, with PIECE_FILES as its inputs (one per PLAN.bundle_inputs;
// "" for the host's entry: HOST_INPUT, or the job's own input when that is "").
[[nodiscard]] Job bundler_job(const OffloadPlan& plan,
                              const std::vector<std::string>& piece_files,
                              const std::string& host_input,
                              const std::string& bundle);

// CALL's object from PIECE_FILES (one per PLAN.bundle_inputs, "" for the host's entry) and
// HOST_HALF; "" or why not. MESSAGES gets the host compile's stderr. When the host half could not
// take the bundle (HOST_HALF.refused says why), this TU's host is compiled here.
[[nodiscard]] std::string join_pieces(const PieceRequest& request,
                                      const OffloadCall& call,
                                      const OffloadPlan& plan,
                                      const std::vector<std::string>& piece_files,
                                      HostHalf& host_half,
                                      const util::ScratchDir& scratch,
                                      std::string& messages);

} // namespace shimctl::pieces
