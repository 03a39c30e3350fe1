#include <shimctl/util/job_lines.hpp>

namespace shimctl::util {

CommandArgs split_job_line(std::string_view line) {
  CommandArgs args;
  if (!line.starts_with(" \""))
    return args;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') {
      ++i;
      continue;
    }
    if (line[i] != '"')
      return {}; // not clang's quoting: not a job line
    std::string arg;
    bool closed = false;
    for (++i; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size()) {
        arg += line[++i];
      } else if (line[i] == '"') {
        closed = true;
        ++i;
        break;
      } else {
        arg += line[i];
      }
    }
    if (!closed)
      return {};
    args.push_back(std::move(arg));
  }
  return args;
}

CommandArgs split_wrapper_line(std::string_view line) {
  CommandArgs args;
  if (!line.starts_with(" \""))
    return args;
  auto close = line.find('"', 2);
  if (close == std::string_view::npos)
    return args;
  args.emplace_back(line.substr(2, close - 2));
  line.remove_prefix(close + 1);
  while (!line.empty()) {
    auto start = line.find_first_not_of(' ');
    if (start == std::string_view::npos)
      break;
    line.remove_prefix(start);
    auto end = line.find(' ');
    args.emplace_back(line.substr(0, end));
    line.remove_prefix(end == std::string_view::npos ? line.size() : end);
  }
  return args;
}

namespace {

// Each line of TEXT that SPLIT reads as a command.
std::vector<CommandArgs> commands_of(std::string_view text,
                                     CommandArgs (*split)(std::string_view)) {
  std::vector<CommandArgs> commands;
  while (!text.empty()) {
    auto end = text.find('\n');
    auto args = split(text.substr(0, end));
    if (!args.empty())
      commands.push_back(std::move(args));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return commands;
}

} // namespace

std::vector<CommandArgs> job_lines(std::string_view text) {
  return commands_of(text, split_job_line);
}

std::vector<CommandArgs> wrapper_lines(std::string_view text) {
  return commands_of(text, split_wrapper_line);
}

} // namespace shimctl::util
