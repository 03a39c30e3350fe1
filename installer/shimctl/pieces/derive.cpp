#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <future>
#include <optional>
#include <shimctl/cache/cache_budget.hpp>
#include <shimctl/pieces/derive.hpp>
#include <shimctl/pieces/host_half.hpp>
#include <shimctl/pieces/lent_slot.hpp>
#include <shimctl/pieces/offload_bundle.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/pieces/piece_join.hpp>
#include <shimctl/pieces/piece_runs.hpp>
#include <shimctl/pieces/piece_trace.hpp>
#include <shimctl/pieces/piece_verdict.hpp>
#include <shimctl/pieces/target_sets.hpp>
#include <shimctl/pieces/wrapper_dry_run.hpp>
#include <shimctl/util/job_lines.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/text.hpp>
#include <unistd.h>

namespace shimctl::pieces {

namespace {

// The shim under the cache tool compiles nothing for a call with this set (shim/main.c): a miss
// fails, and the tool stores nothing.
constexpr const char* lookup_only_variable = "SHIMCTL_LOOKUP_ONLY";
// How many earlier target sets are looked up at most (each miss costs the tool's lookup).
constexpr std::size_t lookups_at_most = 2;

PieceResult not_derived(std::string why) {
  return PieceResult{ false, 0, std::move(why) };
}

// Where ARGV names its depfile (the index of -MF's value), or nullopt.
std::optional<std::size_t> depfile_at(const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i + 1 < argv.size(); i++)
    if (argv[i] == "-MF")
      return i + 1;
  return std::nullopt;
}

// The earlier call as this one would write it: its depfile where this call's goes (the shim's own
// depfile for depend mode has another name in every call; the tool does not key by it).
TargetSet writing_here(TargetSet set, const std::vector<std::string>& now) {
  auto earlier = depfile_at(set.argv), here = depfile_at(now);
  if (earlier && here)
    set.argv[*earlier] = now[*here];
  return set;
}

// The earlier object, written where the call writes its own (and its depfile too, which does
// not depend on the targets): looked up through the cache tool and moved to EARLIER. True on a
// hit; SERVED gets the tool's files of it, where the tool names them (Tool::logged_entries).
bool looked_up(const PieceRequest& request,
               const TargetSet& set,
               const std::string& output,
               const util::ScratchDir& scratch,
               const std::string& earlier,
               std::vector<std::string>& served,
               std::string& messages) {
  std::vector<std::string> args{ request.cache_tool };
  args.insert(args.end(), set.argv.begin(), set.argv.end());
  std::string mark = scratch.file("lookup.compiled"), log = scratch.file("lookup.log");
  std::remove(log.c_str());
  util::RunOptions options;
  options.env["SHIMCTL_PIECE_MARK"] = mark;
  options.env[lookup_only_variable] = "1";
  request.tool->piece_environment(options.env);
  bool logs = request.tool->logs_entries(options.env, log);
  auto run = util::run(args, options);
  bool hit = run && run->ok() && ::access(mark.c_str(), F_OK) != 0;
  std::error_code error;
  if (hit)
    std::filesystem::copy_file(
      output, earlier, std::filesystem::copy_options::overwrite_existing, error);
  if (logs)
    served = request.tool->logged_entries(log).served;
  if (hit && !error)
    messages += run->err;
  std::remove(mark.c_str());
  return hit && !error;
}

// The driver's plan of CALL (its bundler job, with the wrapper's on the new driver), or why not.
std::optional<OffloadPlan> derive_plan(const PieceRequest& request,
                                       const OffloadCall& call,
                                       const util::ScratchDir& scratch,
                                       std::string& why) {
  auto plan = asked_plan(request, call, why);
  if (!plan)
    return std::nullopt;
  if (plan->driver == OffloadDriver::new_driver &&
      !(why = take_wrapper_bundler(*plan, dry_run_on_placeholders(*plan, scratch))).empty())
    return std::nullopt;
  return plan;
}

std::string target_list(const std::vector<std::string>& targets) {
  return fmt::format("{}", fmt::join(targets, ","));
}

// The code object of target ID in BUNDLE, or nullopt.
std::optional<std::string> entry_of(const OffloadBundle& bundle, const std::string& id) {
  for (const auto& [triple, bytes] : bundle.entries)
    if (bundle_entry_target(triple) == id)
      return bytes;
  return std::nullopt;
}

// TARGETS of CALL compiled as a piece would be on a miss, but not through the cache tool (the
// derived object is what is stored): their files in FILE_OF, their names in COMPILED, their stderr
// in MESSAGES. "" or why not (a target's compile failed: the call then fails whole, as it would).
std::string compile_targets(const PieceRequest& request,
                            const OffloadCall& call,
                            std::vector<std::string> targets,
                            const OffloadPlan& plan,
                            const util::ScratchDir& scratch,
                            std::map<std::string, std::string>& file_of,
                            std::vector<std::string>& compiled,
                            std::string& messages,
                            PieceCounts& counts) {
  OffloadCall missing = call;
  missing.targets = std::move(targets);
  util::EnvChanges env;
  if (plan.driver == OffloadDriver::new_driver)
    if (auto why = image_piece_env(request, env); !why.empty())
      return why;
  auto runs = target_piece_runs(request, missing, env, scratch, false);
  auto results = run_pieces(request, runs);
  for (std::size_t i = 0; i < runs.size(); i++) {
    if (!results[i] || !results[i]->ok())
      return "the compile for " + runs[i].name + " failed";
    messages += results[i]->err;
    file_of[runs[i].name] = runs[i].file;
    compiled.push_back(runs[i].name);
    counts[std::string(target_compiled)]++;
  }
  return {};
}

// The targets' code objects for PLAN's bundler: from BUNDLE where it has them (written to
// SCRATCH), else compiled (compile_targets). FILES gets one per bundle input ("" for the
// host's); "" or why not.
std::string gather_pieces(const PieceRequest& request,
                          const OffloadCall& call,
                          const OffloadPlan& plan,
                          const OffloadBundle& bundle,
                          const util::ScratchDir& scratch,
                          std::vector<std::string>& files,
                          std::vector<std::string>& compiled,
                          std::string& messages,
                          PieceCounts& counts) {
  std::map<std::string, std::string> file_of;
  std::vector<std::string> missing;
  for (const auto& id : call.targets) {
    if (auto bytes = entry_of(bundle, id)) {
      std::string name = "earlier-" + target_file_name(id) + ".o";
      if (!scratch.write(name, *bytes))
        return "cannot write a code object taken from the earlier object";
      file_of[id] = scratch.file(name);
    } else {
      missing.push_back(id);
    }
  }
  if (auto failed =
        compile_targets(request, call, missing, plan, scratch, file_of, compiled, messages, counts);
      !failed.empty())
    return failed;
  for (const auto& id : plan.bundle_inputs) {
    if (!id.empty() && !file_of.contains(id))
      return "the bundler asks for a target the call does not name: " + id;
    files.push_back(id.empty() ? std::string() : file_of[id]);
  }
  return {};
}

// CALL's object (at CALL.output) from EARLIER's (of the targets EARLIER_TARGETS): its
// .hip_fatbin's code objects, the missing targets compiled, bundled as PLAN bundles them. "" or
// why not; ALONE when EARLIER registers no kernel: its object is the call's as it is, and the
// missing targets' device code is compiled all the same (its errors are the call's).
std::string derive_from(const PieceRequest& request,
                        const OffloadCall& call,
                        const OffloadPlan& plan,
                        const std::string& objcopy,
                        const std::string& earlier,
                        const std::vector<std::string>& earlier_targets,
                        const util::ScratchDir& scratch,
                        bool& alone,
                        std::vector<std::string>& compiled,
                        std::string& messages,
                        PieceCounts& counts) {
  auto fatbin = elf_section(util::read_text_file(earlier), ".hip_fatbin");
  if (!fatbin) {
    alone = registers_no_kernel(earlier);
    if (!alone)
      return "the earlier object is no ELF object";
    std::vector<std::string> missing;
    for (const auto& id : call.targets)
      if (std::ranges::find(earlier_targets, id) == earlier_targets.end())
        missing.push_back(id);
    std::map<std::string, std::string> file_of;
    if (auto failed = compile_targets(
          request, call, missing, plan, scratch, file_of, compiled, messages, counts);
        !failed.empty())
      return failed;
    return copy_half(earlier, call.output) ? "" : "cannot copy the earlier object to the output";
  }
  std::string why;
  auto bundle = read_offload_bundle(*fatbin, why);
  if (!bundle)
    return "the earlier object: " + why;
  std::string padding = fatbin->substr(bundle->end);
  if (padding.size() > 16 || std::ranges::any_of(padding, [](char c) { return c != 0; }))
    return "the earlier object's fat binary ends with bytes the bundle does not explain";
  std::vector<std::string> files;
  if (auto failed =
        gather_pieces(request, call, plan, *bundle, scratch, files, compiled, messages, counts);
      !failed.empty())
    return failed;
  std::string bundled_file = scratch.file("derived.hipfb");
  auto bundled = util::run(bundler_job(plan, files, "", bundled_file));
  if (!bundled || !bundled->ok())
    return "the bundler failed";
  std::string padded = bundled_file;
  if (!padding.empty()) {
    auto text = util::read_text_file(bundled_file);
    if (text.empty() || !scratch.write("derived-padded.hipfb", text + padding))
      return "cannot pad the bundle as the host compile would";
    padded = scratch.file("derived-padded.hipfb");
  }
  return replace_fatbin(objcopy, earlier, padded, call.output);
}

} // namespace

bool derives(const OffloadCall& call) {
  const char* store = std::getenv("SHIMCTL_PIECES_STORE");
  return !call.rdc && !(store && std::string_view(store) == "1");
}

PieceResult derive_object(const PieceRequest& request,
                          const OffloadCall& call,
                          const util::ScratchDir& scratch,
                          PieceCounts& counts) {
  auto sets = sets_to_derive_from(read_target_sets(target_sets_file(request, call)), call.targets);
  if (sets.empty())
    return not_derived("no earlier target set of this TU to derive its object from");
  std::string objcopy = toolchain_objcopy(request.real);
  if (objcopy.empty())
    return not_derived("no llvm-objcopy beside the compiler to derive the object with");
  std::string why;
  auto planned =
    std::async(std::launch::async, [&] { return derive_plan(request, call, scratch, why); });
  // A tool with a jobserver of its own (sccache): this compile's slot goes back while it asks.
  std::optional<LentSlot> slot;
  if (request.tool->runs_a_jobserver()) {
    if (auto lent = LentSlot::lend_to_the_server())
      slot.emplace(std::move(*lent));
    else {
      (void)planned.get();
      return not_derived(
        fmt::format("{} names no jobserver slot to lend while the earlier object is "
                    "looked up",
                    request.tool->name()));
    }
  }
  std::string messages, earlier = scratch.file("earlier.o");
  std::vector<std::string> served;
  const TargetSet* found = nullptr;
  for (std::size_t i = 0; i < sets.size() && i < lookups_at_most && !found; i++) {
    bool hit = looked_up(request,
                         writing_here(sets[i], cache_call_of(call)),
                         call.output,
                         scratch,
                         earlier,
                         served,
                         messages);
    counts[std::string(hit ? lookup_hit : lookup_miss)]++;
    trace(
      fmt::format("earlier object for {} {}", target_list(sets[i].targets), hit ? "hit" : "miss"));
    if (hit)
      found = &sets[i];
  }
  if (slot)
    slot->take_back();
  auto plan = planned.get();
  if (!found)
    return not_derived("no earlier target set's object of this TU in the cache");
  // From here the output holds the earlier object (the lookup wrote it): it goes unless this
  // call's own object replaces it, so that a whole compile that fails leaves no object that a
  // build tool going by times would take for this one.
  auto earlier_goes = [&](std::string why) {
    std::remove(call.output.c_str());
    return not_derived(std::move(why));
  };
  if (!plan)
    return earlier_goes(why);
  auto verdict_for = [&](bool alone) {
    std::string kind =
      plan_kind(*plan) + host_half_verdict_kind(objcopy) + (alone ? " derived alone" : " derived");
    return verdict_of(verdict_place(request.tool->compiler_key(), request.real, kind),
                      "objects are not derived from now on");
  };
  bool alone = false;
  std::vector<std::string> compiled;
  if (auto failed = derive_from(request,
                                call,
                                *plan,
                                objcopy,
                                earlier,
                                found->targets,
                                scratch,
                                alone,
                                compiled,
                                messages,
                                counts);
      !failed.empty())
    return earlier_goes(failed);
  auto verdict = verdict_for(alone);
  if (verdict.said == "differ")
    return earlier_goes("this toolchain once derived another object than its one-step compile");
  if (!first_split_checked(request, call, verdict, scratch, counts))
    return earlier_goes("the derived object differed from the one-step compile");
  counts[std::string(derived)]++;
  // The earlier object is superseded: over the budget it goes before any other (this build
  // has read it; a TU that has not derived yet still needs its own). A read-only cache stays
  // as it is.
  if (!request.tool->environment_reads_only())
    cache::supersede(served);
  trace(alone ? fmt::format("object: the {} object as it is (the TU registers no kernel; "
                            "compiled {} for its errors)",
                            target_list(found->targets),
                            compiled.empty() ? std::string("nothing") : target_list(compiled))
              : fmt::format("object derived from the {} object: compiled {}",
                            target_list(found->targets),
                            compiled.empty() ? std::string("nothing") : target_list(compiled)));
  std::fwrite(messages.data(), 1, messages.size(), stderr);
  return PieceResult{ true, 0, {} };
}

} // namespace shimctl::pieces
