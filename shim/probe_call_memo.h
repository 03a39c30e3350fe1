/* Memoised probe calls (probe_call_memo.c). */
#ifndef SHIMCTL_SHIM_PROBE_CALL_MEMO_H
#define SHIMCTL_SHIM_PROBE_CALL_MEMO_H

/* Answers a probe call (is_memoisable_probe) of the original compiler REAL with ARGC/ARGV: from
 * the user's memo while the toolchain's IDENTITY (fingerprint digits), the TARGET key, the
 * arguments and the variables the driver reads are unchanged, else by running it (its stdout and
 * stderr held, then written out) and keeping the answer. Returns the exit code to pass on (a
 * signal the call died of kills the shim alike); -1 when it cannot: run the original directly. */
int answer_probe_call(const char* real,
                      const char* identity,
                      const char* target,
                      int argc,
                      char** argv);

#endif
