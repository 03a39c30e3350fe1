// An exclusive flock(2) lock on a file that records the holder's pid.
#pragma once

#include <chrono>
#include <optional>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace shimctl::util {

class FileLock {
public:
  FileLock() = default;
  ~FileLock();
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;

  // Locks NAME in DIR exclusively, creating it: for a shimctl command. A
  // command holding it makes this fail at once with "busy, held by pid N"
  // (or, with WAIT, retry until WAIT elapses). Identity helpers holding it
  // shared are waited out (they hold it for one file write), up to
  // helper_grace.
  [[nodiscard]] static Result<FileLock> acquire(const Dir& dir,
                                                std::string_view name,
                                                std::optional<std::chrono::milliseconds> wait);

  // Locks NAME in DIR shared, only if it exists and no command holds it: for
  // a process that must never wait for, nor leave anything behind, a shimctl
  // command (the shim's identity helper). The pid in the file is left as it is.
  [[nodiscard]] static std::optional<FileLock> try_shared_existing(const Dir& dir,
                                                                   std::string_view name);

  static constexpr std::chrono::seconds helper_grace{ 10 };

private:
  int fd_ = -1;
};

// One flock(2) lock that /proc/locks lists as held (not waited for).
struct FlockHolder {
  pid_t pid = 0;
  bool exclusive = false;
};

// The holders of flock locks on the file DEV:INO in TEXT, the contents of
// /proc/locks.
[[nodiscard]] std::vector<FlockHolder> parse_flock_holders(std::string_view text,
                                                           dev_t dev,
                                                           ino_t ino);

} // namespace shimctl::util
