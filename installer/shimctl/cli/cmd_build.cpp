// `shimctl measure [--json] -- BUILD...` and `shimctl check-build BUILD_DIR [--json]`.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <shimctl/build/build_check.hpp>
#include <shimctl/build/build_stats.hpp>
#include <shimctl/cli/commands.hpp>
#include <shimctl/cli/progress.hpp>

namespace shimctl::cli {

namespace {

struct MeasureArgs {
  std::vector<std::string> command;
  bool json = false;
};

int run_measure(const MeasureArgs& args, Warnings& warnings) {
  auto stats = build::measure_build(
    args.command, args.json ? build::BuildStdout::to_stderr : build::BuildStdout::inherit);
  if (!stats)
    return report_error(stats.error());
  const auto& s = *stats;
  bool none = s.calls == 0;
  std::string warning;
  if (none)
    warning = "zero compiles reached the cache: the launcher never reached the compiler (is the "
              "build using the shimmed compilers or a ccache launcher, and was it already up to "
              "date?)";
  else if (s.compiles() == 0)
    warning = fmt::format("{} calls reached ccache but none was a cacheable compile", s.calls);
  if (args.json) {
    if (!warning.empty())
      warnings.add(warning);
    nlohmann::json j{ { "exit_code", s.exit_code },    { "calls", s.calls },
                      { "compiles", s.compiles() },    { "hits", s.hits },
                      { "misses", s.misses },          { "hit_rate", s.hit_rate() },
                      { "uncacheable", s.uncacheable } };
    if (!warning.empty())
      j["warning"] = warning; // before "warnings"; kept for scripts that read it
    print_json(std::move(j), warnings);
  } else {
    fmt::print(stderr,
               "shimctl measure: {} compiles through the cache: {} hits, {} misses, "
               "hit rate {:.1f}%",
               s.compiles(),
               s.hits,
               s.misses,
               100.0 * s.hit_rate());
    std::uint64_t other = s.calls - std::min(s.calls, s.compiles());
    if (other) {
      // By kind: ccache's counters and the shim's (links and -E never reach ccache through a
      // shim; a one-step compile-and-link is not cacheable by ccache at all).
      std::string kinds;
      for (const auto& [name, count] : s.uncacheable)
        kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", count, name);
      fmt::print(stderr, " ({} other calls not cacheable: {})", other, kinds);
    }
    fmt::print(stderr, "; build exit code {}\n", s.exit_code);
    if (!warning.empty())
      warnings.add(warning);
  }
  return s.exit_code;
}

// The compiler CMakeCache.txt names, when the rules run another one.
std::string cache_compiler_note(const build::LanguageCheck& l) {
  if (l.cache_compiler.empty() || l.cache_compiler == l.compiler)
    return "";
  return fmt::format("; CMakeCache.txt names {}", l.cache_compiler);
}

int run_check(core::Context& context, const std::string& dir, bool json, Warnings& warnings) {
  attach_progress(context, json);
  auto check = build::check_build(context, dir);
  if (!check)
    return report_error(check.error());
  if (json) {
    for (const auto& w : check->warnings)
      warnings.add(w);
    nlohmann::json langs = nlohmann::json::array();
    for (const auto& l : check->languages)
      langs.push_back({ { "language", l.language },
                        { "compiler", l.compiler },
                        { "cache_compiler", l.cache_compiler },
                        { "launcher", l.launcher },
                        { "sources", l.sources },
                        { "compiler_is_shim", l.compiler_is_shim },
                        { "cached", l.cached },
                        { "how", l.how } });
    print_json({ { "build_dir", check->build_dir },
                 { "generator", check->generator },
                 { "languages", langs },
                 { "ok", check->ok() } },
               warnings);
  } else {
    for (const auto& l : check->languages)
      fmt::print("{:<5} {:>4} compile(s)  {:<8}  {}  ({}{})\n",
                 l.language,
                 l.sources,
                 l.cached ? "cached" : "UNCACHED",
                 l.how,
                 l.compiler,
                 cache_compiler_note(l));
    std::fflush(stdout); // the table, then the warnings about it
    for (const auto& w : check->warnings)
      warnings.add(w);
    fmt::print("{}\n",
               check->ok() ? "every compiled language goes through a cache"
                           : "some compiles bypass the cache");
  }
  return check->ok() ? 0 : 1;
}

} // namespace

void add_build_commands(CLI::App& app, core::Context& context, Registry& registry) {
  auto margs = std::make_shared<MeasureArgs>();
  auto* measure = app.add_subcommand(
    "measure", "Run a build and report its own cache hits and misses (nobody's stats are zeroed)");
  measure->add_flag(
    "--json", margs->json, "Print JSON on stdout (the build's stdout goes to stderr)");
  measure->add_option("command", margs->command, "The build command, after --")->required();
  registry.commands.push_back(
    { measure, [&registry, margs] { return run_measure(*margs, registry.warnings); } });

  auto dir = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* check = app.add_subcommand(
    "check-build", "Report whether each language of a CMake build tree compiles through a cache");
  check->add_option("build_dir", *dir, "A configured CMake build directory")->required();
  check->add_flag("--json", *json, "Print machine-readable JSON on stdout");
  registry.commands.push_back({ check, [&context, &registry, dir, json] {
                                 return run_check(context, *dir, *json, registry.warnings);
                               } });
}

} // namespace shimctl::cli
