// The ONNX exports' shared parts (onnx_graph.h).
#include "nn/export/onnx_graph.h"

#include <onnx/checker.h>

#include <algorithm>

#include "common/json.h"
#include "nn/data/table_data.h"

namespace sweep::nn::onnx_export {

namespace {

void Value(onnx::ValueInfoProto* v, const std::string& name, int type,
           const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  auto* shape = t->mutable_shape();
  shape->add_dim()->set_dim_param("N");
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

}  // namespace

void StartModel(onnx::ModelProto* m, const std::string& name, bool ml) {
  m->set_ir_version(8);
  m->set_producer_name("sweep");
  m->set_model_version(1);
  onnx::OperatorSetIdProto* opset = m->add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  if (ml) {
    onnx::OperatorSetIdProto* o = m->add_opset_import();
    o->set_domain("ai.onnx.ml");
    o->set_version(1);
  }
  m->mutable_graph()->set_name(name);
}

bool HasTextColumns(const Splits& d) {
  return d.table && std::any_of(d.table->columns.begin(), d.table->columns.end(),
                                [](const ColumnCode& c) { return !c.numeric; });
}

// The prepared input: the network's first tensor, from the raw input.
Result<std::string> PrepareInput(Graph* g, const Splits& d, onnx::GraphProto* proto,
                                 bool keep_missing) {
  const Examples& x = d.train;
  if (x.image()) {
    Value(proto->add_input(), "input", TensorProto::FLOAT, {x.h, x.w, x.c});
    std::string t = g->Node("Transpose", {"input"}, {{"perm", {0, 3, 1, 2}}});
    if (!x.pixels.empty()) {
      // As MakeBatch's table: v * 1/(255 stddev) - mean/stddev, in float.
      const float scale = 1.f / (255.f * d.stddev), shift = -d.mean / d.stddev;
      t = g->Node("Mul", {t, g->Constant("pixel_scale", scale)});
      return g->Node("Add", {t, g->Constant("pixel_shift", shift)});
    }
    t = g->Node("Sub", {t, g->Constant("mean", d.input_mean.at(0))});
    return g->Node("Mul", {t, g->Constant("scale", d.input_scale.at(0))});
  }
  if (!d.table) {  // an array of features
    const int64_t f = x.c;
    Value(proto->add_input(), "input", TensorProto::FLOAT, {f});
    std::string t = g->Node("Sub", {"input", g->Constant("mean", {f}, d.input_mean)});
    return g->Node("Mul", {t, g->Constant("scale", {f}, d.input_scale)});
  }
  // A table: numeric columns come in as floats ("input"), text columns as
  // strings ("text"), each in file order.
  const TableEncoding& e = *d.table;
  std::vector<float> mean, stddev;
  std::vector<int64_t> flagged;  // the numeric columns (by index) with a missing indicator
  int64_t text_columns = 0;
  for (const auto& c : e.columns) {
    if (!c.numeric) {
      ++text_columns;
      continue;
    }
    if (c.indicator) flagged.push_back(static_cast<int64_t>(mean.size()));
    mean.push_back(static_cast<float>(c.mean));
    stddev.push_back(static_cast<float>(c.stddev));
  }
  const int64_t f = static_cast<int64_t>(mean.size()), features = e.features();
  std::vector<std::string> parts;  // laid side by side, then put in place
  if (f > 0) {
    Value(proto->add_input(), "input", TensorProto::FLOAT, {f});
    std::string z = g->Node("Sub", {"input", g->Constant("mean", {f}, mean)});
    z = g->Node("Div", {z, g->Constant("stddev", {f}, stddev)});
    // A missing cell (NaN) is the training mean, 0 once standardised, or
    // stays NaN (`keep_missing`: the trees learned where it goes).
    // (The missing flags, where a column has them, need it either way.)
    std::string nan = keep_missing && flagged.empty() ? "" : g->Node("IsNaN", {"input"});
    if (!keep_missing) z = g->Node("Where", {nan, g->Constant("zero", 0.f), z});
    if (features == f) return z;
    parts.push_back(z);
    if (!flagged.empty()) {
      const int64_t n = static_cast<int64_t>(flagged.size());
      std::string ind = g->Node("Cast", {nan}, {{"to", {TensorProto::FLOAT}}});
      parts.push_back(
          g->Node("Gather", {ind, g->Int64Constant("flagged", {n}, flagged)}, {{"axis", {1}}}));
    }
  }
  if (text_columns > 0) Value(proto->add_input(), "text", TensorProto::STRING, {text_columns});
  // Parts: the standardised numbers, the indicators, each text column
  // one-hot. One Gather puts every feature in its place, as EncodeTable
  // orders them (`source`: the feature's index among the parts).
  const int64_t flags_at = f, text_at = f + static_cast<int64_t>(flagged.size());
  std::vector<int64_t> source;
  int64_t number = 0, flag = 0, text = 0, category = 0;
  for (const auto& c : e.columns) {
    if (c.numeric) {
      source.push_back(number++);
      if (c.indicator) source.push_back(flags_at + flag++);
      continue;
    }
    std::string column =
        g->Node("Gather", {"text", g->Int64Constant("column", {}, {text++})}, {{"axis", {1}}});
    parts.push_back(g->OneHot(column, c.categories));
    for (size_t v = 0; v < c.categories.size(); ++v) source.push_back(text_at + category++);
  }
  std::string all = parts.size() == 1 ? parts[0] : g->Node("Concat", parts, {{"axis", {1}}});
  return g->Node("Gather", {all, g->Int64Constant("feature_order", {features}, source)},
                 {{"axis", {1}}});
}

Result<std::string> FinishModel(onnx::ModelProto* mp, Graph* gp, const std::string& t,
                                const Splits& d) {
  onnx::ModelProto& m = *mp;
  Graph& g = *gp;
  onnx::GraphProto* proto = m.mutable_graph();
  auto* meta = m.add_metadata_props();
  if (d.problem == Problem::kRegression) {
    std::string y =
        g.Node("Mul", {t, g.Constant("target_scale", static_cast<float>(d.target_stddev))});
    g.Node("Add", {y, g.Constant("target_mean", static_cast<float>(d.target_mean))}, {}, {},
           "prediction");
    Value(proto->add_output(), "prediction", TensorProto::FLOAT, {1});
    meta->set_key("problem");
    meta->set_value("regression");
  } else {
    g.Node("Softmax", {t}, {{"axis", {1}}}, {}, "probabilities");
    g.Node("ArgMax", {t}, {{"axis", {1}}, {"keepdims", {0}}}, {}, "class");
    Value(proto->add_output(), "probabilities", TensorProto::FLOAT, {d.outputs()});
    auto* cls = proto->add_output();
    Value(cls, "class", TensorProto::INT64, {});
    meta->set_key("problem");
    meta->set_value("classification");
    std::string names = "[";
    for (int k = 0; k < d.outputs(); ++k) {
      std::string n =
          k < static_cast<int>(d.class_names.size()) ? d.class_names[k] : std::to_string(k);
      names += (k ? ", " : "") + JsonString(n);
    }
    auto* c = m.add_metadata_props();
    c->set_key("classes");
    c->set_value(names + "]");
  }
  if (d.table) {
    // The columns of "input" (numeric) and of "text", in file order.
    std::string cols[2] = {"[", "["};
    for (const auto& column : d.table->columns) {
      std::string& list = cols[column.numeric ? 0 : 1];
      list += (list.size() > 1 ? ", " : "") + JsonString(column.name);
    }
    if (cols[0].size() > 1) {
      auto* c = m.add_metadata_props();
      c->set_key("input_columns");
      c->set_value(cols[0] + "]");
    }
    if (cols[1].size() > 1) {
      auto* t = m.add_metadata_props();
      t->set_key("text_columns");
      t->set_value(cols[1] + "]");
    }
  }
  try {
    onnx::checker::check_model(m);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("the exported model fails the ONNX checker: ") + e.what());
  }
  std::string bytes;
  if (!m.SerializeToString(&bytes)) return Status::Internal("cannot serialise the ONNX model");
  return bytes;
}

}  // namespace sweep::nn::onnx_export
