// A per-target device link (issue 36). The new offload driver: clang-linker-wrapper
// runs, for each GPU target, the clang beside it as
//   clang --no-default-config -o <tmp>.img -dumpdir <out>.amdgcn.<target>.img.
//         --target=amdgcn-amd-amdhsa -mcpu=<target> -Wl,--no-undefined <tmp bitcode>... -flto=full
//         --rocm-path=...
// which runs ld.lld over that target's bitcode: whole-program LTO and code generation, the
// minutes of an -fgpu-rdc link. The old driver runs `lld -flavor gnu -m elf64_amdgpu ...
// -plugin-opt=mcpu=<target> ... -o <tmp>.out <tmp bitcode>...` per target itself. Read here: what
// the link reads (its inputs, by content) and writes (-o), or why it cannot be cached (anything the
// key could not hold: a library search, a linker script, a response file).
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

// Who makes the link: the new driver's per-target clang call, or the old driver's per-target
// `lld -flavor gnu -m elf64_amdgpu ...` job (clang <= 22: the driver runs it directly).
enum class Linker { clang, lld };

// ARGS: the call's arguments without argv[0], as LINKER reads them.
[[nodiscard]] LinkCall read_link_call(const std::vector<std::string>& args,
                                      Linker linker = Linker::clang);

// Is ARGS (without argv[0]) lld's link of an AMD GPU target (-m elf64_amdgpu, or clang-15/16's
// -plugin-opt=mcpu=gfx...)?
[[nodiscard]] bool is_amdgpu_lld_link(const std::vector<std::string>& args);

// Is ARGS (without argv[0]) a device link of the AMD GPU target, to be handed to `shimctl
// device-link`? Cheap: the shim's C twin (shim/pieces_handoff.c) decides the same way.
[[nodiscard]] bool is_device_link(const std::vector<std::string>& args);

} // namespace shimctl::links
