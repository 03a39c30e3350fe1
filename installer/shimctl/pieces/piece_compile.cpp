#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
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

bool same_bytes(const std::string& a, const std::string& b) {
  auto ha = util::sha256_file(a), hb = util::sha256_file(b);
  return ha && hb && *ha == *hb;
}

bool exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

std::string safe_name(std::string_view id) {
  std::string out(id);
  std::ranges::replace_if(
    out, [](char c) { return c == ':' || c == '/'; }, '_');
  return out;
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

// The new driver without -fgpu-rdc: the bundler job its linker wrapper runs, from the wrapper's
// --dry-run on a package of placeholder images (the jobs do not depend on their bytes).
std::string wrapper_bundler(OffloadPlan& plan, const util::ScratchDir& scratch) {
  std::vector<std::string> files;
  for (const auto& id : plan.package_images) {
    files.push_back(scratch.file("placeholder-" + safe_name(id) + ".o"));
    if (!scratch.write(files.back().substr(scratch.path().size() + 1), "shimctl"))
      return "no scratch space";
  }
  std::string package = scratch.file("placeholders.pkg");
  auto packaged = util::run(packager_with(plan.packager, files, package));
  if (!packaged || !packaged->ok())
    return "the packager failed on placeholders";
  auto dry = util::run(wrapper_dry_run(
    plan.wrapper, job_value(plan.packager, "-o"), package, scratch.file("placeholders.hipfb")));
  if (!dry || !dry->ok())
    return "the linker wrapper's --dry-run failed";
  std::vector<std::string> targets(plan.package_images);
  WrapperJobs wrapper = recognise_wrapper_jobs(util::wrapper_lines(dry->err), targets);
  plan.bundler = wrapper.bundler;
  plan.bundle_inputs = wrapper.bundle_inputs;
  return wrapper.whole_reason;
}

// What the first split's verdict is kept for: the kind of plan.
std::string plan_kind(const OffloadPlan& plan) {
  if (plan.driver == OffloadDriver::old_driver)
    return plan.rdc ? "rdc" : "objects";
  bool compressed = std::ranges::any_of(
    plan.bundler, [](const std::string& arg) { return arg.starts_with("-compress"); });
  return std::string("new-driver ") + (plan.rdc ? "rdc" : "objects") +
         (compressed ? " compressed" : "");
}

// The new driver's pieces without -fgpu-rdc are images (piece_image.hpp): set the variable that
// asks for one, and give them a key of their own, apart from a --cuda-device-only compile of the
// same arguments (whose object differs). "" or why not.
std::string image_piece_env(const PieceRequest& request, EnvChanges& env) {
  env[piece_image_env] = "1";
  return request.tool->key_apart(piece_image_key, env);
}

// The object from pieces, or why not.
PieceResult split_compile_of(const PieceRequest& request) {
  std::vector<std::string> args(request.argv.begin() + 1, request.argv.end());
  const char* pieces = std::getenv("SHIMCTL_PIECES");
  OffloadCall call = read_offload_call(args, pieces && std::string_view(pieces) == "1");
  if (!call.whole_reason.empty())
    return whole(call.whole_reason);
  char expected[SHIMCTL_CUID_HEX + 1];
  shimctl_cuid_value(expected, call.source.c_str(), call.output.c_str());
  if (call.cuid != expected)
    return whole("the CUID is not the shim's");

  auto jobs_args = args;
  jobs_args.push_back("-###");
  auto jobs = run_compiler(request, jobs_args);
  if (!jobs || !jobs->ok())
    return whole("the driver's -### failed");
  OffloadPlan plan = recognise_plan(util::job_lines(jobs->err), call.targets, call.rdc);
  if (!plan.whole_reason.empty())
    return whole(plan.whole_reason);
  bool new_driver = plan.driver == OffloadDriver::new_driver;

  auto scratch = util::ScratchDir::create("pieces");
  if (!scratch)
    return whole("no scratch directory: " + scratch.error().message);
  EnvChanges piece_env;
  if (new_driver && !call.rdc) {
    if (auto why = wrapper_bundler(plan, *scratch); !why.empty())
      return whole(why);
    if (auto why = image_piece_env(request, piece_env); !why.empty())
      return whole(why);
  } else if (new_driver) {
    plan.bundle_inputs = plan.package_images; // the packager's images, in its order
  }

  auto verdict_at = verdict_place(request.tool->compiler_key(), request.real, plan_kind(plan));
  if (verdict_at.home.empty())
    return whole("no cache home to record the pieces' check in");
  std::string verdict = read_verdict(verdict_at);
  if (verdict == "differ")
    return whole("this toolchain's pieces once gave another object than its one-step compile");
  // The host half cached apart (non-rdc): one more compile through the cache tool, with a verdict
  // of its own (a reassembly that once differed: the host is compiled with the object again).
  HostHalf host_half;
  VerdictPlace host_verdict_at;
  std::string host_verdict;
  if (!call.rdc)
    host_half.objcopy = host_half_objcopy(request, call);
  if (!host_half.objcopy.empty()) {
    host_verdict_at = verdict_place(request.tool->compiler_key(),
                                    request.real,
                                    plan_kind(plan) + host_half_verdict_kind(host_half.objcopy));
    host_verdict = read_verdict(host_verdict_at);
    if (host_verdict != "differ")
      host_half.file = scratch->file("host-half.o");
  }

  std::string log = env_or(SHIMCTL_MEASURE_LOG);
  PieceCounts counts;
  std::string messages; // the pieces' and the host's stderr, in the one-step order
  std::vector<std::string> piece_files(plan.bundle_inputs.size());
  // A tool with a jobserver of its own: this compile's slot goes back while its pieces run there.
  bool lends = request.tool->runs_a_jobserver();
  auto slot = lends ? LentSlot::lend(env_or("CARGO_MAKEFLAGS")) : std::nullopt;
  if (lends && !slot)
    return whole(fmt::format("{} names no jobserver slot to lend while the pieces compile",
                             request.tool->name()));
  // One compile per target through the cache tool, as many at once as there are idle CPUs.
  std::size_t halves = host_half.file.empty() ? 0 : 1; // the host half: the last entry
  std::vector<std::vector<std::string>> piece_args(plan.bundle_inputs.size() + halves);
  std::vector<std::string> marks(piece_args.size());
  std::vector<EnvChanges> envs(piece_args.size(), piece_env);
  if (halves) {
    piece_args.back() = host_half_command(request, call, host_half.file);
    marks.back() = scratch->file("host-half.compiled");
    envs.back() = {};
  }
  for (std::size_t i = 0; i < plan.bundle_inputs.size(); i++) {
    const auto& id = plan.bundle_inputs[i];
    if (id.empty())
      continue;
    piece_files[i] = scratch->file("piece-" + safe_name(id) + ".o");
    // The shim under the cache tool marks a piece it compiled (shim/main.c): a miss.
    marks[i] = scratch->file("piece-" + safe_name(id) + ".compiled");
    auto& piece = piece_args[i];
    piece = { request.cache_tool, request.compiler };
    piece.insert(piece.end(), call.shared_args.begin(), call.shared_args.end());
    for (const char* flag : { "--cuda-device-only", "--no-gpu-bundle-output" })
      piece.emplace_back(flag);
    piece.push_back("--offload-arch=" + id);
    piece.push_back("-o");
    piece.push_back(piece_files[i]);
  }
  auto runs = run_pieces(request, piece_args, marks, envs);
  for (std::size_t i = 0; i < plan.bundle_inputs.size(); i++) {
    const auto& id = plan.bundle_inputs[i];
    if (id.empty())
      continue;
    if (!runs[i] || !runs[i]->ok())
      return whole("the piece for " + id + " failed");
    messages += runs[i]->err;
    bool hit = !exists(marks[i]);
    counts[std::string(hit ? piece_hit : piece_miss)]++;
    trace(fmt::format("piece {} {}", id, hit ? "hit" : "miss (compiled)"));
    if (!log.empty())
      record_for_measure(log, hit ? piece_hit : piece_miss, id, request.tool->name());
  }

  if (halves) {
    if (!runs.back() || !runs.back()->ok())
      return whole("the host half failed");
    messages += runs.back()->err;
    bool hit = !exists(marks.back());
    counts[std::string(hit ? host_hit : host_miss)]++;
    trace(fmt::format("host half {}", hit ? "hit" : "miss (compiled)"));
    if (!log.empty())
      record_for_measure(log, hit ? host_hit : host_miss, "host", request.tool->name());
  }

  if (slot)
    slot->take_back();

  std::string host_half_failure;
  if (auto why = join_pieces(
        request, call, plan, piece_files, host_half, *scratch, messages, host_half_failure);
      !why.empty())
    return whole(why);
  if (!host_half_failure.empty()) { // the host compiled here instead
    record_verdict(host_verdict_at, false);
    trace(fmt::format("host half not used from now on: {}", host_half_failure));
    host_half.file.clear();
  }
  // The first split of this toolchain (and the first reassembly from a host half): against its
  // one-step compile. A reassembly that differs keeps the host compile with the object after it.
  bool reassembled = !host_half.file.empty();
  if (reassembled ? host_verdict != "same" : verdict != "same") {
    std::string one_step = scratch->file("one-step.o");
    auto check = call.check_args;
    check.push_back("-o");
    check.push_back(one_step);
    auto checked = run_compiler(request, check);
    bool same = checked && checked->ok() && same_bytes(one_step, call.output);
    counts[std::string(same ? checked_same : checked_differ)]++;
    record_verdict(reassembled ? host_verdict_at : verdict_at, same);
    trace(fmt::format("first split of this toolchain checked against its one-step compile: {}",
                      same          ? "identical"
                      : reassembled ? "DIFFERENT: the host compiles with the object from now on"
                                    : "DIFFERENT: compiles run whole from now on"));
    if (!same) {
      add_counts_of(request, counts);
      return whole("the split object differed from the one-step compile");
    }
  }
  counts[std::string(split_compile)]++;
  add_counts_of(request, counts);
  trace(fmt::format("object from {} pieces", call.targets.size()));
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
