#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <shim/formats.h> // the shim config: shared with the shim
#include <shimctl/build/build_check.hpp>
#include <shimctl/build/build_files.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <sstream>

namespace shimctl::build {

using util::ExitCode;
using util::fail;

namespace {

namespace fs = std::filesystem;

// CMakeCache.txt: the generator, and per language the cached compiler and launcher.
struct CacheEntries {
  std::string generator;
  HintsByLanguage hints; // only languages with a cached compiler
};

CacheEntries read_cmake_cache(const fs::path& file) {
  CacheEntries cache;
  std::map<std::string, std::string> launchers;
  for (const auto& line : util::lines_of(util::read_text_file(file.string()))) {
    auto colon = line.find(':');
    auto eq = line.find('=');
    if (colon == std::string::npos || eq == std::string::npos || colon > eq)
      continue;
    auto name = line.substr(0, colon);
    auto value = line.substr(eq + 1);
    if (name == "CMAKE_GENERATOR")
      cache.generator = value;
    for (const auto& lang : build_languages()) {
      if (name == "CMAKE_" + lang + "_COMPILER" && !value.empty())
        cache.hints[lang].compiler = value;
      if (name == "CMAKE_" + lang + "_COMPILER_LAUNCHER")
        launchers[lang] = value;
    }
  }
  for (auto& [lang, hint] : cache.hints)
    hint.launcher = launchers[lang];
  return cache;
}

// is_shim_path, once per compiler path (it hashes the file).
class ShimMemo {
public:
  explicit ShimMemo(const core::Context& context)
    : context_(context) {}
  bool operator()(const std::string& path) {
    auto [it, fresh] = known_.try_emplace(path, false);
    if (fresh)
      it->second = !path.empty() && is_shim_path(context_, path);
    return it->second;
  }

private:
  const core::Context& context_;
  std::map<std::string, bool> known_;
};

std::string why_uncached(const CompileCommand& uncached, std::uint64_t cached_count) {
  if (cached_count > 0)
    return "some compiles without a launcher, compiler is not a shim";
  if (uncached.launcher.empty())
    return "no launcher, compiler is not a shim";
  return "launcher '" + uncached.launcher + "' is not a cache, compiler is not a shim";
}

// The verdict on one language: cached when every compile command runs a cache as its
// launcher or runs a shimmed compiler.
LanguageCheck judge(const std::string& language,
                    const LanguageCompiles& compiles,
                    const CompileHints& hints,
                    ShimMemo& is_shim) {
  LanguageCheck l;
  l.language = language;
  l.sources = compiles.sources;
  l.cache_compiler = hints.compiler;
  std::uint64_t launched = 0, shimmed = 0;
  const CompileCommand* uncached = nullptr;
  std::string cache_name;
  for (const auto& command : compiles.commands) {
    if (l.launcher.empty())
      l.launcher = command.launcher;
    if (auto name = launcher_cache_name(command.launcher); !name.empty()) {
      ++launched;
      cache_name = cache_name.empty() ? name : cache_name;
    } else if (is_shim(command.compiler)) {
      ++shimmed;
    } else if (!uncached) {
      uncached = &command;
    }
  }
  l.compiler = uncached                    ? uncached->compiler
               : compiles.commands.empty() ? hints.compiler
                                           : compiles.commands.front().compiler;
  l.compiler_is_shim = is_shim(l.compiler);
  l.cached = uncached == nullptr && !compiles.commands.empty();
  if (!l.cached)
    l.how = uncached ? why_uncached(*uncached, launched + shimmed) : "no compile command found";
  else if (shimmed == 0)
    l.how = "launcher " + cache_name;
  else
    l.how = launched == 0 ? "shimmed compiler" : "launcher " + cache_name + " or shimmed compiler";
  return l;
}

// Warnings that explain an UNCACHED verdict.
void add_warnings(BuildCheck& check, const HintsByLanguage& hints) {
  auto find = [&](const std::string& lang) -> const LanguageCheck* {
    for (const auto& l : check.languages)
      if (l.language == lang)
        return &l;
    return nullptr;
  };
  for (const auto* gpu : { find("HIP"), find("CUDA") }) {
    const auto* cxx = find("CXX");
    if (gpu && !gpu->cached && cxx && cxx->cached && launcher_is_cache(cxx->launcher))
      check.warnings.push_back(
        fmt::format("CMAKE_CXX_COMPILER_LAUNCHER is set but {} sources compile without one: "
                    "configure with -DCMAKE_{}_COMPILER_LAUNCHER={}",
                    gpu->language,
                    gpu->language,
                    launcher_cache_name(cxx->launcher)));
  }
  for (const auto& l : check.languages) {
    auto it = hints.find(l.language);
    if (!l.cached && it != hints.end() && launcher_is_cache(it->second.launcher))
      check.warnings.push_back(
        fmt::format("CMakeCache.txt sets CMAKE_{}_COMPILER_LAUNCHER={} but {} compiles run "
                    "without it (a target's {}_COMPILER_LAUNCHER or the project overrides it)",
                    l.language,
                    it->second.launcher,
                    l.language,
                    l.language));
  }
  if (check.languages.empty())
    check.warnings.push_back("no compile commands found in the build files");
}

} // namespace

bool BuildCheck::ok() const {
  for (const auto& l : languages)
    if (!l.cached)
      return false;
  return true;
}

bool is_shim_path(const core::Context& context, const std::string& path) {
  auto real = util::real_path(path);
  if (!real)
    return false;
  auto [dir_path, name] = util::split_relative(*real);
  auto conf =
    util::lines_of(util::read_text_file((fs::path(dir_path) / SHIMCTL_CONFIG_NAME).string()));
  const std::string compiler_line = std::string(shimctl_directive_name(SHIMCTL_COMPILER)) + " ";
  const std::string state_line = std::string(shimctl_directive_name(SHIMCTL_STATE)) + " ";
  bool listed = false;
  std::string state;
  for (const auto& line : conf) {
    if (line.starts_with(compiler_line + name + " "))
      listed = true;
    if (line.starts_with(state_line))
      state = line.substr(state_line.size());
  }
  if (!listed)
    return false;
  auto digest = util::sha256_file(*real);
  if (!digest)
    return false;
  if (auto ours = util::sha256_file(context.shim_binary); ours && *ours == *digest)
    return true;
  if (state.empty())
    return false;
  auto manifest = nlohmann::json::parse(
    util::read_text_file((fs::path(state) / "manifest.json").string()), nullptr, false);
  return manifest.is_object() && manifest.value("shim_sha256", "") == *digest;
}

util::Result<BuildCheck> check_build(const core::Context& context, const std::string& build_dir) {
  fs::path dir(build_dir);
  std::error_code ec;
  if (!fs::is_regular_file(dir / "CMakeCache.txt", ec))
    return fail(ExitCode::usage,
                "{} has no CMakeCache.txt; pass a configured CMake build directory",
                build_dir);
  auto cache = read_cmake_cache(dir / "CMakeCache.txt");
  BuildCheck check;
  check.build_dir = build_dir;
  check.generator = cache.generator;
  CompilesByLanguage seen;
  if (fs::is_regular_file(dir / "CMakeFiles" / "rules.ninja", ec)) {
    seen = scan_ninja(dir, cache.hints);
  } else if (fs::is_regular_file(dir / "Makefile", ec)) {
    seen = scan_makefiles(dir, cache.hints);
  } else if (fs::is_regular_file(dir / "compile_commands.json", ec)) {
    check.generator = "compile_commands.json";
    seen = scan_compile_commands(dir / "compile_commands.json", cache.hints);
  } else {
    return fail(ExitCode::usage,
                "{} has neither build.ninja, Makefiles nor compile_commands.json; "
                "run the CMake configure step first",
                build_dir);
  }
  ShimMemo is_shim(context);
  for (const auto& lang : build_languages()) {
    auto it = seen.find(lang);
    if (it == seen.end() || it->second.sources == 0)
      continue;
    auto hint = cache.hints.find(lang);
    check.languages.push_back(
      judge(lang, it->second, hint == cache.hints.end() ? CompileHints{} : hint->second, is_shim));
  }
  add_warnings(check, cache.hints);
  return check;
}

} // namespace shimctl::build
