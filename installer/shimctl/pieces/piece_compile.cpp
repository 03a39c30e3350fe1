#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <optional>
#include <shim/formats.h>
#include <shimctl/pieces/lent_slot.hpp>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/pieces/piece_compile.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/pieces/piece_trace.hpp>
#include <shimctl/util/dir.hpp>
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

// The directory the counters go to: the cache tool's.
std::string cache_dir_of(const PieceRequest& request) {
  if (!request.ccache) {
    if (auto dir = env_or("SCCACHE_DIR"); !dir.empty())
      return dir;
    char home[4096];
    size_t len = shimctl_user_cache_home(
      home, sizeof home, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
    return len && len < sizeof home ? std::string(home, len) + "/sccache" : std::string();
  }
  if (auto dir = env_or("CCACHE_DIR"); !dir.empty())
    return dir;
  auto run = util::run({ request.cache_tool, "-k", "cache_dir" });
  return run && run->ok() ? util::first_line(run->out) : std::string();
}

// The first split of a toolchain (its key: what the cache tool keys it by) is checked against
// its one-step compile, and the verdict ("same" or "differ") kept in the user's cache home:
// the directory and the file's name; "" when there is no cache home.
std::pair<std::string, std::string> verdict_place(const PieceRequest& request, bool rdc) {
  char home[4096];
  size_t len =
    shimctl_user_cache_home(home, sizeof home, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (!len || len >= sizeof home)
    return {};
  std::string key = fmt::format("{}\n{}\n{}\n{}",
                                request.real,
                                env_or("CCACHE_COMPILERCHECK"),
                                env_or("SCCACHE_C_CUSTOM_CACHE_BUSTER"),
                                rdc ? "rdc" : "objects");
  return { std::string(home, len), util::sha256_hex(key).substr(0, 32) };
}

constexpr std::string_view verdicts_dir = "pieces-checked"; // in SHIMCTL_USER_CACHE_DIR

std::string read_verdict(const std::pair<std::string, std::string>& place) {
  return util::first_line(util::read_text_file(
    fmt::format("{}/{}/{}/{}", place.first, SHIMCTL_USER_CACHE_DIR, verdicts_dir, place.second)));
}

void record_verdict(const std::pair<std::string, std::string>& place, bool same) {
  auto home = util::Dir::open(place.first);
  if (!home || !home->make_dir(SHIMCTL_USER_CACHE_DIR, 0700))
    return;
  auto ours = home->open_relative(SHIMCTL_USER_CACHE_DIR);
  if (!ours || !ours->make_dir(verdicts_dir, 0700))
    return;
  if (auto dir = ours->open_relative(verdicts_dir))
    (void)dir->write_atomic(place.second, same ? "same\n" : "differ\n", 0600);
}

bool same_bytes(const std::string& a, const std::string& b) {
  auto ha = util::sha256_file(a), hb = util::sha256_file(b);
  return ha && hb && *ha == *hb;
}

std::string_view tool_name(const PieceRequest& request) {
  return request.ccache ? SHIMCTL_CACHE_KIND_CCACHE : SHIMCTL_CACHE_KIND_SCCACHE;
}

bool exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

// Runs the compiler itself (argv[0] as the caller named it).
util::Result<util::RunResult> run_compiler(const PieceRequest& request,
                                           std::vector<std::string> args) {
  args.insert(args.begin(), request.real);
  util::RunOptions options;
  options.argv0 = request.argv[0];
  return util::run(args, options);
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

// Runs each non-empty ARGS[i] (a piece through the cache tool, MARKS[i] its mark) and returns the
// results in the same order; CONCURRENCY at once.
std::vector<util::Result<util::RunResult>> run_pieces(
  const PieceRequest& request,
  const std::vector<std::vector<std::string>>& args,
  const std::vector<std::string>& marks) {
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
      options.env["SHIMCTL_PIECE_MARK"] = marks[i];
      if (request.ccache) {
        options.env["CCACHE_DISABLE"] = std::nullopt;  // ccache's, for the compiler it runs (us)
        options.env["CCACHE_STATSLOG"] = std::nullopt; // measure's: pieces are recorded apart
      }
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

  auto verdict_at = verdict_place(request, call.rdc);
  if (verdict_at.first.empty())
    return whole("no cache home to record the pieces' check in");
  std::string verdict = read_verdict(verdict_at);
  if (verdict == "differ")
    return whole("this toolchain's pieces once gave another object than its one-step compile");

  auto jobs_args = args;
  jobs_args.push_back("-###");
  auto jobs = run_compiler(request, jobs_args);
  if (!jobs || !jobs->ok())
    return whole("the driver's -### failed");
  OffloadPlan plan = recognise_plan(parse_jobs(jobs->err), call.targets, call.rdc);
  if (!plan.whole_reason.empty())
    return whole(plan.whole_reason);

  auto scratch = util::ScratchDir::create("pieces");
  if (!scratch)
    return whole("no scratch directory: " + scratch.error().message);
  std::string log = env_or(SHIMCTL_MEASURE_LOG);
  PieceCounts counts;
  std::string messages; // the pieces' and the host's stderr, in the one-step order
  std::vector<std::string> piece_files(plan.bundle_inputs.size());
  // sccache: this compile's slot goes back to the server while its pieces compile there.
  auto slot = request.ccache ? std::nullopt : LentSlot::lend(env_or("CARGO_MAKEFLAGS"));
  if (!request.ccache && !slot)
    return whole("sccache names no jobserver slot to lend while the pieces compile");
  // One compile per target through the cache tool, as many at once as there are idle CPUs.
  std::vector<std::vector<std::string>> piece_args(plan.bundle_inputs.size());
  std::vector<std::string> marks(plan.bundle_inputs.size());
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
  auto runs = run_pieces(request, piece_args, marks);
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
      record_for_measure(log, hit ? piece_hit : piece_miss, id, tool_name(request));
  }

  if (slot)
    slot->take_back();

  // The bundler as the driver runs it, with the pieces as its inputs.
  std::string bundle = call.rdc ? call.output + ".shimctl-pieces" : scratch->file("bundle.hipfb");
  Job bundler_args;
  std::size_t input = 0;
  for (const auto& arg : plan.bundler) {
    if (arg.starts_with("-input=")) {
      const auto& piece = piece_files[input];
      bundler_args.push_back(!piece.empty() ? "-input=" + piece
                             : call.rdc     ? "-input=" + call.output
                                            : arg);
      input++;
    } else if (arg.starts_with("-output=")) {
      bundler_args.push_back("-output=" + bundle);
    } else {
      bundler_args.push_back(arg);
    }
  }

  std::vector<std::string> host = args;
  host.push_back("--cuda-host-only");
  if (call.rdc) {
    host.emplace_back("-Xclang");
    host.push_back("-cuid=" + call.cuid); // clang-15/16 drop -cuid= from a host-only compile
  } else {
    auto bundled = util::run(bundler_args);
    if (!bundled || !bundled->ok())
      return whole("the bundler failed");
    for (const char* flag : { "-Xclang", "-fcuda-include-gpubinary", "-Xclang" })
      host.emplace_back(flag);
    host.push_back(bundle);
  }
  auto host_run = run_compiler(request, host);
  if (!host_run || !host_run->ok())
    return whole("the host compile failed");
  messages += host_run->err;
  if (call.rdc) {
    auto bundled = util::run(bundler_args);
    if (!bundled || !bundled->ok() || std::rename(bundle.c_str(), call.output.c_str()) != 0) {
      std::remove(bundle.c_str());
      return whole("the bundler failed");
    }
  }

  if (verdict != "same") { // the first split of this toolchain: against its one-step compile
    std::string one_step = scratch->file("one-step.o");
    auto check = call.check_args;
    check.push_back("-o");
    check.push_back(one_step);
    auto checked = run_compiler(request, check);
    bool same = checked && checked->ok() && same_bytes(one_step, call.output);
    counts[std::string(same ? checked_same : checked_differ)]++;
    record_verdict(verdict_at, same);
    trace(fmt::format("first split of this toolchain checked against its one-step compile: {}",
                      same ? "identical" : "DIFFERENT: compiles run whole from now on"));
    if (!same) {
      add_counts(cache_dir_of(request), counts);
      return whole("the split object differed from the one-step compile");
    }
  }
  counts[std::string(split_compile)]++;
  add_counts(cache_dir_of(request), counts);
  trace(fmt::format("object from {} pieces", call.targets.size()));
  std::fwrite(messages.data(), 1, messages.size(), stderr);
  return PieceResult{ true, 0, {} };
}

} // namespace

PieceResult compile_from_pieces(const PieceRequest& request) {
  PieceResult result = split_compile_of(request);
  if (!result.split) { // counted where the pieces are kept
    add_counts(cache_dir_of(request), { { std::string(whole_compile), 1 } });
    if (auto log = env_or(SHIMCTL_MEASURE_LOG); !log.empty())
      record_for_measure(log, whole_compile, "-", tool_name(request));
  }
  return result;
}

} // namespace shimctl::pieces
