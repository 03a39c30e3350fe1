/* The formats the shim shares with the C++ side, one header per contract under formats/, each
 * defined once: names, header lines and field order live in their inline renderers; the readers
 * are shim/config.c, identity_snapshot.c, store_memo.c and runtime_dir.c (library
 * shimctl-shim-formats, which the shim, the unit tests and the fuzzer compile alike). C11 and
 * C++23; libc only, no allocation. This umbrella includes them all. */
#ifndef SHIMCTL_FORMATS_H
#define SHIMCTL_FORMATS_H

#include "formats/cache_call.h"
#include "formats/config.h"
#include "formats/cuid.h"
#include "formats/env_defaults.h"
#include "formats/hash.h"
#include "formats/identity_snapshot.h"
#include "formats/measure.h"
#include "formats/miss_record.h"
#include "formats/put.h"
#include "formats/runtime_dir.h"
#include "formats/sccache_server.h"
#include "formats/secrets.h"
#include "formats/store_health.h"
#include "formats/user_files.h"

#endif
