#include <nlohmann/json.hpp>
#include <shimctl/records/compile_record.hpp>

namespace shimctl::records {

using util::ExitCode;
using util::fail;

std::string record_json(const CompileRecord& r) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& in : r.inputs)
    inputs.push_back({ in.sha, in.path });
  nlohmann::json j{
    { "format", record_format },  { "version", record_version },    { "time_ns", r.time_ns },
    { "tool", r.tool },           { "prefix", r.prefix },           { "cwd", r.cwd },
    { "output", r.output },       { "source", r.source },           { "args", r.args },
    { "identity", r.identity },   { "target_key", r.target_key },   { "env", r.env },
    { "store", r.store },         { "inputs_from", r.inputs_from }, { "inputs", inputs },
    { "cache_dir", r.cache_dir }, { "max_size", r.max_size },       { "tool_ran_it", r.tool_ran_it }
  };
  return j.dump() + "\n";
}

namespace {

template<typename T>
void take(const nlohmann::json& j, const char* name, T& into) {
  if (j.contains(name))
    into = j.at(name).get<T>();
}

} // namespace

util::Result<CompileRecord> parse_record(std::string_view text, const std::string& where) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("format") ||
      j.at("format") != record_format || !j.contains("version") ||
      !j.at("version").is_number_integer())
    return fail(ExitCode::usage,
                "{} is not a compile record (cut short or garbage): remove it, the next miss "
                "writes a new one",
                where);
  if (int version = j.at("version").get<int>(); version > record_version)
    return fail(ExitCode::usage,
                "{} is a compile record of format {}, newer than this shimctl's {}: use the "
                "shimctl that wrote it, or remove it",
                where,
                version,
                record_version);
  CompileRecord r;
  try {
    take(j, "time_ns", r.time_ns);
    take(j, "tool", r.tool);
    take(j, "prefix", r.prefix);
    take(j, "cwd", r.cwd);
    take(j, "output", r.output);
    take(j, "source", r.source);
    take(j, "args", r.args);
    take(j, "identity", r.identity);
    take(j, "target_key", r.target_key);
    take(j, "env", r.env);
    take(j, "store", r.store);
    take(j, "inputs_from", r.inputs_from);
    take(j, "cache_dir", r.cache_dir);
    take(j, "max_size", r.max_size);
    take(j, "tool_ran_it", r.tool_ran_it);
    if (j.contains("inputs"))
      for (const auto& in : j.at("inputs"))
        r.inputs.push_back({ in.at(1).get<std::string>(), in.at(0).get<std::string>() });
  } catch (const nlohmann::json::exception&) {
    return fail(ExitCode::usage,
                "{} is not a compile record (a field of the wrong type): remove it, the next miss "
                "writes a new one",
                where);
  }
  if (r.output.empty() || r.output[0] != '/')
    return fail(ExitCode::usage, "{} is not a compile record (no output): remove it", where);
  return r;
}

} // namespace shimctl::records
