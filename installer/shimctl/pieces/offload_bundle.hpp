// A clang offload bundle (clang-offload-bundler's binary format, uncompressed): the magic
// "__CLANG_OFFLOAD_BUNDLE__", the entry count, then per entry its offset, size and triple
// (each a little-endian 64-bit number, the triple's bytes after its size). What an object's
// .hip_fatbin holds, so that an earlier target set's object gives up each target's code object.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace shimctl::pieces {

struct OffloadBundle {
  std::map<std::string, std::string> entries; // triple ("hipv4-amdgcn-amd-amdhsa--gfx90a") → bytes
  std::size_t end = 0;                        // where the last entry ends: the bundle's size
};

// The bundle at the start of BYTES (what may follow it is the caller's); nullopt when BYTES
// starts with none (a compressed bundle: "CCOB" instead), with why in WHY.
[[nodiscard]] std::optional<OffloadBundle> read_offload_bundle(std::string_view bytes,
                                                               std::string& why);

} // namespace shimctl::pieces
