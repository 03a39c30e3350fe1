// `shimctl compile-pieces CACHE KIND REAL COMPILER -- ARGV...` (internal): what the shim runs
// on the cache tool's miss path for a HIP compile of two or more GPU targets (one with
// SHIMCTL_PIECES=1). It never fails a compile on its own account: whatever it cannot do, the
// original compiler runs the call whole. A piece's own compile that asks for the new offload
// driver's image (SHIMCTL_PIECE_IMAGE=1) makes that image or fails, never runs whole.
#include <cstring>
#include <fmt/format.h>
#include <shimctl/cache/tool.hpp>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/pieces/piece_compile.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_image.hpp>
#include <shimctl/pieces/piece_trace.hpp>
#include <unistd.h>

namespace shimctl::cli {

namespace {

[[noreturn]] void run_whole(const std::string& real, char** argv) {
  ::execv(real.c_str(), argv);
  fmt::print(stderr,
             "shimctl: error: the original compiler {} cannot run: {}\n",
             real,
             std::strerror(errno));
  std::_Exit(127);
}

} // namespace

int run_compile_pieces(int argc, char** argv) {
  // argv: shimctl compile-pieces CACHE KIND REAL COMPILER -- ARGV0 ARGS...
  if (argc < 8 || std::strcmp(argv[6], "--") != 0) {
    fmt::print(stderr, "shimctl: error: compile-pieces is the shim's; see 'shimctl --help'\n");
    return static_cast<int>(util::ExitCode::usage);
  }
  pieces::PieceRequest request;
  request.cache_tool = argv[2];
  request.tool = cache::tool_named(argv[3]);
  if (!request.tool) { // the shim's config names the kind: an older or newer shimctl's shim
    fmt::print(stderr, "shimctl: compile-pieces: no cache tool called '{}'\n", argv[3]);
    run_whole(argv[4], argv + 7);
  }
  request.real = argv[4];
  request.compiler = argv[5];
  request.argv.assign(argv + 7, argv + argc);
  if (pieces::is_piece_image_call(request)) {
    try {
      return pieces::compile_piece_image(request);
    } catch (const std::exception& e) {
      fmt::print(stderr, "shimctl: error: compile-pieces: internal error: {}\n", e.what());
      return static_cast<int>(util::ExitCode::failure);
    }
  }
  pieces::PieceResult result;
  try {
    result = pieces::compile_from_pieces(request);
  } catch (const std::exception& e) {
    result.whole_reason = fmt::format("internal error: {}", e.what());
  }
  if (result.split)
    return result.exit_code;
  pieces::trace(fmt::format("whole object: {}", result.whole_reason));
  run_whole(request.real, argv + 7);
}

} // namespace shimctl::cli
