// Text from a study file or a runner, escape sequences included, reaches the
// terminal escaped from every command that prints it (issue 10, finding 8):
// a real study whose name and parameter values carry ESC runs to completion,
// a real runner joins under a name with ESC, and every table, CSV, `why`
// and `validate` output shows \x1b instead; a bidirectional-text control
// (U+202E) shows as \u202e.
#include <gtest/gtest.h>

#include "e2e/harness.h"

namespace sweep::e2e {
namespace {

TEST(E2eEscapeTest, RunnerAndStudyTextIsEscapedInEveryTextOutput) {
  TempDir dir;
  // YAML "\e" is ESC; "\x9b" is U+009B (C1 CSI).
  std::string study =
      dir.Write("s.yaml",
                "name: evil\nobjective: {metric: value, goal: minimize}\n"
                "task: {synthetic: {function: curve, steps: 2}}\n"
                "algorithm: {type: random, max_trials: 3}\nseed: 1\nparameters:\n"
                "  x1: {type: float, min: 0, max: 1}\n"
                "  color: {type: categorical, values: [\"\\e[31mred\", \"\\x9bblue\"]}\n");
  std::string db = dir.File("r.db");
  std::string endpoint = "ipc://" + dir.File("t.sock");
  Keys keys(dir, {"esc"});
  Process tuner(Concat({"run", study, "--db", db, "--bind", endpoint, "--local-runners", "0",
                        "--progress", "plain"},
                       keys.TunerArgs()),
                dir.File("t.log"));
  Process runner(
      Concat({"runner", "--connect", endpoint, "--name", "r\x1b[2J", "--give-up-after", "30"},
             keys.RunnerArgs("esc")),
      dir.File("r.log"));
  ASSERT_EQ(tuner.Wait(60000), 0) << tuner.Log() << runner.Log();
  ASSERT_EQ(QueryInt(db, "SELECT count(*) FROM trials WHERE runner = 'r' || char(27) || '[2J'"), 3)
      << tuner.Log();
  // A study file may not name a study with control characters (validation
  // refuses them), but a database written elsewhere may hold anything.
  // U+202E (right-to-left override) reorders what follows it on screen.
  ExecSql(db,
          "UPDATE studies SET name = 'evil' || char(27) || ']0;owned' || char(7) || char(8238) "
          "|| 'exe.txt'");
  std::vector<std::vector<std::string>> commands = {
      {"studies"},
      {"studies", "--format", "csv"},
      {"trials"},
      {"trials", "--format", "csv"},
      {"best"},
      {"export", "--format", "csv"},
      {"why", "0"},
      {"query", "SELECT runner, params, name FROM trials JOIN studies ON studies.id = study_id"},
      {"query", "SELECT runner AS \"col\x1b[1m\" FROM trials", "--format", "csv"},
      {"trials", "--format", "json"},
  };
  for (auto args : commands) {
    args.push_back("--db");
    args.push_back(db);
    std::string out;
    ASSERT_EQ(RunSweep(args, &out), 0) << args[0] << ": " << out;
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << args[0] << ": " << out;
    EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos) << args[0] << ": " << out;
    EXPECT_EQ(out.find("\xe2\x80\xae"), std::string::npos) << args[0] << ": " << out;
    // Every command shows some of the text, escaped (which values the trials
    // drew depends on the seed).
    EXPECT_TRUE(
        out.find("\\x1b") != std::string::npos || out.find("\\xc2\\x9b") != std::string::npos ||
        out.find("\\u001b") != std::string::npos || out.find("\\u009b") != std::string::npos)
        << args[0] << ": " << out;
  }
  std::string out;
  ASSERT_EQ(RunSweep({"validate", study}, &out), 0) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  EXPECT_NE(out.find("\\x1b[31mred"), std::string::npos) << out;
  EXPECT_NE(out.find("\\xc2\\x9bblue"), std::string::npos) << out;
}

}  // namespace
}  // namespace sweep::e2e
