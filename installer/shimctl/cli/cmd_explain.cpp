// `shimctl explain [--json] [--against ARCHIVE] (OBJECT | --source FILE)`: why the last compile
// of OBJECT missed, from the compile records the shims write on a miss (records/): the first
// difference against the record before it (or CI's record of it) in one line, then the rest.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <shimctl/cli/command_table.hpp>
#include <shimctl/records/archive_records.hpp>
#include <shimctl/records/miss_reason.hpp>
#include <shimctl/records/record_lookup.hpp>

namespace shimctl::cli {

namespace {

struct ExplainArgs {
  std::string object;
  std::string source;
  std::string against;
  bool json = false;
};

nlohmann::json explanation_json(const records::Explanation& e) {
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& d : e.differences)
    differences.push_back({ { "reason", records::reason_name(d.reason) },
                            { "text", d.text },
                            { "subject", d.subject } });
  nlohmann::json j{ { "object", e.miss.record.output },
                    { "source", e.miss.record.source },
                    { "reason", records::reason_name(e.reason) },
                    { "line", e.line },
                    { "subject", e.subject },
                    { "differences", differences },
                    { "record", e.miss.path },
                    { "time", records::time_text(e.miss.record.time_ns) },
                    { "before", nullptr } };
  if (e.before)
    j["before"] = { { "record", e.before->path },
                    { "output", e.before->record.output },
                    { "time", records::time_text(e.before->record.time_ns) } };
  return j;
}

int run_explain(const ExplainArgs& args, Warnings& warnings) {
  if (args.object.empty() == args.source.empty())
    return report_error(util::Error{
      "explain: name one object, or one source with --source; see 'shimctl explain --help'",
      util::ExitCode::usage });
  std::string dir = records::records_dir();
  auto miss = args.object.empty() ? records::last_miss_of_source(dir, args.source)
                                  : records::last_miss_of_object(dir, args.object);
  if (!miss)
    return report_error(miss.error());
  std::optional<records::StoredRecord> before;
  auto against = records::Against::earlier;
  if (!args.against.empty()) {
    auto archive = records::records_in_archive(args.against);
    if (!archive)
      return report_error(archive.error());
    before = records::archive_record(*archive, *miss);
    against = records::Against::archive;
  } else {
    before = records::earlier_record(dir, *miss);
  }
  auto e = records::explain_miss(*miss, before, dir, against);
  if (args.json) {
    print_json(explanation_json(e), warnings);
    return 0;
  }
  fmt::print("{}\n", e.line);
  fmt::print("  the miss: {} at {} ({})\n",
             e.miss.record.output,
             records::time_text(e.miss.record.time_ns),
             e.miss.path);
  if (e.before)
    fmt::print("  compared with: {} at {}{}\n",
               e.before->record.output,
               records::time_text(e.before->record.time_ns),
               against == records::Against::archive ? " (CI's record)" : "");
  for (std::size_t i = 1; i < e.differences.size(); ++i)
    fmt::print("  also: {}\n", e.differences[i].text);
  return 0;
}

} // namespace

void add_explain_command(CLI::App& app, core::Context& /*context*/, Registry& registry) {
  auto eargs = std::make_shared<ExplainArgs>();
  auto* explain = app.add_subcommand(
    "explain", "Say why the last compile of an object missed the cache, from its compile record");
  explain->add_option("object", eargs->object, "The object file (as the build's -o named it)");
  explain->add_option("--source", eargs->source, "Explain the last miss that compiled this source");
  explain->add_option("--against",
                      eargs->against,
                      "Compare with CI's record of the same output in this cache archive "
                      "(`shimctl cache export`)");
  explain->add_flag("--json", eargs->json, "Print JSON on stdout");
  registry.commands.push_back(
    { explain, [&registry, eargs] { return run_explain(*eargs, registry.warnings); } });
}

} // namespace shimctl::cli
