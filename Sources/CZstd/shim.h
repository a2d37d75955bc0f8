// Zstandard from the system (Debian: libzstd-dev): the columns body compressed for browsers
// that accept `Content-Encoding: zstd` (issue 15: the first load's transfer and its decoding).
#include <zstd.h>
