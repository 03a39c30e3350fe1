#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <shimctl/build/build_files.hpp>
#include <shimctl/util/text.hpp>
#include <sstream>

namespace shimctl::build {

namespace {

namespace fs = std::filesystem;

const CompileHints& hints_for(const HintsByLanguage& hints, const std::string& language) {
  static const CompileHints none;
  auto it = hints.find(language);
  return it == hints.end() ? none : it->second;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// rules.ninja: the command of each compile rule, by rule name, and the rule's language.
struct NinjaRule {
  std::string language;
  std::string command;
};

std::map<std::string, NinjaRule> ninja_compile_rules(const fs::path& file) {
  std::map<std::string, NinjaRule> rules;
  std::string rule;
  for (const auto& line : util::lines_of(util::read_text_file(file.string()))) {
    if (line.starts_with("rule ")) {
      rule = line.substr(5);
      continue;
    }
    if (rule.empty() || !line.starts_with("  command = "))
      continue;
    for (const auto& language : build_languages())
      if (rule.starts_with(language + "_COMPILER__"))
        rules[rule] = { language, line.substr(12) };
    rule.clear();
  }
  return rules;
}

// `build OUTPUTS: RULE INPUTS...`: RULE ("" when LINE is no build statement).
std::string ninja_build_rule(const std::string& line) {
  if (!line.starts_with("build "))
    return "";
  auto colon = line.find(": ");
  if (colon == std::string::npos)
    return "";
  return line.substr(colon + 2, line.find(' ', colon + 2) - colon - 2);
}

// `  NAME = VALUE` under a build statement.
bool ninja_binding(const std::string& line, std::map<std::string, std::string>& variables) {
  if (!line.starts_with("  "))
    return false;
  auto eq = line.find(" = ");
  if (eq == std::string::npos)
    return false;
  variables[line.substr(2, eq - 2)] = line.substr(eq + 3);
  return true;
}

// The language of a compile_commands.json entry.
std::string entry_language(const std::vector<std::string>& words,
                           const CompileCommand& command,
                           const std::string& file,
                           const HintsByLanguage& hints) {
  for (const auto& [language, hint] : hints)
    if (!hint.compiler.empty() && hint.compiler == command.compiler)
      return language;
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] != "-x")
      continue;
    std::string named = words[i + 1] == "hip" ? "HIP" : words[i + 1] == "cuda" ? "CUDA" : "";
    if (!named.empty() && hints.contains(named))
      return named;
  }
  auto ext = fs::path(file).extension().string();
  std::string by_ext = ext == ".c" ? "C" : ext == ".hip" ? "HIP" : ext == ".cu" ? "CUDA" : "CXX";
  return hints.contains(by_ext) ? by_ext : "CXX";
}

std::string entry_command(const nlohmann::json& entry) {
  if (entry.contains("command") && entry["command"].is_string())
    return entry["command"].get<std::string>();
  std::string joined; // "arguments": already split; quote each for shell_words
  if (entry.contains("arguments") && entry["arguments"].is_array())
    for (const auto& arg : entry["arguments"])
      if (arg.is_string())
        joined += (joined.empty() ? "'" : " '") + arg.get<std::string>() + "'";
  return joined;
}

} // namespace

const std::vector<std::string>& build_languages() {
  static const std::vector<std::string> languages = { "C", "CXX", "HIP", "CUDA" };
  return languages;
}

std::string expand_ninja(std::string_view text,
                         const std::map<std::string, std::string>& variables) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char next = text[i + 1];
    if (next == '$' || next == ' ' || next == ':') {
      out += next;
      ++i;
      continue;
    }
    std::size_t start = i + 1, end = start;
    bool braced = next == '{';
    if (braced)
      end = text.find('}', ++start);
    else
      while (end < text.size() && is_name_char(text[end]))
        ++end;
    if (end == std::string_view::npos || end == start) {
      out += text[i];
      continue;
    }
    auto name = std::string(text.substr(start, end - start));
    std::size_t last = braced ? end : end - 1;
    if (auto it = variables.find(name); it != variables.end())
      out += it->second;
    else if (name == "in" || name == "out" || name == "in_newline")
      out += text.substr(i, last - i + 1); // file names: arguments, as written
    i = last;
  }
  return out;
}

CompilesByLanguage scan_ninja(const fs::path& build_dir, const HintsByLanguage& hints) {
  auto rules = ninja_compile_rules(build_dir / "CMakeFiles" / "rules.ninja");
  CompilesByLanguage seen;
  const NinjaRule* rule = nullptr;
  std::map<std::string, std::string> variables;
  auto finish = [&] {
    if (rule) {
      auto& lang = seen[rule->language];
      ++lang.sources;
      lang.commands.push_back(split_compile_command(expand_ninja(rule->command, variables),
                                                    hints_for(hints, rule->language)));
    }
    rule = nullptr;
    variables.clear();
  };
  for (const auto& line :
       util::lines_of(util::read_text_file((build_dir / "build.ninja").string()))) {
    if (rule && ninja_binding(line, variables))
      continue;
    finish();
    auto it = rules.find(ninja_build_rule(line));
    if (it != rules.end())
      rule = &it->second;
  }
  finish();
  return seen;
}

CompilesByLanguage scan_makefiles(const fs::path& build_dir, const HintsByLanguage& hints) {
  CompilesByLanguage seen;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(build_dir, fs::directory_options::none, ec);
       it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec)
      break;
    if (it->path().filename() != "build.make")
      continue;
    // Each object's recipe: an echo "Building <LANG> object <obj>", then the compile line.
    std::string lang;
    for (const auto& line : util::lines_of(util::read_text_file(it->path().string()))) {
      auto building = line.find("\"Building ");
      if (building != std::string::npos) {
        auto rest = line.substr(building + 10);
        lang = rest.substr(0, rest.find(' '));
        continue;
      }
      if (lang.empty() || !line.starts_with("\t") || line.find(" -c ") == std::string::npos)
        continue;
      if (std::ranges::find(build_languages(), lang) != build_languages().end()) {
        ++seen[lang].sources;
        seen[lang].commands.push_back(split_compile_command(line, hints_for(hints, lang)));
      }
      lang.clear();
    }
  }
  return seen;
}

CompilesByLanguage scan_compile_commands(const fs::path& file, const HintsByLanguage& hints) {
  CompilesByLanguage seen;
  auto j = nlohmann::json::parse(util::read_text_file(file.string()), nullptr, false);
  if (!j.is_array())
    return seen;
  for (const auto& entry : j) {
    if (!entry.is_object())
      continue;
    auto text = entry_command(entry);
    auto command = split_compile_command(text, {});
    if (command.compiler.empty())
      continue;
    auto file_name = entry.contains("file") && entry["file"].is_string()
                       ? entry["file"].get<std::string>()
                       : std::string();
    auto lang = entry_language(shell_words(text), command, file_name, hints);
    if (command.launcher.empty()) { // the cached CMake list, as the words it runs
      command.launcher = hints_for(hints, lang).launcher;
      std::ranges::replace(command.launcher, ';', ' ');
    }
    ++seen[lang].sources;
    seen[lang].commands.push_back(std::move(command));
  }
  return seen;
}

} // namespace shimctl::build
