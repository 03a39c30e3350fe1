// A directory opened by file descriptor. Every operation takes a single path
// component and never follows a symlink in it, so a swapped symlink cannot
// redirect a write outside the tree (the installer's only filesystem API).
#pragma once

#include <cstdint>
#include <optional>
#include <shimctl/util/error.hpp>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace shimctl::util {

enum class FileKind { file, symlink, directory, other };

struct FileStat {
  FileKind kind = FileKind::other;
  mode_t mode = 0; // permission bits only
  uid_t uid = 0;
  gid_t gid = 0;
  std::uint64_t size = 0;
  dev_t dev = 0;
  ino_t ino = 0;
  nlink_t nlink = 0;
};

enum class Durability { fsync, none };

class Dir {
public:
  Dir() = default;
  ~Dir();
  Dir(Dir&& other) noexcept;
  Dir& operator=(Dir&& other) noexcept;
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;

  // Opens an absolute path (symlinks in it are resolved by the kernel: the
  // caller canonicalises the root first).
  [[nodiscard]] static Result<Dir> open(const std::string& path);
  // Opens a relative path below this directory, refusing symlinks, "..",
  // absolute paths and empty components.
  [[nodiscard]] Result<Dir> open_relative(std::string_view relative) const;

  [[nodiscard]] int fd() const {
    return fd_;
  }
  [[nodiscard]] const std::string& path() const {
    return path_;
  }
  [[nodiscard]] std::string path_of(std::string_view name) const;

  [[nodiscard]] Result<std::optional<FileStat>> stat(std::string_view name) const;
  [[nodiscard]] Result<std::string> read_link(std::string_view name) const;
  [[nodiscard]] Result<std::string> read_file(std::string_view name,
                                              std::size_t max_size = 64 << 20) const;
  [[nodiscard]] Result<std::string> sha256(std::string_view name) const;
  [[nodiscard]] Result<std::vector<std::string>> list() const;

  // Writes NAME through a temporary file in this directory: write, fsync,
  // rename over NAME, fsync the directory. There is no instant without NAME.
  [[nodiscard]] Status write_atomic(std::string_view name,
                                    std::string_view data,
                                    mode_t mode,
                                    std::optional<std::pair<uid_t, gid_t>> owner = std::nullopt);
  [[nodiscard]] Status link(std::string_view from, std::string_view to) const;
  [[nodiscard]] Status rename(std::string_view from, std::string_view to) const;
  [[nodiscard]] Status symlink(std::string_view target, std::string_view name) const;
  [[nodiscard]] Status remove(std::string_view name) const; // no error if absent
  [[nodiscard]] Status remove_dir(std::string_view name) const;
  [[nodiscard]] Status make_dir(std::string_view name, mode_t mode) const; // ok if present
  [[nodiscard]] Status sync() const;

private:
  Dir(int fd, std::string path)
    : fd_(fd)
    , path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// True for a single, ordinary path component (no '/', not "." or "..").
[[nodiscard]] bool is_plain_name(std::string_view name);

// Splits "a/b/c" into ("a/b", "c"); the directory part is "" for "c".
[[nodiscard]] std::pair<std::string, std::string> split_relative(std::string_view relative);

// True when RELATIVE is a clean relative path: no absolute root, no "..",
// no "." or empty components.
[[nodiscard]] bool is_clean_relative(std::string_view relative);

// Canonical absolute path of an existing file or directory.
[[nodiscard]] Result<std::string> real_path(const std::string& path);

// Writes all of DATA to FD, retrying short writes; false when it cannot.
[[nodiscard]] bool write_all(int fd, std::string_view data);

// errno as text, for messages.
[[nodiscard]] std::string errno_text(int err);

} // namespace shimctl::util
