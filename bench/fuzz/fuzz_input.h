// What the fuzz targets share: the input split into parts, and a check that
// aborts (a crash the fuzzer reports) when an invariant breaks.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace sweep::fuzz {

// Reads a 4-byte little-endian length, then that many bytes (what is left
// when fewer remain).
inline std::string TakePart(const uint8_t** data, size_t* size) {
  uint32_t n = 0;
  if (*size >= 4) {
    std::memcpy(&n, *data, 4);
    *data += 4;
    *size -= 4;
  }
  size_t take = std::min<size_t>(n, *size);
  std::string part(reinterpret_cast<const char*>(*data), take);
  *data += take;
  *size -= take;
  return part;
}

inline void Check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

}  // namespace sweep::fuzz
