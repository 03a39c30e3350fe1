#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <future>
#include <map>
#include <optional>
#include <shim/formats.h>
#include <shimctl/pieces/derive.hpp>
#include <shimctl/pieces/host_half.hpp>
#include <shimctl/pieces/lent_slot.hpp>
#include <shimctl/pieces/new_driver.hpp>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/pieces/piece_compile.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_entries.hpp>
#include <shimctl/pieces/piece_image.hpp>
#include <shimctl/pieces/piece_join.hpp>
#include <shimctl/pieces/piece_runs.hpp>
#include <shimctl/pieces/piece_trace.hpp>
#include <shimctl/pieces/piece_verdict.hpp>
#include <shimctl/pieces/target_sets.hpp>
#include <shimctl/pieces/wrapper_dry_run.hpp>
#include <shimctl/util/job_lines.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>

namespace shimctl::pieces {

namespace {

using util::EnvChanges;

std::string env_or(const char* name, std::string fallback = {}) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : fallback;
}

PieceResult whole(std::string why) {
  return PieceResult{ false, 0, std::move(why) };
}

// COUNTS added to the counters beside the cache tool's directory (cache_dir_of).
void add_counts_of(const PieceRequest& request, const PieceCounts& counts) {
  add_counts(cache_dir_of(request), request.tool->file_umask(), counts);
}

} // namespace

namespace {

// Where the kind of pieces this toolchain's plan asked for is kept, for calls of CALL's kind
// (-fgpu-rdc or not) with the same offload options (--[no-]offload-new-driver, --offload-compress):
// "objects" (device objects), "images" (the new driver's, piece_image.hpp) or "whole" (no split).
// The pieces start before the driver's plan is back as it last asked for them. Only a guess: the
// plan decides, and a wrong guess costs the pieces it started (then they are compiled again).
VerdictPlace plan_memo_place(const PieceRequest& request, const OffloadCall& call) {
  std::string flags = call.rdc ? "plan rdc" : "plan objects";
  for (const auto& arg : request.argv)
    if ((arg.starts_with("--offload-") || arg.starts_with("--no-offload-")) &&
        !arg.contains("offload-arch="))
      flags += " " + arg;
  return verdict_place(request.tool->compiler_key(), request.real, flags);
}

// The pieces' environment for what MEMO says the plan asks for; nullopt: wait for the plan.
std::optional<EnvChanges> early_piece_env(const PieceRequest& request, const std::string& memo) {
  EnvChanges env;
  if (memo == "objects" || (memo == "images" && image_piece_env(request, env).empty()))
    return env;
  return std::nullopt;
}

// A split the driver's plan allows: the call, its plan with the bundler's inputs, the pieces'
// environment and the verdicts of this toolchain's first split (and first reassembly).
struct Split {
  OffloadCall call;
  OffloadPlan plan;
  // The new driver without -fgpu-rdc: the wrapper's bundler is still to be asked for (its dry
  // run beside the pieces); until then the plan's bundle_inputs are its packager's images.
  bool bundler_from_wrapper = false;
  EnvChanges piece_env;
  Verdict split_verdict;
  HostHalf host_half;
  Verdict reassembly_verdict; // an object reassembled from the host half and the bundle
  Verdict alone_verdict;      // the host half alone: a TU that registers no kernel
};

// REQUEST's call, if a split may reproduce it; else nullopt and why in WHY.
std::optional<OffloadCall> call_to_split(const PieceRequest& request, std::string& why) {
  std::vector<std::string> args(request.argv.begin() + 1, request.argv.end());
  const char* pieces = std::getenv("SHIMCTL_PIECES");
  OffloadCall call = read_offload_call(args, pieces && std::string_view(pieces) == "1");
  if (!(why = call.whole_reason).empty())
    return std::nullopt;
  char expected[SHIMCTL_CUID_HEX + 1];
  shimctl_cuid_value(expected, call.source.c_str(), call.output.c_str());
  if (call.cuid != expected) {
    why = "the CUID is not the shim's";
    return std::nullopt;
  }
  return call;
}

// The split of CALL in SCRATCH, from the driver's plan, or why it runs whole (in WHY).
std::optional<Split> plan_split(const PieceRequest& request,
                                OffloadCall offload_call,
                                const util::ScratchDir& scratch,
                                std::string& why) {
  Split split;
  split.call = std::move(offload_call);
  const auto& call = split.call;
  auto asked = asked_plan(request, call, why);
  if (!asked)
    return std::nullopt;
  auto& plan = split.plan;
  plan = std::move(*asked);
  if (plan.driver == OffloadDriver::new_driver) {
    split.bundler_from_wrapper = !call.rdc;
    if (!call.rdc && !(why = image_piece_env(request, split.piece_env)).empty())
      return std::nullopt;
  }
  split.split_verdict =
    verdict_of(verdict_place(request.tool->compiler_key(), request.real, plan_kind(plan)),
               "compiles run whole from now on");
  if (split.split_verdict.at.dir.empty()) {
    why = "no cache home to record the pieces' check in";
    return std::nullopt;
  }
  if (split.split_verdict.said == "differ") {
    why = "this toolchain's pieces once gave another object than its one-step compile";
    return std::nullopt;
  }
  // The host half cached apart (non-rdc): one more compile through the cache tool, with a verdict
  // of its own (a reassembly that once differed: the host is compiled with the object again).
  auto& host_half = split.host_half;
  if (!call.rdc)
    host_half.objcopy = host_half_objcopy(request, call);
  if (!host_half.objcopy.empty()) {
    std::string kind = plan_kind(plan) + host_half_verdict_kind(host_half.objcopy);
    auto place = [&](const std::string& kind) {
      return verdict_place(request.tool->compiler_key(), request.real, kind);
    };
    split.reassembly_verdict =
      verdict_of(place(kind), "the host compiles with the object from now on");
    split.alone_verdict = verdict_of(
      place(kind + " alone"), "a TU without kernels compiles its host with the object from now on");
    if (split.reassembly_verdict.said != "differ")
      host_half.file = scratch.file("host-half.o");
    host_half.may_stand_alone = split.alone_verdict.said != "differ";
  }
  return split;
}

// Pieces started before the driver's plan was back (early_piece_env), still running.
struct EarlyPieces {
  EnvChanges env;
  std::vector<PieceRun> runs;
  std::future<std::vector<util::Result<util::RunResult>>> results;
};

// The EARLY pieces, waited for and not used, counted all the same in COUNTS: the cache tool
// counted each as a compile of its own, which status and measure keep apart from whole objects.
void count_unused(const PieceRequest& request, EarlyPieces& early, PieceCounts& counts) {
  std::string messages;
  std::map<std::string, std::string> files;
  (void)account_pieces(request, early.runs, early.results.get(), messages, counts, files);
}

// The split's pieces and host half through the cache tool: the EARLY pieces when they are what
// the plan asks for (the host half runs beside them), else all now. Their files in FILE_OF,
// stderr in MESSAGES, hits and misses in COUNTS. "" or why the call runs whole.
std::string compile_the_pieces(const PieceRequest& request,
                               const Split& split,
                               const util::ScratchDir& scratch,
                               EarlyPieces& early,
                               std::string& messages,
                               PieceCounts& counts,
                               std::map<std::string, std::string>& file_of) {
  bool early_fits = early.results.valid() && early.env == split.piece_env;
  std::vector<PieceRun> runs;
  if (!early_fits) {
    if (early.results.valid()) {
      count_unused(request, early, counts);
      for (const auto& run : early.runs)
        std::remove(run.mark.c_str());
      trace("pieces started before the plan are not what it asks for: compiled again");
    }
    runs = target_piece_runs(request, split.call, split.piece_env, scratch);
  }
  if (!split.host_half.file.empty())
    runs.push_back(host_half_run(request, split.call, split.host_half.file, scratch));
  auto results = run_pieces(request, runs);
  std::string failed;
  if (early_fits)
    failed = account_pieces(request, early.runs, early.results.get(), messages, counts, file_of);
  auto also_failed = account_pieces(request, runs, results, messages, counts, file_of);
  return failed.empty() ? also_failed : failed;
}

// The object from pieces, or why not.
PieceResult split_compile_of(const PieceRequest& request) {
  auto scratch = util::ScratchDir::create("pieces");
  if (!scratch)
    return whole("no scratch directory: " + scratch.error().message);
  std::string why;
  auto call = call_to_split(request, why);
  if (!call)
    return whole(why);
  if (derives(*call)) {
    PieceCounts counts;
    auto derived = derive_object(request, *call, *scratch, counts);
    add_counts_of(request, counts);
    if (auto cache_call = cache_call_of(*call); !cache_call.empty())
      remember_target_set(target_sets_file(request, *call), { call->targets, cache_call });
    return derived;
  }
  // A tool with a jobserver of its own: this compile's slot goes back while its pieces run there.
  bool lends = request.tool->runs_a_jobserver();
  std::optional<LentSlot> slot;
  auto lend = [&slot] {
    if (auto lent = LentSlot::lend_to_the_server())
      slot.emplace(std::move(*lent));
    return slot.has_value();
  };
  PieceCounts counts;
  EarlyPieces early;
  auto memo_at = plan_memo_place(request, *call);
  auto memo = read_verdict(memo_at);
  if (auto env = early_piece_env(request, memo); env && (!lends || lend())) {
    early.env = std::move(*env);
    early.runs = target_piece_runs(request, *call, early.env, *scratch);
    early.results =
      std::async(std::launch::async, run_pieces, std::cref(request), std::cref(early.runs));
    trace(fmt::format("pieces started before the plan, as it last asked ({})", memo));
  }
  auto split = plan_split(request, std::move(*call), *scratch, why);
  if (std::string asked = !split                        ? "whole"
                          : split->bundler_from_wrapper ? "images"
                                                        : "objects";
      asked != memo && !memo_at.dir.empty())
    record_memo(memo_at, asked);
  if (!split) {
    if (early.results.valid()) {
      count_unused(request, early, counts);
      add_counts_of(request, counts);
    }
    return whole(why);
  }
  if (lends && !slot && !lend())
    return whole(fmt::format("{} names no jobserver slot to lend while the pieces compile",
                             request.tool->name()));
  // The wrapper's dry run needs no device code: it runs beside the pieces, off their path.
  std::future<WrapperJobs> dry_run;
  if (split->bundler_from_wrapper)
    dry_run = std::async(
      std::launch::async, dry_run_on_placeholders, std::cref(split->plan), std::cref(*scratch));
  std::string messages;
  std::map<std::string, std::string> file_of;
  auto failed = compile_the_pieces(request, *split, *scratch, early, messages, counts, file_of);
  if (!failed.empty()) {
    add_counts_of(request, counts);
    return whole(failed);
  }
  if (slot)
    slot->take_back();
  if (dry_run.valid())
    if (auto refused = take_wrapper_bundler(split->plan, dry_run.get()); !refused.empty()) {
      add_counts_of(request, counts);
      return whole(refused);
    }
  std::vector<std::string> piece_files; // one per bundle input, "" for the host's
  for (const auto& id : split->plan.bundle_inputs)
    piece_files.push_back(id.empty() ? std::string() : file_of[id]);

  auto& host_half = split->host_half;
  if (auto failed =
        join_pieces(request, split->call, split->plan, piece_files, host_half, *scratch, messages);
      !failed.empty())
    return whole(failed);
  // Refused: this TU's host was compiled here instead; the next TU's half is tried again.
  if (!host_half.refused.empty()) {
    trace(fmt::format("host half not used for this TU: {}", host_half.refused));
    host_half.file.clear();
  }
  // A reassembly (or a half alone) that differs keeps the host compile with the object after it.
  const auto& verdict = host_half.stood_alone     ? split->alone_verdict
                        : !host_half.file.empty() ? split->reassembly_verdict
                                                  : split->split_verdict;
  if (!first_split_checked(request, split->call, verdict, *scratch, counts)) {
    add_counts_of(request, counts);
    return whole("the split object differed from the one-step compile");
  }
  counts[std::string(split_compile)]++;
  add_counts_of(request, counts);
  trace(host_half.stood_alone
          ? std::string("object: the host half alone (the TU registers no kernel)")
          : fmt::format("object from {} pieces", split->call.targets.size()));
  std::fwrite(messages.data(), 1, messages.size(), stderr);
  return PieceResult{ true, 0, {} };
}

} // namespace

PieceResult compile_from_pieces(const PieceRequest& request) {
  PieceResult result = split_compile_of(request);
  if (!result.split) { // counted where the pieces are kept
    add_counts_of(request, { { std::string(whole_compile), 1 } });
    if (auto log = env_or(SHIMCTL_MEASURE_LOG); !log.empty())
      record_for_measure(log, whole_compile, "-", request.tool->name());
  }
  return result;
}

} // namespace shimctl::pieces
