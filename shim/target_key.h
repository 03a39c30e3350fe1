/* The target in the cache key: what decides the object besides the command line, the sources and
 * the toolchain's files. Pure functions: the shim runs the probe and reads /proc/cpuinfo. */
#ifndef SHIMCTL_SHIM_TARGET_KEY_H
#define SHIMCTL_SHIM_TARGET_KEY_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The key, ";NAME=VALUE;cpu=...;gpus=...", NUL-terminated in BUF. */
struct target_key {
  char* buf;
  size_t cap;
  size_t len;
};

/* Appends A, B and C; false (the key unchanged in length) when they do not fit. */
bool key_append(struct target_key* key, const char* a, const char* b, const char* c);

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

/* Appends ";cpu=..." with what INFO (/proc/cpuinfo, LEN bytes, modified in place) says of the
 * first CPU that decides what -march=native means (vendor, family, model, name, cache size,
 * feature flags). */
bool key_host_cpu(struct target_key* key, char* info, size_t len);

/* Appends ";gpus=<OUT>" (the probe's output, modified in place: newlines as commas), and
 * ";probe-status=N" (or "signal") unless the probe exited with 0 (STATUS: its wait status). */
bool key_probe_output(struct target_key* key, char* out, int status);

#ifdef __cplusplus
}
#endif

#endif
