#include <algorithm>
#include <array>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <shim/formats.h>
#include <shim/path_roots.h>
#include <shimctl/cache/cache_tree.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/commands/adopt.hpp>
#include <shimctl/commands/status.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/records/cache_fullness.hpp>
#include <shimctl/verify/verify.hpp>
#include <shimctl/verify/verify_compile.hpp>

namespace shimctl::commands {

using namespace shimctl::core;

namespace {

namespace fs = std::filesystem;

// The paths of the cache entries under CACHE_DIR: the files that would travel in a cache archive
// (cache::travels: not ccache's bookkeeping), none when the directory cannot be read.
// The bytes of the cache entries under CACHE_DIR (entry_files').
std::uint64_t entry_bytes(const std::vector<fs::path>& files) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (const auto& file : files)
    if (auto size = fs::file_size(file, ec); !ec)
      total += size;
  return total;
}

std::vector<fs::path> entry_files(const std::string& cache_dir) {
  std::vector<fs::path> paths;
  auto root = util::Dir::open(cache_dir);
  if (!root)
    return paths;
  auto files = cache::cache_files(*root);
  if (!files)
    return paths;
  for (const auto& file : *files)
    paths.push_back(fs::path(cache_dir) / file.relative);
  return paths;
}

// The ccache version in the header of the entry FILE, "" when it has none.
std::string writer_of(const fs::path& file) {
  std::array<char, 16 + 255> header{};
  std::ifstream in(file, std::ios::binary);
  in.read(header.data(), header.size());
  auto got = static_cast<std::size_t>(in.gcount());
  if (got < 17 || static_cast<unsigned char>(header[0]) != 0xcc ||
      static_cast<unsigned char>(header[1]) != 0xac)
    return "";
  auto length = static_cast<unsigned char>(header[15]);
  if (length == 0 || got < 16 + std::size_t{ length })
    return "";
  std::string version(header.data() + 16, length);
  for (char c : version)
    if (c < 0x21 || c > 0x7e)
      return "";
  return version;
}

} // namespace

CacheWriters cache_writers(const std::string& cache_dir, std::uint64_t limit) {
  CacheWriters writers;
  auto files = entry_files(cache_dir);
  writers.entries = files.size();
  if (files.empty() || limit == 0)
    return writers;
  // Every step-th entry: a sample spread over the whole cache (entries are spread by hash).
  auto step = std::max<std::uint64_t>(1, (files.size() + limit - 1) / limit);
  for (std::uint64_t i = 0; i < files.size() && writers.read < limit; i += step) {
    ++writers.read;
    auto version = writer_of(files[i]);
    if (version.empty())
      ++writers.unknown;
    else
      ++writers.versions[version];
  }
  return writers;
}

std::optional<LastRoots> last_roots(const std::string& prefix) {
  auto memo = core::user_prefix_file(SHIMCTL_USER_ROOTS_DIR, prefix);
  std::error_code ec;
  if (memo.empty())
    return std::nullopt;
  auto build = std::filesystem::read_symlink(memo, ec);
  if (ec)
    return std::nullopt;
  auto view = [&](const char* name) {
    std::error_code view_ec;
    auto target = std::filesystem::read_symlink(build / SHIMCTL_ROOTS_VIEW / name, view_ec);
    return view_ec ? std::string() : target.string();
  };
  LastRoots roots{ build.string(), view("s"), view("p"), {} };
  for (int i = 0; i < SHIMCTL_BASE_DIRS_MAX; i++)
    if (auto base = view(shimctl_root_view_name(static_cast<shimctl_root>(SHIMCTL_ROOT_BASE + i)));
        !base.empty())
      roots.base_dirs.push_back(base);
  return roots;
}

util::Result<StatusReport> status(const Context& context,
                                  const std::string& prefix,
                                  const SessionOptions& session_options) {
  auto read_only = session_options;
  read_only.read_only = true; // another user may look at a prefix they may not lock
  TRY_ASSIGN(auto session, open_session(context, prefix, read_only));
  StatusReport report;
  report.prefix = session.prefix;
  report.recovered = session.recovered;
  if (!session.manifest)
    return report;
  const auto& m = *session.manifest;
  report.installed = true;
  report.manifest = m;
  TRY_ASSIGN(auto upgraded, upgraded_compilers(session));
  TRY_ASSIGN(auto by_package, diverted_updates(session));
  for (const auto& c : m.compilers) {
    CompilerStatus cs{ c.path, "wrapped", c.aliases.size() };
    auto [dir_path, name] = util::split_relative(c.path);
    auto dir = session.dir.open_relative(dir_path);
    auto real = dir ? dir->stat(util::split_relative(c.real).second)
                    : util::Result<std::optional<util::FileStat>>(std::nullopt);
    if (std::find(upgraded.begin(), upgraded.end(), c.path) != upgraded.end())
      cs.state = "shim replaced by another file (package upgrade?): run 'shimctl install'";
    else if (!real || !*real)
      cs.state = "original " + c.real + " missing";
    else if (std::find(by_package.begin(), by_package.end(), c.path) != by_package.end())
      cs.state = "updated by its package (diverted): run 'shimctl install'";
    report.compilers.push_back(cs);
  }
  report.environment =
    cache::shim_environment(m.cache, m.fingerprint.sha256, cache::identity_paths(m));
  if (m.cache.remote_secret) {
    report.secrets = cache::read_secrets(m.prefix);
    report.secrets->lines.clear();
  }
  report.store = cache::store_probe(m.cache.remote);
  if (report.store)
    report.store_health = cache::read_store_health(*report.store);
  report.now = static_cast<unsigned long long>(std::time(nullptr));
  util::RunOptions options;
  options.env = cache::tool_environment(report.environment);
  report.cache_location = cache::tool_of(m.cache).cache_location(m.cache, options);
  if (auto stats = cache::tool_of(m.cache).read_stats(m.cache, options))
    report.stats = *stats;
  if (report.cache_location.starts_with("/")) {
    report.pieces = pieces::read_counts(report.cache_location);
    report.piece_bytes = pieces::piece_entry_bytes(report.cache_location);
  }
  report.device_links = links::LinkStore::summary(cache::link_store_place(&m.cache));
  report.links_apply = std::ranges::any_of(
    m.compilers, [](const auto& c) { return c.verify == core::VerifyKind::hip; });
  // A shared cache keeps its entries in the shared directory (ccache's file storage).
  auto entries_dir = m.cache.shared_group && m.cache.dir ? *m.cache.dir : report.cache_location;
  if (cache::tool_of(m.cache).entries_are_files() && entries_dir.starts_with("/"))
    report.writers = cache_writers(entries_dir, 20000);
  if (entries_dir.starts_with("/"))
    report.cache_bytes = entry_bytes(entry_files(entries_dir));
  if (report.piece_bytes) // a piece stored after the entries were counted stays within them
    report.piece_bytes->bytes = std::min(report.piece_bytes->bytes, report.cache_bytes);
  report.max_is_default = !m.cache.max_size;
  auto max = records::parse_size(
    m.cache.max_size.value_or(cache::tool_of(m.cache).name() == "sccache" ? "10G" : "5G"));
  report.cache_max = max.value_or(0);
  report.roots = last_roots(session.prefix);
  report.events = verify::read_events(session.dir);
  report.changed = verify::changed_identity_inputs(m);
  report.snapshot = identity::snapshot_state(m);
  return report;
}

} // namespace shimctl::commands
