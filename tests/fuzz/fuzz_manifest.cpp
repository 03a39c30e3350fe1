// libFuzzer target for the manifest reader (core::parse_manifest).
// Properties checked on every input:
//   - no crash, no sanitizer report, no exception escaping parse_manifest;
//   - a refusal is one line (the CLI prints it after "shimctl: error: ");
//   - an accepted manifest survives a round trip: to_json, parse again, same JSON.
// Seeds: tests/manifests/valid/base.json and tests/manifests/broken/*.json (prefix @PREFIX@).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <shimctl/core/manifest.hpp>
#include <string>
#include <vector>

namespace {

constexpr const char* fuzz_prefix = "@PREFIX@";

[[noreturn]] void violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_manifest: property violated: %s\n%s\n", what, detail.c_str());
  std::abort();
}

} // namespace

// The names the CLI gives the reader (cache::tool_names(); the fuzz target builds core alone).
const std::vector<std::string> cache_tools{ "ccache", "sccache" };

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto parsed = shimctl::core::parse_manifest(text, fuzz_prefix, cache_tools);
  if (!parsed) {
    const auto& message = parsed.error().message;
    if (message.empty() || message.find('\n') != std::string::npos ||
        message.find('\r') != std::string::npos)
      violated("a refusal must be one non-empty line", message);
    if (parsed.error().code != shimctl::util::ExitCode::corrupt)
      violated("a refusal must carry exit code 5 (corrupt)", message);
    return 0;
  }
  auto written = shimctl::core::to_json(*parsed);
  auto again = shimctl::core::parse_manifest(written, fuzz_prefix, cache_tools);
  if (!again)
    violated("what to_json writes must parse again", again.error().message + "\n" + written);
  if (shimctl::core::to_json(*again) != written)
    violated("the round trip must be stable", written);
  return 0;
}
