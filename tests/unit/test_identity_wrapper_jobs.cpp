#include <doctest/doctest.h>
#include <shimctl/identity/job_inputs.hpp>
#include <shimctl/identity/wrapper_jobs.hpp>
#include <shimctl/util/job_lines.hpp>

using namespace shimctl;

TEST_SUITE_BEGIN("identity::wrapper_jobs");

TEST_CASE("split_wrapper_line: the program quoted, the arguments bare") {
  // clang-linker-wrapper 23 --dry-run, a ROCm-7-shaped prefix at /p.
  auto job = util::split_wrapper_line(
    R"( "/p/lib/llvm/bin/clang" --no-default-config -o /tmp/k.img --target=amdgcn-amd-amdhsa -mcpu=gfx90a -Wl,--no-undefined /tmp/k-gfx90a.o -flto=full)");
  REQUIRE(job.size() == 9);
  CHECK(job[0] == "/p/lib/llvm/bin/clang");
  CHECK(job[1] == "--no-default-config");
  CHECK(job[5] == "-mcpu=gfx90a");
  CHECK(job[8] == "-flto=full");
  CHECK(util::split_wrapper_line(R"( "/p/bin/clang-offload-bundler")") ==
        std::vector<std::string>{ "/p/bin/clang-offload-bundler" });
  CHECK(util::split_wrapper_line("clang: warning: argument unused").empty());
  CHECK(util::split_wrapper_line(R"( "unterminated)").empty());
}

TEST_CASE("linker_wrapper_of tells the drivers apart from the plan") {
  // clang 23, non-rdc -c: device cc1, llvm-offload-binary, the wrapper, host cc1 (abridged).
  auto new_driver = identity::parse_job_list(
    R"( "/p/clang-23" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-emit-llvm-bc" "-o" "/t/k-gfx90a.o" "k.hip"
 "/p/llvm-offload-binary" "-o" "/t/k.out" "--image=file=/t/k-gfx90a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"
 "/p/clang-linker-wrapper" "--should-extract=gfx90a" "--emit-fatbin-only" "-o" "/t/k.hipfb" "/t/k.out"
 "/p/clang-23" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-fcuda-include-gpubinary" "/t/k.hipfb" "-o" "k.o" "k.hip"
)");
  REQUIRE(new_driver.jobs.size() == 4);
  CHECK(new_driver.jobs[1][0] == "/p/llvm-offload-binary");
  CHECK(identity::linker_wrapper_of(new_driver.jobs) == "/p/clang-linker-wrapper");
  // The old driver: lld and the bundler in the plan itself.
  auto old_driver = identity::parse_job_list(
    R"( "/p/clang-21" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-emit-obj" "-o" "/t/k-gfx90a.o" "k.hip"
 "/p/lld" "-flavor" "gnu" "-o" "/t/k-gfx90a.out" "/t/k-gfx90a.o"
 "/p/clang-offload-bundler" "-type=o" "-input=/dev/null" "-input=/t/k-gfx90a.out" "-output=/t/k.hipfb"
)");
  CHECK(identity::linker_wrapper_of(old_driver.jobs).empty());
}

TEST_CASE("wrapper_programs: no wrapper in the plan, nothing to run") {
  auto programs = identity::wrapper_programs({ { "/p/lld", "-flavor", "gnu" } }, {});
  CHECK(programs.programs.empty());
  CHECK(programs.failure.empty());
}

TEST_SUITE_END();
