#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <shim/formats.h>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/text.hpp>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace shimctl::links {

namespace {

namespace fs = std::filesystem;

// Copies FROM to TO through "TO.shimctl-<pid>" renamed into place; the file's mode MODE.
util::Status copy_atomically(const std::string& from, const std::string& to, fs::perms mode) {
  std::string temporary = fmt::format("{}.shimctl-{}", to, ::getpid());
  std::error_code ec;
  fs::copy_file(from, temporary, fs::copy_options::overwrite_existing, ec);
  if (!ec)
    fs::permissions(temporary, mode, ec);
  if (!ec)
    fs::rename(temporary, to, ec);
  if (!ec)
    return {};
  fs::remove(temporary, ec);
  return std::unexpected(
    util::Error{ fmt::format("cannot write {}", to), util::ExitCode::failure });
}

// The process's umask (read by setting it back).
mode_t current_umask() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

// Makes PATH when missing: 0700, or 2770 in a shared store (set after mkdir: the umask would take
// the group's bits; the group comes from the shared cache's setgid directory).
bool make_store_dir(const std::string& path, bool shared) {
  if (::mkdir(path.c_str(), shared ? 02770 : 0700) == 0)
    return !shared || ::chmod(path.c_str(), 02770) == 0;
  return errno == EEXIST;
}

// The modes of a store's files: the group's too in a shared store.
fs::perms entry_mode(bool shared) {
  return fs::perms(shared ? 0660 : 0600);
}

// SHIMCTL_DEVICE_LINKS_MAX_SIZE: a whole number of bytes, or of K, M, G or T (powers of 1024).
std::optional<unsigned long long> max_size_of(std::string_view text) {
  unsigned long long value = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && value < (1ULL << 50); i++)
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  if (i == 0)
    return std::nullopt;
  std::string_view suffix = text.substr(i);
  constexpr std::string_view units = "KMGT";
  if (suffix.empty())
    return value;
  auto at = units.find(suffix.front());
  if (suffix.size() != 1 || at == std::string_view::npos)
    return std::nullopt;
  return value << (10 * (at + 1));
}

// SHIMCTL_DEVICE_LINKS_MAX_SIZE's cap, the default when unset; nullopt when it is no size.
std::optional<unsigned long long> users_max_bytes() {
  const char* named = std::getenv("SHIMCTL_DEVICE_LINKS_MAX_SIZE");
  return named ? max_size_of(named) : LinkStore::default_max_bytes;
}

// Each entry of the store in DIR (its shards' files): path, size, when last used.
struct StoreEntry {
  fs::file_time_type used;
  std::uint64_t size;
  fs::path path;
};
std::vector<StoreEntry> entries_of(const std::string& dir) {
  std::vector<StoreEntry> entries;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() != 1 || !it->is_regular_file(ec))
      continue;
    StoreEntry entry{ it->last_write_time(ec), it->file_size(ec), it->path() };
    if (!ec)
      entries.push_back(std::move(entry));
  }
  return entries;
}

constexpr const char* counts_name = "counts";

} // namespace

LinkStoreSummary LinkStore::summary(const cache::LinkStorePlace& place) {
  LinkStoreSummary summary;
  summary.dir = place.dir;
  summary.shared = place.shared;
  summary.read_only = place.read_only;
  summary.max_bytes = users_max_bytes().value_or(0);
  struct stat st {};
  if (summary.dir.empty() || ::stat(summary.dir.c_str(), &st) != 0)
    return summary;
  summary.counts = util::read_counter_file(fmt::format("{}/{}", summary.dir, counts_name));
  for (const auto& entry : entries_of(summary.dir)) {
    summary.entries++;
    summary.bytes += entry.size;
  }
  return summary;
}

void record_link_for_measure(std::string_view counter) {
  const char* log = std::getenv(SHIMCTL_MEASURE_LOG);
  if (!log || !*log)
    return;
  int fd = ::open(log, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0)
    return;
  (void)util::write_all(fd, fmt::format("{}\n{}\n", link_measure_record, counter));
  ::close(fd);
}

util::Counts link_counts_in_measure_log(const std::string& text) {
  util::Counts counts;
  auto lines = util::lines_of(text);
  for (std::size_t i = 0; i + 1 < lines.size(); i++)
    if (lines[i] == link_measure_record && !lines[i + 1].empty())
      counts[std::string(lines[i + 1])]++;
  return counts;
}

void LinkStore::count(const char* counter) const {
  record_link_for_measure(counter);
  if (!place_.read_only)
    util::add_to_counter_file(
      fmt::format("{}/{}", place_.dir, counts_name), place_.shared ? 007 : 077, { { counter, 1 } });
}

util::Result<LinkStore> LinkStore::open(const cache::LinkStorePlace& place) {
  auto max_bytes = users_max_bytes();
  if (!max_bytes)
    return std::unexpected(
      util::Error{ fmt::format("SHIMCTL_DEVICE_LINKS_MAX_SIZE={} is not a size (5G, 500M)",
                               std::getenv("SHIMCTL_DEVICE_LINKS_MAX_SIZE")),
                   util::ExitCode::failure });
  if (place.dir.empty())
    return std::unexpected(util::Error{ "no cache home", util::ExitCode::failure });
  if (place.read_only) // made by nobody: a missing store is an empty one
    return LinkStore(place, *max_bytes);
  if (!place.shared) {
    auto dir = core::make_user_cache_dir(cache::users_store_name);
    if (!dir)
      return std::unexpected(dir.error());
  } else if (!make_store_dir(place.dir, true) || ::access(place.dir.c_str(), R_OK | W_OK | X_OK)) {
    // a user outside the shared cache's group
    return std::unexpected(
      util::Error{ fmt::format("cannot use {} (not in the shared cache's group?)", place.dir),
                   util::ExitCode::failure });
  }
  return LinkStore(place, *max_bytes);
}

std::optional<std::string> LinkStore::find(const std::string& key) const {
  std::string entry = fmt::format("{}/{}/{}", place_.dir, key.substr(0, 2), key);
  struct stat st {};
  if (::stat(entry.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  return entry;
}

util::Status LinkStore::copy_out(const std::string& entry, const std::string& output) const {
  if (!place_.read_only)
    (void)::utimensat(AT_FDCWD, entry.c_str(), nullptr, 0); // used now: the last to go
  return copy_atomically(entry, output, fs::perms(0666 & ~current_umask()));
}

util::Status LinkStore::keep(const std::string& key, const std::string& file) const {
  if (place_.read_only)
    return std::unexpected(
      util::Error{ fmt::format("{} is read-only", place_.dir), util::ExitCode::failure });
  std::string shard = fmt::format("{}/{}", place_.dir, key.substr(0, 2));
  if (!make_store_dir(shard, place_.shared))
    return std::unexpected(
      util::Error{ fmt::format("cannot make {}", shard), util::ExitCode::failure });
  auto kept = copy_atomically(file, fmt::format("{}/{}", shard, key), entry_mode(place_.shared));
  if (kept)
    evict();
  return kept;
}

void LinkStore::evict() const {
  auto entries = entries_of(place_.dir);
  std::uint64_t total = 0;
  for (const auto& entry : entries)
    total += entry.size;
  if (total <= max_bytes_)
    return;
  std::ranges::sort(entries, {}, &StoreEntry::used);
  std::error_code ec;
  for (const auto& entry : entries) {
    if (total <= max_bytes_ - max_bytes_ / 10)
      break;
    if (fs::remove(entry.path, ec))
      total -= entry.size;
  }
}

std::string LinkStore::verdict(const std::string& name) const {
  return util::first_line(util::read_text_file(fmt::format("{}/checked-{}", place_.dir, name)));
}

void LinkStore::record_verdict(const std::string& name, bool same) const {
  if (place_.read_only)
    return;
  if (auto dir = util::Dir::open(place_.dir))
    (void)dir->write_atomic(
      "checked-" + name, same ? "same\n" : "differ\n", place_.shared ? 0660 : 0600);
}

} // namespace shimctl::links
