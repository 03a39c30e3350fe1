#include <algorithm>
#include <set>
#include <shimctl/core/divert.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::core {

using util::ExitCode;
using util::fail;

namespace {

// Who diverts ABS_PATH ("" for nobody, "LOCAL" for a local diversion).
util::Result<std::string> diversion_holder(const std::string& abs_path) {
  TRY_ASSIGN(auto listed, util::run({ "dpkg-divert", "--listpackage", abs_path }));
  if (!listed.ok())
    return fail("dpkg-divert --listpackage {} failed: {}", abs_path, util::first_line(listed.err));
  return util::first_line(listed.out);
}

} // namespace

util::Result<std::vector<std::string>> packaged_compilers(const Manifest& m) {
  std::vector<std::string> packaged;
  if (m.compilers.empty() || util::find_in_path("dpkg-query").empty())
    return packaged;
  std::vector<std::string> argv{ "dpkg-query", "-S" };
  for (const auto& c : m.compilers)
    argv.push_back(m.prefix + "/" + c.path);
  // Exits 1 when some path belongs to no package; the others are still listed.
  TRY_ASSIGN(auto found, util::run(argv));
  std::set<std::string> owned;
  for (std::size_t start = 0; start < found.out.size();) {
    auto end = std::min(found.out.find('\n', start), found.out.size());
    auto line = found.out.substr(start, end - start);
    start = end + 1;
    auto colon = line.find(": ");
    // "diversion by X from: PATH" lines name a diversion, not an owner.
    if (colon == std::string::npos || line.starts_with("diversion by ") ||
        line.starts_with("local diversion "))
      continue;
    owned.insert(line.substr(colon + 2));
  }
  for (const auto& c : m.compilers)
    if (owned.contains(m.prefix + "/" + c.path))
      packaged.push_back(c.path);
  return packaged;
}

util::Status plan_diversions(Manifest& m, bool divert, std::vector<std::string>& notes) {
  if (divert && util::find_in_path("dpkg-divert").empty())
    return fail(ExitCode::usage,
                "--divert needs dpkg-divert (Debian's dpkg), which is not in "
                "PATH; install without --divert");
  TRY_ASSIGN(auto packaged, packaged_compilers(m));
  if (!divert) {
    if (!packaged.empty())
      notes.push_back(fmt::format("{} compiler(s) belong to a dpkg package (e.g. {}): a package "
                                  "upgrade will replace the shim; 'shimctl install --divert' "
                                  "makes upgrades land on the .real instead",
                                  packaged.size(),
                                  packaged.front()));
    return {};
  }
  if (packaged.empty())
    return fail(ExitCode::usage,
                "--divert: no compiler in {} belongs to a dpkg package "
                "(dpkg -S); install without --divert",
                m.prefix);
  for (auto& c : m.compilers)
    if (std::find(packaged.begin(), packaged.end(), c.path) != packaged.end())
      c.diverted_by = "dpkg";
  if (packaged.size() < m.compilers.size())
    notes.push_back(fmt::format("--divert: {} of {} compilers belong to a dpkg package; only "
                                "those are diverted",
                                packaged.size(),
                                m.compilers.size()));
  return {};
}

// `dpkg-divert --package shimctl --no-rename --divert REAL ACTION ABS_PATH`: --no-rename because
// shimctl's own journal steps move the files (without a gap).
static util::Status run_dpkg_divert(std::string_view action,
                                    const std::string& abs_path,
                                    const std::string& real) {
  TRY_ASSIGN(auto r,
             util::run({ "dpkg-divert",
                         "--package",
                         std::string(divert_owner),
                         "--no-rename",
                         "--divert",
                         real,
                         std::string(action),
                         abs_path }));
  if (!r.ok())
    return fail("dpkg-divert {} {} failed: {}", action, abs_path, util::first_line(r.err));
  return {};
}

util::Status add_diversion(const std::string& abs_path) {
  TRY_ASSIGN(auto holder, diversion_holder(abs_path));
  auto real = abs_path + ".real";
  if (holder == divert_owner) {
    TRY_ASSIGN(auto truename, util::run({ "dpkg-divert", "--truename", abs_path }));
    if (truename.ok() && util::first_line(truename.out) == real)
      return {};
  }
  if (!holder.empty())
    return fail("{} is already diverted by {} (dpkg-divert --list); remove that diversion or "
                "install without --divert",
                abs_path,
                holder == "LOCAL" ? "a local diversion" : holder);
  return run_dpkg_divert("--add", abs_path, real);
}

util::Status remove_diversion(const std::string& abs_path) {
  TRY_ASSIGN(auto holder, diversion_holder(abs_path));
  if (holder != divert_owner)
    return {}; // never added, or removed already
  return run_dpkg_divert("--remove", abs_path, abs_path + ".real");
}

} // namespace shimctl::core
