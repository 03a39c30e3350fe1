#include <algorithm>
#include <array>
#include <shimctl/links/link_call.hpp>
#include <shimctl/util/sha256.hpp>
#include <string_view>
#include <sys/stat.h>

namespace shimctl::links {

namespace {

// Options whose value is the next argument (kept verbatim in the key).
constexpr std::array separate_value_options{ "-dumpdir", "-mllvm", "-Xclang", "-x", "-target" };

// Options that name a file the link reads, or a search the key cannot follow: the link runs
// uncached.
constexpr std::array unkeyable_prefixes{
  "-l", "-L",        "-T",          "-Xlinker",  "-Xoffload-linker",
  "-B", "--sysroot", "-save-temps", "-fprofile", "-include"
};

// -Wl, options that name no file.
constexpr std::array fileless_linker_options{ "-Wl,--no-undefined" };

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

bool is_device_link(const std::vector<std::string>& args) {
  return std::ranges::find(args, "--target=amdgcn-amd-amdhsa") != args.end() &&
         std::ranges::find(args, "-c") == args.end() && std::ranges::find(args, "-o") != args.end();
}

LinkCall read_link_call(const std::vector<std::string>& args) {
  LinkCall call;
  auto whole = [&](std::string why) {
    call.whole_reason = std::move(why);
    return call;
  };
  for (std::size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (arg == "-o" && i + 1 < args.size()) {
      call.output = args[++i];
      continue;
    }
    if (std::ranges::find(separate_value_options, arg) != separate_value_options.end()) {
      if (i + 1 == args.size())
        return whole(arg + " has no value");
      call.keyed_args.push_back(arg);
      call.keyed_args.push_back(args[++i]);
      continue;
    }
    if (arg.starts_with('@'))
      return whole("a response file");
    if (arg.starts_with("-Wl,") &&
        std::ranges::find(fileless_linker_options, arg) == fileless_linker_options.end())
      return whole(arg + ": the linker may read a file");
    for (std::string_view prefix : unkeyable_prefixes)
      if (arg.starts_with(prefix))
        return whole(arg + ": the link reads what the key cannot hold");
    if (arg.starts_with('-')) {
      call.keyed_args.push_back(arg);
      continue;
    }
    if (!is_regular_file(arg))
      return whole(arg + " is no input file");
    auto sum = util::sha256_file(arg);
    if (!sum)
      return whole(arg + " cannot be read");
    call.inputs.push_back(arg);
    call.keyed_args.push_back("input " + *sum);
  }
  if (call.output.empty() || call.output == "-")
    return whole("no output file");
  if (call.inputs.empty())
    return whole("no input file");
  return call;
}

} // namespace shimctl::links
