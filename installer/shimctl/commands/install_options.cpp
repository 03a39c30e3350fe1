#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <shim/path_roots.h>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/sccache_server.hpp>
#include <shimctl/cache/tool.hpp>
#include <shimctl/commands/install_options.hpp>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/layout.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::commands {

using namespace shimctl::core;

using util::ExitCode;
using util::fail;

namespace {

std::string kind_of_file(mode_t mode) {
  if (S_ISREG(mode))
    return "a file";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISFIFO(mode))
    return "a pipe";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a directory";
}

// OPTION DIR: a directory, or one shimctl can create (its nearest existing ancestor is a
// directory). A path this user may not look into is left to the steps that use it.
util::Status check_directory(std::string_view option, const std::string& dir) {
  if (dir.empty())
    return fail(ExitCode::usage, "{} is empty; name a directory", option);
  std::error_code ec;
  auto path = std::filesystem::absolute(dir, ec).lexically_normal();
  if (ec)
    return fail(ExitCode::usage, "{} {}: {}", option, dir, ec.message());
  for (auto at = path;; at = at.parent_path()) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode))
        return {};
      auto kind = kind_of_file(st.st_mode);
      if (at == path)
        return fail(ExitCode::usage,
                    "{}: {} is {}{}; name a directory (shimctl creates it when missing)",
                    option,
                    dir,
                    kind,
                    kind == "not a directory" ? "" : ", not a directory");
      return fail(ExitCode::usage,
                  "{}: {} cannot be created: {} is {}{}; name a directory",
                  option,
                  dir,
                  at.string(),
                  kind,
                  kind == "not a directory" ? "" : ", not a directory");
    }
    if ((errno != ENOENT && errno != ENOTDIR) || at == at.parent_path())
      return {};
  }
}

// The compiler the GPU target check asks: the prefix's clang driver where a layout names one
// (llvm/bin/clang, lib/llvm/bin/clang), else its HIP compiler (hipcc hands the target to its
// clang; slower: perl hipcc takes 0.5 s); "" when the prefix has neither (discovery says so).
std::string gpu_target_judge(const std::string& prefix, const std::vector<Layout>& layouts) {
  std::vector<std::string> clangs, hips;
  for (const auto& layout : layouts)
    for (const auto& spec : layout.compilers) {
      if (spec.family == "clang" && util::split_relative(spec.path).second == "clang")
        clangs.push_back(spec.path);
      else if (spec.verify == VerifyKind::hip)
        hips.push_back(spec.path);
    }
  clangs.insert(clangs.end(), hips.begin(), hips.end());
  for (const auto& relative : clangs) {
    auto path = prefix + "/" + relative;
    if (::access(path.c_str(), X_OK) == 0)
      return path;
  }
  return {};
}

// --offload-arch ARCH: a GPU target the prefix's clang accepts, asked once and cheaply: the
// driver's job list of a device-only HIP compile of /dev/null (-###: nothing is compiled; the
// driver checks the target ID; 40 ms for clang-21, 90 ms for clang-15 on the test machine).
util::Status check_offload_arch(const Context& context,
                                const std::string& prefix,
                                const std::string& arch) {
  if (arch.empty())
    return fail(ExitCode::usage, "--offload-arch is empty; name a GPU target (e.g. gfx90a)");
  auto canonical = canonical_prefix(prefix);
  auto layouts = load_layouts(context.layouts_dir);
  if (!canonical || !layouts)
    return {}; // the install reports these itself
  auto judge = gpu_target_judge(*canonical, *layouts);
  if (judge.empty())
    return {};
  util::RunOptions options;
  options.env.emplace("SHIMCTL_DISABLE", std::string("1")); // an installed shim: the original
  auto r = util::run({ judge,
                       "-x",
                       "hip",
                       "--offload-arch=" + arch,
                       "--cuda-device-only",
                       "-nogpulib",
                       "-nogpuinc",
                       "-###",
                       "-c",
                       "/dev/null",
                       "-o",
                       "/dev/null" },
                     options);
  if (!r || r->ok())
    return {}; // a compiler that does not start is verification's to report
  std::string reason;
  for (const auto& line : util::lines_of(r->err))
    if (auto at = line.find("error: "); at != std::string::npos) {
      reason = line.substr(at + sizeof "error: " - 1);
      break;
    }
  if (auto semicolon = reason.find(';'); semicolon != std::string::npos)
    reason.resize(semicolon);
  if (reason.empty())
    reason = util::first_error_line(r->err, 200);
  return fail(ExitCode::usage,
              "--offload-arch: '{}' is not a GPU target {} knows ({}); name one it does (e.g. "
              "gfx90a, gfx1100)",
              arch,
              judge,
              reason);
}

// The installed prefix's cache settings, read without a session (the lock and recovery come
// after the checks); nullopt when PREFIX has no readable manifest: the session reports that.
std::optional<CacheSettings> installed_cache(const Context& context, const std::string& prefix) {
  auto canonical = canonical_prefix(prefix);
  if (!canonical)
    return std::nullopt;
  auto dir = util::Dir::open(*canonical);
  if (!dir)
    return std::nullopt;
  auto manifest = load_manifest(*dir, *canonical, context.cache_tools);
  if (!manifest || !*manifest)
    return std::nullopt;
  return (*manifest)->cache;
}

} // namespace

util::Status check_install_options(const Context& context, const InstallOptions& options) {
  std::optional<CacheSettings> installed;
  if (options.max_size || options.remote)
    installed = installed_cache(context, options.prefix);
  // The cache tool the values are for: the one asked for, else the installed prefix's.
  auto kind = options.cache_kind ? *options.cache_kind
              : installed        ? installed->kind
                                 : std::string(cache::default_tool().name());
  const auto* tool_kind = cache::tool_named(kind);
  if (!tool_kind) // CLI11 refuses another --cache; a manifest's kind is checked when it is read
    return fail(ExitCode::usage, "--cache: unknown cache tool '{}'", kind);
  if (options.max_size)
    TRY(tool_kind->check_max_size(*options.max_size));
  if (options.remote) {
    CacheSettings tool;
    if (installed && installed->kind == kind && !options.cache_tool) {
      tool = *installed;
    } else {
      TRY_ASSIGN(tool, cache::find_cache_tool(kind, options.cache_tool));
    }
    TRY(tool_kind->check_remote_url(tool, *options.remote));
    tool.remote = util::redact_credentials(*options.remote);
    tool.remote_read_only = options.remote_read_only;
    TRY(
      cache::tool_of(tool).check_remote(tool)); // what the tool cannot honour (sccache: read-only)
  }
  if (options.cache_dir)
    TRY(check_directory("--cache-dir", *options.cache_dir));
  if (options.shared_cache)
    TRY(check_directory("--shared-cache", *options.shared_cache));
  TRY(canonical_base_dirs(options.base_dirs));
  if (options.verify_options.offload_arch != verify::VerifyOptions{}.offload_arch)
    TRY(check_offload_arch(context, options.prefix, options.verify_options.offload_arch));
  return {};
}

util::Result<std::optional<std::string>> absolute_cache_dir(const std::optional<std::string>& dir) {
  if (!dir)
    return std::nullopt;
  if (dir->empty())
    return fail(ExitCode::usage, "--cache-dir is empty; name a directory");
  std::error_code ec;
  auto absolute = std::filesystem::absolute(*dir, ec);
  if (ec)
    return fail(ExitCode::usage, "--cache-dir {}: {}", *dir, ec.message());
  auto text = absolute.lexically_normal().string();
  if (text.size() > 1 && text.ends_with('/'))
    text.pop_back();
  return text;
}

util::Result<std::vector<std::string>> canonical_base_dirs(const std::vector<std::string>& dirs) {
  if (dirs.size() > SHIMCTL_BASE_DIRS_MAX)
    return fail(ExitCode::usage,
                "--base-dir is given {} times; the shim takes at most {} base dirs: give the {} "
                "that hold your dependency trees",
                dirs.size(),
                SHIMCTL_BASE_DIRS_MAX,
                SHIMCTL_BASE_DIRS_MAX);
  std::vector<std::string> canonical;
  for (const auto& dir : dirs) {
    if (dir.empty())
      return fail(ExitCode::usage, "--base-dir is empty; name a directory by its absolute path");
    if (std::any_of(dir.begin(), dir.end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        }))
      return fail(ExitCode::usage,
                  "--base-dir: the path holds a control character; name a directory without one");
    if (!dir.starts_with('/')) {
      std::error_code ec;
      auto absolute = std::filesystem::absolute(dir, ec).lexically_normal().string();
      return fail(ExitCode::usage,
                  "--base-dir: {} is a relative path; name the directory by its absolute path{}",
                  dir,
                  ec ? "" : " (e.g. --base-dir " + absolute + ")");
    }
    if (dir.find(':') != std::string::npos)
      return fail(ExitCode::usage,
                  "--base-dir: {} holds a ':', which separates the base dirs in {}; name a "
                  "directory whose path has none",
                  dir,
                  SHIMCTL_BASE_DIRS_VARIABLE);
    std::string path;
    for (const auto& part : std::filesystem::path(dir)) {
      if (part == "/" || part.empty() || part == ".")
        continue;
      if (part == "..")
        return fail(ExitCode::usage,
                    "--base-dir: {} has a '..' component; name the directory as your compiles "
                    "do, without '..'",
                    dir);
      path += "/" + part.string();
    }
    if (path.empty())
      return fail(ExitCode::usage,
                  "--base-dir: / holds every path; name the top directory of a dependency tree");
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      int error = errno;
      return fail(ExitCode::usage,
                  "--base-dir: {} {}; name an existing directory (the top of a dependency tree)",
                  dir,
                  error == ENOENT || error == ENOTDIR
                    ? std::string("does not exist")
                    : "cannot be read: " + std::string(std::strerror(error)));
    }
    if (!S_ISDIR(st.st_mode)) {
      auto kind = kind_of_file(st.st_mode);
      return fail(ExitCode::usage,
                  "--base-dir: {} is {}{}; name a directory",
                  dir,
                  kind,
                  kind == "not a directory" ? "" : ", not a directory");
    }
    if (std::find(canonical.begin(), canonical.end(), path) != canonical.end())
      return fail(ExitCode::usage, "--base-dir: {} is given twice; name each directory once", dir);
    canonical.push_back(path);
  }
  return canonical;
}

} // namespace shimctl::commands
