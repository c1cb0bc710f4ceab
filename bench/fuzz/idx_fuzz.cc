// The IDX reader of the train task's data sets (a data_dir the user
// points at): an image file and a label file, split from the input.
#include "bench/fuzz/fuzz_input.h"
#include "nn/data/mnist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string images = sweep::fuzz::TakePart(&data, &size);
  std::string labels(reinterpret_cast<const char*>(data), size);
  auto set =
      sweep::nn::ParseIdx(std::vector<uint8_t>(images.begin(), images.end()),
                          std::vector<uint8_t>(labels.begin(), labels.end()), "images", "labels");
  if (!set.ok()) return 0;
  const auto& s = *set;
  sweep::fuzz::Check(s.n >= 0 && s.h >= 0 && s.w >= 0, "dimensions are not negative");
  sweep::fuzz::Check(s.pixels.size() == static_cast<size_t>(s.n) * s.c * s.h * s.w,
                     "the pixels are n * c * h * w");
  sweep::fuzz::Check(s.labels.size() == static_cast<size_t>(s.n), "one label per image");
  for (int32_t label : s.labels)
    sweep::fuzz::Check(label >= 0 && label < 256, "every label is a byte");
  return 0;
}
