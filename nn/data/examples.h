// A data set as the trainer sees it: examples (images as bytes, or features
// already as floats), their labels or regression targets, the three splits,
// and what a network needs to know about them (outputs, class names,
// normalisation). Also batching: per-epoch seeded order, normalisation and
// augmentation. The loaders are mnist.h (IDX), table_data.h (CSV) and
// npy_data.h (NumPy arrays); data_source.h picks one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sweep::nn {

struct TableEncoding;  // nn/data/table_data.h

enum class Problem { kClassification, kRegression };

// One split. Each example is c x h x w values: an image, or a table row of c
// features (h = w = 1). Exactly one of `pixels` and `values` is filled.
struct Examples {
  int n = 0, c = 1, h = 1, w = 1;
  std::vector<uint8_t> pixels;  // n * c*h*w bytes, normalised in MakeBatch (Splits::mean/stddev)
  std::vector<float> values;    // n * c*h*w floats, already standardised
  std::vector<int32_t> labels;  // classification: the class index of each example
  std::vector<float> targets;   // regression: each example's standardised target

  size_t example_size() const { return static_cast<size_t>(c) * h * w; }
  bool image() const { return h > 1 || w > 1; }
};

struct Splits {
  Examples train, validation, test;
  Problem problem = Problem::kClassification;
  int classes = 10;                      // classification: the network's outputs
  std::vector<std::string> class_names;  // "" where the data names none
  float mean = 0, stddev = 1;            // of the training pixels, in [0, 1] units
  // Regression: targets are stored as (y - target_mean) / target_stddev.
  double target_mean = 0, target_stddev = 1;
  std::vector<std::string> feature_names;  // tables: the encoded features, in order
  // How raw inputs became `values` (for export and prediction): a CSV
  // table's encoding, or float arrays' (x - input_mean) * input_scale, per
  // feature for a table, one value for images.
  std::shared_ptr<const TableEncoding> table;
  std::vector<float> input_mean, input_scale;
  // A hash of the loaded pool and test set (LoadData; 0: not known). A
  // checkpoint is bound to it, so that a network never goes on, or is
  // exported or run, with data that changed since it trained.
  uint64_t fingerprint = 0;

  int outputs() const { return problem == Problem::kRegression ? 1 : classes; }
};

// The examples idx[begin..end) of `s`, in that order.
Examples Subset(const Examples& s, const std::vector<int32_t>& idx, size_t begin, size_t end);

// Carves `validation` examples out of `train` with a permutation from
// `seed`; the rest become s->train. Fails (naming the counts) when
// `validation` is not in [0, n).
Status CarveValidation(const Examples& all, int validation, uint64_t seed, Splits* s);

// Sets mean and stddev from the training pixels (none: unchanged).
void PixelStatistics(Splits* s);

// Bits: flip left-right, shift by up to ±2 pixels (crop), and random
// erasing (Zhong et al. 2017): half the images get one rectangle set to the
// training mean, of 2-40% of their area and aspect ratio 0.3-3.3 as drawn
// (the sides are then rounded to whole pixels and clamped to the image).
enum class Augment {
  kNone = 0,
  kFlip = 1,
  kCrop = 2,
  kFlipCrop = 3,
  kErase = 4,
  kFlipErase = 5,
  kCropErase = 6,
  kFlipCropErase = 7,
};

inline bool Has(Augment set, Augment bit) {
  return (static_cast<int>(set) & static_cast<int>(bit)) != 0;
}

// "none", or flip, crop and erase joined by "+" in that order (the words of
// the `augment` knob); nullopt for anything else.
std::optional<Augment> ParseAugment(std::string_view word);

// Writes normalised float examples for `indices` into `out` (NCHW), and
// their labels (classification) or targets (regression) into whichever of
// `labels` and `targets` the set has; augmentation draws from (seed, epoch,
// sample index) and applies to images only.
void MakeBatch(const Examples& set, const std::vector<int32_t>& indices, size_t begin, size_t count,
               float mean, float stddev, Augment augment, uint64_t seed, int64_t epoch, float* out,
               int32_t* labels, float* targets = nullptr);

// The order of the training set in `epoch`.
std::vector<int32_t> EpochOrder(int n, uint64_t seed, int64_t epoch);

}  // namespace sweep::nn
