#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <shim/formats.h> // the shim config: shared with the shim
#include <shimctl/build/build_check.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <sstream>

namespace shimctl::core {

using util::ExitCode;
using util::fail;

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> languages = { "C", "CXX", "HIP", "CUDA" };

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::string basename_of(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

bool names_cache(const std::string& launcher) {
  // The first word of the launcher: "ccache", "/usr/bin/sccache", "ccache;-s" (a CMake list).
  auto first = launcher.substr(0, launcher.find_first_of(" ;"));
  auto name = basename_of(first);
  return name.starts_with("ccache") || name.starts_with("sccache");
}

// Per language: what runs before the compiler in each compile command seen.
struct Seen {
  std::uint64_t sources = 0;
  std::vector<std::string> launchers; // one per compile rule/command; "" = none
};

// Splits COMMAND at the compiler path: the text before it is the launcher.
std::string launcher_before(const std::string& command, const std::string& compiler) {
  auto at = command.find(compiler);
  if (at == std::string::npos)
    return "";
  std::string before = command.substr(0, at);
  auto flag = before.find("--launcher=");
  if (flag != std::string::npos) { // $(CMAKE_COMMAND) -E __run_co_compile --launcher=X
    auto value = before.substr(flag + 11);
    return value.substr(0, value.find(' '));
  }
  while (!before.empty() && (before.back() == ' ' || before.back() == '\t'))
    before.pop_back();
  while (!before.empty() && (before.front() == ' ' || before.front() == '\t'))
    before.erase(0, 1);
  return before;
}

void scan_ninja(const fs::path& dir,
                const std::map<std::string, std::string>& compilers,
                std::map<std::string, Seen>& seen) {
  std::map<std::string, std::string> rule_language, rule_launcher;
  std::string rule;
  for (const auto& line : lines_of(read_text(dir / "CMakeFiles" / "rules.ninja"))) {
    if (line.starts_with("rule ")) {
      rule = line.substr(5);
      continue;
    }
    if (rule.empty() || !line.starts_with("  command = "))
      continue;
    for (const auto& lang : languages)
      if (rule.starts_with(lang + "_COMPILER__")) {
        rule_language[rule] = lang;
        auto it = compilers.find(lang);
        rule_launcher[rule] =
          it == compilers.end() ? "" : launcher_before(line.substr(12), it->second);
      }
    rule.clear();
  }
  std::map<std::string, bool> used;
  for (const auto& line : lines_of(read_text(dir / "build.ninja"))) {
    if (!line.starts_with("build "))
      continue;
    auto colon = line.find(": ");
    if (colon == std::string::npos)
      continue;
    auto name = line.substr(colon + 2, line.find(' ', colon + 2) - colon - 2);
    auto it = rule_language.find(name);
    if (it == rule_language.end())
      continue;
    ++seen[it->second].sources;
    if (!used[name]) {
      used[name] = true;
      seen[it->second].launchers.push_back(rule_launcher[name]);
    }
  }
}

void scan_makefiles(const fs::path& dir,
                    const std::map<std::string, std::string>& compilers,
                    std::map<std::string, Seen>& seen) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec)
      break;
    if (it->path().filename() != "build.make")
      continue;
    // Each object's recipe: an echo "Building <LANG> object <obj>", then the compile line.
    std::string lang;
    for (const auto& line : lines_of(read_text(it->path()))) {
      auto building = line.find("\"Building ");
      if (building != std::string::npos) {
        auto rest = line.substr(building + 10);
        lang = rest.substr(0, rest.find(' '));
        continue;
      }
      if (lang.empty() || !line.starts_with("\t") || line.find(" -c ") == std::string::npos)
        continue;
      auto compiler = compilers.find(lang);
      if (compiler != compilers.end()) {
        ++seen[lang].sources;
        seen[lang].launchers.push_back(launcher_before(line, compiler->second));
      }
      lang.clear();
    }
  }
}

void scan_compile_commands(const fs::path& file,
                           const std::map<std::string, std::string>& compilers,
                           const std::map<std::string, std::string>& cached_launchers,
                           std::map<std::string, Seen>& seen) {
  auto j = nlohmann::json::parse(read_text(file), nullptr, false);
  if (!j.is_array())
    return;
  for (const auto& entry : j) {
    std::string command = entry.value("command", "");
    std::string lang, compiler;
    for (const auto& [l, c] : compilers)
      if (command.find(c + " ") != std::string::npos && c.size() > compiler.size()) {
        lang = l;
        compiler = c;
      }
    if (command.find(" -x hip ") != std::string::npos && compilers.contains("HIP"))
      lang = "HIP";
    if (lang.empty())
      continue;
    ++seen[lang].sources;
    auto it = cached_launchers.find(lang);
    seen[lang].launchers.push_back(it == cached_launchers.end() ? "" : it->second);
  }
}

} // namespace

bool BuildCheck::ok() const {
  for (const auto& l : languages)
    if (!l.cached)
      return false;
  return true;
}

bool is_shim_path(const Context& context, const std::string& path) {
  auto real = util::real_path(path);
  if (!real)
    return false;
  auto [dir_path, name] = util::split_relative(*real);
  auto conf = lines_of(read_text(fs::path(dir_path) / SHIMCTL_CONFIG_NAME));
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
  auto manifest =
    nlohmann::json::parse(read_text(fs::path(state) / "manifest.json"), nullptr, false);
  return manifest.is_object() && manifest.value("shim_sha256", "") == *digest;
}

util::Result<BuildCheck> check_build(const Context& context, const std::string& build_dir) {
  fs::path dir(build_dir);
  std::error_code ec;
  if (!fs::is_regular_file(dir / "CMakeCache.txt", ec))
    return fail(ExitCode::usage,
                "{} has no CMakeCache.txt; pass a configured CMake build directory",
                build_dir);
  BuildCheck check;
  check.build_dir = build_dir;
  std::map<std::string, std::string> compilers, cached_launchers;
  for (const auto& line : lines_of(read_text(dir / "CMakeCache.txt"))) {
    auto colon = line.find(':');
    auto eq = line.find('=');
    if (colon == std::string::npos || eq == std::string::npos || colon > eq)
      continue;
    auto name = line.substr(0, colon);
    auto value = line.substr(eq + 1);
    if (name == "CMAKE_GENERATOR")
      check.generator = value;
    for (const auto& lang : languages) {
      if (name == "CMAKE_" + lang + "_COMPILER" && !value.empty())
        compilers[lang] = value;
      if (name == "CMAKE_" + lang + "_COMPILER_LAUNCHER")
        cached_launchers[lang] = value;
    }
  }
  std::map<std::string, Seen> seen;
  if (fs::is_regular_file(dir / "CMakeFiles" / "rules.ninja", ec)) {
    scan_ninja(dir, compilers, seen);
  } else if (fs::is_regular_file(dir / "Makefile", ec)) {
    scan_makefiles(dir, compilers, seen);
  } else if (fs::is_regular_file(dir / "compile_commands.json", ec)) {
    check.generator = "compile_commands.json";
    scan_compile_commands(dir / "compile_commands.json", compilers, cached_launchers, seen);
  } else {
    return fail(ExitCode::usage,
                "{} has neither build.ninja, Makefiles nor compile_commands.json; "
                "run the CMake configure step first",
                build_dir);
  }

  for (const auto& lang : languages) {
    auto it = seen.find(lang);
    if (it == seen.end() || it->second.sources == 0)
      continue;
    LanguageCheck l;
    l.language = lang;
    l.compiler = compilers[lang];
    l.sources = it->second.sources;
    l.compiler_is_shim = is_shim_path(context, l.compiler);
    bool all_launched = true;
    for (const auto& launcher : it->second.launchers) {
      if (!launcher.empty() && l.launcher.empty())
        l.launcher = launcher;
      all_launched = all_launched && names_cache(launcher);
    }
    if (all_launched) {
      l.cached = true;
      l.how = "launcher " + basename_of(l.launcher.substr(0, l.launcher.find_first_of(" ;")));
    } else if (l.compiler_is_shim) {
      l.cached = true;
      l.how = "shimmed compiler";
    } else {
      l.how = l.launcher.empty() ? "no launcher, compiler is not a shim"
              : names_cache(l.launcher)
                ? "some compiles without a launcher, compiler is not a shim"
                : "launcher '" + l.launcher + "' is not a cache, compiler is not a shim";
    }
    check.languages.push_back(l);
  }
  auto find = [&](const std::string& lang) -> const LanguageCheck* {
    for (const auto& l : check.languages)
      if (l.language == lang)
        return &l;
    return nullptr;
  };
  for (const auto* gpu : { find("HIP"), find("CUDA") }) {
    const auto* cxx = find("CXX");
    if (gpu && !gpu->cached && cxx && cxx->cached && !cxx->launcher.empty())
      check.warnings.push_back(
        fmt::format("CMAKE_CXX_COMPILER_LAUNCHER is set but {} sources compile without one: "
                    "configure with -DCMAKE_{}_COMPILER_LAUNCHER={}",
                    gpu->language,
                    gpu->language,
                    basename_of(cxx->launcher.substr(0, cxx->launcher.find_first_of(" ;")))));
  }
  if (check.languages.empty())
    check.warnings.push_back("no compile commands found in the build files");
  return check;
}

} // namespace shimctl::core
