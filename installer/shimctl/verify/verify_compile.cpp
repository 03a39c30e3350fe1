#include <algorithm>
#include <fmt/ranges.h>
#include <fstream>
#include <shim/formats.h>
#include <shimctl/cache/cache_backend.hpp>
#include <shimctl/cache/shim_config.hpp>
#include <shimctl/core/layout.hpp>
#include <shimctl/core/transaction.hpp>
#include <shimctl/core/user_cache_dir.hpp>
#include <shimctl/util/process.hpp>
#include <shimctl/util/scratch.hpp>
#include <shimctl/util/text.hpp>
#include <shimctl/verify/verify_compile.hpp>
#include <sstream>

namespace shimctl::verify {

namespace {

constexpr std::string_view hip_source = R"(#include <hip/hip_runtime.h>
__global__ void shimctl_verify(float* x) {
  x[threadIdx.x] = sqrtf(x[threadIdx.x]) + sinf(x[threadIdx.x]);
}
)";

constexpr std::string_view cuda_source = R"(__global__ void shimctl_verify(float* x) {
  x[threadIdx.x] = sqrtf(x[threadIdx.x]) + sinf(x[threadIdx.x]);
}
)";

constexpr std::string_view c_source = R"(#include <stdio.h>
int main(void) { puts("shimctl verify c"); return 0; }
)";

constexpr std::string_view cxx_source = R"(#include <iostream>
int main() { std::cout << "shimctl verify c++" << std::endl; return 0; }
)";

constexpr const char* object_name = "out.o"; // every verification compile's -o

struct Probe {
  std::string file;
  std::string_view source;
  std::vector<std::string> flags;
};

bool is_cxx_name(const std::string& path) {
  return util::split_relative(path).second.find("++") != std::string::npos;
}

// The name to compile through: the wrapped file itself when the layout names it as a
// compiler, else the first of its aliases the layout names (ROCm's amdllvm is a launcher
// that works only as amdclang or amdclang++).
std::string invoked_name(const core::Context& context,
                         const core::Manifest& m,
                         const core::WrappedCompiler& c) {
  auto it = core::manifest_layout(context.layouts_dir, m.layout);
  if (!it)
    return c.path; // the compile through the wrapped name tells what is wrong
  auto named = [&](const std::string& path) {
    return std::any_of(it->compilers.begin(),
                       it->compilers.end(),
                       [&](const core::CompilerSpec& spec) { return spec.path == path; });
  };
  if (named(c.path))
    return c.path;
  for (const auto& alias : c.aliases)
    if (named(alias.path))
      return alias.path;
  return c.path;
}

Probe probe_for(const std::string& invoked,
                const core::WrappedCompiler& c,
                const VerifyOptions& options) {
  switch (c.verify) {
    case core::VerifyKind::hip:
      return { "k.hip", hip_source, { "-x", "hip", "--offload-arch=" + options.offload_arch } };
    case core::VerifyKind::cuda:
      return { "k.cu", cuda_source, { "-arch=" + options.cuda_arch } };
    case core::VerifyKind::c_cxx:
      break;
  }
  if (is_cxx_name(invoked))
    return { "x.cpp", cxx_source, {} };
  return { "x.c", c_source, {} };
}

struct Compile {
  util::RunResult result;
  std::string object;
  std::vector<std::string> argv; // the command, run in a scratch directory
};

// Why a verification compile failed, in one line: the command and the compiler's first error.
std::string compile_failure(std::string_view what, const Compile& compile) {
  return fmt::format("{} failed: `{}`: {}",
                     what,
                     fmt::join(compile.argv, " "),
                     util::first_error_line(compile.result.err + compile.result.out, 500));
}

util::Result<Compile> compile_in_fresh_dir(const std::string& compiler,
                                           const Probe& probe,
                                           util::RunOptions options,
                                           bool through_shim) {
  TRY_ASSIGN(auto scratch, util::ScratchDir::create("verify"));
  TRY(scratch.write(probe.file, probe.source));
  options.cwd = scratch.path();
  if (!through_shim)
    options.env["SHIMCTL_DISABLE"] = "1";
  std::vector<std::string> argv{ compiler };
  argv.insert(argv.end(), probe.flags.begin(), probe.flags.end());
  argv.insert(argv.end(), { "-c", probe.file, "-o", object_name });
  TRY_ASSIGN(auto r, util::run(argv, options));
  return Compile{ r, util::read_text_file(scratch.file(object_name)), argv };
}

void check_link_and_run(const core::Manifest& m,
                        const std::string& invoked,
                        const Probe& probe,
                        std::vector<Check>& out) {
  auto scratch = util::ScratchDir::create("verify");
  if (!scratch)
    return;
  if (!scratch->write(probe.file, probe.source))
    return;
  util::RunOptions options;
  options.cwd = scratch->path();
  cache::tool_of(m.cache).leave_statistics_alone(options); // a link is not cached: not counted
  auto link = util::run({ m.prefix + "/" + invoked, probe.file, "-o", "prog" }, options);
  if (!link || !link->ok()) {
    out.push_back({ invoked,
                    "link",
                    Outcome::fail,
                    link ? util::first_error_line(link->err, 200) : link.error().message });
    return;
  }
  auto run = util::run({ scratch->file("prog") });
  bool ran = run && run->ok() && run->out.find("shimctl verify") != std::string::npos;
  out.push_back({ invoked,
                  "link+run",
                  ran ? Outcome::pass : Outcome::fail,
                  ran ? util::first_line(run->out, 200) : "the linked program did not run" });
}

// sccache's reasons for not caching, from the statistics delta: ": -x".

} // namespace

namespace {

// The lines of an events log and its path; none when unreadable or empty.
void add_events(const util::Result<std::string>& text,
                const std::string& path,
                std::size_t& lines,
                std::string& last,
                std::vector<std::string>& where) {
  if (!text || text->empty())
    return;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    ++lines;
    last = line;
  }
  where.push_back(path);
}

} // namespace

std::string read_events(const util::Dir& prefix_dir) {
  std::size_t lines = 0;
  std::string last;
  std::vector<std::string> where;
  if (auto state = prefix_dir.open_relative(core::state_dir_name))
    add_events(state->read_file(core::events_file, 16 << 20),
               state->path_of(core::events_file),
               lines,
               last,
               where);
  // The calling user's own log of this prefix (shim/formats.h): where the shim
  // writes when the prefix's is not writable by that user.
  if (auto path = core::user_prefix_file(SHIMCTL_USER_EVENTS_DIR, prefix_dir.path());
      !path.empty()) {
    auto [dir, name] = util::split_relative(path);
    if (auto user = util::Dir::open(dir))
      add_events(user->read_file(name, 16 << 20), path, lines, last, where);
  }
  if (lines == 0)
    return "";
  return fmt::format(
    "{} shim event(s) recorded in {}; last: {}", lines, fmt::join(where, " and "), last);
}

void verify_compiles(const core::Context& context,
                     const core::Manifest& m,
                     const core::WrappedCompiler& c,
                     const VerifyOptions& options,
                     std::vector<Check>& out) {
  auto invoked = invoked_name(context, m, c);
  auto probe = probe_for(invoked, c, options);
  auto compiler = m.prefix + "/" + invoked;
  auto env = cache::shim_environment(m.cache, m.fingerprint.sha256, cache::identity_paths(m));
  util::RunOptions run_options;
  run_options.env = cache::tool_environment(env);
  run_options.env["SHIMCTL_DISABLE"] = std::nullopt;
  run_options.env["SHIMCTL_ACTIVE"] = std::nullopt;
  auto log_dir = util::ScratchDir::create("cachelog");
  if (!log_dir) {
    out.push_back({ c.path, "compile", Outcome::fail, log_dir.error().message });
    return;
  }
  auto shim_options = run_options;
  const auto& tool = cache::tool_of(m.cache);
  tool.leave_statistics_alone(shim_options); // the users' counters are left as they were

  auto cold = compile_in_fresh_dir(compiler, probe, shim_options, true);
  if (!cold || !cold->result.ok()) {
    out.push_back(
      { c.path,
        "compile",
        Outcome::fail,
        cold ? compile_failure("a test compile through the shim", *cold) : cold.error().message });
    return;
  }
  auto witness = tool.hit_witness(m.cache, run_options, log_dir->path());
  auto warm_options = shim_options;
  witness->watch(warm_options);
  auto warm = compile_in_fresh_dir(compiler, probe, warm_options, true);
  if (!warm || !warm->result.ok()) {
    out.push_back({ c.path,
                    "compile",
                    Outcome::fail,
                    warm ? compile_failure("the repeat compile", *warm) : warm.error().message });
    return;
  }
  out.push_back(
    { c.path,
      "compile",
      Outcome::pass,
      fmt::format("{} through the shim: {} bytes of object", probe.file, warm->object.size()) });

  auto verdict = witness->verdict();
  using Kind = cache::HitVerdict::Kind;
  if (verdict.kind == Kind::hit)
    out.push_back({ c.path,
                    "cache hit",
                    Outcome::pass,
                    fmt::format("the repeat compile was a cache hit ({})", verdict.evidence) });
  else if (verdict.kind == Kind::miss)
    out.push_back({ c.path,
                    "cache hit",
                    Outcome::fail,
                    "the repeat compile was not a cache hit: " + verdict.why });
  else
    out.push_back({ c.path,
                    "cache hit",
                    Outcome::not_cached,
                    fmt::format("not cached by {} {}{}{} (it compiles, uncached)",
                                tool.name(),
                                m.cache.version,
                                verdict.why.empty() ? "" : ": ",
                                verdict.why) });

  // SHIMCTL_DISABLE=1 through the shim: the original, with the shim's own -cuid= for a HIP compile
  // (shim/formats.h) as on every compile it runs, so that the objects compare byte for byte.
  auto direct = compile_in_fresh_dir(compiler, probe, run_options, false);
  if (!direct || !direct->result.ok()) {
    out.push_back({ c.path, "reference", Outcome::warn, "the original alone failed to compile" });
  } else if (direct->object == warm->object) {
    out.push_back({ c.path, "reference", Outcome::pass, "identical to the original's object" });
  } else if (direct->object.size() == warm->object.size()) {
    out.push_back(
      { c.path,
        "reference",
        Outcome::pass,
        "same size as the original's object (bytes differ: nondeterministic compiler)" });
  } else {
    out.push_back({ c.path,
                    "reference",
                    Outcome::fail,
                    fmt::format("object is {} bytes, the original's {}",
                                warm->object.size(),
                                direct->object.size()) });
  }

  if (c.verify == core::VerifyKind::c_cxx) {
    check_link_and_run(m, invoked, probe, out);
    for (const auto& alias : c.aliases) {
      if (is_cxx_name(alias.path) && !is_cxx_name(invoked)) {
        Probe cxx{ "x.cpp", cxx_source, {} };
        check_link_and_run(m, alias.path, cxx, out);
      }
    }
  }
}

} // namespace shimctl::verify
