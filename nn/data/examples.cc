// Splitting and batching, for every kind of data set.
#include "nn/data/examples.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "common/rng.h"

namespace sweep::nn {

Examples Subset(const Examples& s, const std::vector<int32_t>& idx, size_t begin, size_t end) {
  Examples out;
  out.n = static_cast<int>(end - begin);
  out.c = s.c;
  out.h = s.h;
  out.w = s.w;
  const size_t px = s.example_size();
  if (!s.pixels.empty()) out.pixels.resize(out.n * px);
  if (!s.values.empty()) out.values.resize(out.n * px);
  if (!s.labels.empty()) out.labels.resize(out.n);
  if (!s.targets.empty()) out.targets.resize(out.n);
  for (size_t i = begin; i < end; ++i) {
    const size_t from = static_cast<size_t>(idx[i]), to = i - begin;
    if (!s.pixels.empty()) std::memcpy(&out.pixels[to * px], &s.pixels[from * px], px);
    if (!s.values.empty())
      std::memcpy(&out.values[to * px], &s.values[from * px], px * sizeof(float));
    if (!s.labels.empty()) out.labels[to] = s.labels[from];
    if (!s.targets.empty()) out.targets[to] = s.targets[from];
  }
  return out;
}

Status CarveValidation(const Examples& all, int validation, uint64_t seed, Splits* s) {
  if (validation < 0 || validation >= all.n) {
    return Status::InvalidArgument(
        "validation (" + std::to_string(validation) + ") must be in [0, " + std::to_string(all.n) +
        "): the training set has " + std::to_string(all.n) + " examples");
  }
  std::vector<int32_t> perm = EpochOrder(all.n, seed, -1);
  s->validation = Subset(all, perm, 0, static_cast<size_t>(validation));
  s->train = Subset(all, perm, static_cast<size_t>(validation), static_cast<size_t>(all.n));
  return Status::Ok();
}

void PixelStatistics(Splits* s) {
  if (s->train.pixels.empty()) return;
  double sum = 0, sq = 0;
  for (uint8_t p : s->train.pixels) {
    double v = p / 255.0;
    sum += v;
    sq += v * v;
  }
  double n = static_cast<double>(s->train.pixels.size());
  s->mean = static_cast<float>(sum / n);
  s->stddev = static_cast<float>(std::sqrt(std::max(1e-12, sq / n - (sum / n) * (sum / n))));
}

std::optional<Augment> ParseAugment(std::string_view word) {
  if (word == "none") return Augment::kNone;
  const std::pair<std::string_view, Augment> kBits[] = {
      {"flip", Augment::kFlip}, {"crop", Augment::kCrop}, {"erase", Augment::kErase}};
  int bits = 0;
  size_t next = 0;  // bits are named in order, each at most once
  while (!word.empty()) {
    const size_t plus = word.find('+');
    const std::string_view part = word.substr(0, plus);
    while (next < std::size(kBits) && kBits[next].first != part) ++next;
    if (next == std::size(kBits)) return std::nullopt;
    bits |= static_cast<int>(kBits[next++].second);
    if (plus == std::string_view::npos) break;
    word.remove_prefix(plus + 1);
    if (word.empty()) return std::nullopt;  // a trailing "+"
  }
  if (bits == 0) return std::nullopt;
  return static_cast<Augment>(bits);
}

std::vector<int32_t> EpochOrder(int n, uint64_t seed, int64_t epoch) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(HashKey({seed, static_cast<uint64_t>(epoch), 0x5a1eULL}));
  for (int i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.Next() % static_cast<uint64_t>(i + 1)]);
  return order;
}

namespace {

// Copies one example into `dst`, flipped, shifted and erased as `augment`
// draws; `norm` maps a source value to the network's input. Erasing draws
// last, so flips and shifts are the same with or without it.
template <typename T, typename Norm>
void Place(const T* src, int c, int h, int w, Augment augment, uint64_t key, Norm norm,
           float* dst) {
  const int pad = 2;
  bool flip = false;
  int dy = 0, dx = 0;
  Rng rng(key);
  if (Has(augment, Augment::kFlip)) flip = rng.Next() & 1;
  if (Has(augment, Augment::kCrop)) {
    dy = static_cast<int>(rng.Next() % (2 * pad + 1)) - pad;
    dx = static_cast<int>(rng.Next() % (2 * pad + 1)) - pad;
  }
  // The erased rectangle [ey, ey + eh) x [ex, ex + ew); empty when not drawn.
  int ey = 0, ex = 0, eh = 0, ew = 0;
  if (Has(augment, Augment::kErase) && (rng.Next() & 1)) {
    const double area = (0.02 + 0.38 * rng.Uniform()) * h * w;
    const double aspect =
        std::exp(std::log(0.3) + (std::log(1 / 0.3) - std::log(0.3)) * rng.Uniform());
    eh = std::clamp(static_cast<int>(std::lround(std::sqrt(area * aspect))), 1, h);
    ew = std::clamp(static_cast<int>(std::lround(std::sqrt(area / aspect))), 1, w);
    ey = static_cast<int>(rng.Next() % static_cast<uint64_t>(h - eh + 1));
    ex = static_cast<int>(rng.Next() % static_cast<uint64_t>(w - ew + 1));
  }
  for (int ch = 0; ch < c; ++ch) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        int sy = y + dy, sx = (flip ? w - 1 - x : x) + dx;
        // Padding is background (a zero value), normalised like any other;
        // an erased pixel is the training mean, 0 once normalised.
        T v = (sy >= 0 && sy < h && sx >= 0 && sx < w) ? src[(ch * h + sy) * w + sx] : T{0};
        const bool erased = y >= ey && y < ey + eh && x >= ex && x < ex + ew;
        dst[(ch * h + y) * w + x] = erased ? 0.f : norm(v);
      }
    }
  }
}

}  // namespace

void MakeBatch(const Examples& set, const std::vector<int32_t>& indices, size_t begin, size_t count,
               float mean, float stddev, Augment augment, uint64_t seed, int64_t epoch, float* out,
               int32_t* labels, float* targets) {
  const size_t px = set.example_size();
  const float scale = 1.f / (255.f * stddev), shift = -mean / stddev;
  float lut[256];
  for (int v = 0; v < 256; ++v) lut[v] = static_cast<float>(v) * scale + shift;
  if (!set.image()) augment = Augment::kNone;  // a table row has no geometry
  for (size_t b = 0; b < count; ++b) {
    const size_t idx = static_cast<size_t>(indices[begin + b]);
    float* dst = out + b * px;
    if (labels && !set.labels.empty()) labels[b] = set.labels[idx];
    if (targets && !set.targets.empty()) targets[b] = set.targets[idx];
    const uint64_t key = HashKey({seed, static_cast<uint64_t>(epoch), idx, 0xA06ULL});
    if (!set.pixels.empty()) {
      const uint8_t* src = set.pixels.data() + idx * px;
      if (augment == Augment::kNone) {
        for (size_t i = 0; i < px; ++i) dst[i] = lut[src[i]];
      } else {
        Place(
            src, set.c, set.h, set.w, augment, key, [&](uint8_t v) { return lut[v]; }, dst);
      }
    } else {
      const float* src = set.values.data() + idx * px;
      if (augment == Augment::kNone) {
        std::memcpy(dst, src, px * sizeof(float));
      } else {
        Place(
            src, set.c, set.h, set.w, augment, key, [](float v) { return v; }, dst);
      }
    }
  }
}

}  // namespace sweep::nn
