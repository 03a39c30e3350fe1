// `shimctl measure [--json] -- BUILD...`: a build's own cache statistics.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <shimctl/build/build_stats.hpp>
#include <shimctl/cli/command_table.hpp>

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

} // namespace

void add_measure_command(CLI::App& app, core::Context& /*context*/, Registry& registry) {
  auto margs = std::make_shared<MeasureArgs>();
  auto* measure = app.add_subcommand(
    "measure", "Run a build and report its own cache hits and misses (nobody's stats are zeroed)");
  measure->add_flag(
    "--json", margs->json, "Print JSON on stdout (the build's stdout goes to stderr)");
  measure->add_option("command", margs->command, "The build command, after --")->required();
  registry.commands.push_back(
    { measure, [&registry, margs] { return run_measure(*margs, registry.warnings); } });
}

} // namespace shimctl::cli
