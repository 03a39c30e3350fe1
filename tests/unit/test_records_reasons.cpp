// Why a compile missed (records/miss_reason): the differences between two compile records in the
// order explain names them, the predecessor a miss is compared with, and the reason when nothing
// differs.
#include "temp_dir.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <shimctl/records/miss_reason.hpp>
#include <shimctl/records/record_store.hpp>
#include <string>
#include <vector>

using namespace shimctl;
using records::Against;
using records::MissReason;
using shimctl::test::make_temp_dir;
using shimctl::test::write_text;

namespace {

const std::string id_a = "aaaaaaaa111111111111111111111111";
const std::string id_b = "bbbbbbbb222222222222222222222222";

records::CompileRecord base_record() {
  records::CompileRecord r;
  r.time_ns = 1'000;
  r.tool = "ccache";
  r.prefix = "/opt/rocm";
  r.cwd = "/home/a/proj/build";
  r.output = "/home/a/proj/build/src/foo.o";
  r.source = "/home/a/proj/src/foo.cpp";
  r.args = { "-O2",
             "-I../include",
             "--offload-arch=gfx90a",
             "-MD",
             "-MT",
             "src/foo.o",
             "-MF",
             "src/foo.o.d",
             "-cuid=1111",
             "-c",
             "../src/foo.cpp",
             "-o",
             "src/foo.o" };
  r.identity = id_a;
  r.env = { { "HIP_PLATFORM", "amd" } };
  r.store = "in";
  r.inputs = { { "../src/foo.cpp", "aaaa000000000000" },
               { "../include/foo.h", "3f2a000000000000" } };
  r.inputs_from = "depfile";
  return r;
}

records::StoredRecord stored(records::CompileRecord r, std::string path) {
  return { std::move(path), std::move(r) };
}

std::vector<std::string> texts(const std::vector<records::Difference>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds)
    out.push_back(d.text);
  return out;
}

void replace_arg(records::CompileRecord& r, const std::string& from, const std::string& to) {
  auto it = std::ranges::find(r.args, from);
  REQUIRE(it != r.args.end());
  *it = to;
}

// The one difference between BEFORE and NOW.
records::Difference only_difference(const records::CompileRecord& before,
                                    const records::CompileRecord& now,
                                    const std::string& toolchains = "",
                                    Against against = Against::earlier) {
  auto ds = records::differences(before, now, toolchains, against);
  INFO("differences: " << fmt::format("{}", fmt::join(texts(ds), " | ")));
  REQUIRE(ds.size() == 1);
  return ds.front();
}

} // namespace

TEST_SUITE_BEGIN("records::differences");

TEST_CASE("the same record: no difference") {
  CHECK(records::differences(base_record(), base_record(), "", Against::earlier).empty());
}

TEST_CASE("a flag added, removed, changed") {
  auto before = base_record();
  SUBCASE("added") {
    auto now = before;
    now.args.insert(now.args.begin(), "-DNDEBUG");
    auto d = only_difference(before, now);
    CHECK(d.reason == MissReason::flags);
    CHECK(d.text == "-DNDEBUG added");
    CHECK(d.subject == "-DNDEBUG");
  }
  SUBCASE("removed") {
    auto now = before;
    before.args.push_back("-ffast-math");
    auto d = only_difference(before, now);
    CHECK(d.reason == MissReason::flags);
    CHECK(d.text == "-ffast-math removed");
    CHECK(d.subject == "-ffast-math");
  }
  SUBCASE("an optimisation level changed") {
    auto now = before;
    replace_arg(now, "-O2", "-O3");
    auto d = only_difference(before, now);
    CHECK(d.reason == MissReason::flags);
    CHECK(d.text == "-O2 -> -O3");
    CHECK(d.subject == "-O3");
  }
  SUBCASE("a macro's value changed") {
    before.args.push_back("-DLEVEL=1");
    auto now = before;
    replace_arg(now, "-DLEVEL=1", "-DLEVEL=2");
    CHECK(only_difference(before, now).text == "-DLEVEL=1 -> -DLEVEL=2");
  }
  SUBCASE("-fno-NAME for -fNAME") {
    before.args.push_back("-fexceptions");
    auto now = before;
    replace_arg(now, "-fexceptions", "-fno-exceptions");
    CHECK(only_difference(before, now).text == "-fexceptions -> -fno-exceptions");
  }
  SUBCASE("an option with a separate value is one unit") {
    auto now = before;
    replace_arg(now, "-I../include", "-I");
    now.args.insert(std::ranges::find(now.args, "-I") + 1, "../other");
    auto ds = records::differences(before, now, "", Against::earlier);
    CHECK(texts(ds) == std::vector<std::string>{ "-I../include removed", "-I ../other added" });
  }
  SUBCASE("against CI's record") {
    auto now = before;
    replace_arg(now, "-O2", "-O3");
    now.args.push_back("-g");
    auto ds = records::differences(before, now, "", Against::archive);
    CHECK(texts(ds) == std::vector<std::string>{ "CI compiled it with -O2, here -O3",
                                                 "here compiled with -g, CI without" });
  }
}

TEST_CASE("the -cuid=, the depfile's options and diagnostics' colours are not differences") {
  auto before = base_record();
  auto now = before;
  replace_arg(now, "-cuid=1111", "-cuid=2222");
  replace_arg(now, "src/foo.o.d", "src/foo.o.d.tmp");
  replace_arg(now, "-MD", "-MMD");
  now.args.push_back("-MP");
  now.args.push_back("-MQfoo");
  now.args.push_back("-Wp,-MD,other.d");
  now.args.push_back("-fdiagnostics-color=always");
  CHECK(records::differences(before, now, "", Against::earlier).empty());
  SUBCASE("-MT's separate value is its own") {
    auto moved = before;
    replace_arg(moved, "src/foo.o", "elsewhere.o"); // the first: -MT's
    CHECK(records::differences(before, moved, "", Against::earlier).empty());
  }
}

TEST_CASE("the GPU target set") {
  auto before = base_record();
  auto now = before;
  now.args.push_back("--offload-arch=gfx942");
  auto d = only_difference(before, now);
  CHECK(d.reason == MissReason::gpu_targets);
  CHECK(d.text == "GPU targets gfx90a -> gfx90a,gfx942");
  CHECK(d.subject == "gfx90a,gfx942");
  SUBCASE("named before a flag that also changed") {
    replace_arg(now, "-O2", "-O3");
    auto ds = records::differences(before, now, "", Against::earlier);
    CHECK(texts(ds) ==
          std::vector<std::string>{ "GPU targets gfx90a -> gfx90a,gfx942", "-O2 -> -O3" });
  }
  SUBCASE("none named: the default") {
    auto bare = before;
    std::erase(bare.args, "--offload-arch=gfx90a");
    CHECK(only_difference(bare, before).text == "GPU targets (the default) -> gfx90a");
  }
  SUBCASE("against CI's record") {
    CHECK(only_difference(before, now, "", Against::archive).text ==
          "GPU targets: CI compiled it for gfx90a, here for gfx90a,gfx942");
  }
  SUBCASE("the target key alone (the probe found other GPUs)") {
    auto probed = before;
    probed.target_key = ";HCC_AMDGPU_TARGET=gfx942";
    auto kd = only_difference(before, probed);
    CHECK(kd.reason == MissReason::gpu_targets);
    CHECK(kd.text == "GPU target key '' -> ';HCC_AMDGPU_TARGET=gfx942' (the GPUs the probe found, "
                     "or HCC_AMDGPU_TARGET)");
  }
}

TEST_CASE("an environment variable") {
  auto before = base_record();
  auto now = before;
  SUBCASE("changed") {
    now.env["HIP_PLATFORM"] = "nvidia";
    auto d = only_difference(before, now);
    CHECK(d.reason == MissReason::environment);
    CHECK(d.text == "HIP_PLATFORM 'amd' -> 'nvidia'");
    CHECK(d.subject == "HIP_PLATFORM");
  }
  SUBCASE("set") {
    now.env["HIPCC_COMPILE_FLAGS_APPEND"] = "-O3";
    CHECK(only_difference(before, now).text == "HIPCC_COMPILE_FLAGS_APPEND (unset) -> '-O3'");
  }
  SUBCASE("unset") {
    now.env.clear();
    CHECK(only_difference(before, now).text == "HIP_PLATFORM 'amd' -> (unset)");
  }
  SUBCASE("against CI's record") {
    now.env["HIP_PLATFORM"] = "nvidia";
    CHECK(only_difference(before, now, "", Against::archive).text ==
          "HIP_PLATFORM: CI 'amd', here 'nvidia'");
  }
}

TEST_CASE("a header changed, now included, no longer included") {
  auto before = base_record();
  auto now = before;
  SUBCASE("changed") {
    now.inputs[1].sha = "91bc000000000000";
    auto d = only_difference(before, now);
    CHECK(d.reason == MissReason::input_changed);
    CHECK(d.text == "../include/foo.h changed (sha 3f2a.. -> 91bc..)");
    CHECK(d.subject == "../include/foo.h");
  }
  SUBCASE("could not be read") {
    now.inputs[1].sha = "";
    CHECK(only_difference(before, now).text ==
          "../include/foo.h changed (sha 3f2a.. -> unreadable)");
  }
  SUBCASE("against CI's record") {
    now.inputs[1].sha = "91bc000000000000";
    CHECK(only_difference(before, now, "", Against::archive).text ==
          "../include/foo.h differs from CI's (sha 3f2a.. there, 91bc.. here)");
  }
  SUBCASE("now included") {
    now.inputs.push_back({ "../include/bar.h", "5555000000000000" });
    auto d = only_difference(before, now);
    CHECK(d.reason == MissReason::input_changed);
    CHECK(d.text == "../include/bar.h now included");
    CHECK(d.subject == "../include/bar.h");
  }
  SUBCASE("no longer included") {
    now.inputs.pop_back();
    CHECK(only_difference(before, now).text == "../include/foo.h no longer included");
  }
  SUBCASE("without a depfile on one side, only the files both name are compared") {
    before.inputs_from = "source";
    now.inputs.push_back({ "../include/bar.h", "5555000000000000" });
    CHECK(records::differences(before, now, "", Against::earlier).empty());
  }
}

TEST_CASE("a toolchain change names the file from the saved lists") {
  auto dir = make_temp_dir() + "/records";
  auto before = base_record();
  auto now = before;
  now.identity = id_b;
  SUBCASE("the lists kept: the file that changed") {
    records::save_toolchain_files(
      dir,
      id_a,
      { { "bin/hipcc", "11" }, { "lib/llvm/bin/clang", "22" }, { "lib/llvm/bin/ld.lld", "33" } });
    records::save_toolchain_files(
      dir,
      id_b,
      { { "bin/hipcc", "11" }, { "lib/llvm/bin/clang", "22" }, { "lib/llvm/bin/ld.lld", "44" } });
    auto d = only_difference(before, now, dir);
    CHECK(d.reason == MissReason::toolchain);
    CHECK(d.text == "toolchain: lib/llvm/bin/ld.lld changed (aaaaaaaa.. -> bbbbbbbb..)");
    CHECK(d.subject == "lib/llvm/bin/ld.lld");
    CHECK(only_difference(before, now, dir, Against::archive).text ==
          "CI's toolchain fingerprint aaaaaaaa.., here bbbbbbbb.. (lib/llvm/bin/ld.lld changed)");
  }
  SUBCASE("files added and removed, counted") {
    records::save_toolchain_files(dir, id_a, { { "bin/hipcc", "11" }, { "lib/old.bc", "22" } });
    records::save_toolchain_files(dir, id_b, { { "bin/hipcc", "12" }, { "lib/new.bc", "33" } });
    auto d = only_difference(before, now, dir);
    CHECK(d.text == "toolchain: bin/hipcc changed and 2 more file(s) (aaaaaaaa.. -> bbbbbbbb..)");
    CHECK(d.subject == "bin/hipcc");
  }
  SUBCASE("no lists: the fingerprints, and that the file is unknown") {
    auto d = only_difference(before, now, dir);
    CHECK(d.reason == MissReason::toolchain);
    CHECK(d.text == "toolchain fingerprint aaaaaaaa.. -> bbbbbbbb.. (which file: unknown, the list "
                    "of its files is not kept here)");
    CHECK(d.subject.empty());
  }
  SUBCASE("named first, before a flag") {
    replace_arg(now, "-O2", "-O3");
    auto ds = records::differences(before, now, dir, Against::earlier);
    REQUIRE(ds.size() == 2);
    CHECK(ds[0].reason == MissReason::toolchain);
    CHECK(ds[1].text == "-O2 -> -O3");
  }
  SUBCASE("an identity unknown on either side is no difference") {
    now.identity = "";
    CHECK(records::differences(before, now, dir, Against::earlier).empty());
  }
}

TEST_CASE("the checkout moved, and the compile names its place") {
  auto before = base_record();
  before.args = { "-O2", "-I/home/a/proj/include",      "-c", "/home/a/proj/src/foo.cpp",
                  "-o",  "/home/a/proj/build/src/foo.o" };
  before.inputs = { { "/home/a/proj/src/foo.cpp", "aaaa000000000000" },
                    { "/home/a/proj/include/foo.h", "3f2a000000000000" } };
  auto now = before;
  now.cwd = "/ci/work/proj/build";
  now.output = "/ci/work/proj/build/src/foo.o";
  now.source = "/ci/work/proj/src/foo.cpp";
  now.args = { "-O2", "-I/ci/work/proj/include",      "-c", "/ci/work/proj/src/foo.cpp",
               "-o",  "/ci/work/proj/build/src/foo.o" };
  now.inputs = { { "/ci/work/proj/src/foo.cpp", "aaaa000000000000" },
                 { "/ci/work/proj/include/foo.h", "3f2a000000000000" } };
  auto d = only_difference(before, now);
  CHECK(d.reason == MissReason::checkout_path);
  CHECK(d.text == "the checkout's place /home/a -> /ci/work: the compile names it (absolute "
                  "paths: SHIMCTL_ANYWHERE=0, CCACHE_BASEDIR, or a path outside the roots)");
  CHECK(d.subject == "/home/a -> /ci/work");
  SUBCASE("with -g: the debug info names it") {
    before.args.push_back("-g");
    now.args.push_back("-g");
    CHECK(only_difference(before, now).text ==
          "the checkout's place /home/a -> /ci/work: the compile names it (-g: the debug info "
          "names its directory, by design)");
  }
  SUBCASE("a real difference besides the place is named first") {
    now.inputs[1].sha = "91bc000000000000";
    auto ds = records::differences(before, now, "", Against::earlier);
    REQUIRE(ds.size() == 2);
    CHECK(ds[0].text == "/ci/work/proj/include/foo.h changed (sha 3f2a.. -> 91bc..)");
    CHECK(ds[1].reason == MissReason::checkout_path);
  }
  SUBCASE("relative paths (issue 42): the place alone is no difference") {
    auto rel_before = base_record();
    auto rel_now = rel_before;
    rel_now.cwd = "/ci/work/proj/build";
    rel_now.output = "/ci/work/proj/build/src/foo.o";
    CHECK(records::differences(rel_before, rel_now, "", Against::earlier).empty());
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("records::explain_miss");

TEST_CASE("no predecessor: the first compile of this output here") {
  auto miss = stored(base_record(), "/r/x/1000.json");
  auto e = records::explain_miss(miss, std::nullopt, "", Against::earlier);
  CHECK(e.reason == MissReason::first_compile);
  CHECK(e.line == "first compile of this output here: no record of it before");
  CHECK(e.differences.empty());
  CHECK(records::reason_name(e.reason) == "first-compile");
  auto ci = records::explain_miss(miss, std::nullopt, "", Against::archive);
  CHECK(ci.reason == MissReason::first_compile);
  CHECK(ci.line == "CI has no record of this output: it was not compiled there (or not exported)");
}

TEST_CASE("a difference: the first one is the reason, all of them kept") {
  auto before = base_record();
  auto now = before;
  now.time_ns = 2'000;
  now.args.push_back("-DNDEBUG");
  now.inputs[1].sha = "91bc000000000000";
  auto e = records::explain_miss(
    stored(now, "/r/x/2000.json"), stored(before, "/r/x/1000.json"), "", Against::earlier);
  CHECK(e.reason == MissReason::flags);
  CHECK(e.line == "-DNDEBUG added");
  CHECK(e.subject == "-DNDEBUG");
  CHECK(texts(e.differences) ==
        std::vector<std::string>{ "-DNDEBUG added",
                                  "../include/foo.h changed (sha 3f2a.. -> 91bc..)" });
  REQUIRE(e.before);
  CHECK(e.before->path == "/r/x/1000.json");
}

TEST_CASE("the same inputs: the store was out, evicted, or unknown") {
  auto cache = make_temp_dir();
  auto before = base_record();
  before.cache_dir = cache; // an empty cache: far from its limit
  auto now = before;
  now.time_ns = 2'000;
  SUBCASE("the team store was out") {
    now.store = "out";
    auto e = records::explain_miss(
      stored(now, "/r/x/2000.json"), stored(before, "/r/x/1000.json"), "", Against::earlier);
    CHECK(e.reason == MissReason::store_out);
    CHECK(e.line.starts_with("the team store was out: compiled locally (the same inputs as the "
                             "compile at "));
    CHECK(records::reason_name(e.reason) == "store-out");
  }
  SUBCASE("nothing else: unknown, and what was compared") {
    auto e = records::explain_miss(
      stored(now, "/r/x/2000.json"), stored(before, "/r/x/1000.json"), "", Against::earlier);
    CHECK(e.reason == MissReason::unknown);
    CHECK(e.line.starts_with("unknown: the same arguments, toolchain, GPU targets, environment and "
                             "2 input(s) as the compile at "));
    CHECK(e.line.ends_with("; its entry is gone from the cache (cleared?) or ccache did not store "
                           "it"));
    CHECK(e.differences.empty());
    CHECK(records::reason_name(e.reason) == "unknown");
  }
  SUBCASE("a cache at its limit: evicted") {
    write_text(cache + "/0/entry", std::string(900, 'x'));
    now.max_size = "1k";
    auto e = records::explain_miss(
      stored(now, "/r/x/2000.json"), stored(before, "/r/x/1000.json"), "", Against::earlier);
    CHECK(e.reason == MissReason::evicted);
    CHECK(e.line.starts_with("evicted: the entry was written at "));
    CHECK(e.line.find("is gone (cache full: ") != std::string::npos);
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("records::predecessor");

TEST_CASE("the same output's newest earlier record") {
  auto r = base_record();
  auto at = [&](std::int64_t t) {
    auto c = r;
    c.time_ns = t;
    return stored(c, fmt::format("/r/x/{}.json", t));
  };
  auto miss = at(300);
  std::vector<records::StoredRecord> same{ at(400), miss, at(200), at(100) }; // newest first
  auto found = records::predecessor(miss, same, {}, Against::earlier);
  REQUIRE(found);
  CHECK(found->record.time_ns == 200);
  SUBCASE("the oldest has none") {
    CHECK_FALSE(records::predecessor(at(100), { at(100) }, {}, Against::earlier));
  }
  SUBCASE("CI's record counts whenever it was written") {
    auto ci = records::predecessor(miss, { at(400) }, {}, Against::archive);
    REQUIRE(ci);
    CHECK(ci->record.time_ns == 400);
  }
}

TEST_CASE("else another place's record of the same output name and source name") {
  auto mine = base_record();
  mine.time_ns = 5'000;
  auto miss = stored(mine, "/r/mine/5000.json");

  auto other_checkout = base_record(); // the same build tree shape in another checkout
  other_checkout.time_ns = 3'000;
  other_checkout.cwd = "/home/b/proj/build";
  other_checkout.output = "/home/b/proj/build/src/foo.o";
  other_checkout.source = "/home/b/proj/src/foo.cpp";

  auto newer_dir = other_checkout; // another build directory, later
  newer_dir.time_ns = 4'000;
  newer_dir.cwd = "/home/a/proj/build-release";
  newer_dir.output = "/home/a/proj/build-release/src/foo.o";

  auto other_source = other_checkout; // the same output name from another source
  other_source.time_ns = 4'500;
  other_source.source = "/home/b/proj/src/bar.cpp";

  auto other_name = other_checkout; // another output
  other_name.time_ns = 4'600;
  other_name.output = "/home/b/proj/build/src/bar.o";

  auto later = other_checkout; // after the miss
  later.time_ns = 6'000;

  std::vector<records::StoredRecord> others{
    stored(later, "/r/l/6000.json"),        stored(other_name, "/r/n/4600.json"),
    stored(other_source, "/r/s/4500.json"), stored(other_checkout, "/r/o/3000.json"),
    stored(newer_dir, "/r/d/4000.json"),    miss
  };
  auto found = records::predecessor(miss, {}, others, Against::earlier);
  REQUIRE(found);
  CHECK(found->path == "/r/d/4000.json");
  SUBCASE("the same output comes first, however old") {
    auto old = mine;
    old.time_ns = 1'000;
    auto same = records::predecessor(
      miss, { miss, stored(old, "/r/mine/1000.json") }, others, Against::earlier);
    REQUIRE(same);
    CHECK(same->path == "/r/mine/1000.json");
  }
  SUBCASE("only another checkout") {
    auto only = records::predecessor(
      miss, {}, { stored(other_checkout, "/r/o/3000.json") }, Against::earlier);
    REQUIRE(only);
    CHECK(only->record.output == "/home/b/proj/build/src/foo.o");
  }
  SUBCASE("nothing alike: none") {
    CHECK_FALSE(records::predecessor(miss,
                                     {},
                                     { stored(other_source, "/r/s/4500.json"),
                                       stored(other_name, "/r/n/4600.json"),
                                       stored(later, "/r/l/6000.json") },
                                     Against::earlier));
  }
}

TEST_SUITE_END();
