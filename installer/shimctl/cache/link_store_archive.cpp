#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <shimctl/cache/link_store_archive.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <sys/stat.h>

namespace shimctl::cache {

using util::fail;

namespace {

bool all_hex(std::string_view text) {
  return std::ranges::all_of(
    text, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// RELATIVE inside a store: "<2 hex>/<64 hex starting with them>" or "checked-<32 hex>".
bool is_store_file(std::string_view relative) {
  constexpr std::string_view checked = "checked-";
  if (relative.starts_with(checked))
    return relative.size() == checked.size() + 32 && all_hex(relative.substr(checked.size()));
  return relative.size() == 3 + 64 && relative[2] == '/' && all_hex(relative.substr(0, 2)) &&
         all_hex(relative.substr(3)) && relative.substr(0, 2) == relative.substr(3, 2);
}

// Makes PATH (0700, or 2770 shared: set after mkdir, past the umask) when missing.
util::Status make_link_store_dir(const std::string& path, bool shared) {
  if (::mkdir(path.c_str(), shared ? 02770 : 0700) == 0) {
    if (shared && ::chmod(path.c_str(), 02770) != 0)
      return fail("cannot set the mode of {}: {}", path, util::errno_text(errno));
  } else if (errno != EEXIST) {
    return fail("cannot make {}: {}", path, util::errno_text(errno));
  }
  return {};
}

} // namespace

bool link_entry_travels(std::string_view relative) {
  return relative.size() > archived_links_dir.size() && relative.starts_with(archived_links_dir) &&
         relative[archived_links_dir.size()] == '/' &&
         is_store_file(relative.substr(archived_links_dir.size() + 1));
}

util::Result<std::vector<TreeFile>> link_store_files(const LinkStorePlace& place) {
  std::vector<TreeFile> files;
  if (place.dir.empty())
    return files;
  auto root = util::Dir::open(place.dir);
  if (!root) // no store yet
    return files;
  TRY_ASSIGN(auto names, root->list());
  for (const auto& name : names) {
    TRY_ASSIGN(auto st, root->stat(name));
    if (st && st->kind == util::FileKind::file && is_store_file(name))
      files.push_back({ name, st->size });
    if (!st || st->kind != util::FileKind::directory || name.size() != 2)
      continue;
    TRY_ASSIGN(auto shard, root->open_relative(name));
    TRY_ASSIGN(auto entries, shard.list());
    for (const auto& entry : entries) {
      auto relative = name + "/" + entry;
      TRY_ASSIGN(auto est, shard.stat(entry));
      if (est && est->kind == util::FileKind::file && is_store_file(relative))
        files.push_back({ relative, est->size });
    }
  }
  std::ranges::sort(files, {}, &TreeFile::relative);
  return files;
}

util::Result<bool> put_link_entry(const LinkStorePlace& place,
                                  const util::Dir& stage,
                                  const std::string& path) {
  if (place.dir.empty())
    return fail("no cache home for the device links' store");
  if (place.shared) {
    TRY(make_link_store_dir(place.dir, true));
  } else {
    TRY(core::make_user_cache_dir(users_store_name));
  }
  auto relative = path.substr(archived_links_dir.size() + 1);
  auto [shard_name, name] = util::split_relative(relative);
  std::string dir = shard_name.empty() ? place.dir : place.dir + "/" + shard_name;
  if (!shard_name.empty())
    TRY(make_link_store_dir(dir, place.shared));
  TRY_ASSIGN(auto to, util::Dir::open(dir));
  TRY_ASSIGN(auto present, to.stat(name));
  if (present)
    return false;
  TRY_ASSIGN(auto from, stage.open_relative(util::split_relative(path).first));
  TRY_ASSIGN(auto bytes, from.read_file(name, std::size_t{ 16 } << 30));
  TRY(to.write_atomic(name, bytes, place.shared ? 0660 : 0600));
  return true;
}

} // namespace shimctl::cache
