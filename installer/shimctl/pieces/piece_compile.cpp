#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <future>
#include <map>
#include <optional>
#include <shim/formats.h>
#include <shimctl/pieces/host_half.hpp>
#include <shimctl/pieces/lent_slot.hpp>
#include <shimctl/pieces/new_driver.hpp>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/pieces/piece_compile.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_image.hpp>
#include <shimctl/pieces/piece_join.hpp>
#include <shimctl/pieces/piece_trace.hpp>
#include <shimctl/pieces/piece_verdict.hpp>
#include <shimctl/pieces/wrapper_dry_run.hpp>
#include <shimctl/util/job_lines.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <shimctl/util/sha256.hpp>
#include <shimctl/util/text.hpp>
#include <thread>
#include <unistd.h>

namespace shimctl::pieces {

namespace {

std::string env_or(const char* name, std::string fallback = {}) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : fallback;
}

PieceResult whole(std::string why) {
  return PieceResult{ false, 0, std::move(why) };
}

// The directory the counters go to: the cache tool's (only an absolute one).
std::string cache_dir_of(const PieceRequest& request) {
  core::CacheSettings settings;
  settings.path = request.cache_tool;
  std::string dir = request.tool->cache_location(settings, {});
  return dir.starts_with('/') ? dir : std::string();
}

void add_counts_of(const PieceRequest& request, const PieceCounts& counts) {
  add_counts(cache_dir_of(request), request.tool->file_umask(), counts);
}

bool exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

} // namespace

namespace {

// How many pieces run at once: the CPUs the 1-minute load leaves idle, at least 1. In a
// parallel build every CPU is busy and the pieces run one after the other, as the driver runs
// its own jobs; a lone compile (a JIT caller's) gets its targets compiled side by side.
std::size_t concurrency(std::size_t pieces) {
  double load = 0;
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (::getloadavg(&load, 1) != 1 || cpus < 1)
    return 1;
  long idle = cpus - std::lround(load) + 1; // the load counts this compile too
  return std::clamp<std::size_t>(idle > 0 ? static_cast<std::size_t>(idle) : 1, 1, pieces);
}

using util::EnvChanges;

// Runs each non-empty ARGS[i] (a piece through the cache tool, MARKS[i] its mark, ENVS[i] its
// environment's changes) and returns the results in the same order; CONCURRENCY at once.
std::vector<util::Result<util::RunResult>> run_pieces(
  const PieceRequest& request,
  const std::vector<std::vector<std::string>>& args,
  const std::vector<std::string>& marks,
  const std::vector<EnvChanges>& envs) {
  std::vector<util::Result<util::RunResult>> results(
    args.size(), std::unexpected(util::Error{ "not run", util::ExitCode::failure }));
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < args.size(); i++)
    if (!args[i].empty())
      todo.push_back(i);
  std::atomic<std::size_t> next{ 0 };
  auto worker = [&] {
    for (std::size_t n; (n = next++) < todo.size();) {
      std::size_t i = todo[n];
      util::RunOptions options;
      options.env = envs[i];
      options.env["SHIMCTL_PIECE_MARK"] = marks[i];
      request.tool->piece_environment(options.env);
      results[i] = util::run(args[i], options);
    }
  };
  std::vector<std::thread> threads(concurrency(todo.size()) - 1);
  for (auto& t : threads)
    t = std::thread(worker);
  worker();
  for (auto& t : threads)
    t.join();
  return results;
}

// What the first split's verdict is kept for: the kind of plan.
std::string plan_kind(const OffloadPlan& plan) {
  if (plan.driver == OffloadDriver::old_driver)
    return plan.rdc ? "rdc" : "objects";
  // As the call asks the wrapper; its bundler is checked to agree once the dry run is back.
  bool compressed = std::ranges::find(plan.wrapper, "--compress") != plan.wrapper.end();
  return std::string("new-driver ") + (plan.rdc ? "rdc" : "objects") +
         (compressed ? " compressed" : "");
}

// The bundler job and its inputs' order from the linker wrapper's dry run (WRAPPER) into PLAN,
// and PIECE_FILES (in the order of the plan's bundle_inputs so far: its packager's images) put in
// that order. "" or why the call runs whole.
std::string take_wrapper_bundler(OffloadPlan& plan,
                                 WrapperJobs wrapper,
                                 std::vector<std::string>& piece_files) {
  if (!wrapper.whole_reason.empty())
    return wrapper.whole_reason;
  bool compresses = std::ranges::any_of(
    wrapper.bundler, [](const std::string& arg) { return arg.starts_with("-compress"); });
  if (compresses != (std::ranges::find(plan.wrapper, "--compress") != plan.wrapper.end()))
    return "the linker wrapper's bundler compresses otherwise than its call asks";
  std::map<std::string, std::string> file_of;
  for (std::size_t i = 0; i < plan.bundle_inputs.size(); i++)
    file_of[plan.bundle_inputs[i]] = piece_files[i];
  piece_files.clear();
  for (const auto& id : wrapper.bundle_inputs)
    piece_files.push_back(id.empty() ? std::string() : file_of.at(id));
  plan.bundler = std::move(wrapper.bundler);
  plan.bundle_inputs = std::move(wrapper.bundle_inputs);
  return {};
}

// The new driver's pieces without -fgpu-rdc are images (piece_image.hpp): set the variable that
// asks for one, and give them a key of their own, apart from a --cuda-device-only compile of the
// same arguments (whose object differs). "" or why not.
std::string image_piece_env(const PieceRequest& request, EnvChanges& env) {
  env[piece_image_env] = "1";
  return request.tool->key_apart(piece_image_key, env);
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
  VerdictPlace verdict_at;
  std::string verdict;
  HostHalf host_half;
  VerdictPlace host_verdict_at;
  std::string host_verdict;
};

// The split of REQUEST's call in SCRATCH, or why it runs whole (the reason in WHY).
std::optional<Split> plan_split(const PieceRequest& request,
                                const util::ScratchDir& scratch,
                                std::string& why) {
  std::vector<std::string> args(request.argv.begin() + 1, request.argv.end());
  const char* pieces = std::getenv("SHIMCTL_PIECES");
  Split split;
  auto& call = split.call;
  call = read_offload_call(args, pieces && std::string_view(pieces) == "1");
  if (!(why = call.whole_reason).empty())
    return std::nullopt;
  char expected[SHIMCTL_CUID_HEX + 1];
  shimctl_cuid_value(expected, call.source.c_str(), call.output.c_str());
  if (call.cuid != expected) {
    why = "the CUID is not the shim's";
    return std::nullopt;
  }
  args.push_back("-###");
  auto jobs = run_compiler(request, args);
  if (!jobs || !jobs->ok()) {
    why = "the driver's -### failed";
    return std::nullopt;
  }
  auto& plan = split.plan;
  plan = recognise_plan(util::job_lines(jobs->err), call.targets, call.rdc);
  if (!(why = plan.whole_reason).empty())
    return std::nullopt;
  if (plan.driver == OffloadDriver::new_driver) {
    plan.bundle_inputs = plan.package_images; // the packager's images, in its order
    split.bundler_from_wrapper = !call.rdc;
    if (!call.rdc && !(why = image_piece_env(request, split.piece_env)).empty())
      return std::nullopt;
  }
  split.verdict_at = verdict_place(request.tool->compiler_key(), request.real, plan_kind(plan));
  if (split.verdict_at.dir.empty()) {
    why = "no cache home to record the pieces' check in";
    return std::nullopt;
  }
  split.verdict = read_verdict(split.verdict_at);
  if (split.verdict == "differ") {
    why = "this toolchain's pieces once gave another object than its one-step compile";
    return std::nullopt;
  }
  // The host half cached apart (non-rdc): one more compile through the cache tool, with a verdict
  // of its own (a reassembly that once differed: the host is compiled with the object again).
  auto& host_half = split.host_half;
  if (!call.rdc)
    host_half.objcopy = host_half_objcopy(request, call);
  if (!host_half.objcopy.empty()) {
    split.host_verdict_at =
      verdict_place(request.tool->compiler_key(),
                    request.real,
                    plan_kind(plan) + host_half_verdict_kind(host_half.objcopy));
    split.host_verdict = read_verdict(split.host_verdict_at);
    if (split.host_verdict != "differ")
      host_half.file = scratch.file("host-half.o");
  }
  return split;
}

// Each target's piece (and the host half) through the cache tool, as many at once as there are
// idle CPUs: their files in PIECE_FILES, their stderr in MESSAGES (the one-step order), hits and
// misses in COUNTS. "" or why the call runs whole.
std::string compile_the_pieces(const PieceRequest& request,
                               const Split& split,
                               const util::ScratchDir& scratch,
                               std::vector<std::string>& piece_files,
                               std::string& messages,
                               PieceCounts& counts) {
  const auto& inputs = split.plan.bundle_inputs;
  piece_files.assign(inputs.size(), {});
  std::size_t halves = split.host_half.file.empty() ? 0 : 1; // the host half: the last entry
  std::vector<std::vector<std::string>> piece_args(inputs.size() + halves);
  std::vector<std::string> marks(piece_args.size());
  std::vector<EnvChanges> envs(piece_args.size(), split.piece_env);
  std::vector<std::string> names(piece_args.size());
  if (halves) {
    piece_args.back() = host_half_command(request, split.call, split.host_half.file);
    marks.back() = scratch.file("host-half.compiled");
    envs.back() = {};
    names.back() = "host";
  }
  for (std::size_t i = 0; i < inputs.size(); i++) {
    if (inputs[i].empty())
      continue;
    names[i] = inputs[i];
    piece_files[i] = scratch.file("piece-" + target_file_name(inputs[i]) + ".o");
    // The shim under the cache tool marks a piece it compiled (shim/pieces_handoff.c): a miss.
    marks[i] = scratch.file("piece-" + target_file_name(inputs[i]) + ".compiled");
    auto& piece = piece_args[i];
    piece = { request.cache_tool, request.compiler };
    piece.insert(piece.end(), split.call.shared_args.begin(), split.call.shared_args.end());
    for (const char* flag : { "--cuda-device-only", "--no-gpu-bundle-output" })
      piece.emplace_back(flag);
    piece.push_back("--offload-arch=" + inputs[i]);
    auto depend =
      request.tool->piece_depend_args(scratch.file("piece-" + target_file_name(inputs[i]) + ".d"));
    piece.insert(piece.end(), depend.begin(), depend.end());
    piece.push_back("-o");
    piece.push_back(piece_files[i]);
  }
  auto runs = run_pieces(request, piece_args, marks, envs);
  std::string log = env_or(SHIMCTL_MEASURE_LOG);
  for (std::size_t i = 0; i < piece_args.size(); i++) {
    if (piece_args[i].empty())
      continue;
    bool host = halves && i == piece_args.size() - 1;
    if (!runs[i] || !runs[i]->ok())
      return host ? "the host half failed" : "the piece for " + names[i] + " failed";
    messages += runs[i]->err;
    bool hit = !exists(marks[i]);
    auto kind = host ? (hit ? host_hit : host_miss) : (hit ? piece_hit : piece_miss);
    counts[std::string(kind)]++;
    trace(fmt::format(
      "{} {}", host ? "host half" : "piece " + names[i], hit ? "hit" : "miss (compiled)"));
    if (!log.empty())
      record_for_measure(log, kind, names[i], request.tool->name());
  }
  return {};
}

// The first split of this toolchain (and the first reassembly from a host half): against its
// one-step compile, the verdict kept. True when the object may stand.
bool first_split_checked(const PieceRequest& request,
                         const Split& split,
                         bool reassembled,
                         const util::ScratchDir& scratch,
                         PieceCounts& counts) {
  if ((reassembled ? split.host_verdict : split.verdict) == "same")
    return true;
  std::string one_step = scratch.file("one-step.o");
  auto check = split.call.check_args;
  check.push_back("-o");
  check.push_back(one_step);
  auto checked = run_compiler(request, check);
  bool same = checked && checked->ok() && util::same_file_bytes(one_step, split.call.output);
  counts[std::string(same ? checked_same : checked_differ)]++;
  record_verdict(reassembled ? split.host_verdict_at : split.verdict_at, same);
  trace(fmt::format("first split of this toolchain checked against its one-step compile: {}",
                    same          ? "identical"
                    : reassembled ? "DIFFERENT: the host compiles with the object from now on"
                                  : "DIFFERENT: compiles run whole from now on"));
  return same;
}

// The object from pieces, or why not.
PieceResult split_compile_of(const PieceRequest& request) {
  auto scratch = util::ScratchDir::create("pieces");
  if (!scratch)
    return whole("no scratch directory: " + scratch.error().message);
  std::string why;
  auto split = plan_split(request, *scratch, why);
  if (!split)
    return whole(why);
  // A tool with a jobserver of its own: this compile's slot goes back while its pieces run there.
  bool lends = request.tool->runs_a_jobserver();
  auto slot = lends ? LentSlot::lend(env_or("CARGO_MAKEFLAGS")) : std::nullopt;
  if (lends && !slot)
    return whole(fmt::format("{} names no jobserver slot to lend while the pieces compile",
                             request.tool->name()));
  // The wrapper's dry run needs no device code: it runs beside the pieces, off their path.
  std::future<WrapperJobs> dry_run;
  if (split->bundler_from_wrapper)
    dry_run = std::async(
      std::launch::async, dry_run_on_placeholders, std::cref(split->plan), std::cref(*scratch));
  PieceCounts counts;
  std::string messages;
  std::vector<std::string> piece_files;
  if (auto failed = compile_the_pieces(request, *split, *scratch, piece_files, messages, counts);
      !failed.empty())
    return whole(failed);
  if (slot)
    slot->take_back();
  if (dry_run.valid())
    if (auto failed = take_wrapper_bundler(split->plan, dry_run.get(), piece_files);
        !failed.empty())
      return whole(failed);

  auto& host_half = split->host_half;
  std::string host_half_failure;
  if (auto failed = join_pieces(request,
                                split->call,
                                split->plan,
                                piece_files,
                                host_half,
                                *scratch,
                                messages,
                                host_half_failure);
      !failed.empty())
    return whole(failed);
  if (!host_half_failure.empty()) { // the host compiled here instead
    record_verdict(split->host_verdict_at, false);
    trace(fmt::format("host half not used from now on: {}", host_half_failure));
    host_half.file.clear();
  }
  // A reassembly that differs keeps the host compile with the object after it.
  if (!first_split_checked(request, *split, !host_half.file.empty(), *scratch, counts)) {
    add_counts_of(request, counts);
    return whole("the split object differed from the one-step compile");
  }
  counts[std::string(split_compile)]++;
  add_counts_of(request, counts);
  trace(fmt::format("object from {} pieces", split->call.targets.size()));
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
