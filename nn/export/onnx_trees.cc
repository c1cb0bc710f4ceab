// XGBoost's JSON model read (with protobuf's JSON parser, into a Struct) and
// written as one TreeEnsembleRegressor between the shared input preparation
// and outputs (onnx_graph.h). Each tree is walked from its root, so nodes
// XGBoost pruned but kept in its arrays are left out.
#include "nn/export/onnx_trees.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <cstdlib>

#include "nn/data/table_data.h"
#include "nn/export/onnx_graph.h"

namespace sweep::nn {

namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using PbValue = google::protobuf::Value;
using onnx_export::AttributeProto;

Status Bad(const std::string& what) {
  return Status::Corruption("the tree model is not XGBoost's JSON as expected: " + what);
}

Result<const PbValue*> Field(const Struct& s, const std::string& key) {
  auto it = s.fields().find(key);
  if (it == s.fields().end()) return Bad("no \"" + key + "\"");
  return &it->second;
}

Result<const Struct*> Object(const Struct& s, const std::string& key) {
  ASSIGN_OR_RETURN(const PbValue* v, Field(s, key));
  if (!v->has_struct_value()) return Bad("\"" + key + "\" is not an object");
  return &v->struct_value();
}

Result<const ListValue*> List(const Struct& s, const std::string& key) {
  ASSIGN_OR_RETURN(const PbValue* v, Field(s, key));
  if (!v->has_list_value()) return Bad("\"" + key + "\" is not a list");
  return &v->list_value();
}

// A number XGBoost writes as a number, a boolean or a string ("5E-1").
Result<double> Number(const PbValue& v) {
  if (v.has_number_value()) return v.number_value();
  if (v.has_bool_value()) return v.bool_value() ? 1.0 : 0.0;
  if (v.has_string_value()) {
    char* end = nullptr;
    double d = std::strtod(v.string_value().c_str(), &end);
    if (end && *end == '\0' && !v.string_value().empty()) return d;
  }
  return Bad("a value that is not a number");
}

Result<std::vector<double>> Numbers(const Struct& s, const std::string& key) {
  ASSIGN_OR_RETURN(const ListValue* l, List(s, key));
  std::vector<double> out;
  out.reserve(static_cast<size_t>(l->values_size()));
  for (const auto& v : l->values()) {
    ASSIGN_OR_RETURN(double d, Number(v));
    out.push_back(d);
  }
  return out;
}

// The ensemble's node and leaf attributes, as ONNX lists them.
struct Ensemble {
  std::vector<int64_t> tree, node, feature, yes, no, missing_yes;
  std::vector<std::string> mode;
  std::vector<float> value;
  std::vector<int64_t> leaf_tree, leaf_node, leaf_target;
  std::vector<float> leaf_weight;
};

// Tree `id`'s reachable nodes, numbered as XGBoost numbers them.
Status AddTree(const Struct& tree, int64_t id, int64_t target, int features, Ensemble* e) {
  ASSIGN_OR_RETURN(auto left, Numbers(tree, "left_children"));
  ASSIGN_OR_RETURN(auto right, Numbers(tree, "right_children"));
  ASSIGN_OR_RETURN(auto index, Numbers(tree, "split_indices"));
  ASSIGN_OR_RETURN(auto cond, Numbers(tree, "split_conditions"));
  ASSIGN_OR_RETURN(auto dleft, Numbers(tree, "default_left"));
  const size_t n = left.size();
  if (n == 0 || right.size() != n || index.size() != n || cond.size() != n || dleft.size() != n)
    return Bad("tree " + std::to_string(id) + "'s node lists differ in length");
  std::vector<int64_t> todo = {0};
  std::vector<bool> seen(n, false);
  while (!todo.empty()) {
    const int64_t i = todo.back();
    todo.pop_back();
    if (i < 0 || static_cast<size_t>(i) >= n || seen[static_cast<size_t>(i)])
      return Bad("tree " + std::to_string(id) + " is not a tree");
    const size_t k = static_cast<size_t>(i);
    seen[k] = true;
    e->tree.push_back(id);
    e->node.push_back(i);
    // XGBoost's leaf keeps its value where a split keeps its threshold.
    const float v = static_cast<float>(cond[k]);
    if (left[k] < 0) {
      e->mode.push_back("LEAF");
      e->feature.push_back(0), e->value.push_back(0), e->yes.push_back(0), e->no.push_back(0);
      e->missing_yes.push_back(0);
      e->leaf_tree.push_back(id), e->leaf_node.push_back(i), e->leaf_target.push_back(target);
      e->leaf_weight.push_back(v);
      continue;
    }
    if (index[k] < 0 || index[k] >= features)
      return Bad("a split on feature " + std::to_string(static_cast<int64_t>(index[k])) +
                 " of a table of " + std::to_string(features));
    // XGBoost goes left when x < threshold, and a missing x goes left where
    // default_left says so: BRANCH_LT's true branch.
    e->mode.push_back("BRANCH_LT");
    e->feature.push_back(static_cast<int64_t>(index[k]));
    e->value.push_back(v);
    e->yes.push_back(static_cast<int64_t>(left[k]));
    e->no.push_back(static_cast<int64_t>(right[k]));
    e->missing_yes.push_back(dleft[k] != 0 ? 1 : 0);
    todo.push_back(static_cast<int64_t>(left[k]));
    todo.push_back(static_cast<int64_t>(right[k]));
  }
  return Status::Ok();
}

void Ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void Floats(onnx::NodeProto* n, const std::string& name, const std::vector<float>& v) {
  AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}

void Word(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::STRING);
  a->set_s(v);
}

}  // namespace

Result<std::string> ExportTreesOnnx(const std::string& model_json, const Splits& d,
                                    bool native_missing, const std::string& name) {
  Struct root;
  if (!google::protobuf::util::JsonStringToMessage(model_json, &root).ok())
    return Bad("it does not parse as JSON");
  ASSIGN_OR_RETURN(const Struct* learner, Object(root, "learner"));
  ASSIGN_OR_RETURN(const Struct* params, Object(*learner, "learner_model_param"));
  ASSIGN_OR_RETURN(const PbValue* base_v, Field(*params, "base_score"));
  ASSIGN_OR_RETURN(double base, Number(*base_v));
  ASSIGN_OR_RETURN(const Struct* objective, Object(*learner, "objective"));
  ASSIGN_OR_RETURN(const PbValue* objective_name, Field(*objective, "name"));
  ASSIGN_OR_RETURN(const Struct* booster, Object(*learner, "gradient_booster"));
  ASSIGN_OR_RETURN(const Struct* gb_model, Object(*booster, "model"));
  ASSIGN_OR_RETURN(const ListValue* trees, List(*gb_model, "trees"));
  ASSIGN_OR_RETURN(std::vector<double> tree_info, Numbers(*gb_model, "tree_info"));
  if (static_cast<int>(tree_info.size()) != trees->values_size())
    return Bad("tree_info and trees differ in length");

  const bool regression = d.problem == Problem::kRegression;
  const int classes = regression ? 1 : d.outputs();
  const std::string& objective_word = objective_name->string_value();
  const std::string expected = regression     ? "reg:squarederror"
                               : classes == 2 ? "binary:logistic"
                                              : "multi:softprob";
  if (objective_word != expected)
    return Bad("its objective is " + objective_word + ", this data's " + expected);
  // The margins' columns: binary:logistic's one margin is the second of
  // two logits (the first stays 0), XGBoost's base score a probability.
  const int targets = classes;
  std::vector<float> base_values(static_cast<size_t>(targets), static_cast<float>(base));
  if (classes == 2) {
    if (!(base > 0 && base < 1)) return Bad("a binary model's base score outside (0, 1)");
    base_values = {0.f, static_cast<float>(std::log(base / (1 - base)))};
  }
  const int features = d.table ? d.table->features() : static_cast<int>(d.train.example_size());
  Ensemble e;
  for (int i = 0; i < trees->values_size(); ++i) {
    const PbValue& t = trees->values(i);
    if (!t.has_struct_value()) return Bad("a tree that is not an object");
    const int64_t cls = static_cast<int64_t>(tree_info[static_cast<size_t>(i)]);
    const int64_t target = classes == 2 ? 1 : cls;
    if (target < 0 || target >= targets)
      return Bad("a tree for class " + std::to_string(cls) + " of " + std::to_string(classes));
    RETURN_IF_ERROR(AddTree(t.struct_value(), i, target, features, &e));
  }

  onnx::ModelProto m;
  onnx_export::StartModel(&m, name, /*ml=*/true);
  onnx::GraphProto* proto = m.mutable_graph();
  onnx_export::Graph g(proto);
  ASSIGN_OR_RETURN(std::string x, onnx_export::PrepareInput(&g, d, proto, native_missing));
  onnx::NodeProto* n = g.MlNode("TreeEnsembleRegressor", {x});
  Ints(n, "nodes_treeids", e.tree);
  Ints(n, "nodes_nodeids", e.node);
  Ints(n, "nodes_featureids", e.feature);
  AttributeProto* modes = n->add_attribute();
  modes->set_name("nodes_modes");
  modes->set_type(AttributeProto::STRINGS);
  for (const auto& w : e.mode) modes->add_strings(w);
  Floats(n, "nodes_values", e.value);
  Ints(n, "nodes_truenodeids", e.yes);
  Ints(n, "nodes_falsenodeids", e.no);
  Ints(n, "nodes_missing_value_tracks_true", e.missing_yes);
  Ints(n, "target_treeids", e.leaf_tree);
  Ints(n, "target_nodeids", e.leaf_node);
  Ints(n, "target_ids", e.leaf_target);
  Floats(n, "target_weights", e.leaf_weight);
  Floats(n, "base_values", base_values);
  AttributeProto* count = n->add_attribute();
  count->set_name("n_targets");
  count->set_type(AttributeProto::INT);
  count->set_i(targets);
  Word(n, "aggregate_function", "SUM");
  Word(n, "post_transform", "NONE");
  return onnx_export::FinishModel(&m, &g, n->output(0), d);
}

}  // namespace sweep::nn
