// A compile the shim hands to `shimctl compile-pieces`: what it runs, and what came of it.
#pragma once
#include <shimctl/cache/tool.hpp>
#include <shimctl/util/process.hpp>
#include <string>
#include <vector>

namespace shimctl::pieces {

struct PieceRequest {
  std::string cache_tool;            // the cache tool's path, as the shim's config names it
  const cache::Tool* tool = nullptr; // what it is (never null in a request)
  std::string real;                  // the original compiler
  std::string compiler;              // the compiler as the cache tool runs it (the shim's path)
  std::vector<std::string> argv;     // the call: argv[0] (the name clang reads), then its arguments
};

// Runs REQUEST's original compiler with ARGS (argv[0] as the caller named it: clang reads it).
[[nodiscard]] inline util::Result<util::RunResult> run_compiler(const PieceRequest& request,
                                                                std::vector<std::string> args) {
  args.insert(args.begin(), request.real);
  util::RunOptions options;
  options.argv0 = request.argv[0];
  return util::run(args, options);
}

struct PieceResult {
  bool split = false; // built from pieces: EXIT_CODE is the compile's
  int exit_code = 0;
  std::string whole_reason; // not split: why the compile must run whole (then nothing changed)
};

} // namespace shimctl::pieces
