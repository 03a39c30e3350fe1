#include <cstdlib>
#include <fmt/format.h>
#include <shim/formats.h>
#include <shimctl/pieces/piece_verdict.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <string_view>

namespace shimctl::pieces {

namespace {

constexpr std::string_view verdicts_dir = "pieces-checked"; // in SHIMCTL_USER_CACHE_DIR

} // namespace

VerdictPlace verdict_place(const std::string& tool_key,
                           const std::string& real,
                           const std::string& kind) {
  char home[4096];
  size_t len =
    shimctl_user_cache_home(home, sizeof home, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (!len || len >= sizeof home)
    return {};
  std::string key = fmt::format("{}\n{}\n{}", real, tool_key, kind);
  return { std::string(home, len), util::sha256_hex(key).substr(0, 32) };
}

std::string read_verdict(const VerdictPlace& place) {
  return util::first_line(util::read_text_file(
    fmt::format("{}/{}/{}/{}", place.home, SHIMCTL_USER_CACHE_DIR, verdicts_dir, place.name)));
}

namespace {

// The user's cache home, made (0700, as XDG asks) when missing but its parent is there: a new
// user's ~/.cache, or an XDG_CACHE_HOME not made yet, would otherwise check every split again.
util::Result<util::Dir> open_cache_home(const std::string& path) {
  if (auto home = util::Dir::open(path))
    return home;
  auto slash = path.rfind('/');
  if (slash == std::string::npos || slash + 1 == path.size())
    return util::Dir::open(path);
  auto parent = util::Dir::open(slash == 0 ? "/" : path.substr(0, slash));
  if (!parent || !parent->make_dir(path.substr(slash + 1), 0700))
    return util::Dir::open(path);
  return parent->open_relative(path.substr(slash + 1));
}

} // namespace

void record_verdict(const VerdictPlace& place, bool same) {
  auto home = open_cache_home(place.home);
  if (!home || !home->make_dir(SHIMCTL_USER_CACHE_DIR, 0700))
    return;
  auto ours = home->open_relative(SHIMCTL_USER_CACHE_DIR);
  if (!ours || !ours->make_dir(verdicts_dir, 0700))
    return;
  if (auto dir = ours->open_relative(verdicts_dir))
    (void)dir->write_atomic(place.name, same ? "same\n" : "differ\n", 0600);
}

} // namespace shimctl::pieces
