#include <algorithm>
#include <array>
#include <shimctl/pieces/offload_call.hpp>
#include <string_view>

namespace shimctl::pieces {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.starts_with(prefix);
}

// Options after which the value is the next argument (clang's spellings that a HIP compile
// may carry). An unknown one makes its value look like a second input: the compile runs whole.
bool takes_separate_value(std::string_view arg) {
  static constexpr std::array names{
    "-o",
    "-x",
    "-I",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-include",
    "-imacros",
    "-isysroot",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-ivfsoverlay",
    "-D",
    "-U",
    "-MF",
    "-MT",
    "-MQ",
    "-Xclang",
    "-mllvm",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xarch_device",
    "-Xarch_host",
    "-target",
    "-arch",
    "-include-pch",
    "-cxx-isystem",
    "-L",
    "-F",
    "-B",
    "--offload-arch",
    "--cuda-gpu-arch",
    "-Xcuda-ptxas",
    "-Xcuda-fatbinary",
    "-Xopenmp-target",
    "--amdgpu-target",
  };
  return std::ranges::find(names, arg) != names.end();
}

// Options whose object a split cannot reproduce, or that are not one object per call. Which
// offload driver runs, and whether its bundler compresses, the driver's plan says
// (offload_jobs.hpp), not a flag.
std::string_view refused_option(std::string_view arg) {
  static constexpr std::array exact{
    "-foffload-via-llvm",
    "-fgpu-sanitize",
    "-E",
    "-S",
    "-emit-llvm",
    "-M",
    "-MM",
    "--cuda-device-only",
    "--cuda-host-only",
    "--offload-host-only",
    "--offload-device-only",
    "-fsyntax-only",
    "--precompile",
    "-###",
    "-v",
    "-gsplit-dwarf",
    "--genco",
    "-MJ",
  };
  if (std::ranges::find(exact, arg) != exact.end())
    return arg;
  static constexpr std::array prefixes{
    "-save-temps",  "--save-temps",      "-Xoffload-linker", "-fuse-cuid=",
    "-ftime-trace", "--no-offload-arch", "-gsplit-dwarf=",   "-MJ",
  };
  for (std::string_view p : prefixes)
    if (starts_with(arg, p))
      return p;
  if (starts_with(arg, "@"))
    return "@file";
  return {};
}

// -MD, -MMD, -MP, -MF X, -MT X, -MQ X, -Wp,-MD,X, --write-dependencies, ...: the depfile's.
// Sets *VALUE_FOLLOWS when the next argument is the option's value.
bool dependency_option(std::string_view arg, bool* value_follows) {
  *value_follows = arg == "-MF" || arg == "-MT" || arg == "-MQ";
  if (*value_follows || arg == "-MD" || arg == "-MMD" || arg == "-MP" || arg == "-MG")
    return true;
  return (starts_with(arg, "-MF") || starts_with(arg, "-MT") || starts_with(arg, "-MQ")) ||
         starts_with(arg, "-Wp,-M") || starts_with(arg, "--write-dependencies") ||
         starts_with(arg, "--write-user-dependencies") || starts_with(arg, "--dependencies") ||
         starts_with(arg, "--user-dependencies");
}

// --offload-arch=A,B / --cuda-gpu-arch=A / --amdgpu-target=A: the value, else "" (NEXT: the
// two-argument form's value).
std::string_view target_option(std::string_view arg, std::string_view next, bool* separate) {
  static constexpr std::array flags{ "--offload-arch", "--cuda-gpu-arch", "--amdgpu-target" };
  *separate = false;
  for (std::string_view flag : flags) {
    if (!starts_with(arg, flag))
      continue;
    std::string_view rest = arg.substr(flag.size());
    if (rest.starts_with('='))
      return rest.substr(1);
    if (rest.empty()) {
      *separate = true;
      return next;
    }
  }
  return {};
}

// What a dependency option means for the host half: -MF names the depfile, -MT/-MQ its target;
// -MD, -MMD, -MP, -MG need nothing more; any other spelling (-Wp,-MD,FILE, --write-dependencies,
// -M, ...) keeps the host compile here.
void note_dependency_option(OffloadCall& call, std::string_view arg) {
  if (arg.starts_with("-MF"))
    call.depfile_named = true;
  else if (arg.starts_with("-MT") || arg.starts_with("-MQ"))
    call.depfile_target_named = true;
  else if (arg != "-MD" && arg != "-MMD" && arg != "-MP" && arg != "-MG")
    call.host_half_reason = "the dependency option " + std::string(arg);
}

void add_targets(OffloadCall& call, std::string_view list) {
  while (!list.empty()) {
    auto comma = list.find(',');
    std::string one(list.substr(0, comma));
    if (one.empty() || one == "native")
      call.whole_reason = "a native or empty GPU target";
    else if (std::ranges::find(call.targets, one) == call.targets.end())
      call.targets.push_back(one);
    if (comma == std::string_view::npos)
      break;
    list.remove_prefix(comma + 1);
  }
}

// Why the call's shape is not one compile of one HIP source for the targets pieces need: "" when
// it is.
std::string_view shape_refusal(const OffloadCall& call,
                               bool compiles,
                               int inputs,
                               bool source_is_hip,
                               bool one_target_too) {
  if (!compiles)
    return "no -c";
  if (inputs != 1)
    return inputs == 0 ? "no input" : "several inputs";
  if (!source_is_hip)
    return "not a HIP source";
  if (call.output.empty() || call.output == "-")
    return "no -o file";
  if (call.cuid.empty())
    return "no -cuid=";
  if (call.targets.empty())
    return "no GPU target named";
  if (call.targets.size() == 1 && !one_target_too)
    return "one GPU target (SHIMCTL_PIECES=1 splits those too)";
  return {};
}

} // namespace

OffloadCall read_offload_call(const std::vector<std::string>& args, bool one_target_too) {
  OffloadCall call;
  bool compiles = false, hip_language = false, other_language = false;
  bool source_is_hip = false;
  int inputs = 0;
  auto refuse = [&call](std::string_view why) {
    if (call.whole_reason.empty() && !why.empty())
      call.whole_reason = why;
  };
  for (std::size_t i = 0; i < args.size(); i++) {
    std::string_view arg = args[i];
    std::string_view next = i + 1 < args.size() ? std::string_view(args[i + 1]) : "";
    if (auto refused = refused_option(arg); !refused.empty()) {
      refuse(std::string(refused) + " is given");
      continue;
    }
    bool separate = false, value_follows = false;
    if (dependency_option(arg, &value_follows)) {
      note_dependency_option(call, arg);
      call.host_args.emplace_back(arg);
      if (value_follows && i + 1 < args.size())
        call.host_args.emplace_back(args[++i]);
      continue;
    }
    if (arg == "-o" || (starts_with(arg, "-o") && arg.size() > 2)) {
      call.output = arg == "-o" ? std::string(next) : std::string(arg.substr(2));
      i += arg == "-o" ? 1 : 0;
      continue;
    }
    call.check_args.emplace_back(arg);
    if (auto targets = target_option(arg, next, &separate); separate || !targets.empty()) {
      add_targets(call, targets);
      if (separate && i + 1 < args.size())
        call.check_args.emplace_back(args[++i]);
      continue;
    }
    call.shared_args.emplace_back(arg);
    call.host_args.emplace_back(arg);
    if (arg == "-c") {
      compiles = true;
    } else if (arg == "-fgpu-rdc") {
      call.rdc = true;
    } else if (arg == "-fno-gpu-rdc") {
      call.rdc = false;
    } else if (starts_with(arg, "-cuid=")) {
      call.cuid = arg.substr(6);
    } else if (arg == "-x" || (starts_with(arg, "-x") && arg.size() > 2)) {
      std::string_view lang = arg == "-x" ? next : arg.substr(2);
      hip_language = lang == "hip";
      other_language = !hip_language;
      if (arg == "-x" && i + 1 < args.size()) {
        call.shared_args.emplace_back(args[++i]);
        call.check_args.emplace_back(args[i]);
        call.host_args.emplace_back(args[i]);
      }
    } else if (takes_separate_value(arg)) {
      if (i + 1 < args.size()) {
        call.shared_args.emplace_back(args[++i]);
        call.check_args.emplace_back(args[i]);
        call.host_args.emplace_back(args[i]);
      }
    } else if (arg == "-") {
      refuse("the source is stdin");
    } else if (!arg.starts_with('-') && !arg.empty()) {
      if (++inputs == 1) {
        call.source = arg;
        source_is_hip = hip_language || (!other_language && arg.ends_with(".hip"));
      }
    }
  }
  refuse(shape_refusal(call, compiles, inputs, source_is_hip, one_target_too));
  bool writes_depfile = call.host_args.size() > call.shared_args.size();
  if (call.host_half_reason.empty() && writes_depfile && !call.depfile_named)
    call.host_half_reason = "a depfile named after the output (no -MF)";
  if (call.host_half_reason.empty() && call.rdc)
    call.host_half_reason = "-fgpu-rdc";
  return call;
}

} // namespace shimctl::pieces
