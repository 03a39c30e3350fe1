#include <algorithm>
#include <shimctl/build/compile_command.hpp>
#include <shimctl/cache/tool.hpp>

namespace shimctl::build {

namespace {

using Words = std::vector<std::string>;

std::string basename_of(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

std::string join(Words::const_iterator first, Words::const_iterator last) {
  std::string out;
  for (auto it = first; it != last; ++it)
    out += (out.empty() ? "" : " ") + *it;
  return out;
}

// A CMake list ("env;A=1;ccache") as words.
Words list_items(std::string_view list) {
  Words items;
  while (!list.empty()) {
    auto semi = list.find(';');
    if (auto item = list.substr(0, semi); !item.empty())
      items.emplace_back(item);
    list.remove_prefix(semi == std::string_view::npos ? list.size() : semi + 1);
  }
  return items;
}

// An argument of the compiler rather than a word of the program part: a flag, or a build
// variable that expands to arguments (`$DEFINES`, `$(CXX_DEFINES)`, `$in`).
bool is_argument(const std::string& word) {
  return word.starts_with('-') || word.starts_with('$');
}

// Drops leading `cd DIR &&` (a Makefile recipe for an object in a subdirectory).
Words skip_cd(Words words) {
  while (words.size() >= 3 && words[0] == "cd" && words[2] == "&&")
    words.erase(words.begin(), words.begin() + 3);
  return words;
}

// `cmake -E __run_co_compile --launcher=L --tidy=T --source=S -- CC ARGS...`: WORDS becomes
// CC ARGS, LAUNCHER the words of the list L (none: ""). False when WORDS is not such a command.
bool unwrap_co_compile(Words& words, std::string& launcher) {
  auto co = std::find(words.begin(), words.end(), "__run_co_compile");
  if (co == words.end() || co == words.begin() || *(co - 1) != "-E")
    return false;
  auto dashes = std::find(co, words.end(), "--");
  for (auto it = co + 1; it != dashes; ++it)
    if (it->starts_with("--launcher=")) {
      auto items = list_items(std::string_view(*it).substr(11));
      launcher = join(items.begin(), items.end());
    }
  words.erase(words.begin(), dashes == words.end() ? dashes : dashes + 1);
  return true;
}

// How many of the words before the compiler's arguments (WORDS[0, PROGRAM): launcher, then
// compiler) are the launcher.
std::size_t launcher_length(const Words& words, std::size_t program, const CompileHints& hints) {
  auto cached = list_items(hints.launcher);
  if (!cached.empty() && cached.size() < words.size() &&
      std::equal(cached.begin(), cached.end(), words.begin()))
    return cached.size();
  for (std::size_t i = 0; i < program; ++i)
    if (!hints.compiler.empty() && words[i] == hints.compiler)
      return i;
  return program - 1;
}

} // namespace

std::vector<std::string> shell_words(std::string_view line) {
  Words words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word)
        words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      auto end = line.find('\'', i + 1);
      word += line.substr(i + 1, end == std::string_view::npos ? end : end - i - 1);
      i = end == std::string_view::npos ? line.size() : end;
    } else if (c == '"') {
      for (++i; i < line.size() && line[i] != '"'; ++i)
        word += line[i] == '\\' && i + 1 < line.size() ? line[++i] : line[i];
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
    } else {
      word += c;
    }
  }
  if (in_word)
    words.push_back(std::move(word));
  return words;
}

CompileCommand split_compile_command(std::string_view command, const CompileHints& hints) {
  CompileCommand out;
  auto words = skip_cd(shell_words(command));
  if (unwrap_co_compile(words, out.launcher)) {
    words = skip_cd(std::move(words));
    if (!words.empty())
      out.compiler = words.front();
    return out;
  }
  auto program =
    static_cast<std::size_t>(std::find_if(words.begin(), words.end(), is_argument) - words.begin());
  if (program == 0)
    return out;
  auto launcher = launcher_length(words, program, hints);
  out.launcher = join(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(launcher));
  out.compiler = words[launcher];
  return out;
}

std::string launcher_cache_name(std::string_view launcher) {
  for (const auto& word : shell_words(launcher))
    for (const auto& item : list_items(word)) {
      if (const auto* tool = cache::tool_launched_by(basename_of(item)))
        return std::string(tool->name());
    }
  return "";
}

bool launcher_is_cache(std::string_view launcher) {
  return !launcher_cache_name(launcher).empty();
}

} // namespace shimctl::build
