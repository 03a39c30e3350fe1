// What a HIP compile's own arguments say about splitting it into one piece per GPU target:
// the source, the output, the CUID, the targets, -fgpu-rdc, and the arguments each piece
// shares; or why the compile must run whole.
#pragma once
#include <string>
#include <vector>

namespace shimctl::pieces {

struct OffloadCall {
  std::string source;               // the one HIP source, as named
  std::string output;               // -o's value, as named
  std::string cuid;                 // -cuid='s value
  std::vector<std::string> targets; // as named (target IDs too), in order, each once
  bool rdc = false;                 // -fgpu-rdc
  // The arguments without the targets, -o and the dependency-file options: what every piece
  // is compiled with (the host part keeps the dependency options: it writes the depfile).
  std::vector<std::string> shared_args;
  // The arguments without -o and the dependency-file options: the one-step compile that the
  // first split of a toolchain is checked against.
  std::vector<std::string> check_args;
  // The arguments without the targets and -o: the host half's (the host compile of a split, which
  // writes the depfile). It can be cached apart only with the depfile's name given (-MF) or none,
  // and no other spelling of the dependency options (host_half_reason).
  std::vector<std::string> host_args;
  bool depfile_named = false;        // -MF FILE
  bool depfile_target_named = false; // -MT / -MQ
  std::string host_half_reason; // why the host half must be compiled here; empty: it can be cached
  std::string whole_reason;     // why the compile runs whole; empty: it can be split
};

// ARGS: the compiler's arguments after argv[0]. A compile for one target is split only with
// ONE_TARGET_TOO (SHIMCTL_PIECES=1): its piece serves a later target set that contains it, but
// the split costs a cold build 6-23 % when every CPU is busy (docs/per-target.md).
[[nodiscard]] OffloadCall read_offload_call(const std::vector<std::string>& args,
                                            bool one_target_too = false);

} // namespace shimctl::pieces
