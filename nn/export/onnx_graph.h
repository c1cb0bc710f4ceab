// What the ONNX exports of networks (onnx_model.cc) and of trees
// (onnx_trees.cc) share: the graph builder, the model's frame (IR 8, opset
// 17, ai.onnx.ml where needed), the raw input's preparation and the
// outputs, metadata and checker (the contract in onnx_model.h).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "nn/data/examples.h"

namespace sweep::nn::onnx_export {

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
  // A node of ai.onnx.ml with no attributes yet (the caller adds them),
  // one output.
  onnx::NodeProto* MlNode(const std::string& op, std::vector<std::string> inputs) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_domain("ai.onnx.ml");
    n->set_name(Fresh(op));
    for (auto& i : inputs) n->add_input(i);
    n->add_output(Fresh(op + "_out"));
    return n;
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

// Starts `m`: IR 8, opset 17, and ai.onnx.ml 1 where `ml` (one-hot text
// columns, trees), its graph named `name`.
void StartModel(onnx::ModelProto* m, const std::string& name, bool ml);

// Whether `d`'s table has text columns (their one-hot encoding is ai.onnx.ml's).
bool HasTextColumns(const Splits& d);

// The prepared input from the raw one (onnx_model.h): the features as the
// model trained on them. `keep_missing`: a missing number stays NaN (trees
// with missing: native) instead of the training mean.
Result<std::string> PrepareInput(Graph* g, const Splits& d, onnx::GraphProto* proto,
                                 bool keep_missing = false);

// From `t`, per row the logits (classification) or the standardised
// prediction (regression): the outputs, the metadata, the checker; the
// model's bytes.
Result<std::string> FinishModel(onnx::ModelProto* m, Graph* g, const std::string& t,
                                const Splits& d);

}  // namespace sweep::nn::onnx_export
