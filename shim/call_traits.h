/* What a call's arguments say (call_traits.c): what the shim decides a call by. Pure functions. */
#ifndef SHIMCTL_SHIM_CALL_TRAITS_H
#define SHIMCTL_SHIM_CALL_TRAITS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum target { TARGET_DEFAULT, TARGET_EXPLICIT, TARGET_NATIVE };

/* What a call's arguments (and HIPCC_COMPILE_FLAGS_APPEND, HCC_AMDGPU_TARGET) say that the key
 * must follow, from one pass over ARGV. A response file could name a target: counted as naming
 * none (the probe then keys by this machine's GPUs). */
/* What the call produces. Only CALL_COMPILE can be a cache hit: ccache and sccache run every
 * other call unchanged, so the shim runs those directly (one exec less) and, under `shimctl
 * measure`, records them in the stats log by kind. */
enum call_kind {
  CALL_COMPILE,    /* -c, -S, nvcc's -dc/-ptx/...: an object the cache may store */
  CALL_PREPROCESS, /* -E (aiter probes each flag with hipcc -E -P /dev/null) */
  CALL_ONE_STEP,   /* sources and no -c: compiled and linked in one step (Inductor's calls) */
  CALL_LINK,       /* objects or libraries only */
  CALL_NO_INPUT    /* neither: --version, -print-*, ... */
};

struct call_traits {
  enum target target;
  bool host_cpu;      /* -march=native and the like */
  bool cached_output; /* kind == CALL_COMPILE */
  enum call_kind kind;
  /* For the CUID (formats.h): */
  const char* source;  /* the one source file, as the command names it; NULL: none or several */
  const char* output;  /* -o's value, as named; NULL: none */
  bool hip_source;     /* -x hip, or a .hip source */
  bool other_language; /* -x with another language */
  bool cuid_given;     /* -cuid= or -fuse-cuid= */
  /* For ccache's depend mode (main.c): */
  bool object_compile;     /* -c */
  bool names_dependencies; /* -MD, -MMD, -MF, -M, -Wp,-MD,..., --write-dependencies, ... */
  bool device_only;        /* --cuda-device-only, --offload-device-only, hipcc's --genco */
  bool response_file;      /* an @file argument: it may say any of the above */
  /* For per-target pieces (main.c): */
  unsigned gpu_targets; /* targets the arguments name (comma lists counted apart) */
};

/* CALL compiles one HIP source: -x hip, a .hip file, or (HIPCC: the compiler is hipcc) a
 * .cpp/.cc/.cxx/.cu/.c++ source in no other -x language. */
bool compiles_hip(const struct call_traits* call, bool hipcc);

/* The shim passes its -cuid= to a compile of ONE HIP source (HIPCC: the compiler is hipcc,
 * which compiles .cpp/.cc/.cxx/.cu sources as HIP too) where the user named no CUID. */
bool wants_cuid(const struct call_traits* call, bool hipcc);

struct call_traits traits_of(int argc,
                             char** argv,
                             const char* hcc_amdgpu_target,
                             const char* hipcc_compile_flags_append);

/* A preprocess-only call of no file, as aiter probes each flag (hipcc FLAG -x hip -E -P /dev/null
 * -o /dev/null): -E, every input /dev/null (or "-" with STDIN_EMPTY), the output /dev/null or
 * stdout, and no option that reads a file or names a place to search for one (@file, -include,
 * -I, --config, -fprofile-*, sanitizer lists, plugins, -M*, ...). Its answer (exit code, stdout,
 * stderr) is a function of the toolchain, the arguments and the environment: the shim memoises
 * it (call_memo.c). */
bool is_memoisable_probe(int argc, char** argv, bool stdin_empty);

#ifdef __cplusplus
}
#endif

#endif
