#include <algorithm>
#include <fmt/format.h>
#include <shimctl/verify/verify_report.hpp>

namespace shimctl::verify {

std::string to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::pass:
      return "ok";
    case Outcome::fail:
      return "FAILED";
    case Outcome::warn:
      return "warning";
    case Outcome::not_cached:
      return "not cached";
  }
  return "?";
}

bool VerifyReport::ok() const {
  return std::none_of(
    checks.begin(), checks.end(), [](const Check& c) { return c.outcome == Outcome::fail; });
}

std::string VerifyReport::first_failure() const {
  for (const auto& c : checks)
    if (c.outcome == Outcome::fail)
      return fmt::format("{}: {}: {}", c.subject, c.name, c.detail);
  return "";
}

} // namespace shimctl::verify
