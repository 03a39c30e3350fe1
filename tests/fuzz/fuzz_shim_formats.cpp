// libFuzzer target for the shim's readers: the config (shimctl_parse_config), the identity
// snapshot (shimctl_snapshot_begin/next), the user-snapshot path rule, the target key pieces and
// the location-free paths (response files split, paths rewritten: shim/path_roots.c),
// compiled from the shim's own sources (shim/*.c) with the fuzzer's instrumentation.
// The first byte picks the reader; the rest is its input. Properties checked on every input:
//   - no crash, no sanitizer report (they write only inside the input they parse in place);
//   - a refusal is one line naming the config's path;
//   - an accepted config survives a round trip: each directive rendered (shim/formats.h) and
//     read again gives the same directives;
//   - a rendered snapshot line reads back as the same input.
// Seeds: tests/fuzz/seeds/shim_formats.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <shim/call_traits.h>
#include <shim/formats.h>
#include <shim/path_roots.h>
#include <shim/target_key.h>
#include <string>
#include <vector>

namespace {

[[noreturn]] void violated(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_shim_formats: property violated: %s\n%s\n", what, detail.c_str());
  std::abort();
}

std::string render(const shimctl_directive& d) {
  std::string out(shimctl_render_directive(nullptr, 0, &d), '\0');
  shimctl_render_directive(out.data(), out.size() + 1, &d);
  return out;
}

std::string rendered_list(const shimctl_config& config) {
  std::string out;
  for (std::size_t i = 0; i < config.count; i++)
    out += render(config.list[i]);
  return out;
}

void fuzz_config(std::string text) {
  static auto config = std::make_unique<shimctl_config>();
  static auto again = std::make_unique<shimctl_config>();
  char problem[512];
  std::string buffer = text + '\0';
  const char* bad =
    shimctl_parse_config(config.get(), buffer.data(), text.size(), "C", problem, sizeof problem);
  if (bad) {
    std::string message = bad;
    if (!message.starts_with("C:") || message.find('\n') != std::string::npos)
      violated("a refusal is one line naming the config", message);
    return;
  }
  if (!config->cache_path)
    violated("an accepted config has a cache", text);
  std::string list = rendered_list(*config);
  std::string second = std::string(SHIMCTL_CONFIG_HEADER "\ncache /c\n") + list + '\0';
  bad = shimctl_parse_config(
    again.get(), second.data(), second.size() - 1, "C", problem, sizeof problem);
  if (bad)
    violated("a rendered config is accepted", std::string(bad) + "\n" + second);
  if (rendered_list(*again) != list)
    violated("a config survives a round trip", text);
}

void fuzz_snapshot(std::string text) {
  shimctl_snapshot_reader reader;
  const char* fingerprint = nullptr;
  if (!shimctl_snapshot_begin(&reader, text.data(), text.size(), &fingerprint))
    return;
  if (!shimctl_is_fingerprint(fingerprint))
    violated("the fingerprint is 64 hex digits", fingerprint);
  for (;;) {
    const char* dir = nullptr;
    shimctl_snapshot_input input{};
    auto line = shimctl_snapshot_next(&reader, &dir, &input);
    if (line == SHIMCTL_SNAPSHOT_END || line == SHIMCTL_SNAPSHOT_BAD)
      return;
    if (line != SHIMCTL_SNAPSHOT_INPUT)
      continue;
    std::string again(shimctl_render_snapshot_input(nullptr, 0, &input), '\0');
    shimctl_render_snapshot_input(again.data(), again.size() + 1, &input);
    shimctl_snapshot_reader second{ again.data(), again.data() + again.size() };
    shimctl_snapshot_input read{};
    // Numbers past 2^64 wrap when read, so compare what was read with what reads back.
    if (shimctl_snapshot_next(&second, &dir, &read) != SHIMCTL_SNAPSHOT_INPUT ||
        read.inode != input.inode || read.size != input.size || read.mtime_ns != input.mtime_ns ||
        read.ctime_ns != input.ctime_ns || std::string(read.name) != input.name)
      violated("an input line survives a round trip", again);
  }
}

void fuzz_user_path(const std::string& text) {
  std::string prefix = text.c_str(); // up to a NUL, as an environment value would be
  char path[4096];
  size_t len = shimctl_user_snapshot_path(path, sizeof path, "/x", nullptr, prefix.c_str());
  if (len != 0 && len < sizeof path && std::string(path, len).find('/', 20) != std::string::npos)
    violated("the snapshot's name has no '/'", std::string(path, len));
}

void fuzz_target_key(std::string text) {
  char buf[512] = "";
  target_key key{ buf, sizeof buf, 0 };
  std::string copy = text + '\0';
  // A failed append may leave a cut piece past the key's end: the shim then drops the key.
  bool keyed = key_host_cpu(&key, copy.data(), text.size());
  if (key.len >= sizeof buf || (keyed && buf[key.len] != '\0'))
    violated("the key stays within its buffer", text);
  std::string out = text.c_str();
  target_key probe{ buf, sizeof buf, 0 };
  (void)key_probe_output(&probe, out.data(), static_cast<int>(text.size() & 0xffff));
  std::vector<std::string> args;
  for (std::size_t start = 0; start <= text.size();) {
    auto end = text.find(' ', start);
    end = end == std::string::npos ? text.size() : end;
    args.push_back(text.substr(start, end - start).c_str());
    start = end + 1;
  }
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  (void)traits_of(
    static_cast<int>(argv.size()), argv.data(), args.back().c_str(), args.front().c_str());
}

// A response file splits into arguments inside its own text; each path of it, rewritten, stays
// within its buffer and, when under the source root, names the view.
void fuzz_location_free(std::string text) {
  std::string copy = text;
  std::vector<char*> args(64);
  int n = shimctl_split_response_file(copy.data(), copy.size(), args.data(), 64);
  if (n > 64)
    violated("at most MAX arguments", text);
  shimctl_roots roots{ { "/w/b", "/w/s", "/v/site-packages" }, "/w/b/sub" };
  for (int i = 0; i < n; i++) {
    if (args[i] < copy.data() || args[i] >= copy.data() + copy.size() + 1)
      violated("an argument lies inside the text", text);
    char out[64];
    const char* r = shimctl_location_free(&roots, args[i], out, sizeof out);
    if (r && (std::string(r).size() >= sizeof out || r[0] == '/'))
      violated("a location-free form is relative and fits", text);
    if (r && shimctl_root_of(&roots, args[i]) == SHIMCTL_ROOT_SOURCE &&
        std::string(r).find(".shimctl-roots/s") == std::string::npos)
      violated("a source-tree path goes through the view", text);
    (void)shimctl_packages_dir_len(args[i]);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      fuzz_config(std::move(text));
      break;
    case 1:
      fuzz_snapshot(std::move(text));
      break;
    case 2:
      fuzz_user_path(text);
      break;
    case 3:
      fuzz_target_key(std::move(text));
      break;
    default:
      fuzz_location_free(std::move(text));
  }
  return 0;
}
