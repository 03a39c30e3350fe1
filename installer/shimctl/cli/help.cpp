#include <array>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <shimctl/cli/help.hpp>

namespace shimctl::cli {

namespace {

constexpr std::array exit_code_docs{
  ExitCodeDoc{ 0, "success" },
  ExitCodeDoc{ 1,
               "the operation failed (a verification check failed, a rollback was refused, ...)" },
  ExitCodeDoc{ 2, "bad command line or bad input (an unknown prefix, a missing cache tool, ...)" },
  ExitCodeDoc{ 3, "another shimctl holds the prefix's lock (see --wait)" },
  ExitCodeDoc{ 4, "the prefix has no shimctl installation" },
  ExitCodeDoc{ 5, "the manifest or journal is damaged" },
};

constexpr std::array measure_exit_codes{
  ExitCodeDoc{ 0, "the build succeeded (whatever its hit rate)" },
  ExitCodeDoc{ 2, "bad command line, or the build command could not start" },
  ExitCodeDoc{ -1, "otherwise the build command's own exit code" },
};

constexpr std::array check_build_exit_codes{
  ExitCodeDoc{ 0, "every compiled language of the build goes through a cache" },
  ExitCodeDoc{ 1, "some compiles bypass the cache" },
  ExitCodeDoc{ 2, "not a configured CMake build directory, or bad command line" },
};

// Examples per command path; shown in --help and in the man page.
const std::map<std::string_view, std::vector<Example>, std::less<>>& example_table() {
  static const std::map<std::string_view, std::vector<Example>, std::less<>> table{
    { "",
      { { "shimctl install /opt/rocm", "wrap hipcc, clang, clang++, ... with ccache, verify" },
        { "shimctl verify /opt/rocm", "check again at any time" },
        { "shimctl rollback /opt/rocm", "every original back, byte-identical" },
        { "shimctl install --help", "the options of one command" } } },
    { "install",
      { { "shimctl install /opt/rocm", "wrap every compiler the layout knows, then verify" },
        { "shimctl install /opt/rocm --cache-dir /var/cache/ccache --max-size 50G", "" },
        { "shimctl install /usr/local/cuda --cuda-arch sm_80", "wrap nvcc" },
        { "shimctl install /opt/rocm --compilers hipcc --dry-run", "print the plan only" },
        { "shimctl install /opt/rocm --divert",
          "ROCm from apt: package upgrades land on NAME.real, under the shim" },
        { "shimctl install /opt/rocm --shared-cache /srv/ccache --group build",
          "one cache for a group of users or containers" },
        { "shimctl install /opt/rocm --remote redis://cache:6379 --remote-read-only",
          "CI: read the shared cache, never write it" },
        { "shimctl install /opt/rocm --remote redis://PASSWORD@cache:6379",
          "the password only in /opt/rocm/.shimctl/secrets (0600)" },
        { "shimctl install /opt/rocm --base-dir $HOME/deps",
          "a dependency tree at another path on each machine: its compiles hit anyway" } } },
    { "verify",
      { { "shimctl verify /opt/rocm", "files intact, compiles through the shim, repeat hits" },
        { "shimctl verify /opt/rocm --json | jq '.checks[] | select(.result != \"ok\")'", "" } } },
    { "rollback",
      { { "shimctl rollback /opt/rocm", "restore every original, remove the shims" },
        { "shimctl rollback /opt/rocm --force", "even if an original changed since install" } } },
    { "status",
      { { "shimctl status /opt/rocm", "what is wrapped, the cache, hits and misses" },
        { "shimctl status /opt/rocm --json", "" } } },
    { "refresh",
      { { "apt-get upgrade && shimctl refresh /opt/rocm",
          "record the toolchain's new identity after an update" } } },
    { "fingerprint",
      { { "shimctl fingerprint /opt/rocm", "the identity hash and each file in it" },
        { "shimctl fingerprint /opt/rocm --json", "" } } },
    { "cache-key",
      { { "shimctl cache-key /opt/rocm", "e.g. rocm-3f9a0c1d2e4b5a69" },
        { "key=ccache-$(shimctl cache-key /opt/rocm)", "name a CI cache after the toolchain" } } },
    { "cache",
      { { "shimctl cache export ccache.tar.zst /opt/rocm", "" },
        { "shimctl cache import ccache.tar.zst /opt/rocm", "" } } },
    { "cache export",
      { { "shimctl cache export ccache-$(shimctl cache-key /opt/rocm).tar.zst /opt/rocm",
          "save the local cache at the end of a CI job" } } },
    { "cache import",
      { { "shimctl cache import ccache-$(shimctl cache-key /opt/rocm).tar.zst /opt/rocm",
          "restore it at the start of the next job" },
        { "shimctl cache import old.tar.zst /opt/rocm --force",
          "an archive of another toolchain (its entries will not hit)" } } },
    { "measure",
      { { "shimctl measure -- ninja -C build", "this build's own hits and misses" },
        { "shimctl measure --json -- make -j8", "" } } },
    { "explain",
      { { "shimctl explain build/CMakeFiles/app.dir/k.hip.o", "why its last compile missed" },
        { "shimctl explain --source src/k.hip --json", "" },
        { "shimctl explain --against ci-cache.tar.zst build/k.o",
          "CI's record of it against here" } } },
    { "check-build",
      { { "shimctl check-build build", "does each language of this CMake tree hit a cache?" },
        { "shimctl check-build build --json", "" } } },
  };
  return table;
}

// Metavars that say what a value is, by option (long name or positional name).
const std::map<std::string_view, std::string_view, std::less<>>& metavars() {
  static const std::map<std::string_view, std::string_view, std::less<>> table{
    { "wait", "SECONDS" },     { "compilers", "LIST" },    { "layout", "NAME" },
    { "cache", "TOOL" },       { "cache-tool", "PATH" },   { "cache-dir", "DIR" },
    { "shared-cache", "DIR" }, { "group", "GROUP" },       { "max-size", "SIZE" },
    { "remote", "URL" },       { "offload-arch", "ARCH" }, { "cuda-arch", "ARCH" },
    { "base-dir", "DIR" },     { "prefix", "DIR" },        { "file", "FILE" },
    { "build_dir", "DIR" },    { "source", "FILE" },       { "against", "ARCHIVE" },
    { "object", "OBJECT" },
  };
  return table;
}

// Options on one line each: "-h,--help" (no "{false}" for negated flags),
// positionals by name, a wider name column.
class Formatter : public CLI::Formatter {
public:
  Formatter() {
    column_width(40);
  }
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    if (positional)
      return opt->get_name(true);
    std::string names;
    for (const auto& s : opt->get_snames())
      names += (names.empty() ? "-" : ",-") + s;
    for (const auto& l : opt->get_lnames())
      names += (names.empty() ? "--" : ",--") + l;
    return names;
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_positional())
      return opt->get_required() ? " (required)" : "";
    auto opts = CLI::Formatter::make_option_opts(opt);
    // A list option taking one value per occurrence (--compilers a,b): no "...".
    constexpr std::string_view more = " ...";
    if (!opt->get_allow_extra_args() && opts.ends_with(more))
      opts.resize(opts.size() - more.size());
    return opts;
  }
};

std::string footer_for(std::string_view path) {
  std::string text;
  auto examples = examples_for(path);
  if (!examples.empty()) {
    text += "Examples:\n";
    for (const auto& e : examples)
      text += e.comment.empty() ? fmt::format("  {}\n", e.command)
                                : fmt::format("  {}\n      # {}\n", e.command, e.comment);
    text += "\n";
  }
  text += "Exit codes:\n";
  for (const auto& c : exit_codes_for(path))
    text += c.code < 0 ? fmt::format("     {}\n", c.meaning)
                       : fmt::format("  {}  {}\n", c.code, c.meaning);
  if (path.empty())
    text += "\nMore: man shimctl; shimctl COMMAND --help\n";
  return text;
}

void decorate(CLI::App& app, const std::shared_ptr<Formatter>& formatter) {
  app.formatter(formatter);
  for (auto* opt : app.get_options()) {
    std::string key = opt->get_lnames().empty() ? opt->get_name(true) : opt->get_lnames().front();
    auto metavar = metavars().find(key);
    if (metavar != metavars().end() && opt->get_expected_max() != 0)
      opt->type_name(std::string(metavar->second));
  }
  auto footer = footer_for(command_path(app));
  app.footer(footer.substr(0, footer.size() - 1));
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
    decorate(*sub, formatter);
}

} // namespace

std::string command_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* a = &app; a->get_parent(); a = a->get_parent())
    path = path.empty() ? a->get_name() : a->get_name() + " " + path;
  return path;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::span<const Example> examples_for(std::string_view path) {
  auto it = example_table().find(path);
  if (it == example_table().end())
    return {};
  return it->second;
}

std::span<const ExitCodeDoc> exit_codes_for(std::string_view path) {
  if (path == "measure")
    return measure_exit_codes;
  if (path == "check-build")
    return check_build_exit_codes;
  return exit_code_docs;
}

void add_help(CLI::App& app, const core::Context& context, Registry& registry) {
  decorate(app, std::make_shared<Formatter>());
  auto* man = app.add_subcommand("help-man", "Print the man page (roff) generated from the parser");
  man->group("");
  registry.commands.push_back({ man, [&app, &context] {
                                 fmt::print("{}", man_page(app, context.version));
                                 return 0;
                               } });
  auto* completion = app.add_subcommand(
    "help-completion", "Print the bash completion tables generated from the parser");
  completion->group("");
  registry.commands.push_back({ completion, [&app] {
                                 fmt::print("{}", completion_tables(app));
                                 return 0;
                               } });
}

} // namespace shimctl::cli
