// IDX loading and batching.
#include "nn/data/mnist.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <numeric>

#include "common/posix_error.h"
#include "common/rng.h"

namespace sweep::nn {

namespace {

Result<std::vector<uint8_t>> ReadMaybeGz(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files too
  if (!f) return PosixError("open", path, errno);
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + n);
  int err;
  const char* msg = gzerror(f, &err);
  gzclose(f);
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END))
    return Status::IOError(path + ": read error: " + msg);
  return out;
}

uint32_t BigEndian(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

std::string Find(const std::string& dir, const std::string& stem) {
  for (const char* suffix : {".gz", ""}) {
    std::string p = dir + "/" + stem + suffix;
    if (std::filesystem::exists(p)) return p;
  }
  return dir + "/" + stem + ".gz";
}

ImageSet Subset(const ImageSet& s, const std::vector<int32_t>& idx, size_t begin, size_t end) {
  ImageSet out;
  out.n = static_cast<int>(end - begin);
  out.c = s.c;
  out.h = s.h;
  out.w = s.w;
  size_t px = static_cast<size_t>(s.c) * s.h * s.w;
  out.pixels.resize(out.n * px);
  out.labels.resize(out.n);
  for (size_t i = begin; i < end; ++i) {
    std::memcpy(out.pixels.data() + (i - begin) * px, s.pixels.data() + idx[i] * px, px);
    out.labels[i - begin] = s.labels[idx[i]];
  }
  return out;
}

}  // namespace

Result<ImageSet> LoadIdx(const std::string& images_path, const std::string& labels_path) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> img, ReadMaybeGz(images_path));
  ASSIGN_OR_RETURN(std::vector<uint8_t> lab, ReadMaybeGz(labels_path));
  return ParseIdx(img, lab, images_path, labels_path);
}

Result<ImageSet> ParseIdx(const std::vector<uint8_t>& img, const std::vector<uint8_t>& lab,
                          const std::string& images_path, const std::string& labels_path) {
  if (img.size() < 16 || BigEndian(img.data()) != 0x803) {
    return Status::Corruption(images_path + ": not an IDX image file (magic 0x00000803)");
  }
  if (lab.size() < 8 || BigEndian(lab.data()) != 0x801) {
    return Status::Corruption(labels_path + ": not an IDX label file (magic 0x00000801)");
  }
  // The header's counts are read unsigned and bounded before any product
  // (a hostile file's 0xf6030000 was a negative width; bench/fuzz found it).
  uint32_t n = BigEndian(img.data() + 4), h = BigEndian(img.data() + 8),
           w = BigEndian(img.data() + 12);
  if (h == 0 || w == 0 || h > 4096 || w > 4096 || n > (1u << 30)) {
    return Status::Corruption(images_path + ": implausible IDX dimensions " + std::to_string(n) +
                              " x " + std::to_string(h) + " x " + std::to_string(w));
  }
  ImageSet s;
  s.n = static_cast<int>(n);
  s.h = static_cast<int>(h);
  s.w = static_cast<int>(w);
  // n * h * w < 2^30 * 2^24: no overflow in 64 bits.
  size_t want = 16 + static_cast<size_t>(n) * h * w;
  if (img.size() != want) {
    return Status::Corruption(images_path + ": truncated (" + std::to_string(img.size()) +
                              " bytes, expected " + std::to_string(want) + ")");
  }
  if (BigEndian(lab.data() + 4) != static_cast<uint32_t>(s.n) ||
      lab.size() != 8 + static_cast<size_t>(s.n)) {
    return Status::Corruption(labels_path + ": label count does not match " + images_path);
  }
  for (size_t i = 8; i < lab.size(); ++i) {
    // The loss indexes a row of kClasses logits with it.
    if (lab[i] >= kClasses) {
      return Status::Corruption(labels_path + ": label " + std::to_string(lab[i]) + " of image " +
                                std::to_string(i - 8) + " is not a class (0 to " +
                                std::to_string(kClasses - 1) + ")");
    }
  }
  s.pixels.assign(img.begin() + 16, img.end());
  s.labels.assign(lab.begin() + 8, lab.end());
  return s;
}

Result<Splits> LoadMnistSplits(const std::string& dir, int validation, uint64_t seed) {
  ASSIGN_OR_RETURN(ImageSet train, LoadIdx(Find(dir, "train-images-idx3-ubyte"),
                                           Find(dir, "train-labels-idx1-ubyte")));
  ASSIGN_OR_RETURN(ImageSet test, LoadIdx(Find(dir, "t10k-images-idx3-ubyte"),
                                          Find(dir, "t10k-labels-idx1-ubyte")));
  if (test.h != train.h || test.w != train.w || test.c != train.c) {
    return Status::InvalidArgument(dir + ": the test images are " + std::to_string(test.h) + "x" +
                                   std::to_string(test.w) + ", the training images " +
                                   std::to_string(train.h) + "x" + std::to_string(train.w));
  }
  if (validation < 0 || validation >= train.n) {
    return Status::InvalidArgument("validation (" + std::to_string(validation) +
                                   ") must be in [0, " + std::to_string(train.n) + ")");
  }
  std::vector<int32_t> perm = EpochOrder(train.n, seed, -1);
  Splits s;
  s.validation = Subset(train, perm, 0, validation);
  s.train = Subset(train, perm, validation, train.n);
  s.test = std::move(test);
  double sum = 0, sq = 0;
  for (uint8_t p : s.train.pixels) {
    double v = p / 255.0;
    sum += v;
    sq += v * v;
  }
  double n = static_cast<double>(s.train.pixels.size());
  s.mean = static_cast<float>(sum / n);
  s.stddev = static_cast<float>(std::sqrt(std::max(1e-12, sq / n - (sum / n) * (sum / n))));
  return s;
}

std::vector<int32_t> EpochOrder(int n, uint64_t seed, int64_t epoch) {
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Rng rng(HashKey({seed, static_cast<uint64_t>(epoch), 0x5a1eULL}));
  for (int i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.Next() % static_cast<uint64_t>(i + 1)]);
  return order;
}

void MakeBatch(const ImageSet& set, const std::vector<int32_t>& indices, size_t begin, size_t count,
               float mean, float stddev, Augment augment, uint64_t seed, int64_t epoch, float* out,
               int32_t* labels) {
  const int h = set.h, w = set.w, px = set.c * h * w;
  const float scale = 1.f / (255.f * stddev), shift = -mean / stddev;
  float lut[256];
  for (int v = 0; v < 256; ++v) lut[v] = static_cast<float>(v) * scale + shift;
  const int pad = 2;
  for (size_t b = 0; b < count; ++b) {
    int32_t idx = indices[begin + b];
    const uint8_t* src = set.pixels.data() + static_cast<size_t>(idx) * px;
    float* dst = out + b * px;
    labels[b] = set.labels[idx];
    if (augment == Augment::kNone) {
      for (int i = 0; i < px; ++i) dst[i] = lut[src[i]];
      continue;
    }
    bool flip = false;
    int dy = 0, dx = 0;
    if (augment != Augment::kNone) {
      Rng rng(HashKey({seed, static_cast<uint64_t>(epoch), static_cast<uint64_t>(idx), 0xA06ULL}));
      if (static_cast<int>(augment) & static_cast<int>(Augment::kFlip)) flip = rng.Next() & 1;
      if (static_cast<int>(augment) & static_cast<int>(Augment::kCrop)) {
        dy = static_cast<int>(rng.Next() % (2 * pad + 1)) - pad;
        dx = static_cast<int>(rng.Next() % (2 * pad + 1)) - pad;
      }
    }
    for (int c = 0; c < set.c; ++c) {
      for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
          int sy = y + dy, sx = (flip ? w - 1 - x : x) + dx;
          // Padding is background (zero pixels), normalised like any pixel.
          uint8_t v = (sy >= 0 && sy < h && sx >= 0 && sx < w) ? src[(c * h + sy) * w + sx] : 0;
          dst[(c * h + y) * w + x] = lut[v];
        }
      }
    }
  }
}

}  // namespace sweep::nn
