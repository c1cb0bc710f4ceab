// The knob table (common/train_knobs.h) against its readers: validation
// accepts every default and rejects values outside the range or words, the
// train task reads every knob and word with the table's defaults, and PBT
// never perturbs a knob that shapes the model. Also the task schema tables.
#include "common/train_knobs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "common/json.h"
#include "common/task_schema.h"
#include "common/values.h"
#include "nn/data/mnist.h"
#include "search_spaces/samplers.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "trial_runner/train_task.h"
#include "tuner/scheduler.h"

namespace sweep {
namespace {

using google::protobuf::FieldDescriptor;

// A train study with one constant parameter (not `except`, so it can be fixed).
// A study of one searched constant knob, `except` aside; one that trains
// trees when `trees` (every knob shapes networks, trees, or both).
ParsedStudy TrainStudy(std::string_view except = "", bool trees = false) {
  ParsedStudy p;
  p.study.set_name("t");
  p.study.mutable_objective()->set_metric("val_loss");
  p.study.mutable_objective()->set_goal(pb::GOAL_MINIMIZE);
  p.study.mutable_task()->mutable_train();
  if (trees) {
    pb::TrainTask* t = p.study.mutable_task()->mutable_train();
    if (except != "model") t->set_model("gbdt");  // on a table: trees take no images
    t->mutable_data()->mutable_csv()->set_train("t.csv");
    t->mutable_data()->mutable_csv()->set_label("y");
  }
  p.study.mutable_algorithm()->set_type(pb::ALGORITHM_TYPE_RANDOM);
  p.study.mutable_algorithm()->set_max_trials(1);
  const char* a = trees ? "eta" : "lr";
  const char* b = trees ? "max_depth" : "dropout";
  const TrainKnob& other = *FindTrainKnob(except == a ? b : a);
  pb::Parameter* q = p.study.add_parameters();
  q->set_name(std::string(other.name));
  q->set_type(pb::PARAM_TYPE_CONSTANT);
  *q->mutable_value() = TrainKnobDefault(other);
  return p;
}

void SearchConstant(ParsedStudy* p, const TrainKnob& k, const pb::Value& v) {
  p->study.clear_parameters();
  pb::Parameter* q = p->study.add_parameters();
  q->set_name(std::string(k.name));
  q->set_type(pb::PARAM_TYPE_CONSTANT);
  *q->mutable_value() = v;
}

void Fix(pb::TrainTask* t, const TrainKnob& k, const pb::Value& v) {
  const FieldDescriptor* f = t->GetDescriptor()->FindFieldByName(std::string(k.name));
  ASSERT_NE(f, nullptr) << k.name;
  const auto* r = t->GetReflection();
  double d = 0;
  ValueAsDouble(v, &d);
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      r->SetString(t, f, v.text());
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r->SetBool(t, f, v.flag());
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      r->SetDouble(t, f, d);
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      r->SetInt32(t, f, static_cast<int32_t>(d));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      r->SetUInt64(t, f, static_cast<uint64_t>(d));
      break;
    default:
      FAIL() << k.name << ": unexpected field type";
  }
}

// Values the knob must refuse: outside its range or words.
std::vector<pb::Value> BadValues(const TrainKnob& k) {
  std::vector<pb::Value> out;
  pb::Value v;
  switch (k.type) {
    case KnobType::kWord:
      if (!k.words.empty()) {
        v.set_text("no-such-word");
        out.push_back(v);
      }
      break;
    case KnobType::kBool:
      break;
    case KnobType::kInt:
    case KnobType::kFloat:
      out.push_back(NumberValue(k.min - 1));
      out.push_back(NumberValue(k.max + std::max(1.0, std::fabs(k.max) * 0.01)));
      break;
  }
  return out;
}

TEST(TrainKnobsTest, TheTableMatchesTheTrainTaskMessage) {
  const auto* desc = pb::TrainTask::descriptor();
  // Every field is a knob but `data` and `problem`: the user's files and what
  // their label is, not values to search.
  EXPECT_EQ(static_cast<size_t>(desc->field_count()), TrainKnobs().size() + 2);
  EXPECT_EQ(FindTrainKnob("data"), nullptr);
  EXPECT_EQ(FindTrainKnob("problem"), nullptr);
  std::set<std::string_view> names;
  for (const auto& k : TrainKnobs()) {
    SCOPED_TRACE(std::string(k.name));
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate knob";
    EXPECT_EQ(FindTrainKnob(k.name), &k);
    const FieldDescriptor* f = desc->FindFieldByName(std::string(k.name));
    ASSERT_NE(f, nullptr);
    switch (k.type) {
      case KnobType::kWord:
        EXPECT_EQ(f->cpp_type(), FieldDescriptor::CPPTYPE_STRING);
        EXPECT_TRUE(k.words.empty() ||
                    std::find(k.words.begin(), k.words.end(), k.default_word) != k.words.end());
        break;
      case KnobType::kBool:
        EXPECT_EQ(f->cpp_type(), FieldDescriptor::CPPTYPE_BOOL);
        break;
      case KnobType::kInt:
        EXPECT_TRUE(f->cpp_type() == FieldDescriptor::CPPTYPE_INT32 ||
                    f->cpp_type() == FieldDescriptor::CPPTYPE_UINT64);
        EXPECT_LE(k.min, k.default_number);
        EXPECT_LE(k.default_number, k.max);
        break;
      case KnobType::kFloat:
        EXPECT_EQ(f->cpp_type(), FieldDescriptor::CPPTYPE_DOUBLE);
        EXPECT_LE(k.min, k.default_number);
        EXPECT_LE(k.default_number, k.max);
        break;
    }
  }
  EXPECT_EQ(FindTrainKnob("rmsprop"), nullptr);
}

TEST(TrainKnobsTest, ValidationAcceptsEveryDefaultSearchedOrFixed) {
  for (const auto& k : TrainKnobs()) {
    SCOPED_TRACE(std::string(k.name));
    const bool trees = k.models == kTrees;
    ParsedStudy searched = TrainStudy("", trees);
    SearchConstant(&searched, k, TrainKnobDefault(k));
    Status st = ValidateStudy(&searched);
    if (k.not_searched.empty()) {
      EXPECT_TRUE(st.ok()) << st.message();
    } else {  // a knob set in task.train only is refused as a parameter, saying why
      EXPECT_NE(
          st.message().find("is set in task.train, not searched: " + std::string(k.not_searched)),
          std::string::npos)
          << st.message();
    }

    ParsedStudy fixed = TrainStudy(k.name, trees);
    Fix(fixed.study.mutable_task()->mutable_train(), k, TrainKnobDefault(k));
    st = ValidateStudy(&fixed);
    EXPECT_TRUE(st.ok()) << st.message();
  }
}

TEST(TrainKnobsTest, ValidationAcceptsEveryWord) {
  for (const auto& k : TrainKnobs()) {
    for (auto w : k.words) {
      SCOPED_TRACE(std::string(k.name) + " " + std::string(w));
      ParsedStudy p = TrainStudy(k.name, k.name == "model" && w == "gbdt");
      pb::Value v;
      v.set_text(std::string(w));
      SearchConstant(&p, k, v);
      Status st = ValidateStudy(&p);
      EXPECT_TRUE(st.ok()) << st.message();
    }
  }
}

TEST(TrainKnobsTest, ValidationRejectsValuesOutsideTheRangeOrWords) {
  int checked = 0;
  for (const auto& k : TrainKnobs()) {
    for (const pb::Value& bad : BadValues(k)) {
      SCOPED_TRACE(std::string(k.name) + " = " + ValueToString(bad));
      ParsedStudy searched = TrainStudy();
      SearchConstant(&searched, k, bad);
      Status st = ValidateStudy(&searched);
      ASSERT_FALSE(st.ok());
      if (k.not_searched.empty())  // else refused as a parameter at all (above)
        EXPECT_NE(st.message().find("parameters." + std::string(k.name) + ".value: "),
                  std::string::npos)
            << st.message();

      double d = 0;
      if (k.name == "seed" && ValueAsDouble(bad, &d) && d < 0) continue;  // unsigned field
      ParsedStudy fixed = TrainStudy(k.name);
      Fix(fixed.study.mutable_task()->mutable_train(), k, bad);
      st = ValidateStudy(&fixed);
      ASSERT_FALSE(st.ok());
      EXPECT_NE(st.message().find("task.train." + std::string(k.name) + ": "), std::string::npos)
          << st.message();
      ++checked;
    }
    if (k.type == KnobType::kBool) {
      ParsedStudy p = TrainStudy();
      pb::Value word;
      word.set_text("yes");
      SearchConstant(&p, k, word);
      Status st = ValidateStudy(&p);
      EXPECT_NE(st.message().find("must be true or false"), std::string::npos) << st.message();
    }
  }
  EXPECT_GT(checked, 20);
}

Result<nn::TrainConfig> Config(const pb::Assign& a) {
  TrialSetup setup;
  return TrainConfigFor(a, &setup);
}

double Default(std::string_view name) { return FindTrainKnob(name)->default_number; }

TEST(TrainKnobsTest, TheTrainTaskUsesTheTableDefaults) {
  pb::Assign a;
  a.mutable_task()->mutable_train();
  a.set_seed(7);
  TrialSetup setup;
  setup.threads = -1;
  auto c = TrainConfigFor(a, &setup);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->model, FindTrainKnob("model")->default_word);
  EXPECT_EQ(c->epochs, Default("epochs"));
  EXPECT_EQ(c->batch_size, Default("batch_size"));
  EXPECT_FLOAT_EQ(c->lr, static_cast<float>(Default("lr")));
  EXPECT_EQ(c->optimizer.kind, nn::OptimizerKind::kSgd);
  EXPECT_FLOAT_EQ(c->optimizer.momentum, static_cast<float>(Default("momentum")));
  EXPECT_EQ(c->optimizer.nesterov, Default("nesterov") != 0);
  EXPECT_FLOAT_EQ(c->optimizer.weight_decay, static_cast<float>(Default("weight_decay")));
  EXPECT_FLOAT_EQ(c->warmup_epochs, static_cast<float>(Default("warmup_epochs")));
  EXPECT_EQ(c->hidden_layers, Default("hidden_layers"));
  EXPECT_EQ(c->hidden_units, Default("hidden_units"));
  EXPECT_FLOAT_EQ(c->dropout, static_cast<float>(Default("dropout")));
  EXPECT_EQ(c->batch_norm, Default("batch_norm") != 0);
  EXPECT_EQ(c->conv_blocks, Default("conv_blocks"));
  EXPECT_EQ(c->channels, Default("channels"));
  EXPECT_EQ(c->kernel_size, Default("kernel_size"));
  EXPECT_EQ(c->dense_units, Default("dense_units"));
  EXPECT_EQ(setup.validation, -1);  // unset: the data's default, nn::DefaultValidation
  EXPECT_EQ(setup.folds, Default("folds"));
  EXPECT_EQ(setup.threads, Default("threads"));
  EXPECT_EQ(c->seed, 7u);  // the trial's seed
  EXPECT_EQ(setup.data.idx_dir, nn::kDefaultFashionMnistDir);
  EXPECT_EQ(setup.data.problem, nn::Problem::kClassification);
  // The nn defaults agree with the table.
  nn::TrainConfig n;
  EXPECT_EQ(c->model, n.model);
  EXPECT_EQ(c->epochs, n.epochs);
  EXPECT_EQ(c->batch_size, n.batch_size);
  EXPECT_FLOAT_EQ(c->lr, n.lr);
  EXPECT_FLOAT_EQ(c->optimizer.momentum, n.optimizer.momentum);
  EXPECT_EQ(c->lr_schedule, n.lr_schedule);
  EXPECT_EQ(c->hidden_layers, n.hidden_layers);
  EXPECT_EQ(c->hidden_units, n.hidden_units);
  EXPECT_EQ(c->conv_blocks, n.conv_blocks);
  EXPECT_EQ(c->channels, n.channels);
  EXPECT_EQ(c->kernel_size, n.kernel_size);
  EXPECT_EQ(c->max_pool, n.max_pool);
  EXPECT_EQ(c->dense_units, n.dense_units);
  EXPECT_EQ(c->activation, n.activation);
  EXPECT_EQ(c->augment, n.augment);
  EXPECT_EQ(c->init, n.init);
  // Adam's default momentum is 0 (the table's default is sgd's).
  pb::Assign adam = a;
  adam.mutable_task()->mutable_train()->set_optimizer("adam");
  auto ca = Config(adam);
  ASSERT_TRUE(ca.ok());
  EXPECT_EQ(ca->optimizer.momentum, 0.0f);
}

TEST(TrainKnobsTest, TheTrainTaskGivesEveryWordAMeaning) {
  for (const auto& k : TrainKnobs()) {
    for (auto w : k.words) {
      SCOPED_TRACE(std::string(k.name) + " " + std::string(w));
      pb::Assign a;
      a.mutable_task()->mutable_train();
      auto* p = a.add_params();
      p->set_name(std::string(k.name));
      p->mutable_value()->set_text(std::string(w));
      auto c = Config(a);
      EXPECT_TRUE(c.ok()) << c.status().message();
    }
  }
}

// PBT over a train study of networks that searches every knob but epochs
// (the resource) and the trees' own.
TEST(TrainKnobsTest, PbtNeverPerturbsAKnobThatShapesTheModel) {
  std::string yaml =
      "name: t\nobjective: {metric: val_loss, goal: minimize}\n"
      "task: {train: {epochs: 4}}\n"
      "algorithm: {type: pbt, pbt: {population: 8, perturbation_interval: 1, "
      "resample_prob: 0.5}}\nparameters:\n";
  for (const auto& k : TrainKnobs()) {
    if (k.name == "epochs" || k.models == kTrees || !k.not_searched.empty()) continue;
    std::string line = "  " + std::string(k.name) + ": ";
    if (k.type == KnobType::kWord && !k.words.empty()) {
      std::string list;
      // Trees need a table, and this study searches the IDX data sets; a
      // linear model would need the layers' knobs to hang from model: mlp.
      for (auto w : k.words)
        if (w != "gbdt" && w != "linear") list += (list.empty() ? "" : ", ") + std::string(w);
      line += "{type: categorical, values: [" + list + "]}";
    } else if (k.type == KnobType::kWord) {
      line += "{type: categorical, values: [/a, /b, /c]}";
    } else if (k.type == KnobType::kBool) {
      line += "{type: categorical, values: [true, false]}";
    } else if (k.name == "kernel_size") {
      line += "{type: categorical, values: [1, 3, 5]}";
    } else if (k.type == KnobType::kInt) {
      line += "{type: int, min: " + std::to_string(static_cast<int64_t>(k.min)) +
              ", max: " + std::to_string(static_cast<int64_t>(k.min) + 3) + "}";
    } else {
      line += "{type: float, min: " + ValueToString(NumberValue(k.min + 0.001)) +
              ", max: " + ValueToString(NumberValue(k.min + 0.5)) + "}";
    }
    yaml += line + "\n";
  }
  auto p = ParseStudyYaml(yaml, "t.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  ASSERT_TRUE(st.ok()) << st.message() << "\n" << yaml;
  auto space = SearchSpace::Create(p->study);
  ASSERT_TRUE(space.ok());
  auto s = MakeScheduler(p->study, *space, 0, 0);
  std::map<int64_t, pb::ParamSet> params;
  std::set<int64_t> members;
  while (auto t = s->NextTrial()) {
    params[t->number] = t->params;
    members.insert(t->number);
  }
  ASSERT_EQ(members.size(), 8u);
  int children = 0, explored = 0;
  for (int64_t step = 1; step < 4; ++step) {
    double v = 1;
    std::set<int64_t> next = members;
    std::vector<Replacement> replacements;
    for (int64_t n : members) {
      s->OnCheckpoint(n, step);
      Action a = s->OnReport(n, step, v++);
      if (EndsTrial(a.decision)) next.erase(n);
      if (a.replacement) replacements.push_back(*a.replacement);
    }
    for (const auto& d : s->TakeDirectives()) {
      if (EndsTrial(d.action.decision)) next.erase(d.number);
      if (d.action.replacement) replacements.push_back(*d.action.replacement);
    }
    for (const Replacement& r : replacements) {
      const TrialSpec& child = r.trial;
      ASSERT_TRUE(params.count(child.parent));
      const pb::ParamSet& parent = params[child.parent];
      for (const auto& cp : child.params.params()) {
        const TrainKnob* k = FindTrainKnob(cp.name());
        ASSERT_NE(k, nullptr);
        const pb::ParamValue* pp = nullptr;
        for (const auto& x : parent.params())
          if (x.name() == cp.name()) pp = &x;
        ASSERT_NE(pp, nullptr);
        bool same = ValuesEqual(pp->value(), cp.value());
        if (k->inherited) {
          EXPECT_TRUE(same) << cp.name() << " " << ValueToString(pp->value()) << " -> "
                            << ValueToString(cp.value());
        }
        if (!same) ++explored;
      }
      params[child.number] = child.params;
      next.insert(child.number);
      ++children;
    }
    members = next;
  }
  EXPECT_GT(children, 0);
  EXPECT_GT(explored, 0);  // the other knobs do move
}

// docs/train.md lists every knob with the table's default (where the default
// is a plain value) and every metric the train task reports.
TEST(TrainKnobsTest, TheDocsAgreeWithTheTables) {
  std::ifstream in(std::string(SWEEP_SOURCE_DIR) + "/docs/train.md");
  ASSERT_TRUE(in) << "docs/train.md";
  std::stringstream buf;
  buf << in.rdbuf();
  std::string doc = buf.str();
  for (const auto& k : TrainKnobs()) {
    SCOPED_TRACE(std::string(k.name));
    std::string cell = "| `" + std::string(k.name) + "` | ";
    size_t at = doc.find(cell);
    ASSERT_NE(at, std::string::npos);
    if (!k.default_note.empty()) continue;
    size_t from = at + cell.size();
    std::string def = doc.substr(from, doc.find(" |", from) - from);
    std::string want = k.type == KnobType::kWord   ? std::string(k.default_word)
                       : k.type == KnobType::kBool ? (k.default_number ? "true" : "false")
                                                   : FormatDouble(k.default_number);
    EXPECT_EQ(def, want);
  }
  pb::Task train;
  train.mutable_train();
  for (const char* problem : {"classification", "regression"}) {
    train.mutable_train()->set_problem(problem);
    for (const auto& m : MetricsOfTask(train))
      EXPECT_NE(doc.find("`" + m + "`"), std::string::npos) << m;
  }
}

TEST(TaskSchemaTest, SyntheticInputsAreCheckedByValidation) {
  for (const auto& f : SyntheticFunctions()) {
    SCOPED_TRACE(std::string(f.name));
    for (int n : {f.inputs, f.inputs - 1}) {
      if (n < 1) continue;
      // Functions of several objectives report f1, f2, ...
      std::string objective = f.objectives > 1
                                  ? "objectives: [{metric: f1, goal: minimize}, {metric: f2, "
                                    "goal: minimize}]\n"
                                  : "objective: {metric: value, goal: minimize}\n";
      std::string yaml = "name: t\n" + objective +
                         "task: {synthetic: {function: " + std::string(f.name) +
                         "}}\nalgorithm: {type: random, max_trials: 1}\nparameters:\n";
      for (int i = 1; i <= n; ++i)
        yaml += "  x" + std::to_string(i) + ": {type: float, min: 0, max: 1}\n";
      auto p = ParseStudyYaml(yaml, "t.yaml");
      ASSERT_TRUE(p.ok()) << p.status().message();
      Status st = ValidateStudy(&*p);
      EXPECT_EQ(st.ok(), n == f.inputs) << st.message();
    }
  }
}

TEST(TaskSchemaTest, MetricsPerTask) {
  pb::Task synthetic, train, none;
  synthetic.mutable_synthetic();
  train.mutable_train();
  EXPECT_EQ(MetricsOfTask(synthetic), std::vector<std::string>{"value"});
  EXPECT_EQ(MetricsOfTask(train),
            (std::vector<std::string>{"train_loss", "val_loss", "val_accuracy", "val_f1",
                                      "samples_per_s", "epoch_seconds", "cpu_threads", "test_loss",
                                      "test_accuracy", "test_f1"}));
  pb::Task regression = train;
  regression.mutable_train()->set_problem("regression");
  EXPECT_EQ(MetricsOfTask(regression),
            (std::vector<std::string>{"train_loss", "val_loss", "val_rmse", "val_mae", "val_r2",
                                      "samples_per_s", "epoch_seconds", "cpu_threads", "test_loss",
                                      "test_rmse", "test_mae", "test_r2"}));
  EXPECT_TRUE(MetricsOfTask(none).empty());
  EXPECT_EQ(TaskMetrics(train), MetricsOfTask(train));
}

}  // namespace
}  // namespace sweep
