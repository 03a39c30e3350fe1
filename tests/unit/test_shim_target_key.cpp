// The target in the shim's cache key (shim/call_traits.c, shim/target_key.c): what the arguments
// name, and the key pieces made of /proc/cpuinfo and the GPU probe's output.
#include <doctest/doctest.h>
#include <shim/call_traits.h>
#include <shim/formats.h>
#include <shim/target_key.h>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

call_traits traits(std::vector<std::string> args,
                   const char* amdgpu = nullptr,
                   const char* append = nullptr) {
  args.insert(args.begin(), "hipcc");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  return traits_of(static_cast<int>(argv.size()), argv.data(), amdgpu, append);
}

// A call whose arguments outlive its traits (source and output point into them).
struct Call {
  std::vector<std::string> args;
  std::vector<char*> argv;
  call_traits traits;
  explicit Call(std::vector<std::string> a)
    : args(std::move(a)) {
    args.insert(args.begin(), "hipcc");
    for (auto& arg : args)
      argv.push_back(arg.data());
    traits = traits_of(static_cast<int>(argv.size()), argv.data(), nullptr, nullptr);
  }
};

} // namespace

TEST_SUITE_BEGIN("shim::target_key");

TEST_CASE("traits_of: the GPU target the call names, -march=native, a cached output") {
  CHECK(traits({ "-c", "a.cpp" }).target == TARGET_DEFAULT);
  CHECK(traits({ "-c", "a.cpp" }).cached_output);
  CHECK_FALSE(traits({ "-E", "-c", "a.cpp" }).cached_output);
  CHECK_FALSE(traits({ "a.cpp" }).cached_output);
  CHECK(traits({ "--offload-arch=gfx90a", "-c" }).target == TARGET_EXPLICIT);
  CHECK(traits({ "--offload-arch", "gfx90a" }).target == TARGET_EXPLICIT);
  CHECK(traits({ "-arch=sm_90" }).target == TARGET_EXPLICIT);
  CHECK(traits({ "--offload-arch=gfx90a", "--offload-arch=native" }).target == TARGET_NATIVE);
  CHECK(traits({ "--offload-arch" }).target == TARGET_EXPLICIT); // a last flag without a value
  CHECK(traits({ "--offload-architecture=x" }).target == TARGET_DEFAULT);
  CHECK(traits({}, "gfx1100").target == TARGET_EXPLICIT);
  CHECK(traits({}, "").target == TARGET_DEFAULT);
  CHECK(traits({}, nullptr, "--offload-arch=native").target == TARGET_NATIVE);
  CHECK(traits({}, nullptr, "-O2").target == TARGET_DEFAULT);
  CHECK(traits({ "-Xcompiler", "-O2,-march=native" }).host_cpu);
  CHECK_FALSE(traits({ "-march=x86-64" }).host_cpu);
}

TEST_CASE("traits_of: how many GPU targets the call names (comma lists counted apart)") {
  CHECK(traits({ "-c", "a.hip" }).gpu_targets == 0);
  CHECK(traits({ "--offload-arch=gfx90a" }).gpu_targets == 1);
  CHECK(traits({ "--offload-arch=gfx90a", "--offload-arch=gfx942" }).gpu_targets == 2);
  CHECK(traits({ "--offload-arch=gfx90a,gfx942,gfx1100" }).gpu_targets == 3);
  CHECK(traits({ "--offload-arch", "gfx90a", "--cuda-gpu-arch=gfx942" }).gpu_targets == 2);
  CHECK(traits({ "--offload-arch=gfx90a:xnack+,gfx90a:xnack-" }).gpu_targets == 2);
}

TEST_CASE("traits_of: what the call produces, and the stats-log counter of each kind") {
  CHECK(traits({ "-x", "hip", "-c", "k.hip", "-o", "k.o" }).kind == CALL_COMPILE);
  CHECK(traits({ "-S", "a.c" }).kind == CALL_COMPILE);
  CHECK(traits({ "-dc", "a.cu" }).kind == CALL_COMPILE); // nvcc, relocatable device code
  CHECK(traits({ "@args.rsp" }).kind == CALL_COMPILE);   // the cache tool reads it and decides
  // aiter's flag probe: hipcc <flag> -x hip -E -P /dev/null -o /dev/null
  CHECK(traits({ "-mcumode", "-x", "hip", "-E", "-P", "/dev/null", "-o", "/dev/null" }).kind ==
        CALL_PREPROCESS);
  // Inductor: clang -x hip --offload-arch=native -fPIC -shared k.cpp -o k.so, in one step
  CHECK(traits({ "-x", "hip", "--offload-arch=native", "-fPIC", "-shared", "k.cpp", "-o", "k.so" })
          .kind == CALL_ONE_STEP);
  CHECK(traits({ "-shared", "a.o", "b.o", "-o", "m.so" }).kind == CALL_LINK);
  CHECK(traits({ "-o", "a.cpp", "a.o" }).kind == CALL_LINK); // an output named .cpp is no source
  CHECK(traits({ "--offload-arch", "gfx90a", "a.o" }).kind == CALL_LINK);
  CHECK(traits({ "--version" }).kind == CALL_NO_INPUT);
  CHECK(traits({ "-I", "x.c", "-print-resource-dir" }).kind == CALL_NO_INPUT);
}

TEST_CASE("traits_of: what ccache's depend mode needs (a -c compile, its depfile, device-only)") {
  auto plain = traits({ "--offload-arch=gfx90a", "-c", "k.hip", "-o", "k.o" });
  CHECK(plain.object_compile);
  CHECK_FALSE(plain.names_dependencies);
  CHECK_FALSE(plain.device_only);
  CHECK_FALSE(plain.response_file);
  CHECK(traits({ "-c", "k.hip", "-MD", "-MF", "k.d" }).names_dependencies);
  CHECK(traits({ "-c", "k.hip", "-MMD" }).names_dependencies);
  CHECK(traits({ "-c", "k.hip", "-Wp,-MD,k.d" }).names_dependencies);
  CHECK(traits({ "-c", "k.hip", "--write-dependencies" }).names_dependencies);
  CHECK(traits({ "-M", "k.hip" }).names_dependencies);
  CHECK_FALSE(traits({ "-c", "k.hip", "-mcumode" }).names_dependencies); // -m is not -M
  CHECK(traits({ "-x", "hip", "--cuda-device-only", "-c", "k.hip" }).device_only);
  CHECK(traits({ "-x", "hip", "--offload-device-only", "-c", "k.hip" }).device_only);
  CHECK(traits({ "--genco", "k.hip", "-o", "k.co" }).device_only);
  CHECK_FALSE(traits({ "-x", "hip", "--cuda-host-only", "-c", "k.hip" }).device_only);
  CHECK(traits({ "-c", "k.hip", "@more.rsp" }).response_file);
  CHECK_FALSE(traits({ "-S", "k.hip" }).object_compile);
  CHECK_FALSE(traits({ "-I", "-c", "k.hip" }).object_compile); // -c is -I's value here
}

namespace {
bool probe(std::vector<std::string> args, bool stdin_empty = false) {
  args.insert(args.begin(), "hipcc");
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  return is_memoisable_probe(static_cast<int>(argv.size()), argv.data(), stdin_empty);
}
} // namespace

TEST_CASE("is_memoisable_probe: aiter's flag probes, and nothing that reads or writes a file") {
  CHECK(probe({ "-mcumode", "-x", "hip", "-E", "-P", "/dev/null", "-o", "/dev/null" }));
  CHECK(probe({ "-mllvm", "-amdgpu-kernarg-preload-count=16", "-x", "hip", "-E", "/dev/null" }));
  CHECK(probe({ "-x", "hip", "-E", "-", "-o", "-" }, true));
  CHECK(probe({ "-E", "-o/dev/null", "/dev/null", "-Xclang", "-fno-foo" }));
  CHECK_FALSE(probe({ "-x", "hip", "-E", "-" }, false)); // stdin may hold a source
  CHECK_FALSE(probe({ "-x", "hip", "-c", "/dev/null", "-o", "/dev/null" }));
  CHECK_FALSE(probe({ "-x", "hip", "-E", "k.hip", "-o", "/dev/null" }));
  CHECK_FALSE(probe({ "-x", "hip", "-E", "/dev/null", "-o", "k.i" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "@flags.rsp" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "-include", "h.h" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "-I", "inc" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "-Iinc" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "--config=x.cfg" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "-fprofile-use=x.profdata" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "-fsanitize-ignorelist=x.txt" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "-Xclang", "-load" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "-MD", "-MF", "x.d" }));
  CHECK_FALSE(probe({ "-E", "/dev/null", "--rocm-path=/opt/rocm" }));
  CHECK_FALSE(probe({ "-x", "hip", "/dev/null", "-o", "/dev/null" })); // no -E
}

TEST_CASE("wants_cuid: one HIP source compiled, no CUID of the user's") {
  auto cuid = [](std::vector<std::string> args, bool hipcc = false) {
    Call call(std::move(args));
    return wants_cuid(&call.traits, hipcc);
  };
  CHECK(cuid({ "-x", "hip", "-c", "k.cpp", "-o", "k.o" }));
  CHECK(cuid({ "-xhip", "-c", "k.cpp" }));
  CHECK(cuid({ "-c", "k.hip", "-o", "k.o" }));
  CHECK(cuid({ "-c", "k.cpp", "-o", "k.o" }, true)); // hipcc compiles .cpp as HIP
  CHECK(cuid({ "-c", "k.cu" }, true));
  CHECK_FALSE(cuid({ "-c", "k.cpp", "-o", "k.o" }));          // clang++ on C++: -cuid would warn
  CHECK_FALSE(cuid({ "-x", "c++", "-c", "k.cpp" }, true));    // hipcc told it is C++
  CHECK_FALSE(cuid({ "-c", "k.c" }, true));                   // C
  CHECK_FALSE(cuid({ "-x", "hip", "-c", "a.hip", "b.hip" })); // two objects need two CUIDs
  CHECK_FALSE(cuid({ "-x", "hip", "-cuid=mine", "-c", "k.hip" }));
  CHECK_FALSE(cuid({ "-x", "hip", "-fuse-cuid=none", "-c", "k.hip" }));
  CHECK_FALSE(cuid({ "-x", "hip", "-E", "k.hip" }));      // not a compile
  CHECK_FALSE(cuid({ "-x", "hip", "k.hip", "-o", "k" })); // one step: not cached anyway
  Call call({ "-x", "hip", "-c", "k.hip", "-ok.o" });
  CHECK(std::string(call.traits.source) == "k.hip");
  CHECK(std::string(call.traits.output) == "k.o");
}

TEST_CASE("shimctl_cuid_value: 16 hex digits of the source and the output, stable") {
  char a[SHIMCTL_CUID_HEX + 1], b[SHIMCTL_CUID_HEX + 1];
  CHECK(std::string(shimctl_cuid_value(a, "t.hip", "x1.o")) ==
        std::string(shimctl_cuid_value(b, "t.hip", "x1.o")));
  CHECK(std::string(a).size() == 16);
  CHECK(std::string(shimctl_cuid_value(a, "t.hip", "x1.o")) !=
        std::string(shimctl_cuid_value(b, "t.hip", "x2.o")));
  CHECK(std::string(shimctl_cuid_value(a, "t.hipx", "1.o")) !=
        std::string(shimctl_cuid_value(b, "t.hip", "x1.o"))); // the parts are separated
  // A fixed value: shimctl verify computes the same for its reference compile (a change here is
  // a change of every HIP object's CUID, hence of every key).
  CHECK(std::string(shimctl_cuid_value(a, "k.hip", "out.o")) == "0d753c0e9f843731");
}

TEST_CASE("key_host_cpu: the first CPU's identifying fields, in their order") {
  char buf[256];
  target_key key{ buf, sizeof buf, 0 };
  std::string info = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                     "model\t\t: 1\nbogomips\t: 1\nflags\t\t: fpu sse\n\nprocessor\t: 1\n"
                     "vendor_id\t: Other\n";
  REQUIRE(key_host_cpu(&key, info.data(), info.size()));
  CHECK(std::string(buf) ==
        ";cpu=vendor_id\t: AuthenticAMD|cpu family\t: 25|model\t\t: 1|flags\t\t: fpu sse|");
  target_key empty{ buf, sizeof buf, 0 };
  CHECK_FALSE(key_host_cpu(&empty, info.data(), 0));
}

TEST_CASE("key_probe_output: the GPUs as a comma list, a failed probe's status too") {
  char buf[64];
  target_key key{ buf, sizeof buf, 0 };
  std::string out = "gfx90a\ngfx90a\n";
  REQUIRE(key_probe_output(&key, out.data(), 0));
  CHECK(std::string(buf) == ";gpus=gfx90a,gfx90a,");
  target_key failed{ buf, sizeof buf, 0 };
  std::string none;
  REQUIRE(key_probe_output(&failed, none.data(), 3 << 8)); // exit status 3
  CHECK(std::string(buf) == ";gpus=;probe-status=3");
  target_key small{ buf, 8, 0 };
  CHECK_FALSE(key_probe_output(&small, out.data(), 0));
  CHECK(small.len == 0);
}

TEST_SUITE_END();

TEST_CASE("the CUID value: FNV-1a as scripts/lib/cuid.bash computes it (the tests' reference)") {
  char out[SHIMCTL_CUID_HEX + 1];
  CHECK(std::string(shimctl_cuid_value(out, "k.hip", "k.o")) == "3756356ec299644a");
  CHECK(std::string(shimctl_cuid_value(out, "src/a.cu", "")) == "bce944a49f41ccca");
}
