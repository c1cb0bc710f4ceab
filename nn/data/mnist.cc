// IDX loading.
#include "nn/data/mnist.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "nn/data/data_file.h"

namespace sweep::nn {

namespace {

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

}  // namespace

Result<Examples> LoadIdx(const std::string& images_path, const std::string& labels_path) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> img, ReadDataFile(images_path));
  ASSIGN_OR_RETURN(std::vector<uint8_t> lab, ReadDataFile(labels_path));
  return ParseIdx(img, lab, images_path, labels_path);
}

Result<Examples> ParseIdx(const std::vector<uint8_t>& img, const std::vector<uint8_t>& lab,
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
  Examples s;
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
  s.pixels.assign(img.begin() + 16, img.end());
  s.labels.assign(lab.begin() + 8, lab.end());
  return s;
}

Result<Splits> LoadIdxFolder(const std::string& dir) {
  ASSIGN_OR_RETURN(Examples train, LoadIdx(Find(dir, "train-images-idx3-ubyte"),
                                           Find(dir, "train-labels-idx1-ubyte")));
  ASSIGN_OR_RETURN(Examples test, LoadIdx(Find(dir, "t10k-images-idx3-ubyte"),
                                          Find(dir, "t10k-labels-idx1-ubyte")));
  if (test.h != train.h || test.w != train.w || test.c != train.c) {
    return Status::InvalidArgument(dir + ": the test images are " + std::to_string(test.h) + "x" +
                                   std::to_string(test.w) + ", the training images " +
                                   std::to_string(train.h) + "x" + std::to_string(train.w));
  }
  Splits s;
  // A label is a byte: every one names a class of at most 256.
  int top = 9;
  for (const Examples* set : {&train, &test})
    for (int32_t l : set->labels) top = std::max(top, static_cast<int>(l));
  s.classes = top + 1;
  for (int k = 0; k < s.classes; ++k) s.class_names.push_back(std::to_string(k));
  s.train = std::move(train);
  s.test = std::move(test);
  return s;
}

Result<Splits> LoadMnistSplits(const std::string& dir, int validation, uint64_t seed) {
  ASSIGN_OR_RETURN(Splits pool, LoadIdxFolder(dir));
  Splits s;
  s.classes = pool.classes;
  s.test = std::move(pool.test);
  RETURN_IF_ERROR(CarveValidation(pool.train, validation, seed, &s));
  PixelStatistics(&s);
  return s;
}

}  // namespace sweep::nn
