#include "temp_dir.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <shimctl/identity/job_inputs.hpp>
#include <shimctl/identity/wrapper_jobs.hpp>
#include <shimctl/util/job_lines.hpp>
#include <sys/stat.h>

using namespace shimctl;

namespace {

// Captured on Debian 12: HIPCC_VERBOSE=1 /usr/bin/hipcc (perl, ROCm 5.2, clang-15) -x hip
// --offload-arch=gfx90a -c probe.hip -o probe.o -### -ffinite-math-only; stdout, then stderr.
const char* const hipcc_rocm52 =
  R"jobs(hipcc-cmd: /usr/bin/clang++-15  -std=c++11 -isystem "/usr/lib/llvm-15/lib/clang/15.0.6/include/.." -isystem /usr/hsa/include --hip-version=5.2.21153 --rocm-path=/usr --offload-arch=gfx90a -O3 -mllvm -amdgpu-early-inline-all=true -mllvm -amdgpu-function-calls=false --hip-device-lib-path="/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"  -x hip -c probe.hip -o "probe.o" -\#\#\# -ffinite-math-only
Debian clang version 15.0.6
Target: x86_64-pc-linux-gnu
Thread model: posix
InstalledDir: /usr/bin
 "/usr/lib/llvm-15/bin/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-aux-triple" "x86_64-pc-linux-gnu" "-emit-obj" "--mrelax-relocations" "-disable-free" "-clear-ast-before-backend" "-disable-llvm-verifier" "-discard-value-names" "-main-file-name" "probe.hip" "-mrelocation-model" "pic" "-pic-level" "1" "-fhalf-no-semantic-interposition" "-mframe-pointer=none" "-menable-no-infs" "-menable-no-nans" "-fno-rounding-math" "-ffinite-math-only" "-mconstructor-aliases" "-aux-target-cpu" "x86-64" "-fcuda-is-device" "-mllvm" "-amdgpu-internalize-symbols" "-fcuda-allow-variadic-functions" "-fvisibility" "hidden" "-fapply-global-visibility-to-externs" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/hip.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_daz_opt_off.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_unsafe_math_off.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_finite_only_on.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_correctly_rounded_sqrt_on.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_wavefrontsize64_on.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_isa_version_90a.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_abi_version_400.bc" "-target-cpu" "gfx90a" "-mllvm" "-treat-scalable-fixed-error-as-warning" "-debugger-tuning=gdb" "-resource-dir" "/usr/lib/llvm-15/lib/clang/15.0.6" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include/cuda_wrappers" "-idirafter" "/usr/include" "-include" "__clang_hip_runtime_wrapper.h" "-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include/.." "-isystem" "/usr/hsa/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-O3" "-std=c++11" "-fdeprecated-macro" "-fno-autolink" "-fdebug-compilation-dir=/tmp/jl" "-ferror-limit" "19" "-fhip-new-launch-api" "-fgnuc-version=4.2.1" "-fcxx-exceptions" "-fexceptions" "-vectorize-loops" "-vectorize-slp" "-mllvm" "-amdgpu-early-inline-all=true" "-mllvm" "-amdgpu-function-calls=false" "-cuid=9ac74191ab1fcfbf" "-fcuda-allow-variadic-functions" "-faddrsig" "-D__GCC_HAVE_DWARF2_CFI_ASM=1" "-o" "/tmp/probe-cac3b7/probe-gfx90a.o" "-x" "hip" "probe.hip"
 "/usr/bin/lld" "-flavor" "gnu" "--no-undefined" "-shared" "-plugin-opt=-amdgpu-internalize-symbols" "-plugin-opt=mcpu=gfx90a" "-plugin-opt=O3" "-plugin-opt=-amdgpu-early-inline-all=true" "-plugin-opt=-amdgpu-function-calls=false" "-o" "/tmp/probe-3eb3a4/probe-gfx90a.out" "/tmp/probe-cac3b7/probe-gfx90a.o"
 "/usr/lib/llvm-15/bin/clang-offload-bundler" "-type=o" "-bundle-align=4096" "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a" "-input=/dev/null" "-input=/tmp/probe-3eb3a4/probe-gfx90a.out" "-output=/tmp/probe-b15e36.hipfb"
 "/usr/lib/llvm-15/bin/clang" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-aux-triple" "amdgcn-amd-amdhsa" "-emit-obj" "--mrelax-relocations" "-disable-free" "-clear-ast-before-backend" "-disable-llvm-verifier" "-discard-value-names" "-main-file-name" "probe.hip" "-mrelocation-model" "pic" "-pic-level" "2" "-pic-is-pie" "-mframe-pointer=none" "-menable-no-infs" "-menable-no-nans" "-fmath-errno" "-fno-rounding-math" "-ffinite-math-only" "-mconstructor-aliases" "-funwind-tables=2" "-target-cpu" "x86-64" "-tune-cpu" "generic" "-mllvm" "-treat-scalable-fixed-error-as-warning" "-debugger-tuning=gdb" "-fcoverage-compilation-dir=/tmp/jl" "-resource-dir" "/usr/lib/llvm-15/lib/clang/15.0.6" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include/cuda_wrappers" "-idirafter" "/usr/include" "-include" "__clang_hip_runtime_wrapper.h" "-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include/.." "-isystem" "/usr/hsa/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-O3" "-std=c++11" "-fdeprecated-macro" "-fdebug-compilation-dir=/tmp/jl" "-ferror-limit" "19" "-fhip-new-launch-api" "-fgnuc-version=4.2.1" "-fcxx-exceptions" "-fexceptions" "-vectorize-loops" "-vectorize-slp" "-mllvm" "-amdgpu-early-inline-all=true" "-mllvm" "-amdgpu-function-calls=false" "-fcuda-include-gpubinary" "/tmp/probe-b15e36.hipfb" "-cuid=9ac74191ab1fcfbf" "-fcuda-allow-variadic-functions" "-faddrsig" "-D__GCC_HAVE_DWARF2_CFI_ASM=1" "-o" "probe.o" "-x" "hip" "probe.hip"
)jobs";

// Debian 12's clang-16 with an explicit config file and device-library path.
const char* const clang16_config = R"jobs(Debian clang version 16.0.6 (15~deb12u1)
Target: x86_64-pc-linux-gnu
Thread model: posix
InstalledDir: /usr/bin
Configuration file: /tmp/jl/my.cfg
 "/usr/lib/llvm-16/bin/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-aux-triple" "x86_64-pc-linux-gnu" "-emit-obj" "-mrelax-all" "-disable-free" "-clear-ast-before-backend" "-disable-llvm-verifier" "-discard-value-names" "-main-file-name" "probe.hip" "-mrelocation-model" "pic" "-pic-level" "1" "-fhalf-no-semantic-interposition" "-mframe-pointer=all" "-fno-rounding-math" "-mconstructor-aliases" "-aux-target-cpu" "x86-64" "-fcuda-is-device" "-mllvm" "-amdgpu-internalize-symbols" "-fcuda-allow-variadic-functions" "-fvisibility=hidden" "-fapply-global-visibility-to-externs" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/hip.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_daz_opt_off.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_unsafe_math_off.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_finite_only_off.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_correctly_rounded_sqrt_on.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_wavefrontsize64_on.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_isa_version_90a.bc" "-mlink-builtin-bitcode" "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/oclc_abi_version_400.bc" "-target-cpu" "gfx90a" "-mllvm" "-treat-scalable-fixed-error-as-warning" "-debugger-tuning=gdb" "-resource-dir" "/usr/lib/llvm-16/lib/clang/16" "-internal-isystem" "/usr/lib/llvm-16/lib/clang/16/include/cuda_wrappers" "-idirafter" "/usr/include" "-include" "__clang_hip_runtime_wrapper.h" "-D" "FOO=1" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/llvm-16/lib/clang/16/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-internal-isystem" "/usr/lib/llvm-16/lib/clang/16/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-fdeprecated-macro" "-fno-autolink" "-fdebug-compilation-dir=/tmp/jl" "-ferror-limit" "19" "-fhip-new-launch-api" "-fgnuc-version=4.2.1" "-fcxx-exceptions" "-fexceptions" "-cuid=e6a9ccd64c5e5acd" "-fcuda-allow-variadic-functions" "-faddrsig" "-D__GCC_HAVE_DWARF2_CFI_ASM=1" "-o" "/tmp/probe-f934f0/probe-gfx90a.o" "-x" "hip" "probe.hip"
 "/usr/bin/lld" "-flavor" "gnu" "-m" "elf64_amdgpu" "--no-undefined" "-shared" "-plugin-opt=-amdgpu-internalize-symbols" "-plugin-opt=mcpu=gfx90a" "-o" "/tmp/probe-3c9d13/probe-gfx90a.out" "/tmp/probe-f934f0/probe-gfx90a.o"
 "/usr/lib/llvm-16/bin/clang-offload-bundler" "-type=o" "-bundle-align=4096" "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a" "-input=/dev/null" "-input=/tmp/probe-3c9d13/probe-gfx90a.out" "-output=/tmp/probe-e7e89b.hipfb"
 "/usr/lib/llvm-16/bin/clang" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-aux-triple" "amdgcn-amd-amdhsa" "-emit-obj" "-mrelax-all" "-disable-free" "-clear-ast-before-backend" "-disable-llvm-verifier" "-discard-value-names" "-main-file-name" "probe.hip" "-mrelocation-model" "pic" "-pic-level" "2" "-pic-is-pie" "-mframe-pointer=all" "-fmath-errno" "-fno-rounding-math" "-mconstructor-aliases" "-funwind-tables=2" "-target-cpu" "x86-64" "-tune-cpu" "generic" "-mllvm" "-treat-scalable-fixed-error-as-warning" "-debugger-tuning=gdb" "-fcoverage-compilation-dir=/tmp/jl" "-resource-dir" "/usr/lib/llvm-16/lib/clang/16" "-internal-isystem" "/usr/lib/llvm-16/lib/clang/16/include/cuda_wrappers" "-idirafter" "/usr/include" "-include" "__clang_hip_runtime_wrapper.h" "-D" "FOO=1" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/llvm-16/lib/clang/16/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-internal-isystem" "/usr/lib/llvm-16/lib/clang/16/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-fdeprecated-macro" "-fdebug-compilation-dir=/tmp/jl" "-ferror-limit" "19" "-fhip-new-launch-api" "-fgnuc-version=4.2.1" "-fcxx-exceptions" "-fexceptions" "-fcuda-include-gpubinary" "/tmp/probe-e7e89b.hipfb" "-cuid=e6a9ccd64c5e5acd" "-fcuda-allow-variadic-functions" "-faddrsig" "-D__GCC_HAVE_DWARF2_CFI_ASM=1" "-o" "probe.o" "-x" "hip" "probe.hip"
)jobs";

// Debian 12's clang-15 with no ROCm around: errors, but -### still prints the jobs.
const char* const clang15_no_device_libs = R"jobs(Debian clang version 15.0.6
Target: x86_64-pc-linux-gnu
Thread model: posix
InstalledDir: /usr/lib/llvm-15/bin
clang: error: cannot find ROCm device library; provide its path via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm device library
clang: error: cannot find HIP runtime; provide its path via '--rocm-path', or pass '-nogpuinc' to build without HIP runtime
clang: error: cannot find HIP runtime; provide its path via '--rocm-path', or pass '-nogpuinc' to build without HIP runtime
 "/usr/lib/llvm-15/bin/clang" "-cc1" "-triple" "amdgcn-amd-amdhsa" "-aux-triple" "x86_64-pc-linux-gnu" "-emit-obj" "-mrelax-all" "--mrelax-relocations" "-disable-free" "-clear-ast-before-backend" "-disable-llvm-verifier" "-discard-value-names" "-main-file-name" "probe.hip" "-mrelocation-model" "pic" "-pic-level" "1" "-fhalf-no-semantic-interposition" "-mframe-pointer=all" "-fno-rounding-math" "-mconstructor-aliases" "-aux-target-cpu" "x86-64" "-fcuda-is-device" "-mllvm" "-amdgpu-internalize-symbols" "-fcuda-allow-variadic-functions" "-fvisibility" "hidden" "-fapply-global-visibility-to-externs" "-target-cpu" "gfx90a" "-mllvm" "-treat-scalable-fixed-error-as-warning" "-debugger-tuning=gdb" "-resource-dir" "/usr/lib/llvm-15/lib/clang/15.0.6" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-std=c++11" "-fdeprecated-macro" "-fno-autolink" "-fdebug-compilation-dir=/tmp/jl" "-ferror-limit" "19" "-fhip-new-launch-api" "-fgnuc-version=4.2.1" "-fcxx-exceptions" "-fexceptions" "-cuid=4323433e82716e8" "-fcuda-allow-variadic-functions" "-faddrsig" "-D__GCC_HAVE_DWARF2_CFI_ASM=1" "-o" "/tmp/probe-b0952f/probe-gfx90a.o" "-x" "hip" "probe.hip"
 "/usr/lib/llvm-15/bin/lld" "-flavor" "gnu" "--no-undefined" "-shared" "-plugin-opt=-amdgpu-internalize-symbols" "-plugin-opt=mcpu=gfx90a" "-o" "/tmp/probe-dd712e/probe-gfx90a.out" "/tmp/probe-b0952f/probe-gfx90a.o"
 "/usr/lib/llvm-15/bin/clang-offload-bundler" "-type=o" "-bundle-align=4096" "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a" "-input=/dev/null" "-input=/tmp/probe-dd712e/probe-gfx90a.out" "-output=/tmp/probe-919c25.hipfb"
 "/usr/lib/llvm-15/bin/clang" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-aux-triple" "amdgcn-amd-amdhsa" "-emit-obj" "-mrelax-all" "--mrelax-relocations" "-disable-free" "-clear-ast-before-backend" "-disable-llvm-verifier" "-discard-value-names" "-main-file-name" "probe.hip" "-mrelocation-model" "pic" "-pic-level" "2" "-pic-is-pie" "-mframe-pointer=all" "-fmath-errno" "-fno-rounding-math" "-mconstructor-aliases" "-funwind-tables=2" "-target-cpu" "x86-64" "-tune-cpu" "generic" "-mllvm" "-treat-scalable-fixed-error-as-warning" "-debugger-tuning=gdb" "-fcoverage-compilation-dir=/tmp/jl" "-resource-dir" "/usr/lib/llvm-15/lib/clang/15.0.6" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/x86_64-linux-gnu/c++/12" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/backward" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-internal-isystem" "/usr/lib/llvm-15/lib/clang/15.0.6/include" "-internal-isystem" "/usr/local/include" "-internal-isystem" "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../x86_64-linux-gnu/include" "-internal-externc-isystem" "/usr/include/x86_64-linux-gnu" "-internal-externc-isystem" "/include" "-internal-externc-isystem" "/usr/include" "-std=c++11" "-fdeprecated-macro" "-fdebug-compilation-dir=/tmp/jl" "-ferror-limit" "19" "-fhip-new-launch-api" "-fgnuc-version=4.2.1" "-fcxx-exceptions" "-fexceptions" "-fcuda-include-gpubinary" "/tmp/probe-919c25.hipfb" "-cuid=4323433e82716e8" "-fcuda-allow-variadic-functions" "-faddrsig" "-D__GCC_HAVE_DWARF2_CFI_ASM=1" "-o" "probe.o" "-x" "hip" "probe.hip"
)jobs";

const std::string bitcode_dir = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/";

} // namespace

TEST_SUITE_BEGIN("core::JobInputs");

TEST_CASE("split_job_line: clang's quoting; anything else is not a job line") {
  CHECK(util::split_job_line(R"( "/usr/bin/lld" "-o" "a b" "x\"y" "c:\\d" "\$HOME")") ==
        std::vector<std::string>{ "/usr/bin/lld", "-o", "a b", "x\"y", "c:\\d", "$HOME" });
  CHECK(util::split_job_line("InstalledDir: /usr/bin").empty());
  CHECK(util::split_job_line(R"("/usr/bin/lld" "-o")").empty()); // no leading blank
  CHECK(util::split_job_line(R"( "/usr/bin/lld" "-o)").empty()); // unterminated
  CHECK(util::split_job_line(R"( "/usr/bin/lld" -o)").empty());  // unquoted word
}

TEST_CASE("parse_job_list: Debian 12's perl hipcc (ROCm 5.2) over clang-15") {
  auto jobs = identity::parse_job_list(hipcc_rocm52);
  CHECK(jobs.driver == "/usr/bin/clang++-15");
  CHECK(jobs.installed_dir == "/usr/bin");
  CHECK(jobs.executables ==
        std::vector<std::string>{ "/usr/lib/llvm-15/bin/clang",
                                  "/usr/bin/lld",
                                  "/usr/lib/llvm-15/bin/clang-offload-bundler" });
  REQUIRE(jobs.bitcode.size() == 10);
  CHECK(jobs.bitcode.front() == bitcode_dir + "hip.bc");
  // -ffinite-math-only selects the _on variant; the probe sees only one of the pair.
  CHECK(std::count(
          jobs.bitcode.begin(), jobs.bitcode.end(), bitcode_dir + "oclc_finite_only_on.bc") == 1);
  CHECK(std::count(
          jobs.bitcode.begin(), jobs.bitcode.end(), bitcode_dir + "oclc_finite_only_off.bc") == 0);
  CHECK(jobs.config_files.empty());
  CHECK(jobs.errors.empty());
  CHECK(jobs.has_jobs());
}

TEST_CASE("parse_job_list: clang-16 names its configuration file") {
  auto jobs = identity::parse_job_list(clang16_config);
  CHECK(jobs.config_files == std::vector<std::string>{ "/tmp/jl/my.cfg" });
  CHECK(jobs.installed_dir == "/usr/bin");
  CHECK(jobs.driver.empty());
  CHECK(jobs.executables ==
        std::vector<std::string>{ "/usr/lib/llvm-16/bin/clang",
                                  "/usr/bin/lld",
                                  "/usr/lib/llvm-16/bin/clang-offload-bundler" });
  CHECK(jobs.bitcode.size() == 10);
  CHECK(std::count(
          jobs.bitcode.begin(), jobs.bitcode.end(), bitcode_dir + "oclc_finite_only_off.bc") == 1);
  CHECK(jobs.errors.empty());
}

TEST_CASE("parse_job_list: clang-15 without device libraries: jobs, no bitcode, the errors") {
  auto jobs = identity::parse_job_list(clang15_no_device_libs);
  CHECK(jobs.has_jobs());
  CHECK(jobs.bitcode.empty());
  CHECK(jobs.installed_dir == "/usr/lib/llvm-15/bin");
  REQUIRE(jobs.errors.size() == 3);
  CHECK(jobs.errors[0].starts_with("clang: error: cannot find ROCm device library;"));
  CHECK(identity::parse_job_list("").executables.empty());
  CHECK_FALSE(identity::parse_job_list("fake hipcc -x hip\n").has_jobs());
}

namespace {

// PREFIX/NAME: a fake compiler that prints JOBS on stderr, only with SHIMCTL_DISABLE=1.
void fake_compiler(const std::string& prefix, const std::string& name, const std::string& jobs) {
  test::write_text(prefix + "/" + name + ".jobs", jobs);
  test::write_text(prefix + "/" + name,
                   "#!/bin/sh\n[ \"$SHIMCTL_DISABLE\" = 1 ] || exit 3\ncat \"$0.jobs\" >&2\n");
  REQUIRE(::chmod((prefix + "/" + name).c_str(), 0755) == 0);
}

} // namespace

TEST_CASE(
  "probe_job_inputs: programs, whole bitcode directories, config files; symlinks resolved") {
  auto root = test::make_temp_dir();
  auto p = root + "/prefix";
  auto outside = root + "/elsewhere";
  test::write_text(p + "/llvm/bin/clang", "clang");
  std::filesystem::create_symlink("clang", p + "/llvm/bin/clang++");
  test::write_text(p + "/llvm/bin/lld", "lld");
  REQUIRE(::chmod((p + "/llvm/bin/lld").c_str(), 0755) == 0); // found in InstalledDir by name
  test::write_text(p + "/llvm/bin/clang.cfg", "@rocm.cfg\n");
  test::write_text(p + "/llvm/bin/rocm.cfg", "-DX\n");
  test::write_text(p + "/amdgcn/bitcode/a.bc", "a");
  test::write_text(p + "/amdgcn/bitcode/b.bc", "b");
  test::write_text(p + "/amdgcn/bitcode/README", "not bitcode");
  test::write_text(outside + "/bitcode/ocml.bc", "ocml");
  test::write_text(outside + "/bitcode/ockl.bc", "ockl");
  test::write_text(outside + "/bin/clang-offload-bundler", "bundler");
  fake_compiler(
    p,
    "bin/hipcc",
    "hipcc-cmd: " + p + "/llvm/bin/clang++ -x hip\nInstalledDir: " + p +
      "/llvm/bin\nConfiguration file: " + p + "/llvm/bin/clang.cfg\n \"" + p +
      "/llvm/bin/clang.real\" \"-cc1\" \"-mlink-builtin-bitcode\" \"" + p +
      "/amdgcn/bitcode/a.bc\" \"-mlink-builtin-bitcode\" \"" + outside +
      "/bitcode/ocml.bc\" \"-o\" \"/tmp/none-123456/probe.o\"\n \"lld\" \"-flavor\"\n \"" +
      outside + "/bin/clang-offload-bundler\" \"-type=o\"\n");
  // Not HIP compilers: never run.
  fake_compiler(p, "bin/nvcc", "");
  REQUIRE(::chmod((p + "/bin/nvcc").c_str(), 0) == 0);

  auto found = identity::probe_job_inputs(
    p, { { "bin/hipcc", "hipcc" }, { "bin/nvcc", "nvcc" } }, { "bin/hipcc", "llvm/bin/clang" });
  REQUIRE(found);
  CHECK(found->files == std::vector<std::string>{ outside + "/bin/clang-offload-bundler",
                                                  outside + "/bitcode/ockl.bc",
                                                  outside + "/bitcode/ocml.bc",
                                                  "amdgcn/bitcode/a.bc",
                                                  "amdgcn/bitcode/b.bc",
                                                  "llvm/bin/clang.cfg",
                                                  "llvm/bin/clang.real",
                                                  "llvm/bin/lld",
                                                  "llvm/bin/rocm.cfg" });
  REQUIRE(found->compilers.size() == 1);
  CHECK(found->compilers[0].has_jobs);
  CHECK(found->compilers[0].has_bitcode);
  CHECK(identity::missing_device_libraries(p, *found, { "bin/hipcc" }).empty());
}

namespace {

void write_script(const std::string& path, const std::string& body) {
  test::write_text(path, "#!/bin/sh\n" + body);
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
}

} // namespace

TEST_CASE("probe_job_inputs: the new driver's linker wrapper, replayed: what it runs is an input") {
  // A new-driver plan: a device job, then clang-linker-wrapper, whose jobs (the clang beside it,
  // the bundler) only its --dry-run shows, and that clang's own -### names ld.lld, a link to lld.
  auto p = test::make_temp_dir();
  auto b = p + "/lib/llvm/bin";
  write_script(b + "/device-job", "exit 0\n");
  write_script(b + "/clang-linker-wrapper",
               "for a; do last=$a; done\n[ \"$last\" = --dry-run ] || exit 9\n"
               "echo ' \"" +
                 b +
                 "/clang\" --no-default-config -o x.img -mcpu=gfx90a x.o' >&2\n"
                 "echo ' \"" +
                 b + "/clang-offload-bundler\" -type=o -bundle-align=4096' >&2\n");
  write_script(b + "/clang",
               "case \"$*\" in *-###*) ;; *) exit 9 ;; esac\n"
               "echo 'InstalledDir: " +
                 b + "' >&2\necho ' \"" + b + "/ld.lld\" \"-shared\"' >&2\n");
  write_script(b + "/lld", "exit 0\n");
  std::filesystem::create_symlink("lld", b + "/ld.lld");
  write_script(b + "/clang-offload-bundler", "exit 0\n");
  fake_compiler(p,
                "bin/hipcc",
                " \"" + b + "/device-job\" \"-o\" \"x.bc\"\n \"" + b +
                  "/clang-linker-wrapper\" \"--emit-fatbin-only\" \"-o\" \"x.hipfb\" \"x.out\"\n");
  auto found = identity::probe_job_inputs(p, { { "bin/hipcc", "hipcc" } }, {});
  REQUIRE(found);
  for (const char* input : { "lib/llvm/bin/clang",
                             "lib/llvm/bin/clang-linker-wrapper",
                             "lib/llvm/bin/clang-offload-bundler",
                             "lib/llvm/bin/ld.lld",
                             "lib/llvm/bin/lld" })
    CHECK_MESSAGE(std::ranges::find(found->files, input) != found->files.end(), input);

  // A wrapper whose jobs cannot be read: what it runs beside itself, and why.
  write_script(b + "/clang-linker-wrapper", "exit 1\n");
  auto fallback = identity::wrapper_programs(
    { { b + "/device-job" }, { b + "/clang-linker-wrapper", "-o", "x.hipfb" } }, {});
  CHECK(fallback.failure == "clang-linker-wrapper --dry-run failed");
  CHECK(fallback.programs ==
        std::vector<std::string>{
          b + "/clang", b + "/ld.lld", b + "/lld", b + "/clang-offload-bundler" });
  // A job before the wrapper that fails: the same fallback.
  write_script(b + "/device-job", "exit 1\n");
  fallback = identity::wrapper_programs(
    { { b + "/device-job" }, { b + "/clang-linker-wrapper", "-o", "x.hipfb" } }, {});
  CHECK(fallback.failure == "device-job failed while the compile was replayed up to the wrapper");
  CHECK(fallback.programs.size() == 4);
}

TEST_CASE("missing_device_libraries: a wrapped hipcc whose job list links no bitcode") {
  auto p = test::make_temp_dir();
  fake_compiler(p, "bin/hipcc", clang15_no_device_libs);
  fake_compiler(p, "bin/fake", "fake hipcc: no job list at all\n");
  auto found =
    identity::probe_job_inputs(p, { { "bin/hipcc", "hipcc" }, { "bin/fake", "hipcc" } }, {});
  REQUIRE(found);
  REQUIRE(found->compilers.size() == 2);
  CHECK_FALSE(found->compilers[0].has_bitcode);
  CHECK_FALSE(found->compilers[1].has_jobs);
  auto reason = identity::missing_device_libraries(p, *found, { "bin/hipcc", "bin/fake" });
  CHECK(reason.starts_with(p + "/bin/hipcc links no HIP device library"));
  CHECK(reason.find("; clang: error: cannot find ROCm device library") != std::string::npos);
  CHECK(reason.find("apt install rocm-device-libs") != std::string::npos);
  CHECK(reason.find('\n') == std::string::npos);
  // Not wrapped, or no job list to judge by: no refusal.
  CHECK(identity::missing_device_libraries(p, *found, { "bin/fake" }).empty());
  CHECK(identity::missing_device_libraries(p, *found, {}).empty());
}

TEST_SUITE_END();
