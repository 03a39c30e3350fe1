// An exclusive flock(2) lock on a file that records the holder's pid.
#pragma once

#include <chrono>
#include <optional>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/error.hpp>

namespace shimctl::util {

class FileLock {
public:
  FileLock() = default;
  ~FileLock();
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;

  // Locks NAME in DIR, creating it. Without WAIT, fails at once with
  // "busy, held by pid N"; with WAIT, retries until it elapses.
  [[nodiscard]] static Result<FileLock> acquire(const Dir& dir,
                                                std::string_view name,
                                                std::optional<std::chrono::milliseconds> wait);

  // Locks NAME in DIR only if it exists and is free at once: for a process
  // that must never wait for, nor leave anything behind, a shimctl command
  // (the shim's identity helper). The pid in the file is left as it is.
  [[nodiscard]] static std::optional<FileLock> try_existing(const Dir& dir, std::string_view name);

private:
  int fd_ = -1;
};

} // namespace shimctl::util
