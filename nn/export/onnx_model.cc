// Building the ONNX graph: input preparation, one or more nodes per layer,
// the outputs; then the checker.
#include "nn/export/onnx_model.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "common/json.h"
#include "nn/data/table_data.h"

namespace sweep::nn {

namespace {

using onnx::AttributeProto;
using onnx::TensorProto;

class Graph {
 public:
  explicit Graph(onnx::GraphProto* g) : g_(g) {}
  // A constant tensor of `dims`; returns its name.
  std::string Constant(const std::string& hint, std::vector<int64_t> dims,
                       const std::vector<float>& values) {
    TensorProto* t = g_->add_initializer();
    t->set_name(Fresh(hint));
    t->set_data_type(TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    return t->name();
  }
  std::string Constant(const std::string& hint, float v) { return Constant(hint, {}, {v}); }
  // An int64 constant: a scalar with no dims, else a list.
  std::string Int64Constant(const std::string& hint, std::vector<int64_t> dims,
                            const std::vector<int64_t>& values) {
    TensorProto* t = g_->add_initializer();
    t->set_name(Fresh(hint));
    t->set_data_type(TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
    return t->name();
  }
  // ai.onnx.ml's OneHotEncoder: a string tensor [N] to [N, categories] 0/1
  // floats; a string that is none of them gives all zeros.
  std::string OneHot(const std::string& input, const std::vector<std::string>& categories) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type("OneHotEncoder");
    n->set_domain("ai.onnx.ml");
    n->set_name(Fresh("OneHotEncoder"));
    n->add_input(input);
    n->add_output(Fresh("OneHotEncoder_out"));
    AttributeProto* cats = n->add_attribute();
    cats->set_name("cats_strings");
    cats->set_type(AttributeProto::STRINGS);
    for (const auto& c : categories) cats->add_strings(c);
    AttributeProto* zeros = n->add_attribute();
    zeros->set_name("zeros");
    zeros->set_type(AttributeProto::INT);
    zeros->set_i(1);
    return n->output(0);
  }
  // One node; returns its output's name (`out` where given).
  std::string Node(const std::string& op, std::vector<std::string> inputs,
                   std::vector<std::pair<std::string, std::vector<int64_t>>> ints = {},
                   std::vector<std::pair<std::string, float>> floats = {}, std::string out = "") {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(Fresh(op));
    for (auto& i : inputs) n->add_input(i);
    if (out.empty()) out = Fresh(op + "_out");
    n->add_output(out);
    for (auto& [name, v] : ints) {
      AttributeProto* a = n->add_attribute();
      a->set_name(name);
      // kernel_shape, pads, strides, perm are lists; axis and the like one int.
      if (name == "axis" || name == "keepdims" || name == "to" || name == "transB") {
        a->set_type(AttributeProto::INT);
        a->set_i(v[0]);
      } else {
        a->set_type(AttributeProto::INTS);
        for (int64_t x : v) a->add_ints(x);
      }
    }
    for (auto& [name, v] : floats) {
      AttributeProto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(AttributeProto::FLOAT);
      a->set_f(v);
    }
    return out;
  }

 private:
  std::string Fresh(const std::string& hint) { return hint + "_" + std::to_string(next_++); }
  onnx::GraphProto* g_;
  int next_ = 0;
};

void Value(onnx::ValueInfoProto* v, const std::string& name, int type,
           const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  auto* shape = t->mutable_shape();
  shape->add_dim()->set_dim_param("N");
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// The prepared input: the network's first tensor, from the raw input.
Result<std::string> PrepareInput(Graph* g, const Splits& d, onnx::GraphProto* proto) {
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
    // A missing cell (NaN) is the training mean: 0 once standardised.
    std::string nan = g->Node("IsNaN", {"input"});
    z = g->Node("Where", {nan, g->Constant("zero", 0.f), z});
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

std::vector<float> Slice(const std::vector<float>& v, size_t at, size_t n) {
  return std::vector<float>(v.begin() + static_cast<long>(at),
                            v.begin() + static_cast<long>(at + n));
}

}  // namespace

Result<std::string> ExportOnnx(Model& model, const Splits& d, const std::string& name) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("sweep");
  m.set_model_version(1);
  onnx::OperatorSetIdProto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  if (d.table && std::any_of(d.table->columns.begin(), d.table->columns.end(),
                             [](const ColumnCode& c) { return !c.numeric; })) {
    onnx::OperatorSetIdProto* ml = m.add_opset_import();  // OneHotEncoder's
    ml->set_domain("ai.onnx.ml");
    ml->set_version(1);
  }
  onnx::GraphProto* proto = m.mutable_graph();
  proto->set_name(name);
  Graph g(proto);
  ASSIGN_OR_RETURN(std::string t, PrepareInput(&g, d, proto));

  std::vector<float> params(model.param_count()), state(model.state_count());
  model.backend()->ToHost(model.params(), params.data(), params.size());
  model.backend()->ToHost(model.state(), state.data(), state.size());
  int rank = d.train.image() ? 4 : 2;
  for (size_t i = 0; i < model.layer_count(); ++i) {
    const Layer& l = model.layer(i);
    const LayerInfo info = l.Info();
    const size_t p = model.param_offset(i), s = model.state_offset(i);
    const std::vector<int>& in = l.in_shape();
    switch (info.kind) {
      case LayerInfo::kLinear: {
        if (rank != 2) t = g.Node("Flatten", {t}, {{"axis", {1}}});
        rank = 2;
        const int64_t out = info.outputs, inputs = static_cast<int64_t>(ShapeSize(in));
        const size_t nw = static_cast<size_t>(out * inputs);
        std::string w = g.Constant("W", {out, inputs}, Slice(params, p, nw));
        std::string b = g.Constant("b", {out}, Slice(params, p + nw, static_cast<size_t>(out)));
        t = g.Node("Gemm", {t, w, b}, {{"transB", {1}}});
        break;
      }
      case LayerInfo::kConv2d: {
        const int64_t oc = info.outputs, c = in[0], k = info.kernel;
        const size_t nw = static_cast<size_t>(oc * c * k * k);
        std::string w = g.Constant("W", {oc, c, k, k}, Slice(params, p, nw));
        std::string b = g.Constant("b", {oc}, Slice(params, p + nw, static_cast<size_t>(oc)));
        t = g.Node("Conv", {t, w, b},
                   {{"kernel_shape", {k, k}},
                    {"pads", {info.pad, info.pad, info.pad, info.pad}},
                    {"strides", {info.stride, info.stride}}});
        break;
      }
      case LayerInfo::kMaxPool:
      case LayerInfo::kAvgPool:
        t = g.Node(info.kind == LayerInfo::kMaxPool ? "MaxPool" : "AveragePool", {t},
                   {{"kernel_shape", {info.kernel, info.kernel}},
                    {"strides", {info.stride, info.stride}}});
        break;
      case LayerInfo::kGlobalAvgPool:
        t = g.Node("Flatten", {g.Node("GlobalAveragePool", {t})}, {{"axis", {1}}});
        rank = 2;
        break;
      case LayerInfo::kFlatten:
        t = g.Node("Flatten", {t}, {{"axis", {1}}});
        rank = 2;
        break;
      case LayerInfo::kDropout:
        break;  // the identity at inference
      case LayerInfo::kBatchNorm: {
        const int64_t c = in[0];
        const size_t n = static_cast<size_t>(c);
        t = g.Node("BatchNormalization",
                   {t, g.Constant("gamma", {c}, Slice(params, p, n)),
                    g.Constant("beta", {c}, Slice(params, p + n, n)),
                    g.Constant("mean", {c}, Slice(state, s, n)),
                    g.Constant("var", {c}, Slice(state, s + n, n))},
                   {}, {{"epsilon", info.eps}});
        break;
      }
      case LayerInfo::kActivation:
        switch (info.activation) {
          case Activation::kRelu:
            t = g.Node("Relu", {t});
            break;
          case Activation::kLeakyRelu:
            t = g.Node("LeakyRelu", {t}, {}, {{"alpha", info.slope}});
            break;
          case Activation::kTanh:
            t = g.Node("Tanh", {t});
            break;
          case Activation::kGelu: {
            // The tanh form nn/ computes: x/2 (1 + tanh(c (x + 0.044715 x^3))).
            std::string cube = g.Node("Mul", {g.Node("Mul", {t, t}), t});
            std::string inner =
                g.Node("Add", {t, g.Node("Mul", {cube, g.Constant("k", 0.044715f)})});
            std::string th =
                g.Node("Tanh", {g.Node("Mul", {inner, g.Constant("c", 0.7978845608028654f)})});
            std::string one = g.Node("Add", {th, g.Constant("one", 1.f)});
            t = g.Node("Mul", {g.Node("Mul", {t, g.Constant("half", 0.5f)}), one});
            break;
          }
        }
        break;
    }
  }
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

}  // namespace sweep::nn
