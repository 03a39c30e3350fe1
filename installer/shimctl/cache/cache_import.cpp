// `shimctl cache import FILE`: checks the header against the installed toolchain, extracts
// every entry into a private directory beside the cache directory (same filesystem), checks
// each path, type and SHA-256 against the trailer, and only then renames the files into the
// cache one by one. Until that last phase the cache directory is not touched. The compile
// records an export carries (shimctl-records/) are checked against the trailer like the rest and
// never extracted: they are `shimctl explain --against`'s, read from the archive itself.
#include <archive.h>
#include <archive_entry.h>
#include <cerrno>
#include <fcntl.h>
#include <linux/fs.h>
#include <map>
#include <shimctl/cache/cache_archive.hpp>
#include <shimctl/cache/cache_tree.hpp>
#include <shimctl/cache/link_store_archive.hpp>
#include <shimctl/records/archive_records.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/tar_reader.hpp>
#include <sstream>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

namespace {

constexpr std::size_t max_small_entry = 64 << 20;

// Reads the current entry's data in full (header and trailer only).
util::Result<std::string> read_small(archive* a, std::string_view name) {
  return util::read_tar_entry(a, std::string(name), max_small_entry);
}

// The entry's path if it may enter the cache; an error naming why not otherwise.
util::Result<std::string> checked_path(archive_entry* entry) {
  const char* raw = archive_entry_pathname(entry);
  if (!raw)
    return fail(ExitCode::usage, "an entry has no readable path");
  std::string path = raw;
  if (archive_entry_hardlink(entry))
    return fail(
      ExitCode::usage, "entry '{}' is a hard link; archives hold regular files only", path);
  auto type = archive_entry_filetype(entry);
  if (type == AE_IFLNK)
    return fail(
      ExitCode::usage, "entry '{}' is a symbolic link; archives hold regular files only", path);
  if (!path.empty() && path.front() == '/')
    return fail(ExitCode::usage, "entry '{}' is an absolute path", path);
  while (path.starts_with("./"))
    path.erase(0, 2);
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  if (path == ".." || path.starts_with("../") || path.find("/../") != std::string::npos ||
      path.ends_with("/.."))
    return fail(ExitCode::usage, "entry '{}' leaves the cache directory ('..')", raw);
  if (!util::is_clean_relative(path))
    return fail(ExitCode::usage, "entry '{}' is not a clean relative path", raw);
  if (type == AE_IFDIR)
    return path;
  if (type != AE_IFREG)
    return fail(ExitCode::usage,
                "entry '{}' is a device, fifo or socket; archives hold regular "
                "files only",
                raw);
  if (!travels(path) && !link_entry_travels(path) && !records::is_archived_record(path))
    return fail(ExitCode::usage,
                "entry '{}' is not a cache entry (ccache's config, stats, lock "
                "and temporary files and the device links' counts never travel)",
                raw);
  return path;
}

// Writes the current entry's data to STAGE/PATH; returns its SHA-256.
util::Result<std::string> extract_file(archive* a,
                                       const util::Dir& stage,
                                       const std::string& path,
                                       std::uint64_t& bytes_done) {
  auto [dir_path, name] = util::split_relative(path);
  TRY_ASSIGN(auto dir, make_dirs(stage, dir_path));
  int fd =
    ::openat(dir.fd(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST)
    return fail(ExitCode::usage, "entry '{}' appears twice", path);
  if (fd < 0)
    return fail("cannot extract {}: {}", dir.path_of(name), util::errno_text(errno));
  util::Sha256 hash;
  char buffer[1 << 16];
  util::Status status;
  while (true) {
    auto n = archive_read_data(a, buffer, sizeof buffer);
    if (n < 0) {
      status = fail(ExitCode::usage, "entry '{}': {}", path, archive_error(a));
      break;
    }
    if (n == 0)
      break;
    std::string_view chunk(buffer, static_cast<std::size_t>(n));
    hash.update(chunk);
    bytes_done += chunk.size();
    while (!chunk.empty()) {
      auto w = ::write(fd, chunk.data(), chunk.size());
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        status = fail("cannot write {}: {}", dir.path_of(name), util::errno_text(errno));
        break;
      }
      chunk.remove_prefix(static_cast<std::size_t>(w));
    }
    if (!status)
      break;
  }
  if (::close(fd) != 0 && status)
    status = fail("cannot write {}: {}", dir.path_of(name), util::errno_text(errno));
  if (!status)
    return std::unexpected(status.error());
  return hash.hex_digest();
}

// The SHA-256 of the current entry's data, read and dropped (a compile record).
util::Result<std::string> hash_entry(archive* a, const std::string& path) {
  util::Sha256 hash;
  char buffer[1 << 16];
  while (true) {
    auto n = archive_read_data(a, buffer, sizeof buffer);
    if (n < 0)
      return fail(ExitCode::usage, "entry '{}': {}", path, archive_error(a));
    if (n == 0)
      return hash.hex_digest();
    hash.update(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
}

util::Result<std::map<std::string, std::string>> parse_trailer(const std::string& text) {
  std::map<std::string, std::string> sums;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 67 || line.compare(64, 2, "  ") != 0)
      return fail(ExitCode::usage, "its {} is damaged", archive_trailer_name);
    sums[line.substr(66)] = line.substr(0, 64);
  }
  return sums;
}

struct Staged {
  std::map<std::string, std::string> sums;    // path -> SHA-256 as extracted
  std::map<std::string, std::string> records; // path -> SHA-256 of a record (not extracted)
  std::map<std::string, std::string> trailer;
  bool trailer_seen = false;
};

// Reads every entry after the header into STAGE.
util::Status extract_all(archive* a,
                         const util::Dir& stage,
                         const CacheArchiveOptions& options,
                         const ArchiveHeader& header,
                         Staged& staged) {
  std::uint64_t bytes_done = 0;
  archive_entry* entry = nullptr;
  while (true) {
    int r = archive_read_next_header(a, &entry);
    if (r == ARCHIVE_EOF)
      break;
    if (r != ARCHIVE_OK)
      return fail(ExitCode::usage, "{}", archive_error(a));
    if (staged.trailer_seen)
      return fail(ExitCode::usage, "entries follow its {}", archive_trailer_name);
    const char* raw = archive_entry_pathname(entry);
    if (raw && raw == archive_trailer_name && archive_entry_filetype(entry) == AE_IFREG) {
      TRY_ASSIGN(auto text, read_small(a, archive_trailer_name));
      TRY_ASSIGN(staged.trailer, parse_trailer(text));
      staged.trailer_seen = true;
      continue;
    }
    TRY_ASSIGN(auto path, checked_path(entry));
    if (archive_entry_filetype(entry) == AE_IFDIR) {
      TRY(make_dirs(stage, path));
      continue;
    }
    if (records::is_archived_record(path)) {
      TRY_ASSIGN(auto digest, hash_entry(a, path));
      if (!staged.records.emplace(path, digest).second)
        return fail(ExitCode::usage, "entry '{}' appears twice", path);
      continue;
    }
    TRY_ASSIGN(auto digest, extract_file(a, stage, path, bytes_done));
    staged.sums[path] = digest;
    if (options.meter)
      options.meter(
        { "importing", "files", staged.sums.size(), header.entries, bytes_done, header.bytes });
  }
  if (!staged.trailer_seen)
    return fail(ExitCode::usage, "it ends before its {} (truncated?)", archive_trailer_name);
  if (staged.trailer.size() != staged.sums.size() + staged.records.size())
    return fail(ExitCode::usage,
                "it holds {} entries but its {} lists {}",
                staged.sums.size() + staged.records.size(),
                archive_trailer_name,
                staged.trailer.size());
  for (const auto* read : { &staged.sums, &staged.records })
    for (const auto& [path, digest] : *read) {
      auto it = staged.trailer.find(path);
      if (it == staged.trailer.end())
        return fail(ExitCode::usage, "entry '{}' is not in its {}", path, archive_trailer_name);
      if (it->second != digest)
        return fail(ExitCode::usage,
                    "entry '{}' is damaged (SHA-256 differs from its {})",
                    path,
                    archive_trailer_name);
    }
  return {};
}

// Moves each staged file into the cache, a device link's into the store at LINKS; an entry
// already there is left alone.
util::Status move_into(const util::Dir& stage,
                       const util::Dir& cache,
                       const LinkStorePlace& links,
                       const Staged& staged,
                       CacheArchiveResult& result) {
  for (const auto& [path, digest] : staged.sums) {
    (void)digest;
    if (link_entry_travels(path)) {
      auto put = put_link_entry(links, stage, path);
      if (!put)
        return fail("{} ({} of {} entries imported)",
                    put.error().message,
                    result.imported,
                    staged.sums.size());
      ++(*put ? result.imported : result.kept);
      continue;
    }
    auto [dir_path, name] = util::split_relative(path);
    TRY_ASSIGN(auto from, stage.open_relative(dir_path));
    TRY_ASSIGN(auto to, make_dirs(cache, dir_path));
    if (::syscall(
          SYS_renameat2, from.fd(), name.c_str(), to.fd(), name.c_str(), RENAME_NOREPLACE) == 0) {
      ++result.imported;
    } else if (errno == EEXIST) {
      ++result.kept;
    } else {
      return fail("cannot move {} into {}: {} ({} of {} entries imported)",
                  path,
                  cache.path(),
                  util::errno_text(errno),
                  result.imported,
                  staged.sums.size());
    }
  }
  return {};
}

} // namespace

util::Result<CacheArchiveResult> import_cache(const core::Context& context,
                                              const CacheArchiveOptions& options) {
  TRY_ASSIGN(auto target, cache_target(context, options));
  CacheArchiveResult result;
  result.cache_dir = target.cache_dir;
  result.installed_key = target.identity.cache_key;
  auto bad = [&](const util::Error& e) {
    return fail(e.code,
                "archive {}: {}; the cache in {} is unchanged",
                options.file,
                e.message,
                target.cache_dir);
  };

  auto opened = util::open_tar(options.file);
  if (!opened)
    return bad({ fmt::format("cannot read it: {}", opened.error().message), opened.error().code });
  auto a = std::move(*opened);

  archive_entry* entry = nullptr;
  if (archive_read_next_header(a.get(), &entry) != ARCHIVE_OK)
    return bad(
      { fmt::format("not a shimctl cache archive ({})", archive_error(a.get())), ExitCode::usage });
  const char* first = archive_entry_pathname(entry);
  if (!first || first != archive_header_name || archive_entry_filetype(entry) != AE_IFREG)
    return bad(
      { fmt::format("not a shimctl cache archive (its first entry is not {})", archive_header_name),
        ExitCode::usage });
  auto header_text = read_small(a.get(), archive_header_name);
  if (!header_text)
    return bad(header_text.error());
  auto header = parse_archive_header(*header_text);
  if (!header)
    return bad(header.error());
  result.header = *header;
  if (header->cache_tool != target.identity.cache_tool)
    return bad({ fmt::format("it holds a {} cache; {} uses {}",
                             header->cache_tool,
                             target.session.prefix,
                             target.identity.cache_tool),
                 ExitCode::usage });
  if (header->fingerprint != target.identity.fingerprint) {
    if (!options.force)
      return fail("archive {} is for toolchain {} but {} is {}: its entries could never hit; "
                  "pass --force to import anyway",
                  options.file,
                  header->cache_key,
                  target.session.prefix,
                  target.identity.cache_key);
    result.mismatch_forced = true;
  }

  // Stage beside the cache directory: same filesystem, so the final renames are atomic.
  // A cache directory reached through a symlink is staged beside its real location.
  auto real_cache = util::real_path(target.cache_dir);
  auto [parent_path, cache_name] =
    util::split_relative(real_cache ? *real_cache : target.cache_dir);
  TRY_ASSIGN(auto parent, open_or_create(parent_path.empty() ? "/" : parent_path));
  TRY_ASSIGN(auto stage_name, make_private_dir(parent, "import-" + cache_name));
  auto cleanup = [&] { (void)remove_tree(parent, stage_name); };
  auto stage = parent.open_relative(stage_name);
  if (!stage) {
    cleanup();
    return std::unexpected(stage.error());
  }
  Staged staged;
  if (auto ok = extract_all(a.get(), *stage, options, *header, staged); !ok) {
    cleanup();
    return bad(ok.error());
  }
  a.reset();
  auto cache = make_dirs(parent, cache_name);
  if (!cache) {
    cleanup();
    return std::unexpected(cache.error());
  }
  auto moved = move_into(*stage, *cache, target.link_store, staged, result);
  cleanup();
  if (!moved)
    return std::unexpected(moved.error());
  return result;
}

} // namespace shimctl::cache
