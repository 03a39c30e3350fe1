#include <algorithm>
#include <ctime>
#include <fmt/format.h>
#include <map>
#include <set>
#include <shim/option_table.h>
#include <shimctl/records/cache_fullness.hpp>
#include <shimctl/records/miss_reason.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::records {

std::string_view reason_name(MissReason reason) {
  switch (reason) {
    case MissReason::first_compile:
      return "first-compile";
    case MissReason::toolchain:
      return "toolchain";
    case MissReason::gpu_targets:
      return "gpu-targets";
    case MissReason::flags:
      return "flags";
    case MissReason::environment:
      return "environment";
    case MissReason::input_changed:
      return "input-changed";
    case MissReason::checkout_path:
      return "checkout-path";
    case MissReason::store_out:
      return "store-out";
    case MissReason::evicted:
      return "evicted";
    case MissReason::not_cacheable:
      return "not-cacheable";
    case MissReason::unknown:
      break;
  }
  return "unknown";
}

std::string time_text(std::int64_t time_ns) {
  std::time_t then = static_cast<std::time_t>(time_ns / 1'000'000'000);
  std::time_t now = std::time(nullptr);
  std::tm t{}, today{};
  ::localtime_r(&then, &t);
  ::localtime_r(&now, &today);
  char buf[32];
  bool same_day = t.tm_year == today.tm_year && t.tm_yday == today.tm_yday;
  std::strftime(buf, sizeof buf, same_day ? "%H:%M:%S" : "%Y-%m-%d %H:%M", &t);
  return buf;
}

namespace {

// ---- the arguments, as units of meaning --------------------------------------------------

bool is_dependency_option(std::string_view a) {
  return a == "-MD" || a == "-MMD" || a == "-MP" || a == "-MG" || a.starts_with("-MF") ||
         a.starts_with("-MT") || a.starts_with("-MQ") || a.starts_with("-Wp,-MD") ||
         a.starts_with("-Wp,-MMD");
}

bool takes_next(std::string_view a) {
  return a == "-MF" || a == "-MT" || a == "-MQ";
}

// Options that say nothing about the object: the depfile's, the CUID (it follows the output's
// name), diagnostics' colours (ccache adds them).
bool says_nothing(std::string_view a) {
  return a.starts_with("-cuid=") || a.starts_with("-fdiagnostics-color") ||
         a == "-fcolor-diagnostics" || a == "-fno-color-diagnostics";
}

std::vector<std::string> units_of(const std::vector<std::string>& args) {
  std::vector<std::string> units;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (is_dependency_option(a) || says_nothing(a)) {
      if (takes_next(a))
        ++i;
      continue;
    }
    if (shimctl_separate_option(a.c_str()) && i + 1 < args.size()) {
      units.push_back(a + " " + args[i + 1]);
      ++i;
      continue;
    }
    units.push_back(a);
  }
  return units;
}

bool names_gpu_target(std::string_view u) {
  return u.starts_with("--offload-arch=") || u.starts_with("--cuda-gpu-arch=") ||
         u.starts_with("--amdgpu-target=") || u.starts_with("-arch ") || u.starts_with("-arch=") ||
         u.starts_with("--gpu-architecture") || u.starts_with("-gencode") ||
         u.starts_with("--generate-code") || u.starts_with("-code=") || u.starts_with("-code ");
}

std::string target_of(std::string_view u) {
  auto at = u.find_first_of("= ");
  return std::string(at == std::string_view::npos ? u : u.substr(at + 1));
}

// What pairs a removed unit with an added one: "-O", "-std=", "-DNAME", "-fNAME" (and -fno-NAME).
std::string stem_of(std::string_view u) {
  if (u.starts_with("-O"))
    return "-O";
  if (u.starts_with("-D") || u.starts_with("-U")) {
    auto name = u.substr(2);
    if (name.starts_with(' '))
      name.remove_prefix(1);
    return "-D" + std::string(name.substr(0, name.find('=')));
  }
  if (u.starts_with("-fno-"))
    return "-f" + std::string(u.substr(5, u.find('=') - 5));
  if (auto eq = u.find('='); eq != std::string_view::npos)
    return std::string(u.substr(0, eq + 1));
  if (u.starts_with("-f") || u.starts_with("-m"))
    return std::string(u);
  return {};
}

// Multiset difference A - B, in A's order.
std::vector<std::string> minus(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::multiset<std::string> left(b.begin(), b.end());
  std::vector<std::string> out;
  for (const auto& u : a) {
    if (auto it = left.find(u); it != left.end())
      left.erase(it);
    else
      out.push_back(u);
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

void flag_differences(const std::vector<std::string>& before_args,
                      const std::vector<std::string>& now_args,
                      Against against,
                      std::vector<Difference>& out) {
  auto before = units_of(before_args), now = units_of(now_args);
  auto removed = minus(before, now), added = minus(now, before);
  auto is_target = [](const std::string& u) { return names_gpu_target(u); };
  if (std::ranges::any_of(removed, is_target) || std::ranges::any_of(added, is_target)) {
    std::vector<std::string> then_targets, now_targets;
    for (const auto& u : before)
      if (names_gpu_target(u))
        then_targets.push_back(target_of(u));
    for (const auto& u : now)
      if (names_gpu_target(u))
        now_targets.push_back(target_of(u));
    std::string a = then_targets.empty() ? "(the default)" : join(then_targets, ",");
    std::string b = now_targets.empty() ? "(the default)" : join(now_targets, ",");
    out.push_back({ MissReason::gpu_targets,
                    against == Against::archive
                      ? fmt::format("GPU targets: CI compiled it for {}, here for {}", a, b)
                      : fmt::format("GPU targets {} -> {}", a, b),
                    b });
    std::erase_if(removed, is_target);
    std::erase_if(added, is_target);
  }
  for (const auto& r : removed) {
    std::string stem = stem_of(r);
    auto paired =
      stem.empty() ? added.end()
                   : std::ranges::find_if(added, [&](const auto& a) { return stem_of(a) == stem; });
    if (paired != added.end()) {
      out.push_back({ MissReason::flags,
                      against == Against::archive
                        ? fmt::format("CI compiled it with {}, here {}", r, *paired)
                        : fmt::format("{} -> {}", r, *paired),
                      *paired });
      added.erase(paired);
      continue;
    }
    out.push_back({ MissReason::flags,
                    against == Against::archive
                      ? fmt::format("CI compiled it with {}, here without", r)
                      : fmt::format("{} removed", r),
                    r });
  }
  for (const auto& a : added)
    out.push_back({ MissReason::flags,
                    against == Against::archive
                      ? fmt::format("here compiled with {}, CI without", a)
                      : fmt::format("{} added", a),
                    a });
}

// ---- the toolchain -----------------------------------------------------------------------

std::string short_id(const std::string& id) {
  return id.empty() ? "unknown" : id.substr(0, 8) + "..";
}

void toolchain_differences(const CompileRecord& before,
                           const CompileRecord& now,
                           const std::string& toolchains,
                           Against against,
                           std::vector<Difference>& out) {
  if (before.identity.empty() || now.identity.empty() || before.identity == now.identity)
    return;
  auto then_files = load_toolchain_files(toolchains, before.identity);
  auto now_files = load_toolchain_files(toolchains, now.identity);
  std::string ids = against == Against::archive
                      ? fmt::format("CI's toolchain fingerprint {}, here {}",
                                    short_id(before.identity),
                                    short_id(now.identity))
                      : fmt::format("toolchain fingerprint {} -> {}",
                                    short_id(before.identity),
                                    short_id(now.identity));
  if (!then_files || !now_files) {
    out.push_back(
      { MissReason::toolchain,
        fmt::format("{} (which file: unknown, the list of its files is not kept here)", ids),
        "" });
    return;
  }
  std::vector<std::string> changed;
  for (const auto& [path, sha] : *now_files) {
    auto it = then_files->find(path);
    if (it == then_files->end())
      changed.push_back(path + " added");
    else if (it->second != sha)
      changed.push_back(path + " changed");
  }
  for (const auto& [path, sha] : *then_files)
    if (!now_files->contains(path))
      changed.push_back(path + " removed");
  if (changed.empty()) {
    out.push_back(
      { MissReason::toolchain, ids + " (the same files: another fingerprint scheme)", "" });
    return;
  }
  std::string subject = changed.front().substr(0, changed.front().rfind(' '));
  std::string more =
    changed.size() > 1 ? fmt::format(" and {} more file(s)", changed.size() - 1) : "";
  out.push_back({ MissReason::toolchain,
                  against == Against::archive ? fmt::format("{} ({}{})", ids, changed.front(), more)
                                              : fmt::format("toolchain: {}{} ({} -> {})",
                                                            changed.front(),
                                                            more,
                                                            short_id(before.identity),
                                                            short_id(now.identity)),
                  subject });
}

// ---- the environment and the inputs --------------------------------------------------------

void environment_differences(const CompileRecord& before,
                             const CompileRecord& now,
                             Against against,
                             std::vector<Difference>& out) {
  std::set<std::string> names;
  for (const auto& [name, value] : before.env)
    names.insert(name);
  for (const auto& [name, value] : now.env)
    names.insert(name);
  for (const auto& name : names) {
    auto a = before.env.find(name), b = now.env.find(name);
    std::string then_value = a == before.env.end() ? "(unset)" : "'" + a->second + "'";
    std::string now_value = b == now.env.end() ? "(unset)" : "'" + b->second + "'";
    if (then_value == now_value)
      continue;
    out.push_back({ MissReason::environment,
                    against == Against::archive
                      ? fmt::format("{}: CI {}, here {}", name, then_value, now_value)
                      : fmt::format("{} {} -> {}", name, then_value, now_value),
                    name });
  }
  if (before.target_key != now.target_key && std::ranges::none_of(out, [](const Difference& d) {
        return d.reason == MissReason::gpu_targets;
      }))
    out.push_back({ MissReason::gpu_targets,
                    fmt::format("GPU target key '{}' -> '{}' (the GPUs the probe found, or "
                                "HCC_AMDGPU_TARGET)",
                                before.target_key,
                                now.target_key),
                    now.target_key });
}

std::string short_sha(const std::string& sha) {
  return sha.empty() ? "unreadable" : sha.substr(0, 4) + "..";
}

void input_differences(const CompileRecord& before,
                       const CompileRecord& now,
                       Against against,
                       std::vector<Difference>& out) {
  bool both_full = before.inputs_from == "depfile" && now.inputs_from == "depfile";
  std::map<std::string, std::string> then_inputs;
  for (const auto& in : before.inputs)
    then_inputs[in.path] = in.sha;
  std::set<std::string> seen;
  for (const auto& in : now.inputs) {
    seen.insert(in.path);
    auto it = then_inputs.find(in.path);
    if (it == then_inputs.end()) {
      if (both_full)
        out.push_back(
          { MissReason::input_changed, fmt::format("{} now included", in.path), in.path });
    } else if (it->second != in.sha) {
      out.push_back(
        { MissReason::input_changed,
          against == Against::archive
            ? fmt::format("{} differs from CI's (sha {} there, {} here)",
                          in.path,
                          short_sha(it->second),
                          short_sha(in.sha))
            : fmt::format(
                "{} changed (sha {} -> {})", in.path, short_sha(it->second), short_sha(in.sha)),
          in.path });
    }
  }
  if (both_full)
    for (const auto& in : before.inputs)
      if (!seen.contains(in.path))
        out.push_back(
          { MissReason::input_changed, fmt::format("{} no longer included", in.path), in.path });
}

// ---- the place -----------------------------------------------------------------------------

// The roots of two working directories that differ only above a common tail: ("/home/a/src",
// "/ci/w") for /home/a/src/proj/build and /ci/w/proj/build; nullopt when they are the same.
std::optional<std::pair<std::string, std::string>> moved_roots(std::string a, std::string b) {
  if (a == b)
    return std::nullopt;
  while (!a.empty() && !b.empty()) {
    auto sa = a.rfind('/'), sb = b.rfind('/');
    if (sa == std::string::npos || sb == std::string::npos || a.substr(sa) != b.substr(sb))
      break;
    a.resize(sa);
    b.resize(sb);
  }
  if (a.empty() || b.empty())
    return std::nullopt;
  return std::pair{ a, b };
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// BEFORE as if it had been compiled at NOW's place.
CompileRecord moved_to(const CompileRecord& before,
                       const std::string& from,
                       const std::string& to) {
  CompileRecord moved = before;
  for (auto& a : moved.args)
    a = replaced(a, from, to);
  for (auto& in : moved.inputs)
    in.path = replaced(in.path, from, to);
  for (auto& [name, value] : moved.env)
    value = replaced(value, from, to);
  moved.cwd = replaced(moved.cwd, from, to);
  return moved;
}

bool debug_info(const std::vector<std::string>& args) {
  return std::ranges::any_of(
    args, [](const std::string& a) { return a.starts_with("-g") && a != "-g0"; });
}

} // namespace

std::vector<Difference> differences(const CompileRecord& before_record,
                                    const CompileRecord& now,
                                    const std::string& toolchains,
                                    Against against) {
  std::vector<Difference> out;
  CompileRecord before = before_record;
  std::optional<Difference> place;
  if (auto roots = moved_roots(before.cwd, now.cwd)) {
    CompileRecord moved = moved_to(before, roots->first, roots->second);
    if (units_of(moved.args) != units_of(before.args) || moved.inputs != before.inputs) {
      place = Difference{
        MissReason::checkout_path,
        fmt::format("the checkout's place {} -> {}: the compile names it{}",
                    roots->first,
                    roots->second,
                    debug_info(now.args)
                      ? " (-g: the debug info names its directory, by design)"
                      : " (absolute paths: SHIMCTL_ANYWHERE=0, CCACHE_BASEDIR, or a path outside "
                        "the roots)"),
        roots->first + " -> " + roots->second
      };
      before = std::move(moved);
    }
  }
  toolchain_differences(before, now, toolchains, against, out);
  flag_differences(before.args, now.args, against, out);
  environment_differences(before, now, against, out);
  input_differences(before, now, against, out);
  if (place)
    out.push_back(*place);
  // The GPU targets first among the argument differences: they are what the user changed.
  std::ranges::stable_partition(out, [](const Difference& d) {
    return d.reason == MissReason::toolchain || d.reason == MissReason::gpu_targets;
  });
  return out;
}

namespace {

// The output's name in its build tree: its path below the working directory.
std::string output_name(const CompileRecord& r) {
  if (r.output.starts_with(r.cwd + "/"))
    return r.output.substr(r.cwd.size() + 1);
  return r.output.substr(r.output.rfind('/') + 1);
}

std::string base_of(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

} // namespace

std::optional<StoredRecord> predecessor(const StoredRecord& miss,
                                        const std::vector<StoredRecord>& same_output,
                                        const std::vector<StoredRecord>& others,
                                        Against against) {
  auto earlier = [&](const StoredRecord& r) {
    return against == Against::archive || r.record.time_ns < miss.record.time_ns;
  };
  for (const auto& r : same_output)
    if (r.path != miss.path && earlier(r))
      return r;
  const StoredRecord* best = nullptr;
  for (const auto& r : others) {
    if (r.path == miss.path || !earlier(r) || r.record.output == miss.record.output ||
        output_name(r.record) != output_name(miss.record) ||
        base_of(r.record.source) != base_of(miss.record.source))
      continue;
    if (!best || r.record.time_ns > best->record.time_ns)
      best = &r;
  }
  return best ? std::optional(*best) : std::nullopt;
}

Explanation explain_miss(const StoredRecord& miss,
                         const std::optional<StoredRecord>& before,
                         const std::string& toolchains,
                         Against against) {
  Explanation e;
  e.miss = miss;
  e.before = before;
  if (miss.record.tool_ran_it) { // the tool's own verdict, not a miss
    e.reason = MissReason::not_cacheable;
    e.line = fmt::format("{} did not cache it: it ran the compiler itself, a call it does not "
                         "cache (its statistics name why: 'shimctl measure -- BUILD')",
                         miss.record.tool.empty() ? "the cache tool" : miss.record.tool);
    return e;
  }
  if (!before) {
    e.reason = MissReason::first_compile;
    e.line = against == Against::archive
               ? "CI has no record of this output: it was not compiled there (or not exported)"
               : "first compile of this output here: no record of it before";
    return e;
  }
  e.differences = differences(before->record, miss.record, toolchains, against);
  if (!e.differences.empty()) {
    e.reason = e.differences.front().reason;
    e.line = e.differences.front().text;
    e.subject = e.differences.front().subject;
    return e;
  }
  std::string when = time_text(before->record.time_ns);
  if (miss.record.store == "out") {
    e.reason = MissReason::store_out;
    e.line = fmt::format("the team store was out: compiled locally (the same inputs as the "
                         "compile at {})",
                         when);
    return e;
  }
  if (auto fullness = cache_fullness(miss.record); fullness && fullness->evicts()) {
    e.reason = MissReason::evicted;
    e.line = fmt::format(
      "evicted: the entry was written at {} and is gone (cache full: {} of {}{})",
      when,
      util::size_text(fullness->size),
      util::size_text(fullness->max),
      fullness->cleanups ? fmt::format(", {} cleanups", fullness->cleanups) : std::string());
    return e;
  }
  e.reason = MissReason::unknown;
  e.line = fmt::format(
    "unknown: the same arguments, toolchain, GPU targets, environment and {} input(s) as the "
    "compile at {}; its entry is gone from the cache (cleared?) or {} did not store it",
    miss.record.inputs.size(),
    when,
    miss.record.tool.empty() ? "the cache tool" : miss.record.tool);
  return e;
}

} // namespace shimctl::records
