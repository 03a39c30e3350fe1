#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <shimctl/links/device_link.hpp>
#include <shimctl/links/link_call.hpp>
#include <shimctl/links/link_store.hpp>
#include <shimctl/util/job_lines.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <shimctl/util/sha256.hpp>
#include <string_view>
#include <sys/stat.h>

namespace shimctl::links {

namespace {

void trace_link(std::string_view line) {
  const char* asked = std::getenv("SHIMCTL_SHIM_TRACE");
  if (asked && std::string_view(asked) == "1")
    fmt::print(stderr, "shimctl-shim: device link: {}\n", line);
}

util::Result<util::RunResult> run_real(const LinkRequest& request, std::vector<std::string> args) {
  args.insert(args.begin(), request.real);
  util::RunOptions options;
  options.argv0 = request.argv[0];
  return util::run(args, options);
}

// Why the driver's plan for CALL is not one linker job over the files the call names; "".
std::string plan_refusal(const LinkRequest& request, const LinkCall& call) {
  std::vector<std::string> args(request.argv.begin() + 1, request.argv.end());
  args.push_back("-###");
  auto printed = run_real(request, args);
  if (!printed || !printed->ok())
    return "the driver's -### failed";
  auto jobs = util::job_lines(printed->err);
  if (jobs.size() != 1)
    return fmt::format("the driver runs {} jobs, not one linker", jobs.size());
  const auto& job = jobs.front();
  auto program = std::filesystem::path(job.front()).filename().string();
  if (program != "ld.lld" && program != "lld")
    return "the driver runs " + program;
  for (std::size_t i = 1; i < job.size(); i++) {
    const std::string& arg = job[i];
    if (arg.starts_with("-l") || arg.starts_with("-L") || arg.starts_with('@'))
      return "the linker searches " + arg;
    std::error_code ec;
    if (job[i - 1] == "-o" || !std::filesystem::is_regular_file(arg, ec))
      continue;
    if (std::ranges::find(call.inputs, arg) == call.inputs.end())
      return "the linker reads " + arg;
  }
  return {};
}

std::string key_of(std::string_view kind, const LinkRequest& request, const LinkCall& call) {
  std::string text = fmt::format("{}\n{}\n{}\n", kind, request.identity, request.real);
  for (const auto& arg : call.keyed_args)
    text += arg + '\n';
  return util::sha256_hex(text);
}

// The real link, its stderr passed on (and its size in *PRINTED): the exit code; -1 when it
// cannot run.
int link_for_real(const LinkRequest& request, std::size_t* printed) {
  auto run = run_real(request, { request.argv.begin() + 1, request.argv.end() });
  if (!run)
    return -1;
  std::fwrite(run->err.data(), 1, run->err.size(), stderr);
  *printed = run->err.size();
  return run->exit_code;
}

// The GPU target the link is for (-mcpu=), for the trace.
std::string target_of(const LinkCall& call) {
  for (std::string_view prefix : { "-mcpu=", "-plugin-opt=mcpu=" })
    for (const auto& arg : call.keyed_args)
      if (arg.starts_with(prefix))
        return arg.substr(prefix.size());
  return call.output;
}

} // namespace

namespace {

// CALL served from the store (its KEY) or linked for real and kept; the first hit of a
// toolchain (VERDICT_NAME) checked against a real link.
int serve_or_link(const LinkRequest& request,
                  const LinkCall& call,
                  const std::string& key,
                  std::string& why) {
  auto place = cache::link_store_place_of_link();
  if (!place)
    return why = place.error().message, -1;
  auto store = LinkStore::open(*place);
  if (!store)
    return why = store.error().message, -1;
  std::string verdict_name = util::sha256_hex(request.identity + '\n' + request.real).substr(0, 32);
  std::string verdict = store->verdict(verdict_name);
  if (verdict == "differ")
    return why = "this toolchain's device links once differed from run to run", -1;
  auto entry = store->find(key);
  if (entry && verdict == "same") {
    if (store->copy_out(*entry, call.output)) {
      store->count(link_hit);
      trace_link(fmt::format("{} hit", target_of(call)));
      return 0;
    }
    entry.reset();
  }
  std::size_t printed = 0;
  int status = link_for_real(request, &printed);
  if (status != 0)
    return status < 0 ? (why = "the linker cannot run", -1) : status;
  if (entry) { // the toolchain's first hit: checked against the real link
    bool same = util::same_file_bytes(*entry, call.output);
    store->record_verdict(verdict_name, same); // not in a read-only store: checked each time
    store->count(same ? link_hit : link_uncached);
    trace_link(
      fmt::format("{} hit, the toolchain's first: checked against a real link: {}",
                  target_of(call),
                  same ? "identical" : "DIFFERENT: device links run uncached from now on"));
    return 0;
  }
  if (printed > 0) { // a hit could not show them again: such a link runs each time
    store->count(link_uncached);
    trace_link(fmt::format("{} miss (linked, not kept: the linker printed {} bytes on stderr)",
                           target_of(call),
                           printed));
    return 0;
  }
  if (store->read_only()) {
    store->count(link_miss); // measure's only: a read-only store's counts stay as they are
    trace_link(fmt::format("{} miss (linked, the store read-only: not kept)", target_of(call)));
    return 0;
  }
  (void)store->keep(key, call.output); // a store that cannot keep it: the next link runs again
  store->count(link_miss);
  trace_link(fmt::format("{} miss (linked, kept)", target_of(call)));
  return 0;
}

} // namespace

int run_device_link(const LinkRequest& request, std::string& why) {
  if (request.argv.empty() || request.identity.empty())
    return why = "no identity", -1;
  LinkCall call = read_link_call({ request.argv.begin() + 1, request.argv.end() });
  if (!(why = call.whole_reason).empty() || !(why = plan_refusal(request, call)).empty())
    return -1;
  return serve_or_link(request, call, key_of("shimctl device-link 1", request, call), why);
}

int run_lld_link(const LinkRequest& request, std::string& why) {
  if (request.argv.empty() || request.identity.empty())
    return why = "no identity", -1;
  LinkCall call = read_link_call({ request.argv.begin() + 1, request.argv.end() }, Linker::lld);
  if (!(why = call.whole_reason).empty())
    return -1;
  return serve_or_link(request, call, key_of("shimctl device-link lld 1", request, call), why);
}

} // namespace shimctl::links
