// Study parsing and validation: the accepted examples, the three syntaxes,
// and a corpus of malformed studies with their exact errors and locations.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "search_spaces/space.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

const std::string kDir = std::string(SWEEP_SOURCE_DIR) + "/tests/search_spaces/";

Result<pb::Study> Load(const std::string& path) {
  ASSIGN_OR_RETURN(ParsedStudy p, LoadStudyFile(path));
  RETURN_IF_ERROR(ValidateStudy(&p));
  return p.study;
}

TEST(ParserTest, AcceptsTheExampleStudiesAsWritten) {
  for (const char* name :
       {"branin_random.yaml", "grid_4x5.yaml", "branin_tpe.yaml", "hartmann6_auto.yaml"}) {
    auto s = Load(std::string(SWEEP_SOURCE_DIR) + "/examples/" + name);
    ASSERT_TRUE(s.ok()) << name << ": " << s.status().message();
  }
  auto grid = Load(std::string(SWEEP_SOURCE_DIR) + "/examples/grid_4x5.yaml");
  EXPECT_EQ(grid->name(), "grid-4x5");
  EXPECT_EQ(grid->parameters_size(), 4);
  const pb::Parameter& m = grid->parameters(3);
  EXPECT_EQ(m.name(), "momentum");
  ASSERT_EQ(m.when_size(), 1);
  EXPECT_EQ(m.when(0).parent(), "optimizer");
  EXPECT_EQ(m.when(0).values(0).text(), "sgd");
  EXPECT_EQ(grid->parameters(0).values(0).number(), -1.5);
  auto branin = Load(std::string(SWEEP_SOURCE_DIR) + "/examples/branin_random.yaml");
  EXPECT_EQ(branin->seed(), 7u);
  EXPECT_EQ(branin->algorithm().max_concurrent(), 4);
}

TEST(ParserTest, YamlJsonAndTextFormatGiveTheSameStudy) {
  auto yaml = Load(std::string(SWEEP_SOURCE_DIR) + "/examples/grid_4x5.yaml");
  auto json = Load(kDir + "good_studies/grid_4x5.json");
  auto text = Load(kDir + "good_studies/grid_4x5.pbtxt");
  ASSERT_TRUE(yaml.ok()) << yaml.status().message();
  ASSERT_TRUE(json.ok()) << json.status().message();
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*yaml, *json));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*yaml, *text));
}

TEST(ParserTest, TextFormatErrorsCarryLocations) {
  auto r = ParseStudyTextProto(
      "name: \"t\"\nobjective { metric: \"value\" goal: GOAL_MINIMIZE }\nbogus: 1\n", "s.pbtxt");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("s.pbtxt:3:"), std::string::npos) << r.status().message();
}

TEST(ParserTest, ValuesKeepTheirTypes) {
  auto p = ParseStudyYaml(
      "parameters:\n  c: {type: categorical, values: [64, 0.5, true, adam, \"7\"]}\n", "v.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  const auto& v = p->study.parameters(0).values();
  EXPECT_EQ(v[0].kind_case(), pb::Value::kInteger);
  EXPECT_EQ(v[1].kind_case(), pb::Value::kNumber);
  EXPECT_EQ(v[2].kind_case(), pb::Value::kFlag);
  EXPECT_EQ(v[3].kind_case(), pb::Value::kText);
  EXPECT_EQ(v[4].kind_case(), pb::Value::kText);
}

TEST(ParserTest, ADuplicateOrUnknownKeyHidesNoOtherError) {
  // Four mistakes: a duplicate parameter, an unknown key, a bad range and
  // a bad step. Before, the duplicate alone was reported.
  auto p = ParseStudyYaml(
      "objective: {metric: value, goal: minimize}\ntask: {synthetic: {function: curve}}\n"
      "algorithm: {type: random, max_trials: 3}\nparameters:\n"
      "  x1: {type: float, min: 1, max: 0}\n  x2: {type: int, min: 0, max: 4, step: 3}\n"
      "  x1: {type: float, min: 0, max: 1}\n  x3: {type: float, mni: 0, max: 1}\n",
      "four.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  ASSERT_FALSE(st.ok());
  for (const char* want :
       {"four.yaml:7:3: parameters.x1: duplicate name 'x1'",
        "four.yaml:8:21: parameters.x3.mni: unknown key 'mni'", "four.yaml:5:26: parameters.x1.min",
        "four.yaml:6:41: parameters.x2.step"})
    EXPECT_NE(st.message().find(want), std::string::npos) << want << "\n" << st.message();
}

TEST(ParserTest, ReportsEveryProblemNotJustTheFirst) {
  auto p = ParseStudyYaml(
      "objective: {metric: value, goal: minimize}\ntask: {synthetic: {function: curve}}\n"
      "algorithm: {type: random, max_trials: 3}\nparameters:\n"
      "  x1: {type: float, min: 1, max: 0}\n  x2: {type: int, min: 0, max: 4, step: 3}\n",
      "multi.yaml");
  ASSERT_TRUE(p.ok());
  Status st = ValidateStudy(&*p);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("multi.yaml:5:26: parameters.x1.min"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("multi.yaml:6:41: parameters.x2.step"), std::string::npos)
      << st.message();
}

// A wrong word or type no longer stops the reader: every mistake in the file
// comes back in one run, each with the nearest valid word, and none is
// reported a second time as a missing field.
TEST(ParserTest, WrongValuesAreAllReportedWithTheNearestWord) {
  auto p = ParseStudyYaml(
      "objective: {metric: val_accuracy, goal: maximise}\n"
      "task: {command: {argv: [python3, fit.py, \"{alhpa}\"]}}\n"
      "algorithm: {type: randon, max_trials: 2.5}\n"
      "paramters: {}\n"
      "parameters:\n"
      "  alpha: {type: flaot, min: 0, max: 1}\n"
      "  l1_ratio: {type: float, min: 0, max: 1, when: {alpah: 3}}\n",
      "all.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  ASSERT_FALSE(st.ok());
  const std::string& m = st.message();
  for (const char* want :
       {"all.yaml:1:41: objective.goal: unknown value 'maximise'; did you mean 'maximize'? "
        "(expected one of: minimize, maximize)",
        "all.yaml:3:19: algorithm.type: unknown value 'randon'; did you mean 'random'?",
        "all.yaml:3:39: algorithm.max_trials: expected an integer, got '2.5'",
        "all.yaml:4:1: paramters: unknown key 'paramters'; did you mean 'parameters'?",
        "all.yaml:6:17: parameters.alpha.type: unknown value 'flaot'; did you mean 'float'?",
        "'{alhpa}' is not a parameter of the study (did you mean 'alpha'?); its parameters are "
        "alpha, l1_ratio",
        "parameters.l1_ratio.when.alpah: condition names a missing parameter 'alpah'; did you "
        "mean 'alpha'?"})
    EXPECT_NE(m.find(want), std::string::npos) << want << "\n" << m;
  // The refused fields are not reported again as missing.
  EXPECT_EQ(m.find("objective.goal: is required"), std::string::npos) << m;
  EXPECT_EQ(m.find("algorithm.type: is required"), std::string::npos) << m;
  EXPECT_EQ(m.find("parameters.alpha.type: is required"), std::string::npos) << m;
  EXPECT_EQ(std::count(m.begin(), m.end(), '\n'), 6) << m;  // seven errors, one a line
}

// A misspelt key is named once: the key it meant is not also "required".
TEST(ParserTest, AMisspeltKeyIsNotAlsoMissing) {
  auto p = ParseStudyYaml(
      "objectve: {metric: value, goal: minimize}\ntask: {synthetic: {function: curve}}\n"
      "algorithm: {type: random, max_trials: 3}\nparameters: {x1: {type: float, min: 0, max: 1}}\n",
      "key.yaml");
  ASSERT_TRUE(p.ok()) << p.status().message();
  Status st = ValidateStudy(&*p);
  EXPECT_EQ(st.message(),
            "key.yaml:1:1: objectve: unknown key 'objectve'; did you mean 'objective'?");
}

TEST(ParserTest, MalformedCorpusGivesExpectedErrorsAndLocations) {
  std::ifstream expected(kDir + "bad_studies_expected.txt");
  std::string line;
  int cases = 0;
  while (std::getline(expected, line)) {
    size_t bar = line.find('|');
    ASSERT_NE(bar, std::string::npos) << line;
    std::string name = line.substr(0, bar), want = line.substr(bar + 1);
    std::string file = kDir + "bad_studies/" + name + ".yaml";
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    auto r = Load(file);
    ASSERT_FALSE(r.ok()) << name << " was accepted";
    std::string first = r.status().message().substr(0, r.status().message().find('\n'));
    EXPECT_EQ(first, file + want) << name;
    ++cases;
  }
  EXPECT_GE(cases, 30);
  // Every file in the corpus has an expectation.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kDir + "bad_studies"))
    files += e.path().extension() == ".yaml";
  EXPECT_EQ(files, cases);
}

}  // namespace
}  // namespace sweep
