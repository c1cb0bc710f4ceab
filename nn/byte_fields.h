// Plain values written into and read back from a checkpoint's bytes, in the
// machine's own layout (checkpoints are read where they were written, or on
// a machine alike).
#pragma once

#include <cstring>
#include <string>

namespace sweep::nn {

template <typename T>
void PutField(std::string* out, const T& v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

// False when fewer than sizeof(T) bytes are left at *pos.
template <typename T>
bool GetField(const std::string& in, size_t* pos, T* v) {
  if (*pos + sizeof(T) > in.size()) return false;
  std::memcpy(v, in.data() + *pos, sizeof(T));
  *pos += sizeof(T);
  return true;
}

}  // namespace sweep::nn
