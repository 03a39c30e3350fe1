// A per-target device link as the new offload driver runs it (issue 36): clang-linker-wrapper
// runs, for each GPU target, the clang beside it as
//   clang --no-default-config -o <tmp>.img -dumpdir <out>.amdgcn.<target>.img.
//         --target=amdgcn-amd-amdhsa -mcpu=<target> -Wl,--no-undefined <tmp bitcode>... -flto=full
//         --rocm-path=...
// which runs ld.lld over that target's bitcode: whole-program LTO and code generation, the
// minutes of an -fgpu-rdc link. Read here: what the link reads (its inputs, by content) and
// writes (-o), or why it cannot be cached (anything the key could not hold: a library search,
// a linker script, a response file).
#pragma once

#include <string>
#include <vector>

namespace shimctl::links {

struct LinkCall {
  std::string output;              // -o's value
  std::vector<std::string> inputs; // the files it links, in order
  // The arguments with the output left out and each input as "input <sha256 of its bytes>":
  // what the link depends on besides the toolchain (temporary names appear only in argv).
  std::vector<std::string> keyed_args;
  std::string whole_reason; // why it runs uncached; empty: it can be cached
};

// ARGS: the call's arguments without argv[0].
[[nodiscard]] LinkCall read_link_call(const std::vector<std::string>& args);

// Is ARGS (without argv[0]) a device link of the AMD GPU target, to be handed to `shimctl
// device-link`? Cheap: the shim's C twin (shim/pieces_handoff.c) decides the same way.
[[nodiscard]] bool is_device_link(const std::vector<std::string>& args);

} // namespace shimctl::links
