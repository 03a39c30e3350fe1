#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <random>
#include <shim/call_traits.h>
#include <shim/formats.h>
#include <shimctl/core/manifest.hpp>
#include <shimctl/core/state_files.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/records/file_hashes.hpp>
#include <shimctl/records/miss_recorder.hpp>
#include <shimctl/records/record_store.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace shimctl::records {

std::optional<RecordVar> parse_record_var(std::string_view value) {
  std::array<std::string_view, 5> fields;
  for (std::size_t i = 0; i < 4; ++i) {
    auto newline = value.find('\n');
    if (newline == std::string_view::npos)
      return std::nullopt;
    fields[i] = value.substr(0, newline);
    value.remove_prefix(newline + 1);
  }
  fields[4] = value;
  if (fields[0] != SHIMCTL_RECORD_VERSION)
    return std::nullopt;
  auto dash_empty = [](std::string_view v) { return v == "-" ? std::string() : std::string(v); };
  return RecordVar{
    std::string(fields[1]), dash_empty(fields[2]), dash_empty(fields[3]), std::string(fields[4])
  };
}

std::vector<std::string> depfile_inputs(std::string_view text) {
  std::vector<std::string> inputs;
  std::string word;
  bool in_prerequisites = false;
  auto finish = [&] {
    if (!word.empty() && in_prerequisites && std::ranges::find(inputs, word) == inputs.end())
      inputs.push_back(word);
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      finish();
      i += text[i + 1] == '\r' && i + 2 < text.size() && text[i + 2] == '\n' ? 2 : 1;
    } else if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
      word += text[++i];
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      word += text[++i];
    } else if (c == ':' && !in_prerequisites &&
               (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n' ||
                text[i + 1] == '\t' || text[i + 1] == '\r')) {
      word.clear(); // the targets
      in_prerequisites = true;
    } else if (c == '\n') {
      finish();
      in_prerequisites = false; // the next rule
    } else if (c == ' ' || c == '\t' || c == '\r') {
      finish();
    } else {
      word += c;
    }
  }
  finish();
  return inputs;
}

bool decides_output(std::string_view name) {
  static constexpr std::array<std::string_view, 7> prefixes{ "HIP",  "HCC_", "ROCM",
                                                             "CUDA", "NVCC", "DEVICE_LIB_PATH",
                                                             "HSA_" };
  static constexpr std::array<std::string_view, 6> names{
    "CPATH",        "C_INCLUDE_PATH",    "CPLUS_INCLUDE_PATH",
    "LIBRARY_PATH", "SOURCE_DATE_EPOCH", "COMPILER_PATH"
  };
  return std::ranges::any_of(prefixes, [&](auto p) { return name.starts_with(p); }) ||
         std::ranges::find(names, name) != names.end();
}

namespace {

std::string absolute_in(const std::string& cwd, const std::string& path) {
  if (path.empty())
    return path;
  return (path[0] == '/' ? std::filesystem::path(path) : std::filesystem::path(cwd) / path)
    .lexically_normal()
    .string();
}

std::string current_dir() {
  const char* pwd = std::getenv("PWD");
  char buf[4096];
  if (!::getcwd(buf, sizeof buf))
    return pwd ? pwd : "";
  struct stat a {
  }, b{};
  // PWD names the working directory as the build saw it (a symlinked checkout) when it is it.
  if (pwd && *pwd == '/' && ::stat(pwd, &a) == 0 && ::stat(buf, &b) == 0 && a.st_ino == b.st_ino &&
      a.st_dev == b.st_dev)
    return pwd;
  return buf;
}

std::string getenv_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The identity's digits in the install's snapshot (shim/formats/identity_snapshot.h), "" if none.
std::string snapshot_identity(const std::string& state_dir) {
  std::string text = util::read_text_file(state_dir + "/" SHIMCTL_IDENTITY_NAME);
  auto at = text.find("\n" SHIMCTL_IDENTITY_FINGERPRINT);
  if (at == std::string::npos)
    return {};
  at += 1 + std::strlen(SHIMCTL_IDENTITY_FINGERPRINT);
  return text.size() >= at + 32 ? text.substr(at, 32) : std::string();
}

// The toolchain's fingerprint digits now, from `shimctl identity-check PREFIX` (it hashes the
// toolchain again, writes the snapshot, and keeps the files' list for explain); "" unknown.
std::string checked_identity(const std::string& prefix) {
  auto run = util::run({ util::self_executable(), "identity-check", prefix });
  if (!run || !run->ok() || !shimctl_is_fingerprint(run->out.c_str()))
    return {};
  return run->out.substr(0, 32);
}

// The toolchain files of IDENTITY kept for explain, from the install's manifest when its
// fingerprint is that one (identity-check keeps those of a fingerprint it computes).
void keep_toolchain_files(const std::string& dir,
                          const std::string& state_dir,
                          const std::string& identity) {
  if (dir.empty() || identity.empty() || load_toolchain_files(dir, identity))
    return;
  std::string text = util::read_text_file(state_dir + "/" + std::string(core::manifest_file));
  auto j = nlohmann::json::parse(text, nullptr, false);
  try {
    if (j.is_discarded() ||
        !j.at("fingerprint").at("sha256").get<std::string>().starts_with(identity))
      return;
    ToolchainFiles files;
    for (const auto& in : j.at("fingerprint").at("inputs"))
      files[in.at("path").get<std::string>()] = in.at("sha256").get<std::string>();
    save_toolchain_files(dir, identity, files);
  } catch (const nlohmann::json::exception&) {
  }
}

} // namespace

CompileRecord record_of_compile(const RecordVar& var,
                                const std::string& state_dir,
                                const std::string& tool,
                                const std::vector<std::string>& argv) {
  CompileRecord r;
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  r.time_ns = static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  r.tool = tool;
  auto slash = state_dir.rfind('/');
  r.prefix = slash == 0 ? "/" : state_dir.substr(0, slash == std::string::npos ? 0 : slash);
  r.cwd = current_dir();
  r.args.assign(argv.begin() + (argv.empty() ? 0 : 1), argv.end());
  std::vector<char*> c_argv;
  for (const auto& a : argv)
    c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  auto traits = traits_of(static_cast<int>(argv.size()), c_argv.data(), nullptr, nullptr);
  r.output = absolute_in(r.cwd, traits.output ? traits.output : "");
  r.source = absolute_in(r.cwd, traits.source ? traits.source : "");
  r.identity = var.identity == "stale" ? checked_identity(r.prefix)
               : var.identity.empty()  ? snapshot_identity(state_dir)
                                       : var.identity;
  r.target_key = var.target_key;
  r.store = var.store;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string_view::npos && decides_output(entry.substr(0, eq)))
      r.env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  bool sccache = tool == "sccache";
  r.cache_dir = getenv_or_empty(sccache ? "SCCACHE_DIR" : "CCACHE_DIR");
  r.max_size = getenv_or_empty(sccache ? "SCCACHE_CACHE_SIZE" : "CCACHE_MAXSIZE");
  // The limit shimctl keeps over the whole cache, when it keeps one (cache/cache_budget.hpp:
  // SHIMCTL_CACHE_BUDGET="BYTES TOOL-LIMIT TOOL", TOOL-LIMIT the tool's own, a multiple of it).
  std::string budget_text = getenv_or_empty("SHIMCTL_CACHE_BUDGET");
  auto budget = util::words_of(budget_text);
  if (budget.size() >= 2 && budget[1] == r.max_size && !budget[0].empty() &&
      std::ranges::all_of(budget[0], [](char c) { return c >= '0' && c <= '9'; }))
    r.max_size = fmt::format("{}k", std::stoull(std::string(budget[0])) / 1000);

  std::string depfile = var.depfile;
  for (std::size_t i = 1; depfile.empty() && i + 1 < argv.size(); ++i)
    if (argv[i] == "-MF")
      depfile = argv[i + 1];
  std::vector<std::string> inputs;
  if (!depfile.empty())
    inputs = depfile_inputs(util::read_text_file(depfile));
  r.inputs_from = inputs.empty() ? "source" : "depfile";
  if (inputs.empty() && traits.source)
    inputs.emplace_back(traits.source);
  std::string dir = records_dir();
  FileHashes hashes(dir.empty() ? std::string() : dir + "/file-hashes");
  for (auto& path : inputs)
    r.inputs.push_back({ path, hashes.hash(path) });
  hashes.save();
  return r;
}

namespace {

// Dies of SIGNAL as the compile did, or returns its exit code.
int pass_on(int status) {
  if (WIFSIGNALED(status)) {
    std::signal(WTERMSIG(status), SIG_DFL);
    std::raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

void note_in_measure_log(const std::string& path) {
  const char* log = std::getenv(SHIMCTL_MEASURE_LOG);
  if (!log || !*log)
    return;
  int fd = ::open(log, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return;
  (void)util::write_all(fd, fmt::format("{}\n{}\n", SHIMCTL_MEASURE_MISS_RECORD, path));
  ::close(fd);
}

} // namespace

int run_record_miss(int argc, char** argv) {
  // argv: shimctl record-miss STATE_DIR TOOL VERDICT IDENTITY SHIM -- ARGV0 ARGS... A shim of
  // another shimctl may hand over other words before SHIM: the compile still runs, unrecorded.
  int dash = 2;
  while (dash < argc && std::strcmp(argv[dash], "--") != 0)
    ++dash;
  if (dash < 3 || dash + 1 >= argc) {
    fmt::print(stderr, "shimctl: error: record-miss is the shim's; see 'shimctl --help'\n");
    return static_cast<int>(util::ExitCode::usage);
  }
  const char* shim = argv[dash - 1];
  char** compile = argv + dash + 1;
  auto var = dash == 7 ? parse_record_var(getenv_or_empty(SHIMCTL_RECORD_VAR)) : std::nullopt;
  if (var && var->identity.empty() && std::string_view(argv[5]) != "-")
    var->identity = argv[5];      // the nested shim's: the toolchain as it is now
  ::unsetenv(SHIMCTL_RECORD_VAR); // the compile below, and every shim it runs, records nothing
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, shim, nullptr, nullptr, compile, environ);
  if (rc != 0) {
    ::execv(shim, compile);
    fmt::print(stderr, "shimctl: error: cannot run {}: {}\n", shim, std::strerror(rc));
    return 127;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (var && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    try {
      auto record = record_of_compile(*var, argv[2], argv[3], { compile, argv + argc });
      record.tool_ran_it = std::string_view(argv[4]) == "tool-ran-it";
      auto dir = core::make_user_cache_dir("records");
      keep_toolchain_files(dir ? *dir : std::string(), argv[2], record.identity);
      if (dir && !record.output.empty())
        if (auto path = write_record(*dir, record)) {
          note_in_measure_log(*path);
          std::random_device random;
          if (random() % 64 == 0)
            prune_records(*dir);
        }
    } catch (const std::exception&) { // a record is never worth a failed compile
    }
  }
  return pass_on(status);
}

} // namespace shimctl::records
