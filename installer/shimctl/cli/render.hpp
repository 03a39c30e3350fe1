// Turning reports into text for people and JSON for machines.
#pragma once

#include <nlohmann/json.hpp>
#include <shimctl/commands/install.hpp>
#include <shimctl/commands/rollback.hpp>
#include <shimctl/commands/status.hpp>
#include <shimctl/identity/fingerprint.hpp>
#include <shimctl/verify/verify.hpp>
#include <string>

namespace shimctl::cli {

[[nodiscard]] std::string verify_table(const verify::VerifyReport& report);
[[nodiscard]] nlohmann::json verify_json(const verify::VerifyReport& report);
[[nodiscard]] std::string status_text(const commands::StatusReport& report);
[[nodiscard]] nlohmann::json status_json(const commands::StatusReport& report);
[[nodiscard]] nlohmann::json fingerprint_json(const identity::Fingerprint& fp,
                                              const std::string& layout);

} // namespace shimctl::cli
