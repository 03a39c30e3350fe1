// The cache tool's files of stored pieces (per-target pieces and host halves: -fgpu-rdc, or
// SHIMCTL_PIECES_STORE=1), listed beside the cache so that `status` tells their bytes from the
// whole objects' (issue 44): the tool's own size counts both. Only where the tool names its
// entries' files (cache::Tool::logs_entries: ccache); an evicted file simply no longer counts.
#pragma once
#include <cstdint>
#include <optional>
#include <shimctl/pieces/piece_request.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::pieces {

// The list's file in a cache directory: one path a line, relative to it.
inline constexpr std::string_view entries_file_name = "shimctl-piece-entries";
// The list's size at which it keeps only the files that still exist.
inline constexpr std::uint64_t entries_file_pruned_at = 1 << 20;

// REQUEST's cache directory ("" when the tool names none).
[[nodiscard]] std::string cache_dir_of(const PieceRequest& request);

// Adds FILES (stored by pieces' runs; those outside CACHE_DIR are left out) to CACHE_DIR's list
// (locked; created with UMASK, the cache tool's: cache::Tool::file_umask); best effort.
void list_piece_entries(const std::string& cache_dir,
                        unsigned umask,
                        const std::vector<std::string>& files);

// The listed files that still exist in CACHE_DIR: their bytes (as status counts the cache's
// entries: their sizes) and how many; nullopt when CACHE_DIR has no list.
struct PieceBytes {
  std::uint64_t bytes = 0;
  std::uint64_t files = 0;
};
[[nodiscard]] std::optional<PieceBytes> piece_entry_bytes(const std::string& cache_dir);

} // namespace shimctl::pieces
