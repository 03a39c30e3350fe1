#include <algorithm>
#include <cerrno>
#include <random>
#include <shimctl/cache/cache_tree.hpp>
#include <sys/stat.h>

namespace shimctl::cache {

using util::ExitCode;
using util::fail;

namespace {

bool is_hex_digit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

util::Status walk(const util::Dir& dir, const std::string& relative, std::vector<TreeFile>& out) {
  TRY_ASSIGN(auto names, dir.list());
  for (const auto& name : names) {
    auto child = relative.empty() ? name : relative + "/" + name;
    TRY_ASSIGN(auto st, dir.stat(name));
    if (!st)
      continue; // removed meanwhile (ccache evicting)
    if (st->kind == util::FileKind::directory) {
      if (relative.empty() && !(name.size() == 1 && is_hex_digit(name[0])))
        continue; // tmp/ and anything else that is not a cache level
      TRY_ASSIGN(auto sub, dir.open_relative(name));
      TRY(walk(sub, child, out));
    } else if (st->kind == util::FileKind::file && travels(child)) {
      out.push_back({ child, st->size });
    }
  }
  return {};
}

} // namespace

bool travels(std::string_view relative) {
  if (!util::is_clean_relative(relative))
    return false;
  auto slash = relative.find('/');
  if (slash != 1 || !is_hex_digit(relative[0]))
    return false;
  auto name = relative.substr(relative.rfind('/') + 1);
  if (relative.find("/.") != std::string_view::npos)
    return false;
  return name != "stats" && name != "CACHEDIR.TAG" && !name.ends_with(".lock") &&
         !name.ends_with(".alive") && name.find(".tmp") == std::string_view::npos;
}

util::Result<std::vector<TreeFile>> cache_files(const util::Dir& root) {
  std::vector<TreeFile> files;
  TRY(walk(root, "", files));
  std::sort(files.begin(), files.end(), [](const TreeFile& a, const TreeFile& b) {
    return a.relative < b.relative;
  });
  return files;
}

util::Result<util::Dir> make_dirs(const util::Dir& root, std::string_view relative) {
  TRY_ASSIGN(auto dir, root.open_relative("."));
  std::size_t start = 0;
  while (start < relative.size()) {
    auto end = std::min(relative.find('/', start), relative.size());
    auto component = relative.substr(start, end - start);
    TRY(dir.make_dir(component, 0777));
    TRY_ASSIGN(dir, dir.open_relative(component));
    start = end + 1;
  }
  return dir;
}

util::Result<util::Dir> open_or_create(const std::string& path) {
  if (path.empty() || path.front() != '/')
    return fail(ExitCode::usage, "'{}' is not an absolute path", path);
  // The longest existing ancestor, resolved (it may hold symlinks such as /home -> /data/home).
  std::string existing = path;
  std::string missing;
  while (true) {
    if (auto real = util::real_path(existing)) {
      TRY_ASSIGN(auto dir, util::Dir::open(*real));
      if (missing.empty())
        return dir;
      return make_dirs(dir, missing);
    }
    auto slash = existing.rfind('/');
    if (slash == std::string::npos || existing == "/")
      return fail(ExitCode::usage, "cannot create directory {}", path);
    auto name = existing.substr(slash + 1);
    if (!name.empty())
      missing = missing.empty() ? name : name + "/" + missing;
    existing = slash == 0 ? "/" : existing.substr(0, slash);
  }
}

util::Status remove_tree(const util::Dir& parent, const std::string& name) {
  TRY_ASSIGN(auto st, parent.stat(name));
  if (!st)
    return {};
  if (st->kind == util::FileKind::directory) {
    TRY_ASSIGN(auto dir, parent.open_relative(name));
    TRY_ASSIGN(auto names, dir.list());
    for (const auto& child : names)
      TRY(remove_tree(dir, child));
    return parent.remove_dir(name);
  }
  return parent.remove(name);
}

util::Result<std::string> make_private_dir(const util::Dir& parent, std::string_view tag) {
  static std::mt19937_64 rng{ std::random_device{}() };
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto name = fmt::format(".shimctl-{}.{:012x}", tag, rng() & 0xffffffffffffULL);
    TRY_ASSIGN(auto st, parent.stat(name));
    if (st)
      continue;
    TRY(parent.make_dir(name, 0700));
    return name;
  }
  return fail("cannot create a private directory in {}", parent.path());
}

} // namespace shimctl::cache
