// `shimctl device-link REAL IDENTITY -- ARGV...` (internal): what the shim runs for a per-target
// device link of the new offload driver (links/device_link.hpp) under a link. It
// never fails a link on its own account: whatever it cannot do, the original compiler runs the
// call as given.
#include <cstring>
#include <fmt/format.h>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/links/device_link.hpp>
#include <shimctl/links/link_store.hpp>
#include <unistd.h>

namespace shimctl::cli {

int run_device_link(int argc, char** argv) {
  // argv: shimctl device-link REAL IDENTITY -- ARGV0 ARGS...
  if (argc < 6 || std::strcmp(argv[4], "--") != 0) {
    fmt::print(stderr, "shimctl: error: device-link is the shim's; see 'shimctl --help'\n");
    return static_cast<int>(util::ExitCode::usage);
  }
  links::LinkRequest request{ argv[2], argv[3], { argv + 5, argv + argc } };
  std::string why;
  int status = -1;
  try {
    status = links::run_device_link(request, why);
  } catch (const std::exception& e) {
    why = fmt::format("internal error: {}", e.what());
  }
  if (status >= 0)
    return status;
  if (auto store = links::LinkStore::open_users())
    store->count(links::link_uncached);
  const char* trace = std::getenv("SHIMCTL_SHIM_TRACE");
  if (trace && std::strcmp(trace, "1") == 0)
    fmt::print(stderr, "shimctl-shim: device link: uncached: {}\n", why);
  ::execv(request.real.c_str(), argv + 5);
  fmt::print(stderr,
             "shimctl: error: the original compiler {} cannot run: {}\n",
             request.real,
             std::strerror(errno));
  return 127;
}

} // namespace shimctl::cli
