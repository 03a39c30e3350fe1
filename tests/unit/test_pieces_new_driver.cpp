// Per-target pieces on the new offload driver (installer/shimctl/pieces/new_driver.*): clang 23's
// -### plan, its linker wrapper's --dry-run, and the jobs rewritten for the pieces.
#include <algorithm>
#include <doctest/doctest.h>
#include <shimctl/pieces/new_driver.hpp>
#include <shimctl/pieces/offload_jobs.hpp>
#include <shimctl/util/job_lines.hpp>
#include <string>
#include <vector>

using namespace shimctl::pieces;
namespace util = shimctl::util;

namespace {

using Args = std::vector<std::string>;

// clang-23's -### of a two-target compile (paths and arguments shortened), non-rdc.
const char* const new_plan = R"(Debian clang version 23.1.4 (2)
 "/p/bin/clang-23" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-O2" "-emit-llvm-bc" "-flto=full" "-target-cpu" "gfx90a" "-cuid=c" "-o" "/tmp/k-gfx90a-1.o" "-x" "hip" "k.hip"
 "/p/bin/clang-23" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-O2" "-emit-llvm-bc" "-flto=full" "-target-cpu" "gfx942" "-target-feature" "+sramecc" "-cuid=c" "-o" "/tmp/k-gfx942:sramecc+-2.o" "-x" "hip" "k.hip"
 "/p/bin/llvm-offload-binary" "-o" "/tmp/k-3.out" "--image=file=/tmp/k-gfx90a-1.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip" "--image=file=/tmp/k-gfx942:sramecc+-2.o,triple=amdgcn-amd-amdhsa,arch=gfx942:sramecc+,kind=hip,feature=+sramecc"
 "/p/bin/clang-linker-wrapper" "--should-extract=gfx90a" "--should-extract=gfx942:sramecc+" "--device-compiler=amdgcn-amd-amdhsa=-O2" "--host-triple=x86_64-pc-linux-gnu" "--linker-path=/p/bin/clang-offload-bundler" "--emit-fatbin-only" "-o" "/tmp/k-4.hipfb" "/tmp/k-3.out"
 "/p/bin/clang-23" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-O2" "-emit-obj" "-fcuda-include-gpubinary" "/tmp/k-4.hipfb" "-cuid=c" "-o" "k.o" "-x" "hip" "k.hip"
)";

// The wrapper's --dry-run of that package: the image jobs, then the bundler (reverse order).
const char* const dry_run =
  R"( "/p/bin/clang" --no-default-config -o /tmp/o.hipfb.amdgcn.gfx90a-5.img -dumpdir o.hipfb.amdgcn.gfx90a.img. --target=amdgcn-amd-amdhsa -mcpu=gfx90a -Wl,--no-undefined /tmp/pkg-amdgcn-amd-amdhsa-gfx90a-6.o -O2 -flto=full --rocm-path=/p
 "/p/bin/clang" --no-default-config -o /tmp/o.hipfb.amdgcn.gfx942:sramecc+-7.img -dumpdir o.hipfb.amdgcn.gfx942:sramecc+.img. --target=amdgcn-amd-amdhsa -mcpu=gfx942:sramecc+ -Wl,--no-undefined /tmp/pkg-amdgcn-amd-amdhsa-gfx942:sramecc+-8.o -O2 -flto=full --rocm-path=/p
 "/p/bin/clang-offload-bundler" -type=o -bundle-align=4096 -compress -targets=host-x86_64-pc-linux-gnu,hip-amdgcn-amd-amdhsa--gfx942:sramecc+,hip-amdgcn-amd-amdhsa--gfx90a -input=/dev/null -input=/tmp/o.hipfb.amdgcn.gfx942:sramecc+-7.img -input=/tmp/o.hipfb.amdgcn.gfx90a-5.img -output=/tmp/o-9.hipfb
)";

const Args two{ "gfx942:sramecc+", "gfx90a" };

} // namespace

TEST_SUITE_BEGIN("pieces::new_driver");

TEST_CASE("recognise_plan: the new driver's plan, told apart by its jobs; each image from its "
          "target's device job") {
  auto plan = recognise_plan(util::job_lines(new_plan), two, false);
  CHECK(plan.whole_reason == "");
  CHECK(plan.driver == OffloadDriver::new_driver);
  CHECK(plan.package_images == Args{ "gfx90a", "gfx942:sramecc+" });
  CHECK(job_value(plan.device_jobs["gfx942:sramecc+"], "-o") == "/tmp/k-gfx942:sramecc+-2.o");
  CHECK(job_tool(plan.wrapper.front()) == "clang-linker-wrapper");
  CHECK(job_tool(plan.packager.front()) == "llvm-offload-binary");
}

TEST_CASE("recognise_plan: what the new driver's pieces cannot reproduce is not recognised") {
  auto jobs = util::job_lines(new_plan);
  CHECK(recognise_plan(jobs, { "gfx90a", "gfx942:sramecc+", "gfx1100" }, false).whole_reason ==
        "not one device job per target");
  CHECK(recognise_plan(jobs, { "gfx90a", "gfx942" }, false).whole_reason ==
        "the packager's image for gfx942:sramecc+ is not one of the call's targets");
  // clang-21 --offload-new-driver: the wrapper links the object after the host compile.
  auto links = jobs;
  links[3] = { "/p/bin/clang-linker-wrapper", "-r", "-o", "k.o", "/tmp/k-host.o" };
  links[4] = { "/p/bin/clang-21",
               "-cc1",
               "-triple",
               "x86_64-pc-linux-gnu",
               "-fembed-offload-object=/tmp/k-3.out",
               "-o",
               "/tmp/k-host.o" };
  CHECK(recognise_plan(links, two, false).whole_reason ==
        "the linker wrapper links the object (no --emit-fatbin-only)");
  auto crossed = jobs; // gfx90a's image made by gfx942's device job
  crossed[2][3] = "--image=file=/tmp/k-gfx942:sramecc+-2.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,"
                  "kind=hip";
  CHECK(recognise_plan(crossed, two, false).whole_reason ==
        "the packager's image for gfx90a does not come from its device job");
  auto openmp = jobs;
  openmp[2][3] += ",kind=openmp";
  CHECK(recognise_plan(openmp, two, false).whole_reason.starts_with("the packager's image"));
  auto other = jobs;
  other.push_back({ "/usr/bin/ld", "-r" });
  CHECK(recognise_plan(other, two, false).whole_reason == "the new offload driver runs ld");
  CHECK(recognise_plan(jobs, two, true).whole_reason ==
        "the linker wrapper runs at compile time with -fgpu-rdc");
}

TEST_CASE("recognise_plan: -fgpu-rdc, the host job embeds the package itself") {
  auto jobs = util::job_lines(new_plan);
  jobs.erase(jobs.begin() + 3); // no wrapper
  jobs[3] = { "/p/bin/clang-23",
              "-cc1",
              "-triple",
              "x86_64-pc-linux-gnu",
              "-fembed-offload-object=/tmp/k-3.out",
              "-o",
              "k.o" };
  auto plan = recognise_plan(jobs, two, true);
  CHECK(plan.whole_reason == "");
  CHECK(plan.rdc);
  CHECK(plan.package_images == Args{ "gfx90a", "gfx942:sramecc+" });
  jobs[3][4] = "-fembed-offload-object=/tmp/other.out";
  CHECK(recognise_plan(jobs, two, true).whole_reason ==
        "the host job does not embed the device package");
}

TEST_CASE("util::wrapper_lines and recognise_wrapper_jobs: the image jobs, the bundler's order") {
  auto jobs = util::wrapper_lines(dry_run);
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0][0] == "/p/bin/clang");
  CHECK(jobs[0][1] == "--no-default-config");
  CHECK(jobs[0].back() == "--rocm-path=/p");
  auto wrapper = recognise_wrapper_jobs(jobs, two);
  CHECK(wrapper.whole_reason == "");
  CHECK(wrapper.bundle_inputs == Args{ "", "gfx942:sramecc+", "gfx90a" });
  CHECK(job_value(wrapper.image_jobs["gfx90a"], "-o") == "/tmp/o.hipfb.amdgcn.gfx90a-5.img");
  CHECK(std::ranges::find(wrapper.bundler, "-compress") != wrapper.bundler.end());

  auto swapped = jobs; // the bundle entries no longer name their inputs' targets
  std::swap(swapped[2][6], swapped[2][7]);
  CHECK(recognise_wrapper_jobs(swapped, two).whole_reason ==
        "bundle entry hip-amdgcn-amd-amdhsa--gfx942:sramecc+ is not its target's image");
  CHECK(recognise_wrapper_jobs(jobs, { "gfx90a", "gfx942" }).whole_reason ==
        "the linker wrapper's image job for gfx942:sramecc+ is not one of the call's");
  auto more = jobs;
  more.push_back({ "/usr/bin/ld", "-r" });
  CHECK(recognise_wrapper_jobs(more, two).whole_reason == "the linker wrapper runs ld");
}

TEST_CASE("the jobs rewritten for the pieces: the packager's files, the wrapper's dry run, the "
          "image job's input and output") {
  auto plan = recognise_plan(util::job_lines(new_plan), two, false);
  auto packager = packager_with(plan.packager, { "/s/a.o", "/s/b.o" }, "/s/p.pkg");
  CHECK(packager == Args{ "/p/bin/llvm-offload-binary",
                          "-o",
                          "/s/p.pkg",
                          "--image=file=/s/a.o,arch=gfx90a,kind=hip,triple=amdgcn-amd-amdhsa",
                          "--image=file=/s/b.o,arch=gfx942:sramecc+,feature=+sramecc,kind=hip,"
                          "triple=amdgcn-amd-amdhsa" });
  auto dry = wrapper_dry_run(plan.wrapper, "/tmp/k-3.out", "/s/p.pkg", "/s/p.hipfb");
  CHECK(dry.back() == "--dry-run");
  CHECK(job_value(dry, "-o") == "/s/p.hipfb");
  CHECK(dry[dry.size() - 2] == "/s/p.pkg");
  auto image = image_job_with(util::wrapper_lines(dry_run)[0], "/s/bc.o", "piece.o");
  CHECK(job_value(image, "-o") == "piece.o");
  CHECK(job_value(image, "-dumpdir") == "o.hipfb.amdgcn.gfx90a.img.");
  CHECK(std::ranges::find(image, "/s/bc.o") != image.end());
  CHECK(image.size() == util::wrapper_lines(dry_run)[0].size());
  auto two_inputs = util::wrapper_lines(dry_run)[0];
  two_inputs.push_back("/tmp/extra.o");
  CHECK(image_job_with(two_inputs, "/s/bc.o", "piece.o").empty());
}

TEST_SUITE_END();
