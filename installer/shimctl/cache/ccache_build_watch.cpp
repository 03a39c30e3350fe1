// ccache's watch of one build (build_watch.hpp): a stats log of the build's own
// (CCACHE_STATSLOG), where each ccache call appends its record.
#include <shim/formats.h>
#include <shimctl/cache/build_watch.hpp>
#include <shimctl/cache/ccache_tool.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/scratch.hpp>
#include <sstream>

namespace shimctl::cache {

namespace {

// The shim's name of the reason an older shim wrote into ccache's stats log by ccache's
// counter name (shimctl_not_sent_stats_log_name).
std::string reason_of_stats_log_name(const std::string& counter) {
  for (int r = 0; r < SHIMCTL_NOT_SENT_REASONS; ++r) {
    const char* name = shimctl_not_sent_stats_log_name(static_cast<shimctl_not_sent>(r));
    if (name && counter == name)
      return shimctl_not_sent_name(static_cast<shimctl_not_sent>(r));
  }
  return counter;
}

class CcacheBuildWatch final : public BuildWatch {
public:
  explicit CcacheBuildWatch(util::ScratchDir scratch)
    : scratch_(std::move(scratch)) {}

  std::vector<std::string> environment() const override {
    return { "CCACHE_STATSLOG=" + scratch_.file(log_name) };
  }

  std::optional<BuildCounts> counts(const std::string& /*shim_log*/,
                                    std::map<std::string, std::uint64_t>& not_sent,
                                    std::vector<std::string>& /*warnings*/) override {
    auto dir = util::Dir::open(scratch_.path());
    if (!dir)
      return std::nullopt;
    auto text = dir->read_file(log_name, 1ULL << 30);
    if (!text)
      return std::nullopt; // no ccache call wrote it
    auto counts = parse_ccache_stats_log(*text, not_sent);
    return counts.calls ? std::optional(counts) : std::nullopt;
  }

private:
  static constexpr std::string_view log_name = "stats.log";
  util::ScratchDir scratch_;
};

} // namespace

BuildCounts parse_ccache_stats_log(const std::string& text,
                                   std::map<std::string, std::uint64_t>& not_sent) {
  BuildCounts counts;
  std::istringstream in(text);
  std::string line;
  bool shim_record = false; // the line after an older shim's header is its reason
  // Lines, not records: with parallel compiles, records from several ccache processes may
  // interleave line by line; each counter line still belongs to exactly one call. A shim's
  // record is one write(2), its two lines adjacent.
  while (std::getline(in, line)) {
    if (line == SHIMCTL_MEASURE_NOT_SENT) {
      shim_record = true;
    } else if (line.starts_with("#")) {
      shim_record = false;
      ++counts.calls;
    } else if (shim_record) {
      shim_record = false;
      if (!line.empty())
        ++not_sent[reason_of_stats_log_name(line)];
    } else if (line == "direct_cache_hit" || line == "preprocessed_cache_hit") {
      ++counts.hits;
    } else if (line == "cache_miss") {
      ++counts.misses;
    } else if (!line.empty() && line.find("storage") == std::string::npos &&
               !line.ends_with("_cache_miss")) {
      ++counts.uncacheable[line];
    }
  }
  return counts;
}

util::Result<std::unique_ptr<BuildWatch>> ccache_build_watch() {
  TRY_ASSIGN(auto scratch, util::ScratchDir::create("measure"));
  return std::unique_ptr<BuildWatch>(std::make_unique<CcacheBuildWatch>(std::move(scratch)));
}

} // namespace shimctl::cache
