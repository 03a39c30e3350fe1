#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/identity/job_inputs.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <sys/stat.h>
#include <unistd.h>

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

std::vector<std::string> split_job_line(std::string_view line) {
  std::vector<std::string> args;
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
    } else if (auto args = split_job_line(line); !args.empty()) {
      add_once(jobs.executables, args[0]);
      for (std::size_t i = 1; i + 1 < args.size(); ++i)
        if (args[i] == "-mlink-builtin-bitcode" || args[i] == "-mlink-bitcode-file")
          add_once(jobs.bitcode, args[++i]);
    } else if (line.find(": error: ") != std::string_view::npos) {
      jobs.errors.emplace_back(line);
    }
  }
  return jobs;
}

namespace {

// How the fingerprint names PATH: relative inside PREFIX (a wrapped compiler
// by its .real, whichever of the two the job list showed), absolute outside;
// "" unless it resolves to a regular file.
std::string input_name(const std::string& prefix,
                       const std::string& path,
                       const std::vector<std::string>& wrapped) {
  char buffer[PATH_MAX];
  struct stat st {};
  if (!::realpath(path.c_str(), buffer) || ::stat(buffer, &st) != 0 || !S_ISREG(st.st_mode))
    return "";
  std::string resolved = buffer;
  if (!resolved.starts_with(prefix + "/"))
    return resolved;
  auto relative = resolved.substr(prefix.size() + 1);
  if (relative.ends_with(core::shim_config_file))
    return "";
  auto original = relative;
  if (original.ends_with(core::real_suffix))
    original.resize(original.size() - core::real_suffix.size());
  if (std::find(wrapped.begin(), wrapped.end(), original) != wrapped.end())
    return original + std::string(core::real_suffix);
  return relative;
}

// Every regular file in DIR whose name ends with SUFFIX (not recursive).
std::vector<std::string> files_beside(const std::string& file, std::string_view suffix) {
  std::vector<std::string> files;
  std::error_code ec;
  auto dir = std::filesystem::path(file).parent_path();
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().ends_with(suffix))
      files.push_back(it->path().string());
  return files;
}

// An executable named without a directory: clang found it in its InstalledDir, else in PATH.
std::string locate(const std::string& program, const std::string& installed_dir) {
  if (program.find('/') != std::string::npos)
    return program;
  if (!installed_dir.empty() && ::access((installed_dir + "/" + program).c_str(), X_OK) == 0)
    return installed_dir + "/" + program;
  return util::find_in_path(program);
}

constexpr std::string_view probe_source =
  "__global__ void shimctl_probe(float* x) { x[0] = __builtin_isinf(x[1]) ? 1.0f : 2.0f; }\n";

} // namespace

util::Result<JobInputs> probe_job_inputs(const std::string& prefix,
                                         const std::vector<ProbeTarget>& compilers,
                                         const std::vector<std::string>& wrapped) {
  JobInputs result;
  std::set<std::string> files;
  for (const auto& compiler : compilers) {
    if (compiler.family != "hipcc" && compiler.family != "clang")
      continue;
    TRY_ASSIGN(auto scratch, util::ScratchDir::create("job-inputs"));
    TRY(scratch.write("probe.hip", probe_source));
    util::RunOptions options;
    options.cwd = scratch.path();
    // An installed shim execs the original at once; the cache never sees the probe.
    options.env["SHIMCTL_DISABLE"] = "1";
    options.env["LC_ALL"] = "C";
    if (compiler.family == "hipcc")
      options.env["HIPCC_VERBOSE"] = "1"; // "hipcc-cmd: DRIVER ..." on stdout
    auto run = util::run({ prefix + "/" + compiler.path,
                           "-x",
                           "hip",
                           "--offload-arch=gfx90a",
                           "-c",
                           "probe.hip",
                           "-o",
                           "probe.o",
                           "-###" },
                         options);
    ProbedCompiler probed{ compiler.path, compiler.family, false, false, "" };
    if (!run) {
      probed.first_error = run.error().message;
      result.compilers.push_back(std::move(probed));
      continue;
    }
    auto jobs = parse_job_list(run->out + "\n" + run->err);
    probed.has_jobs = jobs.has_jobs();
    probed.has_bitcode = !jobs.bitcode.empty();
    if (!jobs.errors.empty())
      probed.first_error = jobs.errors.front();
    result.compilers.push_back(std::move(probed));

    std::vector<std::string> paths;
    for (const auto& exe : jobs.executables)
      paths.push_back(locate(exe, jobs.installed_dir));
    if (!jobs.driver.empty())
      paths.push_back(locate(jobs.driver, jobs.installed_dir));
    std::set<std::string> dirs_done;
    for (const auto& bc : jobs.bitcode) {
      paths.push_back(bc);
      auto dir = std::filesystem::path(bc).parent_path().string();
      if (dirs_done.insert(dir).second)
        for (auto& beside : files_beside(bc, ".bc"))
          paths.push_back(std::move(beside));
    }
    for (const auto& cfg : jobs.config_files) {
      paths.push_back(cfg);
      for (auto& beside : files_beside(cfg, ".cfg"))
        paths.push_back(std::move(beside));
    }
    for (const auto& path : paths)
      if (auto name = input_name(prefix, path, wrapped); !name.empty())
        files.insert(std::move(name));
  }
  result.files.assign(files.begin(), files.end());
  return result;
}

std::string missing_device_libraries(const std::string& prefix,
                                     const JobInputs& inputs,
                                     const std::vector<std::string>& wrapped) {
  for (const auto& c : inputs.compilers) {
    if (c.family != "hipcc" || !c.has_jobs || c.has_bitcode)
      continue;
    auto resolved = core::resolve_within(prefix, c.path);
    if (!resolved || std::find(wrapped.begin(), wrapped.end(), *resolved) == wrapped.end())
      continue;
    return fmt::format(
      "{}/{} links no HIP device library (its `-x hip -c -###` job list names no *.bc file{}): "
      "the cache key could not follow the device libraries; install them (Debian/Ubuntu: "
      "apt install rocm-device-libs) or name their directory in DEVICE_LIB_PATH for hipcc, "
      "then install again",
      prefix,
      c.path,
      c.first_error.empty() ? "" : "; " + c.first_error);
  }
  return "";
}

} // namespace shimctl::identity
