// `shimctl cache export FILE`: header, the travelling entries, the exporting user's compile
// records of the prefix's compiles, the SHA-256 trailer; written to a temporary file beside FILE
// and renamed over it only when complete.
#include <archive.h>
#include <archive_entry.h>
#include <cerrno>
#include <ctime>
#include <fcntl.h>
#include <shimctl/cache/cache_archive.hpp>
#include <shimctl/cache/cache_tree.hpp>
#include <shimctl/cache/link_store_archive.hpp>
#include <shimctl/core/manifest.hpp>
#include <shimctl/records/archive_records.hpp>
#include <shimctl/util/sha256.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

namespace {

struct EntryFree {
  void operator()(archive_entry* e) const {
    archive_entry_free(e);
  }
};
using Entry = std::unique_ptr<archive_entry, EntryFree>;

class Fd {
public:
  explicit Fd(int fd)
    : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const {
    return fd_;
  }
  [[nodiscard]] int release() {
    return std::exchange(fd_, -1);
  }

private:
  int fd_;
};

util::Status write_entry_header(archive* a,
                                const std::string& name,
                                std::uint64_t size,
                                std::time_t mtime) {
  Entry entry(archive_entry_new());
  archive_entry_set_pathname(entry.get(), name.c_str());
  archive_entry_set_filetype(entry.get(), AE_IFREG);
  archive_entry_set_perm(entry.get(), 0644);
  archive_entry_set_size(entry.get(), static_cast<la_int64_t>(size));
  archive_entry_set_mtime(entry.get(), mtime, 0);
  if (archive_write_header(a, entry.get()) != ARCHIVE_OK)
    return fail("cannot write the archive entry {}: {}", name, archive_error(a));
  return {};
}

util::Status write_data(archive* a, std::string_view data) {
  if (archive_write_data(a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
    return fail("cannot write to the archive: {}", archive_error(a));
  return {};
}

util::Status write_small(archive* a, std::string_view name, const std::string& content) {
  TRY(write_entry_header(a, std::string(name), content.size(), std::time(nullptr)));
  return write_data(a, content);
}

// Streams one cache file (ROOT/FILE) into the archive as NAME; returns its SHA-256, or "" if it
// vanished.
util::Result<std::string> write_file(archive* a,
                                     const util::Dir& root,
                                     const TreeFile& file,
                                     const std::string& archived_name,
                                     std::uint64_t& bytes_done) {
  auto [dir_path, name] = util::split_relative(file.relative);
  TRY_ASSIGN(auto dir, root.open_relative(dir_path));
  Fd fd(::openat(dir.fd(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT)
      return std::string(); // evicted by ccache since the walk
    return fail("cannot read {}: {}", dir.path_of(name), util::errno_text(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return fail("cannot read {}: not a regular file", dir.path_of(name));
  TRY(write_entry_header(a, archived_name, static_cast<std::uint64_t>(st.st_size), st.st_mtime));
  util::Sha256 hash;
  char buffer[1 << 16];
  std::uint64_t written = 0;
  while (written < static_cast<std::uint64_t>(st.st_size)) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail("cannot read {}: {}", dir.path_of(name), util::errno_text(errno));
    if (n == 0)
      return fail("{} shrank while it was archived; retry the export", dir.path_of(name));
    auto chunk = std::string_view(buffer, static_cast<std::size_t>(n));
    chunk = chunk.substr(0, std::min<std::uint64_t>(chunk.size(), st.st_size - written));
    hash.update(chunk);
    TRY(write_data(a, chunk));
    written += chunk.size();
    bytes_done += chunk.size();
  }
  return hash.hex_digest();
}

} // namespace

util::Result<CacheArchiveResult> export_cache(const core::Context& context,
                                              const CacheArchiveOptions& options) {
  TRY_ASSIGN(auto target, cache_target(context, options));
  auto root = util::Dir::open(target.cache_dir);
  if (!root)
    return fail("the cache directory {} does not exist yet; compile through the shims first",
                target.cache_dir);
  TRY_ASSIGN(auto files, cache_files(*root));
  TRY_ASSIGN(auto link_files, link_store_files(target.link_store));
  auto link_root = util::Dir::open(target.link_store.dir);
  // Each file to archive: its directory, the file, its name in the archive.
  struct Archived {
    const util::Dir* root;
    TreeFile file;
    std::string name;
  };
  std::vector<Archived> archived;
  for (const auto& f : files)
    archived.push_back({ &*root, f, f.relative });
  for (const auto& f : link_files)
    if (link_root)
      archived.push_back({ &*link_root, f, fmt::format("{}/{}", archived_links_dir, f.relative) });

  CacheArchiveResult result;
  result.cache_dir = target.cache_dir;
  result.installed_key = target.identity.cache_key;
  result.header = target.identity;
  result.header.created = core::utc_now_iso8601();
  result.header.entries = archived.size();
  for (const auto& f : archived)
    result.header.bytes += f.file.size;
  // What CI's compiles were, for `shimctl explain --against` on another machine.
  auto records = records::records_to_export(records::records_dir(), target.session.prefix);
  result.header.records = records.size();

  // The output: a temporary file beside FILE, renamed over it at the end.
  std::string file = options.file;
  if (file.empty())
    return fail(ExitCode::usage, "cache export: no archive file named");
  if (file.front() != '/') {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd))
      return fail("cannot read the current directory: {}", util::errno_text(errno));
    file = std::string(cwd) + "/" + file;
  }
  auto [out_dir_path, out_name] = util::split_relative(file);
  TRY_ASSIGN(auto out_dir, util::Dir::open(out_dir_path.empty() ? "/" : out_dir_path));
  if (!util::is_plain_name(out_name))
    return fail(ExitCode::usage, "'{}' does not name a file", options.file);
  auto tmp_name = "." + out_name + ".shimctl-tmp";
  TRY(out_dir.remove(tmp_name));
  Fd out(::openat(
    out_dir.fd(), tmp_name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (out.get() < 0)
    return fail(
      ExitCode::usage, "cannot write {}: {}", out_dir.path_of(tmp_name), util::errno_text(errno));
  auto abandon = [&](util::Error e) -> util::Result<CacheArchiveResult> {
    (void)out_dir.remove(tmp_name);
    return std::unexpected(std::move(e));
  };

  WriteArchive a(archive_write_new());
  if (!a || archive_write_add_filter_zstd(a.get()) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      archive_write_open_fd(a.get(), out.get()) != ARCHIVE_OK)
    return abandon({ fmt::format("cannot start a zstd tar archive: {}",
                                 a ? archive_error(a.get()) : "out of memory") });

  std::string trailer;
  std::uint64_t done = 0, bytes_done = 0;
  auto steps = [&]() -> util::Status {
    TRY(write_small(a.get(), archive_header_name, to_json(result.header).dump(2) + "\n"));
    for (const auto& f : archived) {
      TRY_ASSIGN(auto digest, write_file(a.get(), *f.root, f.file, f.name, bytes_done));
      if (digest.empty())
        continue;
      trailer += digest + "  " + f.name + "\n";
      ++done;
      if (options.meter)
        options.meter(
          { "exporting", "files", done, archived.size(), bytes_done, result.header.bytes });
    }
    for (std::size_t i = 0; i < records.size(); ++i) {
      auto name = fmt::format("{}/{}.json", records::archived_records_dir, i + 1);
      TRY(write_small(a.get(), name, records[i].text));
      trailer += util::sha256_hex(records[i].text) + "  " + name + "\n";
    }
    TRY(write_small(a.get(), archive_trailer_name, trailer));
    if (archive_write_close(a.get()) != ARCHIVE_OK)
      return fail("cannot finish the archive: {}", archive_error(a.get()));
    if (::fsync(out.get()) != 0)
      return fail("cannot write {}: {}", file, util::errno_text(errno));
    return {};
  };
  if (auto ok = steps(); !ok)
    return abandon(ok.error());
  a.reset();
  if (::close(out.release()) != 0)
    return abandon({ fmt::format("cannot write {}: {}", file, util::errno_text(errno)) });
  if (auto moved = out_dir.rename(tmp_name, out_name); !moved)
    return abandon(moved.error());
  TRY(out_dir.sync());
  result.header.entries = done; // entries evicted during the export are not in the archive
  return result;
}

} // namespace shimctl::cache
