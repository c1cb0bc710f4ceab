// The .npy loader: hand-made files of known bytes (the header dict padded as
// NumPy pads it), each layout (tables, grey images, channels-last images),
// class and regression labels, LoadData's standardisation, and malformed
// files each refused with its reason.
#include "nn/data/npy_data.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "nn/data/data_source.h"

static_assert(std::endian::native == std::endian::little, "the test writes host-order elements");

namespace sweep::nn {
namespace {

const double kSd = std::sqrt(1.25);  // the population sd of 1, 2, 3, 4 (mean 2.5)
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// A .npy file: magic, version, header length, the dict padded with spaces
// and ended by '\n' so the data starts at a multiple of 64, then the data.
std::vector<uint8_t> Npy(const std::string& descr, const std::string& shape,
                         const std::vector<uint8_t>& data, const std::string& fortran = "False",
                         int major = 1) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
  const size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < prefix - 8; ++i) out.push_back(static_cast<uint8_t>(dict.size() >> 8 * i));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <typename T>
std::vector<uint8_t> Bytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

NpyArray Arr(const std::string& descr, const std::string& shape, const std::vector<uint8_t>& data,
             const std::string& file = "x.npy") {
  auto a = ParseNpy(Npy(descr, shape, data), file);
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? std::move(a).value() : NpyArray{};
}

// Passes when `r` failed with a message containing `text`.
template <typename T>
::testing::AssertionResult FailsWith(const Result<T>& r, const std::string& text) {
  if (r.ok()) return ::testing::AssertionFailure() << "succeeded; expected: " << text;
  if (r.status().message().find(text) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "'" << r.status().message() << "' lacks '" << text << "'";
  }
  return ::testing::AssertionSuccess();
}

Result<Examples> Classes(const NpyArray& x, const NpyArray& y) {
  std::vector<double> classes;
  return NpyExamples(x, y, Problem::kClassification, &classes);
}

const std::vector<float> kTable = {1.5f, -2, 3.25f, 4, 5, 6e7f};  // 3 x 2

TEST(NpyDataTest, Float32TableRoundTrips) {
  std::vector<uint8_t> file = Npy("<f4", "(3, 2)", Bytes(kTable));
  ASSERT_EQ(file.size(), 128u + 24);  // the header as NumPy writes it
  EXPECT_EQ(file[127], '\n');
  for (int major : {1, 2}) {
    auto x = ParseNpy(Npy("<f4", "(3, 2)", Bytes(kTable), "False", major), "x.npy");
    ASSERT_TRUE(x.ok()) << x.status().message();
    EXPECT_EQ(x->kind, 'f');
    EXPECT_EQ(x->item, 4);
    EXPECT_EQ(x->shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(x->count(), 6);
    EXPECT_EQ(x->at(2), 3.25);
    NpyArray y = Arr("<i8", "(3,)", Bytes<int64_t>({30, -5, 30}), "y.npy");
    std::vector<double> classes;
    auto e = NpyExamples(*x, y, Problem::kClassification, &classes);
    ASSERT_TRUE(e.ok()) << e.status().message();
    EXPECT_EQ(e->n, 3);
    EXPECT_EQ(e->c, 2);
    EXPECT_FALSE(e->image());
    EXPECT_EQ(e->values, kTable);  // unnormalised here
    EXPECT_TRUE(e->pixels.empty());
    EXPECT_EQ(classes, (std::vector<double>{-5, 30}));
    EXPECT_EQ(e->labels, (std::vector<int32_t>{1, 0, 1}));
  }
}

TEST(NpyDataTest, Float64TableRoundTrips) {
  NpyArray x = Arr("<f8", "(2, 2)", Bytes<double>({0.1, -7, 1e10, 0}));
  EXPECT_EQ(x.item, 8);
  EXPECT_EQ(x.at(0), 0.1);  // the double itself
  // y as N x 1 floats holding whole numbers.
  auto e = Classes(x, Arr("<f8", "(2, 1)", Bytes<double>({1, 0}), "y.npy"));
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->values, (std::vector<float>{0.1f, -7, 1e10f, 0}));
  EXPECT_EQ(e->labels, (std::vector<int32_t>{1, 0}));
}

TEST(NpyDataTest, Uint8ImagesArePixelsAndUint8TablesAreValues) {
  std::vector<uint8_t> px;
  for (int i = 0; i < 12; ++i) px.push_back(static_cast<uint8_t>(i * 20));
  NpyArray y = Arr("|u1", "(2,)", {7, 3}, "y.npy");
  auto img = Classes(Arr("|u1", "(2, 2, 3)", px), y);
  ASSERT_TRUE(img.ok()) << img.status().message();
  EXPECT_EQ(img->h, 2);
  EXPECT_EQ(img->w, 3);
  EXPECT_EQ(img->c, 1);
  EXPECT_TRUE(img->image());
  EXPECT_EQ(img->pixels, px);
  EXPECT_TRUE(img->values.empty());
  EXPECT_EQ(img->labels, (std::vector<int32_t>{1, 0}));  // classes 3, 7
  auto table = Classes(Arr("|u1", "(2, 6)", px), y);
  ASSERT_TRUE(table.ok()) << table.status().message();
  EXPECT_EQ(table->c, 6);
  EXPECT_TRUE(table->pixels.empty());
  ASSERT_EQ(table->values.size(), 12u);
  EXPECT_EQ(table->values[7], 140.f);
}

// N x H x W x C in the file; c x h x w per example in memory.
TEST(NpyDataTest, ChannelsLastBecomesChannelsFirst) {
  auto value = [](int i, int ch, int y, int x) { return 100 * i + 30 * ch + 10 * y + x; };
  std::vector<float> f;
  std::vector<uint8_t> u;
  for (int i = 0; i < 2; ++i)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x)
        for (int ch = 0; ch < 3; ++ch) {
          f.push_back(static_cast<float>(value(i, ch, y, x)));
          u.push_back(static_cast<uint8_t>(value(i, ch, y, x)));
        }
  NpyArray y = Arr("<i4", "(2,)", Bytes<int32_t>({0, 1}), "y.npy");
  auto e = Classes(Arr("<f4", "(2, 2, 2, 3)", Bytes(f)), y);
  auto p = Classes(Arr("|u1", "(2, 2, 2, 3)", u), y);
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(e->c, 3);
  EXPECT_EQ(e->h, 2);
  EXPECT_EQ(e->w, 2);
  // Example 1, channel 2, row 1, column 0: at 12 + (2 * 2 + 1) * 2 + 0.
  EXPECT_EQ(e->values[22], 100 + 60 + 10);
  EXPECT_EQ(p->pixels[22], 100 + 60 + 10);
  for (int i = 0; i < 2; ++i)
    for (int ch = 0; ch < 3; ++ch)
      for (int yy = 0; yy < 2; ++yy)
        for (int x = 0; x < 2; ++x) {
          const size_t k = i * 12 + (ch * 2 + yy) * 2 + x;
          ASSERT_EQ(e->values[k], value(i, ch, yy, x)) << k;
          ASSERT_EQ(p->pixels[k], value(i, ch, yy, x)) << k;
        }
}

TEST(NpyDataTest, IntegerLabelsBecomeSortedClassIndices) {
  NpyArray x = Arr("<f4", "(5, 1)", Bytes<float>({0, 1, 2, 3, 4}));
  std::vector<double> classes;
  auto e = NpyExamples(x, Arr("<i8", "(5,)", Bytes<int64_t>({30, -5, 10, 30, 10}), "y.npy"),
                       Problem::kClassification, &classes);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(classes, (std::vector<double>{-5, 10, 30}));
  EXPECT_EQ(e->labels, (std::vector<int32_t>{2, 0, 1, 2, 1}));
  // A test set keeps the training classes; a class not among them is refused.
  NpyArray tx = Arr("<f4", "(2, 1)", Bytes<float>({0, 1}));
  auto t = NpyExamples(tx, Arr("<i8", "(2,)", Bytes<int64_t>({30, -5}), "ty.npy"),
                       Problem::kClassification, &classes);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->labels, (std::vector<int32_t>{2, 0}));
  EXPECT_TRUE(FailsWith(NpyExamples(tx, Arr("<i8", "(2,)", Bytes<int64_t>({10, 7}), "ty.npy"),
                                    Problem::kClassification, &classes),
                        "ty.npy: value 1 (class 7) does not occur in the training labels"));
  // Narrow signed types are sign-extended; bool and unsigned read as they are.
  EXPECT_EQ(Arr("|i1", "(2,)", {0xFF, 0x01}).at(0), -1);
  EXPECT_EQ(Arr("<i2", "(2,)", Bytes<int16_t>({-300, 5})).at(0), -300);
  EXPECT_EQ(Arr("<u4", "(1,)", Bytes<uint32_t>({4000000000u})).at(0), 4e9);
  EXPECT_EQ(Arr("|b1", "(2,)", {0, 1}).at(1), 1);
}

TEST(NpyDataTest, RegressionTargetsAreRawInNpyExamples) {
  std::vector<double> classes;
  auto e = NpyExamples(Arr("<f4", "(3, 2)", Bytes(kTable)),
                       Arr("<f4", "(3,)", Bytes<float>({0.5f, 20, -3}), "y.npy"),
                       Problem::kRegression, &classes);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->targets, (std::vector<float>{0.5f, 20, -3}));
  EXPECT_TRUE(e->labels.empty());
  EXPECT_TRUE(classes.empty());
}

TEST(NpyDataTest, MalformedFilesAreRefused) {
  const std::vector<uint8_t> six = Bytes(kTable);
  std::vector<uint8_t> short_data(six.begin(), six.end() - 4), long_data = six;
  long_data.insert(long_data.end(), {1, 2, 3, 4});
  std::vector<uint8_t> cut = Npy("<f4", "(3, 2)", six);
  cut.resize(30);
  const std::string text = "PK\x03\x04 this is a zip file";
  const std::vector<std::pair<std::vector<uint8_t>, std::string>> corpus = {
      {std::vector<uint8_t>(text.begin(), text.end()),
       "x.npy: not a NumPy .npy file (no \\x93NUMPY magic)"},
      {{0x93, 'N', 'U'}, "x.npy: not a NumPy .npy file"},
      {Npy("<f4", "(3, 2)", six, "False", 4), "x.npy: .npy format version 4 is not supported"},
      {cut, "x.npy: truncated header"},
      {Npy("<c8", "(3,)", six),
       "x.npy: dtype '<c8' is not supported (float32, float64, "
       "integers, bool)"},
      {Npy(">f4", "(3, 2)", six),
       "x.npy: dtype '>f4' is not supported (float32, float64, "
       "integers, bool; little-endian)"},
      {Npy("<f2", "(12,)", six), "x.npy: dtype '<f2' is not supported"},
      {Npy("<f4", "(3, 2)", six, "True"),
       "x.npy: is in Fortran order; save it in C order (np.save(f, np.ascontiguousarray(a)))"},
      {Npy("<f4", "()", Bytes<float>({1})), "x.npy: holds a single value, not an array"},
      {Npy("<f4", "(3, a)", six), "x.npy: cannot read the shape (3, a)"},
      {Npy("<f4", "(100000000000, 100)", six),
       "x.npy: the shape (100000000000, 100) is implausibly large"},
      {Npy("<f4", "(3, 2)", short_data),
       "x.npy: truncated (20 data bytes, the shape (3, 2) needs 24)"},
      {Npy("<f4", "(3, 2)", long_data),
       "x.npy: has trailing bytes (28 data bytes, the shape (3, 2) needs 24)"},
  };
  for (const auto& [bytes, error] : corpus) EXPECT_TRUE(FailsWith(ParseNpy(bytes, "x.npy"), error));
}

// Dimensions whose product wraps around 2^64 must not pass the size check
// (here 2^32 x 2^32 elements would claim to need 0 data bytes).
TEST(NpyDataTest, ShapeThatWrapsAroundIsRefused) {
  EXPECT_TRUE(FailsWith(ParseNpy(Npy("<f4", "(4294967296, 4294967296)", {}), "x.npy"),
                        "implausibly large"));
}

TEST(NpyDataTest, UnusableArraysAreRefused) {
  NpyArray x = Arr("<f4", "(3, 2)", Bytes(kTable));
  auto y = [](const std::string& descr, const std::string& shape, std::vector<uint8_t> data) {
    return Arr(descr, shape, data, "y.npy");
  };
  NpyArray y3 = y("<i8", "(3,)", Bytes<int64_t>({0, 1, 0}));
  EXPECT_TRUE(FailsWith(Classes(x, y("<i8", "(4,)", Bytes<int64_t>({0, 1, 0, 1}))),
                        "y.npy: has 4 values, x.npy 3 examples"));
  EXPECT_TRUE(FailsWith(Classes(x, y("<i8", "(3, 2)", Bytes<int64_t>({0, 1, 0, 1, 0, 1}))),
                        "y.npy: must hold one value per example (shape N or N x 1)"));
  EXPECT_TRUE(FailsWith(Classes(x, y("<f4", "(3,)", Bytes<float>({0, 1.5f, 1}))),
                        "y.npy: value 1 (1.5) is not a whole number; a class label must be one"));
  EXPECT_TRUE(FailsWith(Classes(x, y("<i8", "(3,)", Bytes<int64_t>({3, 3, 3}))),
                        "y.npy: one class only (3): there is nothing to tell apart"));
  EXPECT_TRUE(FailsWith(Classes(x, y("<f4", "(3,)", Bytes<float>({0, kNaN, 1}))),
                        "y.npy: value 1 is NaN or infinite"));
  NpyArray y1 = y("<i8", "(1,)", Bytes<int64_t>({0}));
  EXPECT_TRUE(FailsWith(Classes(Arr("<f4", "(1, 1, 1, 1, 3)", Bytes<float>({1, 2, 3})), y1),
                        "x.npy: has 5 dimensions; expected N x F, N x H x W or N x H x W x C"));
  EXPECT_TRUE(FailsWith(Classes(Arr("<f4", "(3,)", Bytes<float>({1, 2, 3})), y3),
                        "x.npy: has 1 dimensions"));
  std::vector<float> nan = kTable;
  nan[3] = kNaN;  // example 1, feature 1
  EXPECT_TRUE(FailsWith(Classes(Arr("<f4", "(3, 2)", Bytes(nan)), y3),
                        "x.npy: example 1 holds a NaN or infinite value"));
  EXPECT_TRUE(FailsWith(Classes(Arr("<f8", "(3, 1)", Bytes<double>({HUGE_VAL, 0, 1})), y3),
                        "x.npy: example 0 holds a NaN or infinite value"));
  EXPECT_TRUE(FailsWith(Classes(Arr("<i4", "(3, 1)", Bytes<int32_t>({1, 2, 3})), y3),
                        "x.npy: features must be float32, float64 or uint8"));
  EXPECT_TRUE(FailsWith(Classes(Arr("<f4", "(0, 2)", {}), y("<i8", "(0,)", {})),
                        "x.npy: holds no examples"));
  EXPECT_TRUE(FailsWith(Classes(Arr("<f4", "(3, 0)", {}), y3), "x.npy: a dimension of 0"));
}

// A float64 beyond float32's range would become an infinite feature.
TEST(NpyDataTest, Float64BeyondFloatRangeIsRefused) {
  auto e = Classes(Arr("<f8", "(2, 1)", Bytes<double>({1e300, 0})),
                   Arr("<i8", "(2,)", Bytes<int64_t>({0, 1}), "y.npy"));
  EXPECT_FALSE(e.ok() && std::isinf(e->values[0])) << "1e300 became an infinite float";
}

class NpyLoadTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<long>(bytes.size()));
    return path;
  }
  const std::string dir_ = "/tmp/sweep_npy_test_" + std::to_string(getpid());
};

// Tables are standardised per feature with the training statistics.
TEST_F(NpyLoadTest, LoadDataStandardisesFeaturesAndTargets) {
  DataSpec spec;
  auto* d = spec.files.mutable_npy();
  d->set_train_x(Write("x.npy", Npy("<f4", "(4, 2)", Bytes<float>({1, 10, 2, 20, 3, 30, 4, 40}))));
  d->set_train_y(Write("y.npy", Npy("<i8", "(4,)", Bytes<int64_t>({3, 7, 3, 7}))));
  d->set_test_x(Write("tx.npy", Npy("<f8", "(1, 2)", Bytes<double>({5, 50}))));
  d->set_test_y(Write("ty.npy", Npy("<i8", "(1,)", Bytes<int64_t>({7}))));
  auto s = LoadData(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->train.n, 4);
  EXPECT_EQ(s->test.n, 1);
  EXPECT_EQ(s->class_names, (std::vector<std::string>{"3", "7"}));
  EXPECT_EQ(s->outputs(), 2);
  EXPECT_EQ(s->train.labels, (std::vector<int32_t>{0, 1, 0, 1}));
  EXPECT_EQ(s->test.labels, (std::vector<int32_t>{1}));
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(s->train.values[2 * i], (i + 1 - 2.5) / kSd, 1e-6) << i;
    EXPECT_NEAR(s->train.values[2 * i + 1], (i + 1 - 2.5) / kSd, 1e-6) << i;
  }
  EXPECT_NEAR(s->test.values[0], 2.5 / kSd, 1e-6);
  EXPECT_NEAR(s->test.values[1], 2.5 / kSd, 1e-6);
  // Regression: float targets 10..40 (mean 25, sd sqrt(125)), standardised.
  spec.problem = Problem::kRegression;
  d->set_train_y(Write("ry.npy", Npy("<f4", "(4,)", Bytes<float>({10, 20, 30, 40}))));
  d->set_test_y(Write("rty.npy", Npy("<f8", "(1,)", Bytes<double>({55}))));
  auto r = LoadData(spec);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->target_mean, 25);
  EXPECT_NEAR(r->target_stddev, std::sqrt(125.0), 1e-9);
  EXPECT_EQ(r->outputs(), 1);
  ASSERT_EQ(r->train.targets.size(), 4u);
  EXPECT_NEAR(r->train.targets[0], -1.5 / kSd, 1e-6);
  EXPECT_NEAR(r->test.targets[0], 30 / std::sqrt(125.0), 1e-6);
  // A test set shaped unlike the training set is refused.
  d->set_test_x(Write("tx3.npy", Npy("<f4", "(1, 3)", Bytes<float>({1, 2, 3}))));
  EXPECT_TRUE(FailsWith(LoadData(spec), dir_ + "/tx3.npy: its examples are shaped unlike "));
}

// Without test files: a fixed-seed 20% of the examples, the same every call;
// images keep their bytes (normalised per batch, not here).
TEST_F(NpyLoadTest, SeededTestSplitOfImages) {
  std::vector<uint8_t> px;
  std::vector<int64_t> labels;
  for (int i = 0; i < 10; ++i) {
    for (int k = 0; k < 4; ++k) px.push_back(static_cast<uint8_t>(i));  // example i is all i
    labels.push_back(i % 2);
  }
  DataSpec spec;
  spec.files.mutable_npy()->set_train_x(Write("x.npy", Npy("|u1", "(10, 2, 2)", px)));
  spec.files.mutable_npy()->set_train_y(Write("y.npy", Npy("<i8", "(10,)", Bytes(labels))));
  auto a = LoadData(spec), b = LoadData(spec);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().message();
  EXPECT_EQ(a->test.n, 2);
  EXPECT_EQ(a->train.n, 8);
  EXPECT_EQ(a->test.pixels, b->test.pixels);
  EXPECT_TRUE(a->train.values.empty());
  std::vector<int> seen(10, 0);
  for (auto* e : {&a->train, &a->test})
    for (int i = 0; i < e->n; ++i) {
      const uint8_t v = e->pixels[i * 4];
      ASSERT_LT(v, 10);
      ++seen[v];
      EXPECT_EQ(e->labels[i], v % 2);  // labels travel with their examples
    }
  EXPECT_EQ(seen, std::vector<int>(10, 1));  // a partition

  // uint8 training images with float test images would be scaled unlike
  // each other: refused, both ways round.
  auto* d = spec.files.mutable_npy();
  d->set_test_x(Write("tx.npy", Npy("<f4", "(1, 2, 2)", Bytes<float>({0, 1, 2, 3}))));
  d->set_test_y(Write("ty.npy", Npy("<i8", "(1,)", Bytes<int64_t>({1}))));
  EXPECT_TRUE(FailsWith(LoadData(spec), dir_ + "/tx.npy: holds floats, " + dir_ +
                                            "/x.npy uint8 pixels; give both the same dtype"));
  d->set_train_x(Write("fx.npy", Npy("<f4", "(10, 2, 2)", Bytes(std::vector<float>(40, 1.f)))));
  d->set_test_x(Write("ux.npy", Npy("|u1", "(1, 2, 2)", {0, 1, 2, 3})));
  EXPECT_TRUE(FailsWith(LoadData(spec), dir_ + "/ux.npy: holds uint8 pixels, " + dir_ +
                                            "/fx.npy floats; give both the same dtype"));
}

}  // namespace
}  // namespace sweep::nn
