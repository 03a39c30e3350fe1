/* A compile record on a miss (`shimctl explain`, installer/shimctl/records/).
 * The outer shim, which hands a compile to the cache tool, puts what only it knows into the tool's
 * environment as SHIMCTL_RECORD; the cache tool runs the compiler only on a miss, through the
 * shim again (SHIMCTL_ACTIVE=1), and that nested shim execs `<pieces-helper> record-miss STATE TOOL
 * VERDICT IDENTITY SHIM -- ARGV` (VERDICT: "miss", or "tool-ran-it": the tool ran the compiler in
 * place, a call it does not cache; IDENTITY: the toolchain's current fingerprint digits when
 * SHIMCTL_RECORD carries none and a snapshot is current, "stale" when none is (record-miss runs
 * identity-check), else "-"), which runs the compile through SHIM (SHIMCTL_RECORD unset) and,
 * when it succeeds, writes the record in the user's cache home. A hit never gets here: it costs the one entry below.
 * The value, fields separated by '\n' (the depfile last: a path may hold anything else):
 *   VERSION  STORE  IDENTITY  TARGET-KEY  DEPFILE
 * STORE: "none" (no team store), "in" (used), "out" (left out: the store did not answer);
 * IDENTITY: the fingerprint's first digits in the key, or "-"; TARGET-KEY: the GPU target key,
 * or "-"; DEPFILE: the depfile the build named (-MF), or the shim's own, or "". SHIMCTL_RECORDS=0
 * turns records off. Under `shimctl measure` the helper appends SHIMCTL_MEASURE_MISS_RECORD and
 * the record's path to measure's log. */
#ifndef SHIMCTL_FORMATS_MISS_RECORD_H
#define SHIMCTL_FORMATS_MISS_RECORD_H

#define SHIMCTL_RECORD_VAR "SHIMCTL_RECORD"
#define SHIMCTL_RECORD_VERSION "1"
#define SHIMCTL_RECORD_STORE_NONE "none"
#define SHIMCTL_RECORD_STORE_IN "in"
#define SHIMCTL_RECORD_STORE_OUT "out"
#define SHIMCTL_MEASURE_MISS_RECORD "# shimctl: miss record"

#endif
