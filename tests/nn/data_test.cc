// The IDX loader: a hand-made file with known bytes, malformed files, and the
// real Fashion-MNIST from Debian's dataset-fashion-mnist; batches, epoch
// orders and augmentation (the words, and random erasing).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

#include "nn/data/mnist.h"

namespace sweep::nn {
namespace {

std::string Dir() {
  std::string d = "/tmp/sweep_data_test_" + std::to_string(getpid());
  std::filesystem::create_directories(d);
  return d;
}

void WriteGz(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

std::vector<uint8_t> Header(uint32_t magic, std::vector<uint32_t> dims) {
  std::vector<uint8_t> out;
  for (uint32_t v : std::vector<uint32_t>{magic}) dims.insert(dims.begin(), v);
  for (uint32_t v : dims) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(v >> s));
  }
  return out;
}

TEST(DataTest, LoadsAHandMadeIdxFileExactly) {
  std::string d = Dir();
  auto img = Header(0x803, {2, 2, 3});
  for (int i = 0; i < 12; ++i) img.push_back(static_cast<uint8_t>(i * 20));
  auto lab = Header(0x801, {2});
  lab.push_back(7);
  lab.push_back(3);
  WriteGz(d + "/img.gz", img);
  std::ofstream(d + "/lab", std::ios::binary)
      .write(reinterpret_cast<const char*>(lab.data()), lab.size());
  auto s = LoadIdx(d + "/img.gz", d + "/lab");  // gzip and plain both read
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->n, 2);
  EXPECT_EQ(s->h, 2);
  EXPECT_EQ(s->w, 3);
  EXPECT_EQ(s->pixels[7], 140);
  EXPECT_EQ(s->labels, (std::vector<int32_t>{7, 3}));
  // Batches are normalised and ordered as asked.
  std::vector<float> out(12);
  std::vector<int32_t> labels(2);
  MakeBatch(*s, {1, 0}, 0, 2, 0.5f, 0.25f, Augment::kNone, 0, 0, out.data(), labels.data());
  EXPECT_EQ(labels, (std::vector<int32_t>{3, 7}));
  EXPECT_NEAR(out[0], (120 / 255.0 - 0.5) / 0.25, 1e-5);
  // Truncated and swapped files are refused with the file named.
  img.resize(img.size() - 1);
  WriteGz(d + "/short.gz", img);
  auto bad = LoadIdx(d + "/short.gz", d + "/lab");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("short.gz: truncated"), std::string::npos)
      << bad.status().message();
  auto swapped = LoadIdx(d + "/lab", d + "/img.gz");
  ASSERT_FALSE(swapped.ok());
  EXPECT_NE(swapped.status().message().find("not an IDX image file"), std::string::npos);
  EXPECT_FALSE(LoadIdx(d + "/missing", d + "/lab").ok());
  std::filesystem::remove_all(d);
}

TEST(DataTest, EpochOrderIsASeededPermutation) {
  auto a = EpochOrder(1000, 1, 0), b = EpochOrder(1000, 1, 0), c = EpochOrder(1000, 1, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::vector<int32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(sorted[i], i);
}

TEST(DataTest, ParseAugmentTakesOrderedJoinsOnly) {
  EXPECT_EQ(ParseAugment("none"), Augment::kNone);
  EXPECT_EQ(ParseAugment("erase"), Augment::kErase);
  EXPECT_EQ(ParseAugment("flip+crop+erase"), Augment::kFlipCropErase);
  EXPECT_EQ(ParseAugment("crop+erase"), Augment::kCropErase);
  for (const char* bad :
       {"", "+", "flip+", "+flip", "crop+flip", "flip+flip", "rotate", "none+flip", "flip++crop"})
    EXPECT_EQ(ParseAugment(bad), std::nullopt) << bad;
}

// Random erasing blanks one rectangle of 2-40% of the image, set to the
// mean (0 once normalised), in about half the images, and leaves the flips
// and shifts drawn without it as they were.
TEST(DataTest, EraseBlanksOneRectangleInAboutHalfTheImages) {
  const int n = 400, h = 28, w = 28;
  Examples s;
  s.n = n;
  s.h = h;
  s.w = w;
  // An asymmetric image with no pixel that normalises to 0.
  for (int i = 0; i < n; ++i)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) s.pixels.push_back(static_cast<uint8_t>(1 + (9 * x + y) % 120));
  s.labels.assign(n, 0);
  std::vector<int32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::vector<float> out(idx.size() * h * w), flipped(out.size()), plain(out.size());
  std::vector<int32_t> labels(n);
  MakeBatch(s, idx, 0, n, 0.5f, 0.25f, Augment::kFlipErase, 3, 1, out.data(), labels.data());
  MakeBatch(s, idx, 0, n, 0.5f, 0.25f, Augment::kFlip, 3, 1, flipped.data(), labels.data());
  MakeBatch(s, idx, 0, n, 0.5f, 0.25f, Augment::kNone, 3, 1, plain.data(), labels.data());
  EXPECT_NE(flipped, plain);
  int erased_images = 0;
  for (int i = 0; i < n; ++i) {
    const float* img = out.data() + static_cast<size_t>(i) * h * w;
    int zeros = 0, y0 = h, y1 = -1, x0 = w, x1 = -1;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const float v = img[y * w + x];
        if (v == 0.f) {
          ++zeros;
          y0 = std::min(y0, y), y1 = std::max(y1, y), x0 = std::min(x0, x), x1 = std::max(x1, x);
        } else {
          ASSERT_EQ(v, flipped[static_cast<size_t>(i) * h * w + y * w + x]);
        }
      }
    if (zeros == 0) continue;
    ++erased_images;
    EXPECT_EQ(zeros, (y1 - y0 + 1) * (x1 - x0 + 1)) << "image " << i << " is not one rectangle";
    // 2-40% of the area as drawn; rounding the sides moves it a little.
    EXPECT_GE(zeros, 0.015 * h * w) << "image " << i;
    EXPECT_LE(zeros, 0.45 * h * w) << "image " << i;
  }
  EXPECT_GT(erased_images, n / 2 - 60);
  EXPECT_LT(erased_images, n / 2 + 60);
  // With shifts too, every pixel not erased is where flip+crop puts it.
  std::vector<float> shifted(out.size()), shifted_erased(out.size());
  MakeBatch(s, idx, 0, n, 0.5f, 0.25f, Augment::kFlipCrop, 3, 1, shifted.data(), labels.data());
  MakeBatch(s, idx, 0, n, 0.5f, 0.25f, Augment::kFlipCropErase, 3, 1, shifted_erased.data(),
            labels.data());
  EXPECT_NE(shifted, flipped);
  size_t kept = 0;
  for (size_t p = 0; p < out.size(); ++p) {
    if (shifted_erased[p] == 0.f) continue;
    ASSERT_EQ(shifted_erased[p], shifted[p]) << "pixel " << p;
    ++kept;
  }
  EXPECT_GT(kept, out.size() * 8 / 10);
  // Seeded: the same call gives the same bits.
  std::vector<float> again(out.size());
  MakeBatch(s, idx, 0, n, 0.5f, 0.25f, Augment::kFlipErase, 3, 1, again.data(), labels.data());
  EXPECT_EQ(out, again);
}

TEST(DataTest, FashionMnistFromDebian) {
  if (!std::filesystem::exists(kDefaultFashionMnistDir)) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (scripts/install-deps.sh installs it)";
  }
  auto s = LoadMnistSplits(kDefaultFashionMnistDir, 5000, 1);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->train.n, 55000);
  EXPECT_EQ(s->validation.n, 5000);
  EXPECT_EQ(s->test.n, 10000);
  EXPECT_EQ(s->test.h, 28);
  EXPECT_EQ(s->test.w, 28);
  // The test set is balanced: 1,000 images of each of the 10 classes.
  std::map<int, int> counts;
  for (int32_t l : s->test.labels) counts[l]++;
  ASSERT_EQ(counts.size(), 10u);
  for (auto [label, n] : counts) EXPECT_EQ(n, 1000) << label;
  // Known first labels of the published test set: ankle boot, pullover, trouser, trouser.
  EXPECT_EQ(std::vector<int32_t>(s->test.labels.begin(), s->test.labels.begin() + 4),
            (std::vector<int32_t>{9, 2, 1, 1}));
  // Pixel statistics of the training set (published mean 0.2860, std 0.3530).
  EXPECT_NEAR(s->mean, 0.286, 0.002);
  EXPECT_NEAR(s->stddev, 0.353, 0.002);
  // The split is a partition: train + validation keep the class totals.
  std::map<int, int> all;
  for (int32_t l : s->train.labels) all[l]++;
  for (int32_t l : s->validation.labels) all[l]++;
  for (auto [label, n] : all) EXPECT_EQ(n, 6000) << label;
}

}  // namespace
}  // namespace sweep::nn
