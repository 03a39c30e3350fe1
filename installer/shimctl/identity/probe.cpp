#include <shimctl/identity/probe.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>

namespace shimctl::identity {

namespace {

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty())
    return;
  for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
    text.replace(pos, from.size(), to);
}

} // namespace

util::Result<std::string> job_list(const std::string& prefix,
                                   const std::string& invoked,
                                   const std::vector<Rename>& renames) {
  TRY_ASSIGN(auto scratch, util::ScratchDir::create("probe"));
  TRY(scratch.write("probe.cpp", "int main() { return 0; }\n"));
  util::RunOptions options;
  options.cwd = scratch.path();
  options.env["SHIMCTL_DISABLE"] = std::nullopt;
  TRY_ASSIGN(
    auto r,
    util::run({ prefix + "/" + invoked, "-###", "-c", "probe.cpp", "-o", "probe.o" }, options));
  std::string text = fmt::format("exit {}\n{}", r.exit_code, r.err);
  for (const auto& [real_exe, original_exe] : renames)
    replace_all(text, real_exe, original_exe);
  replace_all(text, scratch.path(), "$SCRATCH");
  return text;
}

util::Result<std::map<std::string, std::string>> record_job_lists(const std::string& prefix,
                                                                  const core::WrapTarget& target) {
  std::map<std::string, std::string> lists;
  TRY_ASSIGN(lists[target.path], job_list(prefix, target.path, {}));
  for (const auto& alias : target.aliases) {
    TRY_ASSIGN(lists[alias.path], job_list(prefix, alias.path, {}));
  }
  return lists;
}

} // namespace shimctl::identity
