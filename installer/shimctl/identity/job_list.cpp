#include <algorithm>
#include <optional>
#include <shimctl/identity/job_list.hpp>
#include <shimctl/util/job_lines.hpp>

namespace shimctl::identity {

namespace {

void add_once(std::vector<std::string>& list, std::string item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end())
    list.push_back(std::move(item));
}

// LINE without the "PREFIX" it starts with, trimmed; nullopt when it does not.
std::optional<std::string_view> after(std::string_view line, std::string_view prefix) {
  if (!line.starts_with(prefix))
    return std::nullopt;
  line.remove_prefix(prefix.size());
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
    line.remove_suffix(1);
  return line;
}

// The first word of a shell command line: quoted ("..." or '...') or up to a blank.
std::string first_word(std::string_view command) {
  command.remove_prefix(std::min(command.find_first_not_of(' '), command.size()));
  if (!command.empty() && (command[0] == '"' || command[0] == '\'')) {
    auto end = command.find(command[0], 1);
    return std::string(command.substr(1, end == std::string_view::npos ? end : end - 1));
  }
  return std::string(command.substr(0, command.find(' ')));
}

} // namespace

JobList parse_job_list(std::string_view text) {
  JobList jobs;
  while (!text.empty()) {
    auto end = text.find('\n');
    auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (auto dir = after(line, "InstalledDir: ")) {
      jobs.installed_dir = std::string(*dir);
    } else if (auto cfg = after(line, "Configuration file: ")) {
      add_once(jobs.config_files, std::string(*cfg));
    } else if (auto command = after(line, "hipcc-cmd: ")) {
      if (jobs.driver.empty())
        jobs.driver = first_word(*command);
    } else if (auto args = util::split_job_line(line); !args.empty()) {
      add_once(jobs.executables, args[0]);
      jobs.jobs.push_back(args);
      for (std::size_t i = 1; i + 1 < args.size(); ++i)
        if (args[i] == "-mlink-builtin-bitcode" || args[i] == "-mlink-bitcode-file")
          add_once(jobs.bitcode, args[++i]);
    } else if (line.find(": error: ") != std::string_view::npos) {
      jobs.errors.emplace_back(line);
    }
  }
  return jobs;
}

} // namespace shimctl::identity
