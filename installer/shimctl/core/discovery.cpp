#include <algorithm>
#include <filesystem>
#include <set>
#include <shimctl/core/discovery.hpp>
#include <sys/stat.h>
#include <system_error>

namespace shimctl::core {

namespace fs = std::filesystem;
using util::ExitCode;
using util::fail;

std::string WrapTarget::dir() const {
  return util::split_relative(path).first;
}

std::string WrapTarget::name() const {
  return util::split_relative(path).second;
}

util::Result<std::string> canonical_prefix(const std::string& prefix) {
  std::error_code ec;
  auto status = fs::status(prefix, ec);
  if (ec || !fs::exists(status))
    return fail(ExitCode::usage,
                "prefix {} does not exist; name the toolchain's root, e.g. /opt/rocm",
                prefix);
  if (!fs::is_directory(status))
    return fail(ExitCode::usage,
                "prefix {} is not a directory; name the toolchain's root, e.g. /opt/rocm",
                prefix);
  return util::real_path(prefix);
}

std::optional<std::string> resolve_within(const std::string& prefix, const std::string& relative) {
  std::error_code ec;
  auto resolved = fs::canonical(fs::path(prefix) / relative, ec);
  if (ec)
    return std::nullopt;
  auto text = resolved.string();
  if (!text.starts_with(prefix + "/"))
    return std::nullopt;
  return text.substr(prefix.size() + 1);
}

std::vector<Alias> list_symlinks(const std::string& prefix) {
  std::vector<Alias> links;
  std::error_code ec;
  fs::recursive_directory_iterator it(prefix, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto& entry = *it;
    if (entry.path().filename() == ".shimctl") {
      it.disable_recursion_pending();
      continue;
    }
    if (entry.is_symlink(ec)) {
      auto target = fs::read_symlink(entry.path(), ec);
      if (!ec)
        links.push_back({ entry.path().lexically_relative(prefix).string(), target.string() });
      ec.clear();
    }
  }
  std::sort(
    links.begin(), links.end(), [](const Alias& a, const Alias& b) { return a.path < b.path; });
  return links;
}

namespace {

const Layout* select_layout(const std::string& prefix,
                            const std::vector<Layout>& layouts,
                            const DiscoveryOptions& options) {
  for (const auto& layout : layouts) {
    if (options.layout_name) {
      if (layout.name == *options.layout_name)
        return &layout;
      continue;
    }
    for (const auto& probe : layout.detect) {
      std::error_code ec;
      if (fs::exists(fs::path(prefix) / probe, ec))
        return &layout;
    }
  }
  return nullptr;
}

bool wanted(const CompilerSpec& spec, const DiscoveryOptions& options) {
  if (options.compilers.empty())
    return true;
  auto name = util::split_relative(spec.path).second;
  return std::find(options.compilers.begin(), options.compilers.end(), name) !=
         options.compilers.end();
}

std::string known_layouts(const std::vector<Layout>& layouts) {
  std::string names;
  for (const auto& l : layouts)
    names += (names.empty() ? "" : ", ") + l.name;
  return names;
}

} // namespace

util::Result<Toolchain> discover(const std::string& prefix_arg,
                                 const std::vector<Layout>& layouts,
                                 const DiscoveryOptions& options) {
  TRY_ASSIGN(auto prefix, canonical_prefix(prefix_arg));
  const Layout* layout = select_layout(prefix, layouts, options);
  if (!layout && options.layout_name)
    return fail(ExitCode::usage,
                "unknown layout '{}'; known layouts: {}",
                *options.layout_name,
                known_layouts(layouts));
  if (!layout)
    return fail(ExitCode::usage,
                "no known compilers in {} (looked for the layouts {}); name a toolchain root such "
                "as /opt/rocm or /usr/local/cuda",
                prefix,
                known_layouts(layouts));

  Toolchain toolchain{ prefix, *layout, {}, {} };
  std::set<std::string> seen;
  for (const auto& spec : layout->compilers) {
    if (!wanted(spec, options))
      continue;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(fs::path(prefix) / spec.path, ec)))
      continue;
    auto resolved = resolve_within(prefix, spec.path);
    if (!resolved) {
      toolchain.notes.push_back(
        fmt::format("skipped {}: it resolves outside the prefix (or nowhere)", spec.path));
      continue;
    }
    struct stat st {};
    auto full = prefix + "/" + *resolved;
    if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      toolchain.notes.push_back(fmt::format("skipped {}: not a regular file", spec.path));
      continue;
    }
    if (!seen.insert(*resolved).second)
      continue;
    WrapTarget target;
    target.path = *resolved;
    target.spec = spec;
    toolchain.targets.push_back(std::move(target));
  }
  if (!options.compilers.empty()) {
    for (const auto& name : options.compilers) {
      bool found =
        std::any_of(layout->compilers.begin(), layout->compilers.end(), [&](const CompilerSpec& s) {
          return util::split_relative(s.path).second == name;
        });
      if (!found)
        return fail(ExitCode::usage,
                    "--compilers: '{}' is not a compiler of the {} layout",
                    name,
                    layout->name);
    }
  }
  if (toolchain.targets.empty())
    return fail(ExitCode::usage,
                "no known compilers in {} (layout {}); nothing to wrap",
                prefix,
                layout->name);

  for (const auto& link : list_symlinks(prefix)) {
    auto resolved = resolve_within(prefix, link.path);
    if (!resolved)
      continue;
    for (auto& target : toolchain.targets) {
      if (target.path == *resolved)
        target.aliases.push_back(link);
    }
  }
  return toolchain;
}

} // namespace shimctl::core
