// `shimctl device-link`: one per-target device link (link_call.hpp) served from the store or
// run and kept (link_store.hpp). Keyed by the toolchain's identity (compilers, linker and device
// libraries: the shim's fingerprint), the real compiler's path, and the call's arguments with
// each input by content. The driver's own plan (`-###`) must show one job, the linker, reading
// no file the call does not name; anything else runs uncached. The first hit of each toolchain
// is checked against a real link (the verdict kept in the store): a link whose output differs
// from run to run is never served.
#pragma once

#include <string>
#include <vector>

namespace shimctl::links {

struct LinkRequest {
  std::string real;              // the original compiler
  std::string identity;          // the toolchain's fingerprint key, from the shim
  std::vector<std::string> argv; // the call as made, argv[0] first
};

// Serves or runs REQUEST's link (the new driver's per-target clang call): the exit code, or -1
// when it must run uncached (WHY says why).
[[nodiscard]] int run_device_link(const LinkRequest& request, std::string& why);

// The same for the old driver's per-target lld job (REQUEST.real: the real lld; no -### to ask:
// lld runs no other program, and every file it reads is in its arguments).
[[nodiscard]] int run_lld_link(const LinkRequest& request, std::string& why);

} // namespace shimctl::links
