#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <shim/formats.h>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/pieces/target_sets.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <unistd.h>

namespace shimctl::pieces {

namespace {

constexpr std::string_view sets_dir = "target-sets"; // core::user_cache_dir's
constexpr std::size_t sets_kept = 4;
constexpr auto unused_for = std::chrono::hours(24 * 30);
constexpr std::size_t files_kept = 20000;

std::size_t shared_targets(const TargetSet& set, const std::vector<std::string>& targets) {
  return static_cast<std::size_t>(std::ranges::count_if(set.targets, [&](const std::string& id) {
    return std::ranges::find(targets, id) != targets.end();
  }));
}

// Now and then (one new file in 64): files unused for 30 days go, and the oldest beyond 20000.
void prune_now_and_then(const std::filesystem::path& dir) {
  static std::minstd_rand draw(static_cast<unsigned>(::getpid()) ^
                               static_cast<unsigned>(std::time(nullptr)));
  if (draw() % 64 != 0)
    return;
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  for (const auto& entry : fs::directory_iterator(dir, error))
    if (auto when = entry.last_write_time(error); !error)
      files.emplace_back(when, entry.path());
  std::ranges::sort(files, std::greater<>());
  auto oldest_kept = fs::file_time_type::clock::now() - unused_for;
  for (std::size_t i = 0; i < files.size(); i++)
    if (i >= files_kept || files[i].first < oldest_kept)
      fs::remove(files[i].second, error);
}

} // namespace

std::vector<std::string> cache_call_of(const OffloadCall& call) {
  const char* value = std::getenv(SHIMCTL_CACHE_CALL_VAR);
  if (!value || !*value)
    return {};
  std::vector<std::string> argv;
  std::string_view rest = value;
  for (std::size_t at; (at = rest.find(SHIMCTL_CACHE_CALL_SEPARATOR)) != std::string_view::npos;
       rest.remove_prefix(at + 1))
    argv.emplace_back(rest.substr(0, at));
  argv.emplace_back(rest);
  for (std::size_t i = 1; i < argv.size(); i++)
    if (argv[i] == "-o" + call.output ||
        (argv[i] == "-o" && i + 1 < argv.size() && argv[i + 1] == call.output))
      return argv;
  return {};
}

std::string target_sets_file(const PieceRequest& request, const OffloadCall& call) {
  std::string dir = core::user_cache_dir(sets_dir);
  if (dir.empty())
    return {};
  std::string key = request.real + '\n' + call.output + '\n';
  for (const auto& arg : call.shared_args)
    key += arg + '\0';
  return fmt::format("{}/{}", dir, util::sha256_hex(key).substr(0, 32));
}

std::vector<TargetSet> read_target_sets(const std::string& file) {
  std::vector<TargetSet> sets;
  if (file.empty())
    return sets;
  auto json = nlohmann::json::parse(util::read_text_file(file), nullptr, false);
  if (!json.is_object() || !json["sets"].is_array())
    return sets;
  for (const auto& entry : json["sets"]) {
    if (!entry.is_object() || !entry["targets"].is_array() || !entry["argv"].is_array())
      continue;
    TargetSet set;
    for (const auto& id : entry["targets"])
      if (id.is_string())
        set.targets.push_back(id.get<std::string>());
    for (const auto& arg : entry["argv"])
      if (arg.is_string())
        set.argv.push_back(arg.get<std::string>());
    sets.push_back(std::move(set));
  }
  return sets;
}

void remember_target_set(const std::string& file, const TargetSet& set) {
  if (file.empty())
    return;
  auto sets = read_target_sets(file);
  if (!sets.empty() && sets.front().targets == set.targets && sets.front().argv == set.argv)
    return; // kept already as the newest: no write on every miss of a build that repeats
  std::erase_if(sets, [&](const TargetSet& kept) { return kept.targets == set.targets; });
  sets.insert(sets.begin(), set);
  sets.resize(std::min(sets.size(), sets_kept));
  nlohmann::json json{ { "sets", nlohmann::json::array() } };
  for (const auto& kept : sets)
    json["sets"].push_back({ { "targets", kept.targets }, { "argv", kept.argv } });
  auto made = core::make_user_cache_dir(sets_dir);
  if (!made)
    return;
  bool is_new = ::access(file.c_str(), F_OK) != 0;
  std::string temporary = fmt::format("{}.{}.tmp", file, ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << json.dump();
    if (!out.flush()) {
      std::remove(temporary.c_str());
      return;
    }
  }
  if (std::rename(temporary.c_str(), file.c_str()) != 0)
    std::remove(temporary.c_str());
  if (is_new)
    prune_now_and_then(*made);
}

std::vector<TargetSet> sets_to_derive_from(std::vector<TargetSet> sets,
                                           const std::vector<std::string>& targets) {
  auto same_set = [&](const TargetSet& set) {
    return set.targets.size() == targets.size() &&
           std::ranges::all_of(set.targets, [&](const auto& id) {
             return std::ranges::find(targets, id) != targets.end();
           });
  };
  std::erase_if(
    sets, [&](const TargetSet& set) { return same_set(set) || shared_targets(set, targets) == 0; });
  std::ranges::stable_sort(sets, [&](const TargetSet& a, const TargetSet& b) {
    auto shared_a = shared_targets(a, targets), shared_b = shared_targets(b, targets);
    if (shared_a != shared_b)
      return shared_a > shared_b;
    return a.targets.size() - shared_a < b.targets.size() - shared_b;
  });
  return sets;
}

} // namespace shimctl::pieces
