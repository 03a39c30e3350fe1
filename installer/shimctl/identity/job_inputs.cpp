#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <shimctl/core/discovery.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/identity/job_inputs.hpp>
#include <shimctl/identity/wrapper_jobs.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace shimctl::identity {

namespace {

// How the fingerprint names a resolved path: relative inside PREFIX (a wrapped
// compiler by its .real, whichever of the two the job list showed), absolute
// outside; "" for shimctl's own files. IS_WRAPPED: it names a wrapped compiler.
std::string name_in_prefix(const std::string& prefix,
                           const std::string& resolved,
                           const std::vector<std::string>& wrapped,
                           bool* is_wrapped = nullptr) {
  if (!resolved.starts_with(prefix + "/"))
    return resolved;
  auto relative = resolved.substr(prefix.size() + 1);
  if (relative.ends_with(core::shim_config_file))
    return "";
  auto original = relative;
  if (original.ends_with(core::real_suffix))
    original.resize(original.size() - core::real_suffix.size());
  if (std::find(wrapped.begin(), wrapped.end(), original) != wrapped.end()) {
    if (is_wrapped)
      *is_wrapped = true;
    return original + std::string(core::real_suffix);
  }
  return relative;
}

// The names PATH is an input by: its resolved file, and when PATH is a symlink to a file that is
// not a wrapped compiler, the link itself too (its directory resolved), whose stat data follow
// the link: a link replaced by another file, or pointed elsewhere, changes them. None unless PATH
// resolves to a regular file.
std::vector<std::string> input_names(const std::string& prefix,
                                     const std::string& path,
                                     const std::vector<std::string>& wrapped) {
  char buffer[PATH_MAX];
  struct stat st {};
  if (!::realpath(path.c_str(), buffer) || ::stat(buffer, &st) != 0 || !S_ISREG(st.st_mode))
    return {};
  bool is_wrapped = false;
  auto resolved = name_in_prefix(prefix, buffer, wrapped, &is_wrapped);
  if (resolved.empty())
    return {};
  std::vector<std::string> names{ resolved };
  struct stat link {};
  auto parent = std::filesystem::path(path).parent_path().string();
  if (!is_wrapped && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode) &&
      ::realpath(parent.c_str(), buffer)) {
    auto as_named = name_in_prefix(
      prefix, std::string(buffer) + "/" + std::filesystem::path(path).filename().string(), wrapped);
    if (!as_named.empty() && as_named != resolved)
      names.push_back(std::move(as_named));
  }
  return names;
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

namespace {

// The options every probe of COMPILER runs with, in the scratch directory DIR.
util::RunOptions probe_options(const ProbeTarget& compiler, const std::string& dir) {
  util::RunOptions options;
  options.cwd = dir;
  // An installed shim execs the original at once; the cache never sees the probe.
  options.env["SHIMCTL_DISABLE"] = "1";
  options.env["LC_ALL"] = "C";
  // The plan's temporary files are named in DIR: a replay up to a linker wrapper writes them there.
  options.env["TMPDIR"] = dir;
  if (compiler.family == "hipcc")
    options.env["HIPCC_VERBOSE"] = "1"; // "hipcc-cmd: DRIVER ..." on stdout
  return options;
}

// COMPILER's `-###` plan of the probe compile, with DRIVER_FLAG ("" for its default driver).
util::Result<JobList> probe_plan(const std::string& prefix,
                                 const ProbeTarget& compiler,
                                 const util::RunOptions& options,
                                 const std::string& driver_flag) {
  std::vector<std::string> argv{
    prefix + "/" + compiler.path, "-x", "hip", "--offload-arch=gfx90a"
  };
  if (!driver_flag.empty())
    argv.push_back(driver_flag);
  argv.insert(argv.end(), { "-c", "probe.hip", "-o", "probe.o", "-###" });
  TRY_ASSIGN(auto run, util::run(argv, options));
  return parse_job_list(run.out + "\n" + run.err);
}

// What each linker wrapper runs, by its path: hipcc's plan and clang's reach the same wrapper,
// whose jobs are replayed once.
using WrappersSeen = std::map<std::string, std::vector<std::string>>;

// Every path JOBS make an input of: the programs (and what a linker wrapper among them runs),
// hipcc's driver, the device libraries with the *.bc beside them, the config files with the *.cfg
// beside them.
std::vector<std::string> paths_of(const JobList& jobs,
                                  const util::RunOptions& options,
                                  WrappersSeen& wrappers) {
  std::vector<std::string> paths;
  for (const auto& exe : jobs.executables)
    paths.push_back(locate(exe, jobs.installed_dir));
  if (auto wrapper = linker_wrapper_of(jobs.jobs); !wrapper.empty()) {
    auto seen = wrappers.find(wrapper);
    if (seen == wrappers.end())
      seen = wrappers.emplace(wrapper, wrapper_programs(jobs.jobs, options).programs).first;
    for (const auto& program : seen->second)
      paths.push_back(locate(program, jobs.installed_dir));
  }
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
  return paths;
}

} // namespace

util::Result<JobInputs> probe_job_inputs(const std::string& prefix,
                                         const std::vector<ProbeTarget>& compilers,
                                         const std::vector<std::string>& wrapped) {
  JobInputs result;
  std::set<std::string> files;
  WrappersSeen wrappers;
  for (const auto& compiler : compilers) {
    if (compiler.family != "hipcc" && compiler.family != "clang")
      continue;
    TRY_ASSIGN(auto scratch, util::ScratchDir::create("job-inputs"));
    TRY(scratch.write("probe.hip", probe_source));
    auto options = probe_options(compiler, scratch.path());
    auto jobs = probe_plan(prefix, compiler, options, "");
    ProbedCompiler probed{ compiler.path, compiler.family, false, false, "" };
    if (!jobs) {
      probed.first_error = jobs.error().message;
      result.compilers.push_back(std::move(probed));
      continue;
    }
    probed.has_jobs = jobs->has_jobs();
    probed.has_bitcode = !jobs->bitcode.empty();
    if (!jobs->errors.empty())
      probed.first_error = jobs->errors.front();
    result.compilers.push_back(std::move(probed));
    auto paths = paths_of(*jobs, options, wrappers);

    // The other driver, which a build may ask for: its programs are inputs too (clang 21's new
    // driver runs ld.lld where its old one runs lld; clang 23's old one runs no wrapper).
    auto other = probe_plan(prefix,
                            compiler,
                            options,
                            !linker_wrapper_of(jobs->jobs).empty() ? "--no-offload-new-driver"
                                                                   : "--offload-new-driver");
    if (other && other->has_jobs() && other->errors.empty())
      for (auto& path : paths_of(*other, options, wrappers))
        paths.push_back(std::move(path));

    for (const auto& path : paths)
      for (auto& name : input_names(prefix, path, wrapped))
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
