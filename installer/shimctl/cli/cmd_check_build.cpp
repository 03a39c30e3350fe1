// `shimctl check-build BUILD_DIR [--json]`: whether each language of a build tree is cached.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <shimctl/build/build_check.hpp>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/cli/progress.hpp>

namespace shimctl::cli {

namespace {

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

void add_check_build_command(CLI::App& app, core::Context& context, Registry& registry) {
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
