// The ONNX export: an MLP from a CSV table (with missing-value indicators,
// and with text columns as a string input),
// a regression MLP and a CNN on 32x32x3 arrays (batch norm, GELU, average
// pools) each pass the ONNX checker (ExportOnnx runs it) and carry their
// inputs, outputs and class names. That onnxruntime computes what nn/ does
// is bench/automl/onnx_agreement.sh's job (onnxruntime is a peer, not a
// test dependency). Also: the CNN trains on those arrays and its loss falls.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/rng.h"
#include "nn/data/data_source.h"
#include "nn/export/onnx_model.h"
#include "nn/trainer.h"

namespace sweep::nn {
namespace {

struct Folder {
  std::string dir = "/tmp/sweep_onnx_test_" + std::to_string(getpid());
  Folder() { std::filesystem::create_directories(dir); }
  ~Folder() { std::filesystem::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  }
};

// A version 1.0 .npy file of float32 or int64 values.
std::string Npy(const std::string& descr, const std::vector<int64_t>& shape, const void* data,
                size_t bytes) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + std::string(static_cast<const char*>(data), bytes);
}

onnx::ModelProto Parse(const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

std::string Meta(const onnx::ModelProto& m, const std::string& key) {
  for (const auto& p : m.metadata_props())
    if (p.key() == key) return p.value();
  return "";
}

std::vector<std::string> Ops(const onnx::ModelProto& m) {
  std::vector<std::string> ops;
  for (const auto& n : m.graph().node()) ops.push_back(n.op_type());
  return ops;
}

bool Has(const std::vector<std::string>& ops, const std::string& op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

Result<Splits> Carve(const DataSpec& spec) {
  ASSIGN_OR_RETURN(Splits pool, LoadData(spec));
  return CarveSplits(pool, DefaultValidation(spec, pool), 1);
}

TEST(OnnxExportTest, AnMlpOnATableWithMissingCellsPassesTheChecker) {
  Folder f;
  std::string csv = "a,b,kind\n";
  Rng rng(2);
  for (int i = 0; i < 200; ++i) {
    double a = rng.Uniform(), b = rng.Uniform();
    // Every seventh b is missing: b gets an indicator feature.
    csv += std::to_string(a) + "," + (i % 7 ? std::to_string(b) : "") + "," +
           (a > 0.5 ? "high" : "low") + "\n";
  }
  DataSpec spec;
  spec.files.mutable_csv()->set_train(f.Write("t.csv", csv));
  spec.files.mutable_csv()->set_label("kind");
  spec.files.mutable_csv()->set_missing("mean");
  auto data = Carve(spec);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->feature_names, (std::vector<std::string>{"a", "b", "b_missing"}));
  TrainConfig c;
  c.hidden_layers = 2;
  c.hidden_units = 16;
  c.batch_norm = true;
  c.dropout = 0.2f;
  c.activation = Activation::kLeakyRelu;
  c.epochs = 1;
  c.batch_size = 16;
  auto b = MakeCpuBackend(1);
  Trainer t(c, b.get(), &*data);
  t.RunEpoch();
  auto bytes = ExportOnnx(t.model(), *data, "table");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  onnx::ModelProto m = Parse(*bytes);
  ASSERT_EQ(m.graph().input_size(), 1);
  // Raw numeric columns in: two of them (the indicator is made inside).
  EXPECT_EQ(m.graph().input(0).type().tensor_type().shape().dim(1).dim_value(), 2);
  ASSERT_EQ(m.graph().output_size(), 2);
  EXPECT_EQ(m.graph().output(0).name(), "probabilities");
  EXPECT_EQ(m.graph().output(1).name(), "class");
  EXPECT_EQ(Meta(m, "classes"), "[\"high\", \"low\"]");
  EXPECT_EQ(Meta(m, "input_columns"), "[\"a\", \"b\"]");
  auto ops = Ops(m);
  for (const char* op :
       {"IsNaN", "Where", "Gather", "Gemm", "BatchNormalization", "LeakyRelu", "Softmax", "ArgMax"})
    EXPECT_TRUE(Has(ops, op)) << op;
  EXPECT_FALSE(Has(ops, "Dropout"));  // the identity at inference
}

// The int64 constant whose name starts with `prefix`.
std::vector<int64_t> Int64s(const onnx::ModelProto& m, const std::string& prefix) {
  for (const auto& t : m.graph().initializer())
    if (t.name().rfind(prefix, 0) == 0) return {t.int64_data().begin(), t.int64_data().end()};
  ADD_FAILURE() << "no constant " << prefix;
  return {};
}

// Text columns come in as strings and are one-hot encoded inside, numeric
// columns as floats (with missing indicators); one Gather puts the features
// in training's order. A table of text alone has only the string input.
TEST(OnnxExportTest, TextColumnsAreAStringInputEncodedInside) {
  Folder f;
  std::string csv = "colour,size,weight,shape,y\n";
  Rng rng(3);
  for (int i = 0; i < 60; ++i) {
    csv += std::string(i % 2 ? "red" : "blue") + "," + std::to_string(rng.Uniform()) + "," +
           (i % 4 ? std::to_string(rng.Uniform()) : "") + "," +
           (i % 3   ? "round"
            : i % 5 ? "square"
                    : "flat") +
           "," + (i % 3 ? "a" : "b") + "\n";
  }
  DataSpec spec;
  spec.files.mutable_csv()->set_train(f.Write("mixed.csv", csv));
  spec.files.mutable_csv()->set_label("y");
  spec.files.mutable_csv()->set_missing("mean");
  auto data = Carve(spec);
  ASSERT_TRUE(data.ok()) << data.status().message();
  ASSERT_EQ(data->feature_names, (std::vector<std::string>{"colour=blue", "colour=red", "size",
                                                           "weight", "weight_missing", "shape=flat",
                                                           "shape=round", "shape=square"}));
  TrainConfig c;
  c.hidden_units = 8;
  c.epochs = 1;
  c.batch_size = 16;
  auto b = MakeCpuBackend(1);
  Trainer t(c, b.get(), &*data);
  t.RunEpoch();
  auto bytes = ExportOnnx(t.model(), *data, "mixed");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  onnx::ModelProto m = Parse(*bytes);
  ASSERT_EQ(m.graph().input_size(), 2);
  EXPECT_EQ(m.graph().input(0).name(), "input");
  EXPECT_EQ(m.graph().input(0).type().tensor_type().shape().dim(1).dim_value(), 2);
  EXPECT_EQ(m.graph().input(1).name(), "text");
  EXPECT_EQ(m.graph().input(1).type().tensor_type().elem_type(), onnx::TensorProto::STRING);
  EXPECT_EQ(m.graph().input(1).type().tensor_type().shape().dim(1).dim_value(), 2);
  EXPECT_EQ(Meta(m, "input_columns"), "[\"size\", \"weight\"]");
  EXPECT_EQ(Meta(m, "text_columns"), "[\"colour\", \"shape\"]");
  // Laid side by side: size, weight (0-1), weight's indicator (2), colour's
  // two categories (3-4), shape's three (5-7); put back in training order.
  EXPECT_EQ(Int64s(m, "flagged"), (std::vector<int64_t>{1}));
  EXPECT_EQ(Int64s(m, "feature_order"), (std::vector<int64_t>{3, 4, 0, 1, 2, 5, 6, 7}));
  // One encoder per text column, with the training categories in order.
  std::vector<std::vector<std::string>> encoders;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "OneHotEncoder") continue;
    EXPECT_EQ(n.domain(), "ai.onnx.ml");
    for (const auto& a : n.attribute())
      if (a.name() == "cats_strings") encoders.emplace_back(a.strings().begin(), a.strings().end());
  }
  EXPECT_EQ(encoders,
            (std::vector<std::vector<std::string>>{{"blue", "red"}, {"flat", "round", "square"}}));
  bool ml_imported = false;
  for (const auto& o : m.opset_import()) ml_imported |= o.domain() == "ai.onnx.ml";
  EXPECT_TRUE(ml_imported);

  std::string text = "colour,y\n";
  for (int i = 0; i < 20; ++i)
    text += std::string(i % 2 ? "red" : "blue") + "," + (i % 3 ? "a" : "b") + "\n";
  DataSpec ts;
  ts.files.mutable_csv()->set_train(f.Write("text.csv", text));
  ts.files.mutable_csv()->set_label("y");
  auto td = Carve(ts);
  ASSERT_TRUE(td.ok()) << td.status().message();
  Trainer tt(c, b.get(), &*td);
  auto only_text = ExportOnnx(tt.model(), *td, "text");
  ASSERT_TRUE(only_text.ok()) << only_text.status().message();
  onnx::ModelProto mt = Parse(*only_text);
  ASSERT_EQ(mt.graph().input_size(), 1);
  EXPECT_EQ(mt.graph().input(0).name(), "text");
  EXPECT_EQ(Meta(mt, "input_columns"), "");  // no numeric input, so no key
  EXPECT_EQ(Int64s(mt, "feature_order"), (std::vector<int64_t>{0, 1}));
}

TEST(OnnxExportTest, ARegressionMlpHasOnePredictionOutput) {
  Folder f;
  std::vector<float> x(300 * 3), y(300);
  Rng rng(4);
  for (int i = 0; i < 300; ++i) {
    for (int k = 0; k < 3; ++k) x[i * 3 + k] = static_cast<float>(rng.Uniform());
    y[i] = 100 + 20 * x[i * 3] - 5 * x[i * 3 + 2];
  }
  DataSpec spec;
  spec.problem = Problem::kRegression;
  spec.files.mutable_npy()->set_train_x(
      f.Write("x.npy", Npy("<f4", {300, 3}, x.data(), x.size() * 4)));
  spec.files.mutable_npy()->set_train_y(
      f.Write("y.npy", Npy("<f4", {300}, y.data(), y.size() * 4)));
  auto data = Carve(spec);
  ASSERT_TRUE(data.ok()) << data.status().message();
  TrainConfig c;
  c.hidden_layers = 1;
  c.hidden_units = 8;
  c.activation = Activation::kTanh;
  c.epochs = 1;
  auto b = MakeCpuBackend(1);
  Trainer t(c, b.get(), &*data);
  auto bytes = ExportOnnx(t.model(), *data, "reg");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  onnx::ModelProto m = Parse(*bytes);
  ASSERT_EQ(m.graph().output_size(), 1);
  EXPECT_EQ(m.graph().output(0).name(), "prediction");
  EXPECT_EQ(Meta(m, "problem"), "regression");
  EXPECT_TRUE(Has(Ops(m), "Tanh"));
}

TEST(OnnxExportTest, ACnnOn32x32x3ArraysTrainsAndPassesTheChecker) {
  Folder f;
  // Class 0: a bright red square somewhere; class 1: a bright blue one.
  const int n = 256, hw = 32, ch = 3;
  std::vector<float> x(static_cast<size_t>(n) * hw * hw * ch);
  std::vector<int64_t> y(n);
  Rng rng(9);
  for (int i = 0; i < n; ++i) {
    y[i] = static_cast<int64_t>(rng.Next() % 2);
    int cy = static_cast<int>(rng.Next() % 24), cx = static_cast<int>(rng.Next() % 24);
    for (int r = 0; r < hw; ++r)
      for (int c = 0; c < hw; ++c)
        for (int k = 0; k < ch; ++k) {
          bool in = r >= cy && r < cy + 8 && c >= cx && c < cx + 8 && k == (y[i] ? 2 : 0);
          x[((static_cast<size_t>(i) * hw + r) * hw + c) * ch + k] =
              static_cast<float>((in ? 0.9 : 0.1) + 0.05 * rng.Normal());
        }
  }
  DataSpec spec;
  spec.files.mutable_npy()->set_train_x(
      f.Write("x.npy", Npy("<f4", {n, hw, hw, ch}, x.data(), x.size() * 4)));
  spec.files.mutable_npy()->set_train_y(f.Write("y.npy", Npy("<i8", {n}, y.data(), y.size() * 8)));
  auto data = Carve(spec);
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_EQ(data->train.c, 3);
  EXPECT_EQ(data->train.h, 32);
  TrainConfig c;
  c.model = "cnn";
  c.conv_blocks = 2;
  c.channels = 8;
  c.dense_units = 16;
  c.batch_norm = true;
  c.activation = Activation::kGelu;
  c.max_pool = false;
  c.epochs = 3;
  c.batch_size = 16;
  c.lr = 0.05f;
  c.lr_schedule = Schedule::kConstant;
  auto b = MakeCpuBackend(1);
  Trainer t(c, b.get(), &*data);
  Evaluation before = t.Evaluate(data->validation);
  EpochResult last;
  for (int e = 0; e < 3; ++e) last = t.RunEpoch();
  EXPECT_LT(last.val.loss, before.loss);
  EXPECT_GT(last.val.accuracy, 0.8);
  auto bytes = ExportOnnx(t.model(), *data, "cnn");
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  onnx::ModelProto m = Parse(*bytes);
  const auto& dims = m.graph().input(0).type().tensor_type().shape().dim();
  ASSERT_EQ(dims.size(), 4);  // N x H x W x C, channels last as the arrays were
  EXPECT_EQ(dims[1].dim_value(), 32);
  EXPECT_EQ(dims[3].dim_value(), 3);
  auto ops = Ops(m);
  for (const char* op :
       {"Transpose", "Conv", "BatchNormalization", "AveragePool", "Tanh", "Flatten", "Gemm"})
    EXPECT_TRUE(Has(ops, op)) << op;
  EXPECT_EQ(Meta(m, "classes"), "[\"0\", \"1\"]");
}

}  // namespace
}  // namespace sweep::nn
