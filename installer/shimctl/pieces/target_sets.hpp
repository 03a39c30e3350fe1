// The GPU target sets a TU was last compiled for, per user: what an object for a new target set
// is derived from (derive.hpp). Kept in <cache home>/shimctl/target-sets/, one small file per
// TU (its call without the targets, and its output), the newest first, at most four; files
// unused for 30 days go, and the directory holds at most 20000.
#pragma once
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/piece_request.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

struct TargetSet {
  std::vector<std::string> targets; // as the call named them, in order
  std::vector<std::string> argv;    // the call the cache tool got: the compiler, its arguments
};

// The call the cache tool got for CALL (SHIMCTL_CACHE_CALL, shim/formats/cache_call.h): the
// compiler and its arguments; empty when there is none or it does not name CALL's output.
[[nodiscard]] std::vector<std::string> cache_call_of(const OffloadCall& call);

// Where REQUEST's TU keeps its target sets; "" without a cache home.
[[nodiscard]] std::string target_sets_file(const PieceRequest& request, const OffloadCall& call);

// The target sets kept in FILE, the newest first (none when it is missing or unreadable).
[[nodiscard]] std::vector<TargetSet> read_target_sets(const std::string& file);

// Keeps SET as FILE's newest (a set already there moves to the front); best effort.
void remember_target_set(const std::string& file, const TargetSet& set);

// The earlier sets of SETS to derive TARGETS from, best first: those sharing the most targets
// with it, then those with the fewest others; never TARGETS itself nor a set sharing none.
[[nodiscard]] std::vector<TargetSet> sets_to_derive_from(std::vector<TargetSet> sets,
                                                         const std::vector<std::string>& targets);

} // namespace shimctl::pieces
