#include <climits>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <shimctl/cache/store_health.hpp>
#include <shimctl/cache/store_kind.hpp>
#include <shimctl/cache/store_url.hpp>
#include <shimctl/util/text.hpp>
#include <sstream>

namespace shimctl::cache {

namespace {

// UTC time of day of unix time T ("05:12:03 UTC").
std::string utc_clock(unsigned long long t) {
  std::time_t time = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&time, &tm);
  return fmt::format("{:02}:{:02}:{:02} UTC", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string ago(unsigned long long then, unsigned long long now) {
  return fmt::format("{} s ago", now > then ? now - then : 0);
}

} // namespace

std::optional<StoreProbe> store_probe(const std::optional<std::string>& remote) {
  if (!remote)
    return std::nullopt;
  for (auto word : util::words_of(*remote)) {
    auto [base, attributes] = store::split_attributes(word);
    StoreUrl url;
    url.scheme = store::scheme_of(base);
    const auto* kind = store_kind_of(url.scheme);
    if (url.scheme.empty() || (kind && kind->on_this_machine()))
      continue;
    url.rest = base.substr(url.scheme.size() + 1);
    if (!kind || !url.rest.starts_with("//"))
      return std::nullopt;
    url.authority = store::authority_of(url.rest);
    url.attributes = attributes;
    auto probe = kind->health_probe(url);
    if (!probe || probe->second.size() >= sizeof(shimctl_store_health::address) ||
        probe->second.find(' ') != std::string::npos)
      return std::nullopt;
    return StoreProbe{ probe->first, probe->second };
  }
  return std::nullopt;
}

std::optional<shimctl_store_health> read_store_health(const StoreProbe& probe) {
  char dir[PATH_MAX];
  if (!shimctl_private_runtime_dir(dir, sizeof dir))
    return std::nullopt;
  std::string path(dir);
  path += '/';
  std::string name(
    shimctl_store_memo_name(nullptr, 0, 0, probe.probe.c_str(), probe.address.c_str()), '\0');
  shimctl_store_memo_name(
    name.data(), name.size() + 1, 0, probe.probe.c_str(), probe.address.c_str());
  std::ifstream in(path + name);
  std::string line;
  if (!in || !std::getline(in, line))
    return std::nullopt;
  shimctl_store_health health{};
  if (!shimctl_parse_store_health(line.c_str(), &health) || probe.address != health.address)
    return std::nullopt;
  return health;
}

std::string store_state_words(const shimctl_store_health& health, unsigned long long now) {
  if (health.out && now < health.until)
    return fmt::format("out until {} (cool-down {} s; compiles use the local cache)",
                       utc_clock(health.until),
                       health.cooldown);
  if (health.out)
    return fmt::format("out, to be asked again by the next compile (cool-down {} s ended)",
                       health.cooldown);
  return fmt::format("healthy (answered {})", ago(health.checked, now));
}

std::string store_failure_words(const shimctl_store_health& health, unsigned long long now) {
  if (!health.failed)
    return "";
  return util::redact_credentials(fmt::format(
    "{} at {} ({})", health.failure, utc_clock(health.failed), ago(health.failed, now)));
}

} // namespace shimctl::cache
