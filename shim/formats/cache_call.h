/* The call the cache tool got, for `shimctl compile-pieces` (installer/shimctl/pieces/derive.hpp).
 * The outer shim puts the compiler and arguments it hands the cache tool (its argv after the
 * tool's path) into the tool's environment as SHIMCTL_CACHE_CALL, joined by the unit separator,
 * for a HIP compile that names a GPU target. Under hipcc the compile that reaches compile-pieces is
 * hipcc's clang call, not the call the tool keyed: an object of another target set is found
 * again only by the call the tool saw. Absent when an argument holds the separator or the whole
 * would not fit. */
#ifndef SHIMCTL_FORMATS_CACHE_CALL_H
#define SHIMCTL_FORMATS_CACHE_CALL_H

#define SHIMCTL_CACHE_CALL_VAR "SHIMCTL_CACHE_CALL"
#define SHIMCTL_CACHE_CALL_SEPARATOR '\x1f'
#define SHIMCTL_CACHE_CALL_MAX (96 * 1024) /* below Linux's 128 KiB for one environment string */

#endif
