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
};

// CALL's object from PIECE_FILES (one per PLAN.bundle_inputs, "" for the host's entry) and
// HOST_HALF; "" or why not. MESSAGES gets the host compile's stderr. When the host half could not
// take the bundle (HOST_HALF_FAILURE says why), the host is compiled here.
[[nodiscard]] std::string join_pieces(const PieceRequest& request,
                                      const OffloadCall& call,
                                      const OffloadPlan& plan,
                                      const std::vector<std::string>& piece_files,
                                      const HostHalf& host_half,
                                      const util::ScratchDir& scratch,
                                      std::string& messages,
                                      std::string& host_half_failure);

} // namespace shimctl::pieces
