#include <algorithm>
#include <cstdint>
#include <cstring>
#include <shimctl/pieces/offload_bundle.hpp>

namespace shimctl::pieces {

namespace {

constexpr std::string_view bundle_magic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::string_view compressed_magic = "CCOB";

// The little-endian 64-bit number at AT in BYTES, AT moved past it; nullopt past the end.
std::optional<std::uint64_t> read_u64(std::string_view bytes, std::size_t& at) {
  if (bytes.size() < 8 || at > bytes.size() - 8)
    return std::nullopt;
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; i--)
    value = value << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  at += 8;
  return value;
}

} // namespace

std::optional<OffloadBundle> read_offload_bundle(std::string_view bytes, std::string& why) {
  if (bytes.starts_with(compressed_magic)) {
    why = "its fat binary is compressed";
    return std::nullopt;
  }
  if (!bytes.starts_with(bundle_magic)) {
    why = "its fat binary is no offload bundle";
    return std::nullopt;
  }
  std::size_t at = bundle_magic.size();
  auto count = read_u64(bytes, at);
  if (!count || *count > 4096) {
    why = "its fat binary's entry count cannot be read";
    return std::nullopt;
  }
  OffloadBundle bundle;
  bundle.end = at;
  for (std::uint64_t i = 0; i < *count; i++) {
    auto offset = read_u64(bytes, at), size = read_u64(bytes, at), name = read_u64(bytes, at);
    if (!offset || !size || !name || *name > bytes.size() - at || *offset > bytes.size() ||
        *size > bytes.size() - *offset) {
      why = "its fat binary's entries run past its end";
      return std::nullopt;
    }
    std::string triple(bytes.substr(at, *name));
    at += *name;
    bundle.entries[triple] = std::string(bytes.substr(*offset, *size));
    bundle.end = std::max<std::size_t>({ bundle.end, at, *offset + *size });
  }
  return bundle;
}

} // namespace shimctl::pieces
