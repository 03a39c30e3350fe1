// A HIP object for its GPU targets built from one piece per target, each piece a compile
// of its own that the cache tool keys and keeps (so a new target set reuses the targets it
// had), then the driver's own bundler and the host compile. Runs on the cache tool's miss path
// only (the shim sends it there); any doubt, and the compile runs whole, as the user gave it.
#pragma once
#include <string>
#include <vector>

namespace shimctl::pieces {

struct PieceRequest {
  std::string cache_tool;        // ccache or sccache, as the shim's config names it
  bool ccache = true;            // the tool is ccache (else sccache)
  std::string real;              // the original compiler
  std::string compiler;          // the compiler as the cache tool runs it (the shim's path)
  std::vector<std::string> argv; // the call: argv[0] (the name clang reads), then its arguments
};

struct PieceResult {
  bool split = false; // built from pieces: EXIT_CODE is the compile's
  int exit_code = 0;
  std::string whole_reason; // not split: why the compile must run whole (then nothing changed)
};

[[nodiscard]] PieceResult compile_from_pieces(const PieceRequest& request);

} // namespace shimctl::pieces
