#include <fmt/format.h>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/pieces/piece_trace.hpp>
#include <shimctl/pieces/piece_verdict.hpp>
#include <shimctl/util/dir.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <string_view>

namespace shimctl::pieces {

namespace {

constexpr std::string_view verdicts_dir = "pieces-checked"; // core::user_cache_dir's

} // namespace

VerdictPlace verdict_place(const std::string& tool_key,
                           const std::string& real,
                           const std::string& kind) {
  std::string dir = core::user_cache_dir(verdicts_dir);
  if (dir.empty())
    return {};
  std::string key = fmt::format("{}\n{}\n{}", real, tool_key, kind);
  return { dir, util::sha256_hex(key).substr(0, 32) };
}

std::string read_verdict(const VerdictPlace& place) {
  return util::first_line(util::read_text_file(fmt::format("{}/{}", place.dir, place.name)));
}

// Made where missing (a new user's ~/.cache too): else every split would be checked again.
void record_verdict(const VerdictPlace& place, bool same) {
  record_memo(place, same ? "same" : "differ");
}

void record_memo(const VerdictPlace& place, std::string_view text) {
  auto made = core::make_user_cache_dir(verdicts_dir);
  if (!made)
    return;
  if (auto dir = util::Dir::open(*made))
    (void)dir->write_atomic(place.name, fmt::format("{}\n", text), 0600);
}

Verdict verdict_of(const VerdictPlace& at, std::string_view differ_means) {
  return Verdict{ at, read_verdict(at), differ_means };
}

bool first_split_checked(const PieceRequest& request,
                         const OffloadCall& call,
                         const Verdict& verdict,
                         const util::ScratchDir& scratch,
                         PieceCounts& counts) {
  if (verdict.said == "same")
    return true;
  std::string one_step = scratch.file("one-step.o");
  auto check = call.check_args;
  check.push_back("-o");
  check.push_back(one_step);
  auto checked = run_compiler(request, check);
  bool same = checked && checked->ok() && util::same_file_bytes(one_step, call.output);
  counts[std::string(same ? checked_same : checked_differ)]++;
  record_verdict(verdict.at, same);
  trace(fmt::format("first split of this toolchain checked against its one-step compile: {}",
                    same ? std::string("identical")
                         : "DIFFERENT: " + std::string(verdict.differ_means)));
  return same;
}

} // namespace shimctl::pieces
