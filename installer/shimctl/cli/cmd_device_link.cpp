// `shimctl device-link REAL IDENTITY -- ARGV...` (internal): what the shim runs for a per-target
// device link of the new offload driver (links/device_link.hpp) under a link. It
// never fails a link on its own account. Run as `lld` (the name the shim puts first in the
// driver's COMPILER_PATH under a HIP link), it is the old offload driver's per-target device link.
// It never fails a link on its own account: whatever it cannot do, the original compiler runs the
// call as given.
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/links/device_link.hpp>
#include <shimctl/links/link_call.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>
#include <unistd.h>

namespace shimctl::cli {

namespace {

// RUN's answer for REQUEST: the link's exit code, or -1 when it must run uncached (counted, and
// traced under SHIMCTL_SHIM_TRACE=1 with the reason).
int served_or_linked(int (*run)(const links::LinkRequest&, std::string&),
                     const links::LinkRequest& request) {
  std::string why;
  int status = -1;
  try {
    status = run(request, why);
  } catch (const std::exception& e) {
    why = fmt::format("internal error: {}", e.what());
  }
  if (status >= 0)
    return status;
  std::optional<links::LinkStore> store;
  if (auto place = cache::link_store_place_of_link())
    if (auto opened = links::LinkStore::open(*place))
      store = std::move(*opened);
  if (store)
    store->count(links::link_uncached);
  else // a store it cannot use: measure counts the link all the same
    links::record_link_for_measure(links::link_uncached);
  const char* trace = std::getenv("SHIMCTL_SHIM_TRACE");
  if (trace && std::strcmp(trace, "1") == 0)
    fmt::print(stderr, "shimctl-shim: device link: uncached: {}\n", why);
  return -1;
}

// SHIMCTL_DISABLE=1: no cache at all, the device links' store included.
bool cache_disabled() {
  const char* disable = std::getenv("SHIMCTL_DISABLE");
  return disable && std::strcmp(disable, "1") == 0;
}

} // namespace

int run_device_link(int argc, char** argv) {
  // argv: shimctl device-link REAL IDENTITY -- ARGV0 ARGS...
  if (argc < 6 || std::strcmp(argv[4], "--") != 0) {
    fmt::print(stderr, "shimctl: error: device-link is the shim's; see 'shimctl --help'\n");
    return static_cast<int>(util::ExitCode::usage);
  }
  links::LinkRequest request{ argv[2], argv[3], { argv + 5, argv + argc } };
  // SHIMCTL_DISABLE=1: the shim hands no link over then; a caller that does gets none.
  if (int status = cache_disabled() ? -1 : served_or_linked(links::run_device_link, request);
      status >= 0)
    return status;
  ::execv(request.real.c_str(), argv + 5);
  fmt::print(stderr,
             "shimctl: error: the original compiler {} cannot run: {}\n",
             request.real,
             std::strerror(errno));
  return 127;
}

} // namespace shimctl::cli

namespace shimctl::cli {

namespace {

// The directories the driver (our parent) searches for `lld`, in its order, without OURS (the
// shim's COMPILER_PATH entry): its -B prefixes, COMPILER_PATH, its installed directory (the one
// it was invoked from), then PATH.
std::vector<std::string> driver_search_dirs(const std::string& ours) {
  std::vector<std::string> dirs;
  auto pid = ::getppid();
  std::string cmdline = util::read_text_file(fmt::format("/proc/{}/cmdline", pid));
  std::vector<std::string> args;
  for (std::size_t at = 0; at < cmdline.size();) {
    auto end = cmdline.find('\0', at);
    args.push_back(cmdline.substr(at, end == std::string::npos ? end : end - at));
    at = end == std::string::npos ? cmdline.size() : end + 1;
  }
  std::error_code ec;
  auto cwd = std::filesystem::read_symlink(fmt::format("/proc/{}/cwd", pid), ec);
  auto absolute = [&](const std::string& path) {
    return path.starts_with('/') || ec ? path : (cwd / path).string();
  };
  for (std::size_t i = 1; i < args.size(); i++) {
    if (args[i] == "-B" && i + 1 < args.size())
      dirs.push_back(absolute(args[++i]));
    else if (args[i].starts_with("-B") && args[i].size() > 2)
      dirs.push_back(absolute(args[i].substr(2)));
  }
  const char* compiler_path = std::getenv("COMPILER_PATH");
  for (auto dir : util::fields_of(compiler_path ? compiler_path : "", ':'))
    if (!dir.empty() && dir != ours)
      dirs.emplace_back(dir);
  if (!args.empty() && args[0].find('/') != std::string::npos)
    dirs.push_back(std::filesystem::path(absolute(args[0])).parent_path().string());
  const char* path = std::getenv("PATH");
  for (auto dir : util::fields_of(path ? path : "", ':'))
    if (!dir.empty() && dir != ours)
      dirs.emplace_back(dir);
  return dirs;
}

// The lld the driver would have run without OURS; "" when none.
std::string real_lld(const std::string& ours) {
  std::error_code ec;
  auto self = std::filesystem::weakly_canonical("/proc/self/exe", ec);
  for (const auto& dir : driver_search_dirs(ours)) {
    std::string candidate = dir + "/lld";
    if (util::is_executable_file(candidate) &&
        std::filesystem::weakly_canonical(candidate, ec) != self)
      return candidate;
  }
  return {};
}

} // namespace

int run_as_lld(int argc, char** argv) {
  std::string ours = std::filesystem::path(argv[0]).parent_path().string();
  std::string real = real_lld(ours);
  if (real.empty()) {
    fmt::print(
      stderr, "shimctl: error: no lld beside the driver or in PATH to run as {}\n", argv[0]);
    return 127;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* identity = std::getenv("SHIMCTL_LINK_IDENTITY");
  const char* off = std::getenv("SHIMCTL_DEVICE_LINKS");
  if (identity && *identity && !(off && std::strcmp(off, "0") == 0) && !cache_disabled() &&
      links::is_amdgpu_lld_link(args)) {
    links::LinkRequest request{ real, identity, { real } };
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    if (int status = served_or_linked(links::run_lld_link, request); status >= 0)
      return status;
  }
  argv[0] = real.data();
  ::execv(real.c_str(), argv);
  fmt::print(stderr, "shimctl: error: {} cannot run: {}\n", real, std::strerror(errno));
  return 127;
}

} // namespace shimctl::cli
