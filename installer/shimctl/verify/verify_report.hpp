// What verification found: one Check per thing checked, and the options that
// choose the test compiles. Shared by verify, verify_compile and verify_remote.
#pragma once

#include <string>
#include <vector>

namespace shimctl::verify {

enum class Outcome { pass, fail, warn, not_cached };

struct Check {
  std::string subject; // a compiler path, or "toolchain", "cache"
  std::string name;    // what was checked
  Outcome outcome = Outcome::pass;
  std::string detail;
};

struct VerifyReport {
  std::vector<Check> checks;
  [[nodiscard]] bool ok() const;
  [[nodiscard]] std::string first_failure() const;
};

struct VerifyOptions {
  std::string offload_arch = "gfx90a";
  std::string cuda_arch = "sm_90";
  bool compile = true;
};

[[nodiscard]] std::string to_string(Outcome outcome);

} // namespace shimctl::verify
