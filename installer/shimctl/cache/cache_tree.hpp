// The files of a local ccache cache directory as shimctl moves them between
// machines: which of them travel, walking them, and the directory plumbing
// that cache export/import need (all through util::Dir, never following a
// symlink below the cache directory).
#pragma once

#include <cstdint>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace shimctl::cache {

// True for a cache entry that travels in an archive: a regular file below a
// one-hex-digit top directory ("6/4/<key>M", "d/5/<key>R"), not one of
// ccache's per-machine files: "stats" counters (importing them would replace
// the user's counters), CACHEDIR.TAG, "*.lock"/"*.alive" lock files, temporary files, and
// nothing from "tmp/" or the cache's own "ccache.conf" (a config setting such
// as prefix_command would run arbitrary commands on the importing machine).
[[nodiscard]] bool travels(std::string_view relative);

struct TreeFile {
  std::string relative;
  std::uint64_t size = 0;
};

// Every travelling regular file below ROOT, sorted by path. Symlinks and
// special files are skipped.
[[nodiscard]] util::Result<std::vector<TreeFile>> cache_files(const util::Dir& root);

// Opens (creating as needed, mode 0777 & ~umask) the directory RELATIVE below
// ROOT, refusing symlinks on the way.
[[nodiscard]] util::Result<util::Dir> make_dirs(const util::Dir& root, std::string_view relative);

// Opens the absolute directory PATH, creating missing trailing components.
[[nodiscard]] util::Result<util::Dir> open_or_create(const std::string& path);

// Removes PARENT/NAME and everything below it (symlinks are removed, not followed).
[[nodiscard]] util::Status remove_tree(const util::Dir& parent, const std::string& name);

// A fresh private directory PARENT/.shimctl-<TAG>.<random> (mode 0700); returns its name.
[[nodiscard]] util::Result<std::string> make_private_dir(const util::Dir& parent,
                                                         std::string_view tag);

} // namespace shimctl::cache
