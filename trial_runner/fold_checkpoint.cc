// Packing the checkpoints of a cross-validated trial; see fold_checkpoint.h.
#include "trial_runner/fold_checkpoint.h"

#include <cstdint>
#include <cstring>

namespace sweep {
namespace {

constexpr char kMagic[4] = {'S', 'W', 'C', 'V'};

void PutU64(std::string* out, uint64_t v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

std::string PackCheckpoints(const std::vector<std::string>& parts) {
  if (parts.size() == 1) return parts.front();
  std::string out(kMagic, sizeof kMagic);
  PutU64(&out, parts.size());
  for (const std::string& p : parts) {
    PutU64(&out, p.size());
    out += p;
  }
  return out;
}

Result<std::vector<std::string>> UnpackCheckpoints(const std::string& blob, size_t count) {
  const bool packed = blob.size() >= sizeof kMagic && std::memcmp(blob.data(), kMagic, 4) == 0;
  if (count == 1 && !packed) return std::vector<std::string>{blob};
  auto corrupt = [&](const std::string& why) {
    return Status::Corruption("checkpoint: " + why + " (this trial's model count is " +
                              std::to_string(count) + ")");
  };
  if (!packed) return corrupt("one model's, not a cross-validated trial's");
  size_t at = sizeof kMagic;
  auto next = [&](uint64_t* v) {
    if (blob.size() - at < sizeof *v) return false;
    std::memcpy(v, blob.data() + at, sizeof *v);
    at += sizeof *v;
    return true;
  };
  uint64_t n = 0;
  if (!next(&n)) return corrupt("truncated");
  if (n != count) return corrupt("it holds " + std::to_string(n) + " models");
  std::vector<std::string> parts;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t len = 0;
    if (!next(&len) || blob.size() - at < len) return corrupt("truncated");
    parts.emplace_back(blob, at, len);
    at += len;
  }
  if (at != blob.size()) return corrupt("bytes after its last model");
  return parts;
}

}  // namespace sweep
