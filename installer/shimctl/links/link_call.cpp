#include <algorithm>
#include <array>
#include <filesystem>
#include <shimctl/links/link_call.hpp>
#include <shimctl/util/sha256.hpp>
#include <string_view>

namespace shimctl::links {

namespace {

// Options whose value is the next argument (kept verbatim in the key), for clang and for lld.
constexpr std::array clang_separate_values{ "-dumpdir", "-mllvm", "-Xclang", "-x", "-target" };
constexpr std::array lld_separate_values{ "-flavor", "-m", "-mllvm", "--lto-partitions" };

// Options that name a file the link reads, or a search the key cannot follow: the link runs
// uncached.
constexpr std::array unkeyable_prefixes{
  "-l", "-L",        "-T",          "-Xlinker",  "-Xoffload-linker",
  "-B", "--sysroot", "-save-temps", "-fprofile", "-include"
};

// Options naming the toolchain's own directories, whose files the identity holds.
constexpr std::array toolchain_dir_options{ "--rocm-path=",
                                            "--rocm-device-lib-path=",
                                            "--hip-path=" };

// lld's options (the old driver's device link): only these; anything else may name a file.
constexpr std::array lld_known_prefixes{ "--no-undefined",  "-shared",
                                         "--whole-archive", "--no-whole-archive",
                                         "-plugin-opt=",    "--lto-",
                                         "--build-id",      "-O" };

// -Wl, options that name no file.
constexpr std::array fileless_linker_options{ "-Wl,--no-undefined" };

// -dumpdir names where a link's auxiliary files go (<output>.amdgcn.<target>.img.), which the
// device image does not hold (clang-23: a link with -o in two directories makes the same image):
// keyed by its last component, so that a link elsewhere (an absolute -o) hits (issue 42).
std::string location_free_dumpdir(const std::string& value) {
  auto slash = value.rfind('/');
  return slash == std::string::npos ? value : value.substr(slash + 1);
}

} // namespace

bool is_device_link(const std::vector<std::string>& args) {
  return std::ranges::find(args, "--target=amdgcn-amd-amdhsa") != args.end() &&
         std::ranges::find(args, "-c") == args.end() && std::ranges::find(args, "-o") != args.end();
}

bool is_amdgpu_lld_link(const std::vector<std::string>& args) {
  // clang-21 says -m elf64_amdgpu; clang-15 and 16 only name the GPU for the LTO code generator.
  auto m = std::ranges::find(args, "-m");
  bool amdgpu = (m != args.end() && m + 1 != args.end() && *(m + 1) == "elf64_amdgpu") ||
                std::ranges::any_of(args, [](const std::string& arg) {
                  return arg.starts_with("-plugin-opt=mcpu=gfx");
                });
  return amdgpu && std::ranges::find(args, "-o") != args.end();
}

LinkCall read_link_call(const std::vector<std::string>& args, Linker linker) {
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
    bool separate_value =
      linker == Linker::clang
        ? std::ranges::find(clang_separate_values, arg) != clang_separate_values.end()
        : std::ranges::find(lld_separate_values, arg) != lld_separate_values.end();
    if (separate_value) {
      if (i + 1 == args.size())
        return whole(arg + " has no value");
      call.keyed_args.push_back(arg);
      call.keyed_args.push_back(arg == "-dumpdir" ? location_free_dumpdir(args[++i]) : args[++i]);
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
    if (linker == Linker::lld && arg.starts_with('-') &&
        std::ranges::none_of(lld_known_prefixes,
                             [&](std::string_view known) { return arg.starts_with(known); }))
      return whole(arg + ": an lld option the key does not know");
    if (arg.starts_with('-') && arg.find('/') != std::string::npos &&
        std::ranges::none_of(toolchain_dir_options,
                             [&](std::string_view option) { return arg.starts_with(option); }))
      return whole(arg + ": the option names a file");
    if (arg.starts_with('-')) {
      call.keyed_args.push_back(arg);
      continue;
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(arg, ec))
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
