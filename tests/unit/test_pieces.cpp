// Per-target pieces (installer/shimctl/pieces/): what a call's arguments allow, and the driver's
// -### plan recognised (or not) as the old offload driver's (the new one's:
// test_pieces_new_driver.cpp).
#include <algorithm>
#include <doctest/doctest.h>
#include <shimctl/pieces/host_half.hpp>
#include <shimctl/pieces/offload_call.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/pieces/piece_counts.hpp>
#include <shimctl/util/job_lines.hpp>
#include <string>
#include <vector>

using namespace shimctl::pieces;
namespace util = shimctl::util;

namespace {

using Args = std::vector<std::string>;

// hipcc 7.0.2's clang++ call for two targets, with the shim's CUID and depend-mode depfile.
Args hip_call() {
  return { "--offload-arch=gfx90a",
           "--offload-arch=gfx942",
           "-O2",
           "-c",
           "-x",
           "hip",
           "k.hip",
           "-o",
           "k.o",
           "-cuid=3756356ec299644a",
           "-MD",
           "-MF",
           "/run/dep-1.d" };
}

std::string refused(Args args) {
  return read_offload_call(args).whole_reason;
}

// clang-21's -### of hip_call() (paths shortened), non-rdc.
const char* const plan_text = R"( (in-process) Debian clang version 21.1.8
Target: x86_64-pc-linux-gnu
 "/usr/lib/llvm-21/bin/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-emit-obj" "-target-cpu" "gfx90a" "-cuid=3756356ec299644a" "-o" "/tmp/k-gfx90a-1.o" "-x" "hip" "k.hip"
 "/usr/lib/llvm-21/bin/lld" "-flavor" "gnu" "-m" "elf64_amdgpu" "--no-undefined" "-shared" "-plugin-opt=mcpu=gfx90a" "-o" "/tmp/k-gfx90a-2.out" "/tmp/k-gfx90a-1.o"
 "/usr/lib/llvm-21/bin/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-emit-obj" "-target-cpu" "gfx942" "-cuid=3756356ec299644a" "-o" "/tmp/k-gfx942-3.o" "-x" "hip" "k.hip"
 "/usr/lib/llvm-21/bin/lld" "-flavor" "gnu" "-m" "elf64_amdgpu" "--no-undefined" "-shared" "-plugin-opt=mcpu=gfx942" "-o" "/tmp/k-gfx942-4.out" "/tmp/k-gfx942-3.o" "--no-whole-archive"
 "/usr/lib/llvm-21/bin/clang-offload-bundler" "-type=o" "-bundle-align=4096" "-targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx90a,hipv4-amdgcn-amd-amdhsa--gfx942" "-input=/dev/null" "-input=/tmp/k-gfx90a-2.out" "-input=/tmp/k-gfx942-4.out" "-output=/tmp/k-5.hipfb"
 "/usr/lib/llvm-21/bin/clang" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-aux-triple" "amdgcn-amd-amdhsa" "-emit-obj" "-fcuda-include-gpubinary" "/tmp/k-5.hipfb" "-cuid=3756356ec299644a" "-o" "k.o" "-x" "hip" "k.hip"
)";

} // namespace

TEST_SUITE_BEGIN("pieces");

TEST_CASE("read_offload_call: the source, output, CUID and targets; what every piece shares") {
  auto call = read_offload_call(hip_call());
  CHECK(call.whole_reason.empty());
  CHECK(call.source == "k.hip");
  CHECK(call.output == "k.o");
  CHECK(call.cuid == "3756356ec299644a");
  CHECK(call.targets == Args{ "gfx90a", "gfx942" });
  CHECK_FALSE(call.rdc);
  // No target, no -o, no depfile option: the same for a 2-target and a 3-target call.
  CHECK(call.shared_args == Args{ "-O2", "-c", "-x", "hip", "k.hip", "-cuid=3756356ec299644a" });
  // The one-step check keeps the targets and drops -o and the depfile.
  CHECK(call.check_args == Args{ "--offload-arch=gfx90a",
                                 "--offload-arch=gfx942",
                                 "-O2",
                                 "-c",
                                 "-x",
                                 "hip",
                                 "k.hip",
                                 "-cuid=3756356ec299644a" });
  auto three = hip_call();
  three.insert(three.begin(), "--offload-arch=gfx1100");
  CHECK(read_offload_call(three).shared_args == call.shared_args);
}

TEST_CASE(
  "read_offload_call: the host half's arguments keep the depfile's; when it is cached apart") {
  auto call = read_offload_call(hip_call());
  CHECK(
    call.host_args ==
    Args{
      "-O2", "-c", "-x", "hip", "k.hip", "-cuid=3756356ec299644a", "-MD", "-MF", "/run/dep-1.d" });
  CHECK(call.depfile_named);
  CHECK_FALSE(call.depfile_target_named);
  CHECK(call.host_half_reason == "");
  auto with = [](Args more) {
    auto args = hip_call();
    args.erase(args.end() - 3, args.end()); // no depfile options
    args.insert(args.end(), more.begin(), more.end());
    return read_offload_call(args);
  };
  CHECK(with({}).host_half_reason == "");
  CHECK(with({ "-MD", "-MQ", "k.o", "-MFk.d" }).depfile_target_named);
  CHECK(with({ "-MD" }).host_half_reason == "a depfile named after the output (no -MF)");
  CHECK(with({ "-Wp,-MD,k.d" }).host_half_reason == "the dependency option -Wp,-MD,k.d");
  CHECK(with({ "-fgpu-rdc" }).host_half_reason == "-fgpu-rdc");
}

TEST_CASE("host_half_command: the call without targets and -o, an empty fat binary, the depfile's "
          "target named as the driver names it") {
  PieceRequest request;
  request.cache_tool = "/usr/bin/ccache";
  request.compiler = "/p/bin/clang++";
  auto call = read_offload_call(hip_call());
  CHECK(host_half_command(request, call, "/s/h.o") == Args{ "/usr/bin/ccache",
                                                            "/p/bin/clang++",
                                                            "-O2",
                                                            "-c",
                                                            "-x",
                                                            "hip",
                                                            "k.hip",
                                                            "-cuid=3756356ec299644a",
                                                            "-MD",
                                                            "-MF",
                                                            "/run/dep-1.d",
                                                            "--cuda-host-only",
                                                            "-Xclang",
                                                            "-fcuda-include-gpubinary",
                                                            "-Xclang",
                                                            "/dev/null",
                                                            "-MQ",
                                                            "k.o",
                                                            "-o",
                                                            "/s/h.o" });
  auto args = hip_call();
  args.insert(args.end(), { "-MT", "t" });
  auto named = host_half_command(request, read_offload_call(args), "/s/h.o");
  CHECK(std::ranges::find(named, "-MQ") == named.end()); // the call's own -MT names it
}

TEST_CASE("read_offload_call: comma lists, target IDs, --cuda-gpu-arch, each target once") {
  auto call = read_offload_call({ "--offload-arch=gfx90a:xnack+,gfx908:sramecc+",
                                  "-c",
                                  "k.hip",
                                  "--cuda-gpu-arch=gfx90a:xnack+",
                                  "--offload-arch",
                                  "gfx1030",
                                  "-ok.o",
                                  "-cuid=x",
                                  "-fgpu-rdc" });
  CHECK(call.whole_reason.empty());
  CHECK(call.targets == Args{ "gfx90a:xnack+", "gfx908:sramecc+", "gfx1030" });
  CHECK(call.output == "k.o");
  CHECK(call.rdc);
  CHECK(call.check_args == Args{ "--offload-arch=gfx90a:xnack+,gfx908:sramecc+",
                                 "-c",
                                 "k.hip",
                                 "--cuda-gpu-arch=gfx90a:xnack+",
                                 "--offload-arch",
                                 "gfx1030",
                                 "-cuid=x",
                                 "-fgpu-rdc" });
}

TEST_CASE("read_offload_call: every call a split cannot reproduce runs whole, saying why") {
  auto with = [](std::string arg) {
    auto args = hip_call();
    args.push_back(std::move(arg));
    return refused(args);
  };
  for (const char* arg : { "-save-temps",
                           "-save-temps=obj",
                           "-fgpu-sanitize",
                           "-Xoffload-linker",
                           "-E",
                           "-S",
                           "-emit-llvm",
                           "--cuda-device-only",
                           "--cuda-host-only",
                           "-fuse-cuid=hash",
                           "@args.rsp",
                           "-MJ",
                           "-gsplit-dwarf",
                           "--offload-arch=native" })
    CHECK_MESSAGE(!with(arg).empty(), arg);
  CHECK(with("-fgpu-sanitize") == "-fgpu-sanitize is given");
  // Which driver runs, and whether its bundler compresses, the plan says, not a flag.
  CHECK(with("--offload-new-driver").empty());
  CHECK(with("--offload-compress").empty());
  CHECK(refused({ "--offload-arch=gfx90a",
                  "--offload-arch=gfx942",
                  "-c",
                  "a.hip",
                  "b.hip",
                  "-o",
                  "k.o",
                  "-cuid=x" }) == "several inputs");
  // One target: split only when asked (SHIMCTL_PIECES=1); its piece serves the next target set.
  CHECK(refused({ "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o", "-cuid=x" }) ==
        "one GPU target (SHIMCTL_PIECES=1 splits those too)");
  CHECK(read_offload_call({ "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o", "-cuid=x" }, true)
          .whole_reason.empty());
  CHECK(read_offload_call({ "--offload-arch=gfx90a,gfx90a", "-c", "k.hip", "-o", "k.o", "-cuid=x" })
          .targets.size() == 1);
  CHECK(refused({ "-c", "k.hip", "-o", "k.o", "-cuid=x" }) == "no GPU target named");
  CHECK(refused({ "--offload-arch=gfx90a,gfx942", "-c", "k.hip", "-o", "k.o" }) == "no -cuid=");
  CHECK(refused({ "--offload-arch=gfx90a,gfx942", "-c", "k.cpp", "-o", "k.o", "-cuid=x" }) ==
        "not a HIP source");
  CHECK(refused(
          { "--offload-arch=gfx90a,gfx942", "-x", "c++", "-c", "k.hip", "-o", "k.o", "-cuid=x" }) ==
        "not a HIP source");
  CHECK(refused({ "--offload-arch=gfx90a,gfx942", "k.hip", "-o", "k" }) == "no -c");
  CHECK(refused({ "--offload-arch=gfx90a,gfx942", "-c", "k.hip", "-cuid=x" }) == "no -o file");
  CHECK(refused({ "--offload-arch=gfx90a,gfx942", "-c", "k.hip", "-o", "-", "-cuid=x" }) ==
        "no -o file");
}

TEST_CASE("util::job_lines: one job per quoted line, escapes undone, the banner skipped") {
  auto jobs = util::job_lines(" \"/bin/a\" \"-x\" \"he said \\\"hi\\\"\" \"a\\\\b\"\nTarget: x\n");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0] == Args{ "/bin/a", "-x", "he said \"hi\"", "a\\b" });
}

TEST_CASE("recognise_plan: the old offload driver's jobs, each bundle input to its target") {
  auto plan = recognise_plan(util::job_lines(plan_text), { "gfx942", "gfx90a" }, false);
  CHECK(plan.whole_reason.empty());
  CHECK(plan.bundle_inputs == Args{ "", "gfx90a", "gfx942" });
  CHECK(plan.bundler.front() == "/usr/lib/llvm-21/bin/clang-offload-bundler");
}

TEST_CASE("recognise_plan: anything else is not recognised") {
  auto jobs = util::job_lines(plan_text);
  CHECK(recognise_plan(jobs, { "gfx90a", "gfx942", "gfx1100" }, false).whole_reason ==
        "not one device job per target");
  auto wrapper = jobs;
  wrapper.push_back({ "/usr/lib/llvm-21/bin/clang-linker-wrapper", "-r" });
  CHECK(recognise_plan(wrapper, { "gfx90a", "gfx942" }, false).whole_reason ==
        "a device job of the new offload driver writes no bitcode");
  auto other = jobs;
  other.push_back({ "/usr/bin/objcopy", "x" });
  CHECK(recognise_plan(other, { "gfx90a", "gfx942" }, false).whole_reason ==
        "the driver runs objcopy (not the old offload driver's pipeline)");
  auto compressing = jobs;
  compressing[4].push_back("-compress");
  CHECK(recognise_plan(compressing, { "gfx90a", "gfx942" }, false).whole_reason ==
        "the bundler is asked for -compress");
  auto swapped = jobs; // gfx90a's bundle input made by gfx942's device job
  std::swap(swapped[1].back(), swapped[3][swapped[3].size() - 2]);
  CHECK(recognise_plan(swapped, { "gfx90a", "gfx942" }, false).whole_reason ==
        "bundle entry hipv4-amdgcn-amd-amdhsa--gfx90a does not come from its target's device job");
  auto no_embed = jobs;
  no_embed[5].erase(no_embed[5].begin() + 7, no_embed[5].begin() + 9);
  CHECK(recognise_plan(no_embed, { "gfx90a", "gfx942" }, false).whole_reason ==
        "the host job embeds no GPU binary");
}

TEST_CASE("recognise_plan: -fgpu-rdc bundles bitcode and the host object (host entry last)") {
  auto jobs = util::job_lines(
    R"( "/l/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-emit-llvm-bc" "-target-cpu" "gfx908" "-o" "/t/a.bc"
 "/l/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-emit-llvm-bc" "-target-cpu" "gfx90a" "-target-feature" "+xnack" "-o" "/t/b.bc"
 "/l/clang" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-emit-obj" "-o" "/t/h.o"
 "/l/clang-offload-bundler" "-type=o" "-targets=hip-amdgcn-amd-amdhsa-gfx908,hip-amdgcn-amd-amdhsa-gfx90a:xnack+,host-x86_64-pc-linux-gnu" "-output=k.o" "-input=/t/a.bc" "-input=/t/b.bc" "-input=/t/h.o"
)");
  auto plan = recognise_plan(jobs, { "gfx90a:xnack+", "gfx908" }, true);
  CHECK(plan.whole_reason.empty());
  CHECK(plan.bundle_inputs == Args{ "gfx908", "gfx90a:xnack+", "" });
  // clang-21 names the triple's environment: hip-amdgcn-amd-amdhsa-unknown-gfx908.
  for (auto& arg : jobs[3])
    if (arg.starts_with("-targets="))
      arg = "-targets=hip-amdgcn-amd-amdhsa-unknown-gfx908,hip-amdgcn-amd-amdhsa-unknown-gfx90a:"
            "xnack+,host-x86_64-unknown-linux-gnu";
  CHECK(recognise_plan(jobs, { "gfx90a:xnack+", "gfx908" }, true).bundle_inputs ==
        Args{ "gfx908", "gfx90a:xnack+", "" });
}

TEST_CASE("counts_in_measure_log: the pieces' records, nothing else; one tool's when asked") {
  const std::string log =
    "# shimctl-pieces\npiece_hit gfx90a ccache\n# shimctl-shim: ran without the cache\nlink\n"
    "# shimctl-pieces\npiece_miss gfx942 sccache\n# shimctl-pieces\npiece_hit gfx942 ccache\n";
  auto counts = counts_in_measure_log(log);
  CHECK(count_of(counts, piece_hit) == 2);
  CHECK(count_of(counts, piece_miss) == 1);
  CHECK(counts.size() == 2);
  auto sccache = counts_in_measure_log(log, "sccache");
  CHECK(count_of(sccache, piece_hit) == 0);
  CHECK(count_of(sccache, piece_miss) == 1);
}
