// The compiles a split sends through the cache tool: one piece per GPU target (its device code,
// keyed as the tool keys any compile) and the host half. Each is a compile of its own that the
// cache tool hits or compiles; as many run at once as there are idle CPUs.
#pragma once
#include <map>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_request.hpp>
#include <shimctl/util/error.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

struct PieceRun {
  std::vector<std::string> args; // [<cache tool>] <compiler> ...
  util::EnvChanges env;
  std::string mark; // made by the shim under the cache tool when it compiled (a miss)
  std::string name; // the target ID, or "host"
  std::string file; // what it writes
  std::string log;  // through the cache tool: where it logs its entries (Tool::logs_entries)
  bool host = false;
};

// One piece per target of CALL (in its order), with ENV (an image piece's variables), in SCRATCH:
// through the cache tool, or (THROUGH_CACHE false) compiled by the shim as the cache tool would
// run it on a miss, stored nowhere.
[[nodiscard]] std::vector<PieceRun> target_piece_runs(const PieceRequest& request,
                                                      const OffloadCall& call,
                                                      const util::EnvChanges& env,
                                                      const util::ScratchDir& scratch,
                                                      bool through_cache = true);
// CALL's host half, written to FILE.
[[nodiscard]] PieceRun host_half_run(const PieceRequest& request,
                                     const OffloadCall& call,
                                     const std::string& file,
                                     const util::ScratchDir& scratch);
// Each of RUNS through the cache tool, as many at once as there are idle CPUs; results in order.
[[nodiscard]] std::vector<util::Result<util::RunResult>> run_pieces(
  const PieceRequest& request,
  const std::vector<PieceRun>& runs);
// What RUNS did (RESULTS): the stderr of each that succeeded added to MESSAGES (in order), its
// hit or miss to COUNTS (traced, and kept for `shimctl measure`), a target's file to FILE_OF.
// "" or why the call runs whole (the first that failed).
[[nodiscard]] std::string account_pieces(const PieceRequest& request,
                                         const std::vector<PieceRun>& runs,
                                         const std::vector<util::Result<util::RunResult>>& results,
                                         std::string& messages,
                                         PieceCounts& counts,
                                         std::map<std::string, std::string>& file_of);

// The new driver's pieces without -fgpu-rdc are images (piece_image.hpp): set the variable that
// asks for one in ENV, and give them a key of their own, apart from a --cuda-device-only compile
// of the same arguments (whose object differs). "" or why not.
[[nodiscard]] std::string image_piece_env(const PieceRequest& request, util::EnvChanges& env);

} // namespace shimctl::pieces
