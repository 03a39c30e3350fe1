#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <shim/formats.h>
#include <shimctl/pieces/host_half.hpp>
#include <shimctl/pieces/offload_plan.hpp>
#include <shimctl/pieces/piece_entries.hpp>
#include <shimctl/pieces/piece_image.hpp>
#include <shimctl/pieces/piece_runs.hpp>
#include <shimctl/pieces/piece_trace.hpp>
#include <thread>
#include <unistd.h>

namespace shimctl::pieces {

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

bool was_made(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

} // namespace

std::vector<PieceRun> target_piece_runs(const PieceRequest& request,
                                        const OffloadCall& call,
                                        const util::EnvChanges& env,
                                        const util::ScratchDir& scratch,
                                        bool through_cache) {
  std::vector<PieceRun> runs;
  for (const auto& id : call.targets) {
    std::string stem = "piece-" + target_file_name(id);
    PieceRun run;
    run.name = id;
    run.env = env;
    run.file = scratch.file(stem + ".o");
    // The shim under the cache tool marks a piece it compiled (shim/pieces_handoff.c): a miss.
    run.mark = scratch.file(stem + ".compiled");
    if (through_cache)
      run.args.push_back(request.cache_tool);
    run.args.push_back(request.compiler);
    run.args.insert(run.args.end(), call.shared_args.begin(), call.shared_args.end());
    for (const char* flag : { "--cuda-device-only", "--no-gpu-bundle-output" })
      run.args.emplace_back(flag);
    run.args.push_back("--offload-arch=" + id);
    if (through_cache) {
      auto depend = request.tool->piece_depend_args(scratch.file(stem + ".d"));
      run.args.insert(run.args.end(), depend.begin(), depend.end());
      run.log = scratch.file(stem + ".log");
    }
    run.args.push_back("-o");
    run.args.push_back(run.file);
    runs.push_back(std::move(run));
  }
  return runs;
}

PieceRun host_half_run(const PieceRequest& request,
                       const OffloadCall& call,
                       const std::string& file,
                       const util::ScratchDir& scratch) {
  PieceRun run;
  run.args = host_half_command(request, call, file);
  run.mark = scratch.file("host-half.compiled");
  run.log = scratch.file("host-half.log");
  run.name = "host";
  run.file = file;
  run.host = true;
  return run;
}

std::vector<util::Result<util::RunResult>> run_pieces(const PieceRequest& request,
                                                      const std::vector<PieceRun>& runs) {
  std::vector<util::Result<util::RunResult>> results(
    runs.size(), std::unexpected(util::Error{ "not run", util::ExitCode::failure }));
  if (runs.empty())
    return results;
  std::atomic<std::size_t> next{ 0 };
  auto worker = [&] {
    for (std::size_t i; (i = next++) < runs.size();) {
      util::RunOptions options;
      options.env = runs[i].env;
      options.env["SHIMCTL_PIECE_MARK"] = runs[i].mark;
      request.tool->piece_environment(options.env);
      if (!runs[i].log.empty())
        (void)request.tool->logs_entries(options.env, runs[i].log);
      results[i] = util::run(runs[i].args, options);
    }
  };
  std::vector<std::thread> threads(concurrency(runs.size()) - 1);
  for (auto& t : threads)
    t = std::thread(worker);
  worker();
  for (auto& t : threads)
    t.join();
  return results;
}

std::string account_pieces(const PieceRequest& request,
                           const std::vector<PieceRun>& runs,
                           const std::vector<util::Result<util::RunResult>>& results,
                           std::string& messages,
                           PieceCounts& counts,
                           std::map<std::string, std::string>& file_of) {
  const char* log = std::getenv(SHIMCTL_MEASURE_LOG);
  std::string failed;
  std::vector<std::string> stored;
  for (std::size_t i = 0; i < runs.size(); i++) {
    const auto& run = runs[i];
    if (!run.log.empty()) {
      auto entries = request.tool->logged_entries(run.log);
      stored.insert(stored.end(), entries.stored.begin(), entries.stored.end());
    }
    if (!results[i] || !results[i]->ok()) {
      if (failed.empty())
        failed = run.host ? "the host half failed" : "the piece for " + run.name + " failed";
      continue;
    }
    messages += results[i]->err;
    bool hit = !was_made(run.mark);
    auto kind = run.host ? (hit ? host_hit : host_miss) : (hit ? piece_hit : piece_miss);
    counts[std::string(kind)]++;
    trace(fmt::format(
      "{} {}", run.host ? "host half" : "piece " + run.name, hit ? "hit" : "miss (compiled)"));
    if (log && *log)
      record_for_measure(log, kind, run.name, request.tool->name());
    if (!run.host)
      file_of[run.name] = run.file;
  }
  if (!stored.empty())
    list_piece_entries(cache_dir_of(request), request.tool->file_umask(), stored);
  return failed;
}

std::string image_piece_env(const PieceRequest& request, util::EnvChanges& env) {
  env[piece_image_env] = "1";
  return request.tool->key_apart(piece_image_key, env);
}

} // namespace shimctl::pieces
