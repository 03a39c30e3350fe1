// The first split of each toolchain is checked against its one-step compile, and the verdict
// ("same" or "differ") kept per user in <cache home>/shimctl/pieces-checked/: a toolchain is
// what the cache tool keys it by (its compiler-check string or sccache's buster), per kind of
// plan (the old driver's objects or -fgpu-rdc, the new driver's, compressed or not).
#pragma once
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_request.hpp>
#include <shimctl/util/scratch.hpp>
#include <string>
#include <string_view>

namespace shimctl::pieces {

struct VerdictPlace {
  std::string dir;  // <cache home>/shimctl/pieces-checked; empty: no cache home, none recorded
  std::string name; // the verdict file's name
};

// Where the verdict of REAL's split of KIND is kept, under TOOL_KEY (what the cache tool keys
// the compiler by: cache::Tool::compiler_key).
[[nodiscard]] VerdictPlace verdict_place(const std::string& tool_key,
                                         const std::string& real,
                                         const std::string& kind);
// "same", "differ" or "" (not checked yet); a memo's text.
[[nodiscard]] std::string read_verdict(const VerdictPlace& place);
void record_verdict(const VerdictPlace& place, bool same);
// Keeps TEXT (one word) at PLACE: what a toolchain's plan asked for (piece_compile.cpp).
void record_memo(const VerdictPlace& place, std::string_view text);

// A first-time check's verdict: where it is kept and what it says.
struct Verdict {
  VerdictPlace at;
  std::string said;
  // What the trace says when the check finds another object than the one-step compile's.
  std::string_view differ_means;
};

[[nodiscard]] Verdict verdict_of(const VerdictPlace& at, std::string_view differ_means);

// The first split of this toolchain (and the first object reassembled from a host half, the
// first host half alone, the first object derived from an earlier target set's): CALL's object
// against its one-step compile (in SCRATCH), VERDICT kept, counted in COUNTS. True when the
// object may stand.
[[nodiscard]] bool first_split_checked(const PieceRequest& request,
                                       const OffloadCall& call,
                                       const Verdict& verdict,
                                       const util::ScratchDir& scratch,
                                       PieceCounts& counts);

} // namespace shimctl::pieces
