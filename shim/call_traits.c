/* What a call's arguments say (call_traits.h): its kind, its one source and output, its GPU
 * targets, the options ccache's depend mode and the CUID depend on, and whether it is a probe
 * call whose answer can be memoised. One pass over the arguments, no system call. */
#include "call_traits.h"

#include "option_table.h"
#include "text.h"

#include <string.h>

/* ARG names a GPU target (--offload-arch=X, --offload-arch X, -arch=X, ...): its value, else
 * NULL. NEXT is the following argument, for the two-argument form. */
static const char* target_value(const char* arg, const char* next) {
  static const char* const flags[] = { "--offload-arch",     "--amdgpu-target", "--cuda-gpu-arch",
                                       "--gpu-architecture", "-arch",           NULL };
  if (arg[0] != '-' || (arg[1] != '-' && arg[1] != 'a'))
    return NULL; /* most arguments: not one of the flags */
  for (int i = 0; flags[i]; i++) {
    if (!starts_with(arg, flags[i]))
      continue;
    const char* rest = arg + strlen(flags[i]);
    if (*rest == '=')
      return rest + 1;
    if (*rest == '\0')
      return next ? next : "";
  }
  return NULL;
}

/* ARG asks for this machine's CPU: -march=native, -mcpu=native, -mtune=native, also inside
 * nvcc's -Xcompiler lists. */
static bool names_host_cpu(const char* arg) {
  return strstr(arg, "=native") && (strstr(arg, "-march=native") || strstr(arg, "-mcpu=native") ||
                                    strstr(arg, "-mtune=native"));
}

/* SO_FAR, after one more place named a target (NATIVE: the machine's own). */
static enum target named_target(enum target so_far, bool native) {
  return native || so_far == TARGET_NATIVE ? TARGET_NATIVE : TARGET_EXPLICIT;
}

/* ARG asks for an output the cache may store (clang/gcc, hipcc, nvcc spellings). */
static bool compile_only(const char* arg) {
  static const char* const flags[] = { "-c",         "-S",        "-dc",      "-dw",   "--device-c",
                                       "--device-w", "--compile", "-ptx",     "--ptx", "-cubin",
                                       "--cubin",    "-fatbin",   "--fatbin", "-cuda", "--cuda",
                                       "--genco",    NULL };
  if (arg[0] != '-')
    return false;
  for (int i = 0; flags[i]; i++)
    if (strcmp(arg, flags[i]) == 0)
      return true;
  return false;
}

/* ARG is an option whose value is the next argument (so that value is no input file). */
static bool takes_value(const char* arg) {
  return shimctl_separate_option(arg) != NULL;
}

/* PATH names a source file by its suffix (what a driver compiles rather than links). */
static bool is_source(const char* path) {
  static const char* const suffixes[] = { ".c",   ".cc", ".cp", ".cpp", ".cxx", ".c++", ".C", ".cu",
                                          ".hip", ".m",  ".mm", ".i",   ".ii",  ".cl",  NULL };
  const char* dot = strrchr(path, '.');
  if (!dot || strchr(dot, '/'))
    return false;
  for (int i = 0; suffixes[i]; i++)
    if (strcmp(dot, suffixes[i]) == 0)
      return true;
  return false;
}

/* -x LANGUAGE: HIP or another. */
static void language(struct call_traits* c, const char* name) {
  if (strcmp(name, "hip") == 0)
    c->hip_source = true;
  else
    c->other_language = true;
}

/* ARG asks for a dependency file or list (clang/gcc spellings): the compile names its own, or
 * preprocesses only. */
static bool dependency_option(const char* arg) {
  return (arg[1] == 'M' && arg[2] != '\0') || strcmp(arg, "-M") == 0 ||
         starts_with(arg, "-Wp,-M") || starts_with(arg, "--write-dependencies") ||
         starts_with(arg, "--write-user-dependencies") || starts_with(arg, "--dependencies") ||
         starts_with(arg, "--user-dependencies");
}

/* ARG compiles for the GPU only: clang writes no dependency file for such a compile (clang-21;
 * clang-15 does), so ccache's depend mode would run the compiler a second time. */
static bool device_only_option(const char* arg) {
  return strcmp(arg, "--cuda-device-only") == 0 || strcmp(arg, "--offload-device-only") == 0 ||
         strcmp(arg, "--genco") == 0;
}

/* What one option (not an option's value) says: -xhip, -cuid=, -fuse-cuid=, -o<file>, -c,
 * dependency files, device-only. */
static void option_traits(struct call_traits* c, const char* arg) {
  if (strcmp(arg, "-c") == 0)
    c->object_compile = true;
  else if (dependency_option(arg))
    c->names_dependencies = true;
  else if (device_only_option(arg))
    c->device_only = true;
  else if (starts_with(arg, "-x") && arg[2] != '\0')
    language(c, arg + 2);
  else if (starts_with(arg, "-cuid=") || starts_with(arg, "-fuse-cuid="))
    c->cuid_given = true;
  else if (starts_with(arg, "-o") && arg[2] != '\0')
    c->output = arg + 2;
}

bool compiles_hip(const struct call_traits* call, bool hipcc) {
  if (!call->source)
    return false;
  if (call->hip_source)
    return true;
  static const char* const hip_by_hipcc[] = { ".cpp", ".cc", ".cxx", ".cu", ".c++", NULL };
  if (!hipcc || call->other_language)
    return false;
  for (int i = 0; hip_by_hipcc[i]; i++)
    if (ends_with(call->source, hip_by_hipcc[i]))
      return true;
  return false;
}

bool wants_cuid(const struct call_traits* call, bool hipcc) {
  return call->kind == CALL_COMPILE && !call->cuid_given && compiles_hip(call, hipcc);
}

struct call_traits traits_of(int argc, char** argv, const char* amdgpu, const char* append) {
  struct call_traits c = { .target = TARGET_DEFAULT, .kind = CALL_NO_INPUT };
  bool preprocesses = false, compiles = false, inputs = false;
  int sources = 0;
  bool is_value = false; /* argv[i] is the value of the option before it */
  for (int i = 1; i < argc; i++) {
    if (i > 1 && is_value && strcmp(argv[i - 1], "-o") == 0)
      c.output = argv[i];
    if (i > 1 && is_value && strcmp(argv[i - 1], "-x") == 0)
      language(&c, argv[i]);
    if (!is_value && argv[i][0] == '-')
      option_traits(&c, argv[i]);
    const char* value = target_value(argv[i], i + 1 < argc ? argv[i + 1] : NULL);
    if (value) {
      c.target = named_target(c.target, starts_with(value, "native"));
      c.gpu_targets++;
      for (const char* comma = strchr(value, ','); comma; comma = strchr(comma + 1, ','))
        c.gpu_targets++;
    }
    c.host_cpu = c.host_cpu || names_host_cpu(argv[i]);
    if (is_value) {
      is_value = false;
    } else if (strcmp(argv[i], "-E") == 0) {
      preprocesses = true;
    } else if (argv[i][0] == '@') {
      compiles = true; /* a response file may say -c: the cache tool reads it and decides */
      c.response_file = true;
    } else if (compile_only(argv[i])) {
      compiles = true;
    } else if (argv[i][0] != '-' && argv[i][0] != '\0') {
      inputs = true;
      if (is_source(argv[i]) && ++sources == 1)
        c.source = argv[i];
    } else {
      is_value = takes_value(argv[i]);
    }
  }
  if (sources != 1)
    c.source = NULL;
  if (c.source && ends_with(c.source, ".hip"))
    c.hip_source = true;
  c.kind = preprocesses ? CALL_PREPROCESS
           : compiles   ? CALL_COMPILE
           : sources    ? CALL_ONE_STEP
           : inputs     ? CALL_LINK
                        : CALL_NO_INPUT;
  c.cached_output = c.kind == CALL_COMPILE;
  if (amdgpu && *amdgpu)
    c.target = named_target(c.target, starts_with(amdgpu, "native"));
  if (append && (strstr(append, "--offload-arch") || strstr(append, "--amdgpu-target")))
    c.target = named_target(c.target, strstr(append, "native") != NULL);
  return c;
}

/* ARG reads a file, names a directory to search, or writes a file besides the output. */
static bool reads_files(const char* arg) {
  static const char* const prefixes[] = { "@",
                                          "-include",
                                          "-imacros",
                                          "--include",
                                          "--config",
                                          "-fprofile",
                                          "-fsanitize-",
                                          "-fxray-",
                                          "-I",
                                          "-isystem",
                                          "-iquote",
                                          "-idirafter",
                                          "-iprefix",
                                          "-iwithprefix",
                                          "-isysroot",
                                          "-cxx-isystem",
                                          "--sysroot",
                                          "-B",
                                          "--gcc-",
                                          "--rocm-",
                                          "--hip-path",
                                          "--hip-device-lib",
                                          "--cuda-path",
                                          "--libomptarget",
                                          "-fplugin",
                                          "-fpass-plugin",
                                          "-load",
                                          "-plugin",
                                          "-add-plugin",
                                          "-Wp,",
                                          "-Xpreprocessor",
                                          "-fmodule",
                                          "-fprebuilt",
                                          "-fembed",
                                          "--embed-dir",
                                          "-resource-dir",
                                          "-F",
                                          "-ivfsoverlay",
                                          "-fcoverage",
                                          "-ftime-trace",
                                          "-fcrash-diagnostics",
                                          "-save-temps",
                                          "--save-temps",
                                          "-M",
                                          "--write-",
                                          "--dependencies",
                                          "--user-dependencies",
                                          "-Xarch",
                                          "-fproc-stat-report",
                                          "-specs",
                                          "--specs",
                                          "-fbasic-block-sections=",
                                          "-fuse-cuid=",
                                          NULL };
  for (int i = 0; prefixes[i]; i++)
    if (starts_with(arg, prefixes[i]))
      return true;
  return false;
}

bool is_memoisable_probe(int argc, char** argv, bool stdin_empty) {
  bool preprocesses = false, inputs = false;
  for (int i = 1; i < argc; i++) {
    const char* arg = argv[i];
    if (strcmp(arg, "-o") == 0 || (starts_with(arg, "-o") && arg[2] != '\0')) {
      const char* out = arg[2] ? arg + 2 : i + 1 < argc ? argv[++i] : "";
      if (strcmp(out, "/dev/null") != 0 && strcmp(out, "-") != 0)
        return false;
    } else if (strcmp(arg, "-E") == 0) {
      preprocesses = true;
    } else if (reads_files(arg)) {
      return false;
    } else if (arg[0] != '-' || strcmp(arg, "-") == 0) {
      if (strcmp(arg, "/dev/null") != 0 && !(strcmp(arg, "-") == 0 && stdin_empty))
        return false;
      inputs = true;
    } else if (takes_value(arg)) {
      if (i + 1 >= argc || reads_files(argv[i + 1]))
        return false;
      i++;
    }
  }
  return preprocesses && inputs;
}
