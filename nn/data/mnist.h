// Fashion-MNIST, MNIST and any other image set in the IDX format,
// gzip-compressed or not: loading, normalisation, and a seeded validation
// split carved from the training set. The test set is kept apart and used
// only for the final test metrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "nn/data/examples.h"

namespace sweep::nn {

inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

Result<Examples> LoadIdx(const std::string& images_path, const std::string& labels_path);
// The same from the files' (uncompressed) bytes; the names are for messages.
Result<Examples> ParseIdx(const std::vector<uint8_t>& images, const std::vector<uint8_t>& labels,
                          const std::string& images_name, const std::string& labels_name);

// Reads {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] from `dir`: the
// training pool (in file order, no validation split) and the test set.
// The classes are 0 to the largest label (at least 10: MNIST's).
Result<Splits> LoadIdxFolder(const std::string& dir);

// The same, with `validation` training images carved out with a
// permutation from `seed`, and the pixel statistics of the rest.
Result<Splits> LoadMnistSplits(const std::string& dir, int validation, uint64_t seed);

}  // namespace sweep::nn
