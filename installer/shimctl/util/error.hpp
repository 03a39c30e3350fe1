// Errors as values: every expected failure travels to the CLI boundary as a
// util::Error carrying a one-line message and the exit code to use there.
#pragma once

#include <expected>
#include <fmt/format.h>
#include <string>
#include <utility>

namespace shimctl::util {

// Exit codes of the CLI, also documented in `shimctl --help`.
enum class ExitCode : int {
  ok = 0,
  failure = 1,       // an operation failed (verification, rollback refused, ...)
  usage = 2,         // bad command line or bad input named by the user
  busy = 3,          // another shimctl holds the prefix lock
  not_installed = 4, // the prefix has no shimctl installation
  corrupt = 5,       // manifest or journal unreadable or inconsistent
};

struct Error {
  std::string message;
  ExitCode code = ExitCode::failure;
};

template<typename T>
using Result = std::expected<T, Error>;

using Status = std::expected<void, Error>;

template<typename... Args>
[[nodiscard]] std::unexpected<Error> fail(ExitCode code,
                                          fmt::format_string<Args...> f,
                                          Args&&... args) {
  return std::unexpected(Error{ fmt::format(f, std::forward<Args>(args)...), code });
}

template<typename... Args>
[[nodiscard]] std::unexpected<Error> fail(fmt::format_string<Args...> f, Args&&... args) {
  return std::unexpected(Error{ fmt::format(f, std::forward<Args>(args)...), ExitCode::failure });
}

} // namespace shimctl::util

// TRY(expr): evaluate a Result/Status; on error return it from the enclosing function.
#define SHIMCTL_CONCAT2(a, b) a##b
#define SHIMCTL_CONCAT(a, b) SHIMCTL_CONCAT2(a, b)
#define TRY(expr)                                                                                  \
  do {                                                                                             \
    auto&& SHIMCTL_CONCAT(try_, __LINE__) = (expr);                                                \
    if (!SHIMCTL_CONCAT(try_, __LINE__))                                                           \
      return std::unexpected(SHIMCTL_CONCAT(try_, __LINE__).error());                              \
  } while (false)

// TRY_ASSIGN(var, expr): like TRY, and moves the value into `var`.
#define TRY_ASSIGN(var, expr)                                                                      \
  auto SHIMCTL_CONCAT(tmp_, __LINE__) = (expr);                                                    \
  if (!SHIMCTL_CONCAT(tmp_, __LINE__))                                                             \
    return std::unexpected(SHIMCTL_CONCAT(tmp_, __LINE__).error());                                \
  var = std::move(*SHIMCTL_CONCAT(tmp_, __LINE__))
