#include <ctime>
#include <fmt/format.h>
#include <shimctl/cache/store_health.hpp>
#include <shimctl/verify/verify_store_health.hpp>

namespace shimctl::verify {

void verify_store_health(const core::Manifest& m, std::vector<Check>& out) {
  auto probe = cache::store_probe(m.cache.remote);
  if (!probe)
    return;
  auto name = fmt::format("store health ({} {})", probe->probe, probe->address);
  auto health = cache::read_store_health(*probe);
  if (!health) {
    out.push_back({ "remote", name, Outcome::pass, "not asked yet by this user's compiles" });
    return;
  }
  auto now = static_cast<unsigned long long>(std::time(nullptr));
  auto detail = cache::store_state_words(*health, now);
  if (auto failure = cache::store_failure_words(*health, now); !failure.empty())
    detail += "; last failure: " + failure;
  out.push_back({ "remote", name, health->out ? Outcome::warn : Outcome::pass, detail });
}

} // namespace shimctl::verify
