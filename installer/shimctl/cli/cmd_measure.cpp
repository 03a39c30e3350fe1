// `shimctl measure [--json] -- BUILD...`: a build's own cache statistics, each tool's from the
// tool itself, and the calls the shim ran without the cache apart from them.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <shimctl/build/build_stats.hpp>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/records/archive_records.hpp>
#include <shimctl/records/reasons_table.hpp>

namespace shimctl::cli {

namespace {

struct MeasureArgs {
  std::vector<std::string> command;
  std::string against;
  bool json = false;
};

// "2 link, 1 preprocess"
std::string by_name(const std::map<std::string, std::uint64_t>& counts) {
  std::string out;
  for (const auto& [name, count] : counts)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", count, name);
  return out;
}

std::uint64_t total_of(const std::map<std::string, std::uint64_t>& counts) {
  std::uint64_t total = 0;
  for (const auto& [name, count] : counts)
    total += count;
  return total;
}

nlohmann::json counts_json(const cache::BuildCounts& c) {
  return { { "calls", c.calls },
           { "compiles", c.compiles() },
           { "hits", c.hits },
           { "misses", c.misses },
           { "uncacheable", c.uncacheable } };
}

// "-DNDEBUG (3), ../include/foo.h (1)"
std::string top_text(const records::ReasonRow& row) {
  std::string out;
  for (const auto& [subject, count] : row.top)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", subject, count);
  return out;
}

nlohmann::json reasons_json(const records::ReasonsTable& table, std::uint64_t misses) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : table.rows) {
    nlohmann::json top = nlohmann::json::array();
    for (const auto& [subject, count] : row.top)
      top.push_back({ { "subject", subject }, { "count", count } });
    rows.push_back(
      { { "reason", records::reason_name(row.reason) }, { "count", row.count }, { "top", top } });
  }
  return { { "rows", rows },
           { "explained", table.explained },
           { "without_record", misses - std::min(misses, table.explained) } };
}

// What one build needs of each cache dir: the bytes of the entries it wrote or used.
void print_needs(const std::vector<build::BuildNeed>& needs) {
  for (const auto& need : needs)
    fmt::print(stderr,
               "shimctl measure: one build needs {} of {} ({} entries written or used; 'shimctl "
               "install --max-size' that cannot hold it warns)\n",
               util::size_text(need.bytes),
               need.dir,
               need.files);
}

nlohmann::json needs_json(const std::vector<build::BuildNeed>& needs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& need : needs)
    out.push_back({ { "dir", need.dir }, { "bytes", need.bytes }, { "entries", need.files } });
  return out;
}

// The reasons table under the counts: every miss by reason, the top subjects behind each.
void print_reasons(const records::ReasonsTable& table,
                   std::uint64_t misses,
                   std::uint64_t compiles) {
  if (misses == 0 && table.explained == 0) {
    if (compiles > 0)
      fmt::print(stderr, "shimctl measure: 0 misses: every compile hit\n");
    return;
  }
  fmt::print(stderr,
             "shimctl measure: why they missed ({} of {} misses have a record; 'shimctl explain "
             "OBJECT' for one):\n",
             table.explained,
             misses);
  for (const auto& row : table.rows)
    fmt::print(
      stderr, "  {:>5}  {:<14} {}\n", row.count, records::reason_name(row.reason), top_text(row));
  if (misses > table.explained)
    fmt::print(stderr,
               "  {:>5}  {:<14} misses the cache tool counted without a record (SHIMCTL_RECORDS=0, "
               "or a compile the tool ran itself)\n",
               misses - table.explained,
               "no-record");
}

int run_measure(const MeasureArgs& args, Warnings& warnings) {
  std::optional<std::vector<records::StoredRecord>> archive;
  if (!args.against.empty()) { // read before the build: a bad archive wastes no build
    auto read = records::records_in_archive(args.against);
    if (!read)
      return report_error(read.error());
    archive = std::move(*read);
  }
  auto stats = build::measure_build(
    args.command, args.json ? build::BuildStdout::to_stderr : build::BuildStdout::inherit);
  if (!stats)
    return report_error(stats.error());
  const auto& s = *stats;
  const auto total = s.total();
  auto reasons =
    records::reasons_of(s.miss_records, records::records_dir(), archive ? &*archive : nullptr);
  for (const auto& line : reasons.unreadable)
    warnings.add(line);
  std::string warning;
  if (total.calls == 0)
    warning = "zero compiles reached the cache: the launcher never reached the compiler (is the "
              "build using the shimmed compilers or a ccache launcher, and was it already up to "
              "date?)";
  else if (total.compiles() == 0)
    warning =
      fmt::format("{} calls reached {} but none was a cacheable compile", total.calls, s.tool());
  if (args.json) {
    for (const auto& w : s.warnings)
      warnings.add(w);
    if (!warning.empty())
      warnings.add(warning);
    nlohmann::json by_tool = nlohmann::json::object();
    for (const auto& [name, counts] : s.tools)
      by_tool[name] = counts_json(counts);
    nlohmann::json j{ { "exit_code", s.exit_code }, { "tool", s.tool() },
                      { "calls", total.calls },     { "compiles", total.compiles() },
                      { "hits", total.hits },       { "misses", total.misses },
                      { "hit_rate", s.hit_rate() }, { "uncacheable", total.uncacheable },
                      { "not_sent", s.not_sent },   { "by_tool", by_tool } };
    if (!s.pieces.empty())
      j["pieces"] = s.pieces;
    if (!s.device_links.empty())
      j["device_links"] = s.device_links;
    j["reasons"] = reasons_json(reasons, total.misses);
    j["needs"] = needs_json(s.needs);
    if (!warning.empty())
      j["warning"] = warning; // before "warnings"; kept for scripts that read it
    print_json(std::move(j), warnings);
  } else {
    fmt::print(stderr,
               "shimctl measure: {} compiles through the cache: {} hits, {} misses, "
               "hit rate {:.1f}% ({})",
               total.compiles(),
               total.hits,
               total.misses,
               100.0 * s.hit_rate(),
               s.tool());
    std::uint64_t other = total.calls - std::min(total.calls, total.compiles());
    if (other) // the tool's own count of calls it did not cache, by its reasons
      fmt::print(stderr,
                 "; {} other calls {} did not cache{}{}",
                 other,
                 s.tool(),
                 total.uncacheable.empty() ? "" : ": ",
                 by_name(total.uncacheable));
    if (!s.not_sent.empty()) // links, -E, ...: the shim ran them without the cache tool
      fmt::print(stderr,
                 "; {} calls the shim ran without the cache: {}",
                 total_of(s.not_sent),
                 by_name(s.not_sent));
    if (!s.pieces.empty()) // per GPU target, apart from the whole objects above
      fmt::print(stderr,
                 "; GPU target pieces: {} hits, {} compiled",
                 pieces::count_of(s.pieces, pieces::piece_hit),
                 pieces::count_of(s.pieces, pieces::piece_miss));
    if (!s.device_links.empty()) // per GPU target (-fgpu-rdc)
      fmt::print(stderr,
                 "; device links: {} hits, {} linked, {} uncached",
                 util::count_in(s.device_links, links::link_hit),
                 util::count_in(s.device_links, links::link_miss),
                 util::count_in(s.device_links, links::link_uncached));
    fmt::print(stderr, "; build exit code {}\n", s.exit_code);
    print_reasons(reasons, total.misses, total.compiles());
    print_needs(s.needs);
    for (const auto& w : s.warnings)
      warnings.add(w);
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
  measure->add_option("--against",
                      margs->against,
                      "Explain the misses against CI's records in this cache archive (`shimctl "
                      "cache export`)");
  measure->add_option("command", margs->command, "The build command, after --")->required();
  registry.commands.push_back(
    { measure, [&registry, margs] { return run_measure(*margs, registry.warnings); } });
}

} // namespace shimctl::cli
