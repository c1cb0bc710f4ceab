// Fashion-MNIST (and MNIST) in the IDX format, gzip-compressed or not:
// loading, normalisation, a seeded validation split carved from the training
// set, per-epoch seeded shuffling and augmentation. The test set is kept
// apart and used only for the final test accuracy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace sweep::nn {

inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Fashion-MNIST's and MNIST's classes; the networks' last layer has as
// many outputs, so a label must be below it.
inline constexpr int kClasses = 10;

struct ImageSet {
  int n = 0, c = 1, h = 0, w = 0;
  std::vector<uint8_t> pixels;  // n * c * h * w
  std::vector<int32_t> labels;  // n
};

Result<ImageSet> LoadIdx(const std::string& images_path, const std::string& labels_path);
// The same from the files' (uncompressed) bytes; the names are for messages.
Result<ImageSet> ParseIdx(const std::vector<uint8_t>& images, const std::vector<uint8_t>& labels,
                          const std::string& images_name, const std::string& labels_name);

struct Splits {
  ImageSet train, validation, test;
  float mean = 0, stddev = 1;  // of the training pixels, in [0, 1] units
};

// Reads {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] from `dir` and
// carves `validation` training images out with a permutation from `seed`.
Result<Splits> LoadMnistSplits(const std::string& dir, int validation, uint64_t seed);

enum class Augment { kNone = 0, kFlip = 1, kCrop = 2, kFlipCrop = 3 };

// Writes normalised float images for `indices` into `out` (NCHW) and their
// labels; augmentation draws from (seed, epoch, sample index).
void MakeBatch(const ImageSet& set, const std::vector<int32_t>& indices, size_t begin, size_t count,
               float mean, float stddev, Augment augment, uint64_t seed, int64_t epoch, float* out,
               int32_t* labels);

// The order of the training set in `epoch`.
std::vector<int32_t> EpochOrder(int n, uint64_t seed, int64_t epoch);

}  // namespace sweep::nn
