// cli/format: aligned tables, CSV and JSON of query rows and of trials.
#include "cli/format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "cli/trials_table.h"
#include "common/json.h"
#include "common/values.h"

namespace sweep {
namespace {

TEST(ParseFormatTest, KnowsTheThreeFormatsAndRefusesOthers) {
  ASSERT_TRUE(ParseFormat("table").ok());
  EXPECT_EQ(*ParseFormat("table"), Format::kTable);
  EXPECT_EQ(*ParseFormat("csv"), Format::kCsv);
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  auto bad = ParseFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find("'xml'"), std::string::npos) << bad.status().message();
}

Table Sample() {
  Table t;
  t.columns = {"id", "name", "value"};
  t.rows.push_back({int64_t{1}, std::string("a,b"), 0.5});
  t.rows.push_back({int64_t{12}, std::string("say \"hi\""), Cell()});
  t.rows.push_back({int64_t{3}, std::string("x"), 3.14159265358979});
  return t;
}

// Headers are left-aligned; numbers are right-aligned on their decimal
// points, in 6 significant digits; no line ends in spaces.
TEST(FormatRowsTest, TableAlignsNumbersRightAndTextLeft) {
  EXPECT_EQ(FormatRows(Sample(), Format::kTable),
            "id  name      value\n"
            " 1  a,b       0.5\n"
            "12  say \"hi\"\n"
            " 3  x         3.14159\n");
}

// One rule for people: 6 significant digits (every digit before the point
// kept), one notation per column (scientific only when a value is too
// small or large for fixed), points lined up (issue 16).
TEST(FormatRowsTest, NumbersInAColumnShareOneNotationAndLineUpOnTheirPoints) {
  Table t;
  t.columns = {"x", "y", "n"};
  t.rows = {{5.87756e-05, 1e-9, int64_t{7}},
            {0.030264, 2.5, int64_t{1234}},
            {1234567.891, Cell(), int64_t{-3}}};
  EXPECT_EQ(FormatRows(t, Format::kTable),
            "x                   y        n\n"
            "      0.0000587756    1e-09     7\n"
            "      0.030264      2.5e+00  1234\n"
            "1234568                        -3\n");
  // CSV and JSON keep the shortest round-trip text of each number.
  EXPECT_EQ(FormatRows(t, Format::kCsv),
            "x,y,n\n5.87756e-05,1e-09,7\n0.030264,2.5,1234\n1234567.891,,-3\n");
}

TEST(FormatRowsTest, UnixTimesInAtColumnsAreShownAsLocalTimes) {
  setenv("TZ", "UTC", 1);
  tzset();
  Table t;
  t.columns = {"at", "started_at", "value_at", "x"};
  t.rows = {{1796185213.83, int64_t{1796185273}, 5.0, 1796185213.83}};
  // `value_at` holds no time (5 is 1970): a number; `x` is not named as one.
  EXPECT_EQ(FormatRows(t, Format::kTable),
            "at                   started_at           value_at  x\n"
            "2026-12-02 04:20:13  2026-12-02 04:21:13         5  1796185214\n");
  EXPECT_EQ(FormatRows(t, Format::kCsv),
            "at,started_at,value_at,x\n1796185213.83,1796185273,5,1796185213.83\n");
}

TEST(HumanDurationTest, SecondsMinutesAndHours) {
  EXPECT_EQ(HumanDuration(0.25), "0.25s");
  EXPECT_EQ(HumanDuration(12.34), "12.3s");
  EXPECT_EQ(HumanDuration(245), "4m05s");
  EXPECT_EQ(HumanDuration(7380), "2h03m");
}

TEST(FormatRowsTest, TableSaysWhenThereAreNoRows) {
  Table t;
  t.columns = {"id", "value"};
  EXPECT_EQ(FormatRows(t, Format::kTable), "id  value\n(no rows)\n");
}

TEST(FormatRowsTest, TableCutsLongTextAtSixtyCharacters) {
  Table t;
  t.columns = {"detail"};
  t.rows.push_back({std::string(80, 'x')});
  EXPECT_EQ(FormatRows(t, Format::kTable), "detail\n" + std::string(57, 'x') + "...\n");
}

TEST(FormatRowsTest, CsvQuotesWhatNeedsItAndKeepsFullPrecision) {
  EXPECT_EQ(FormatRows(Sample(), Format::kCsv),
            "id,name,value\n"
            "1,\"a,b\",0.5\n"
            "12,\"say \"\"hi\"\"\",\n"
            "3,x,3.14159265358979\n");
}

TEST(FormatRowsTest, CsvQuotesHeadersAndLineBreaks) {
  Table t;
  t.columns = {"a,b"};
  t.rows.push_back({std::string("two\nlines")});
  EXPECT_EQ(FormatRows(t, Format::kCsv), "\"a,b\"\n\"two\nlines\"\n");
}

TEST(FormatRowsTest, JsonIsAnArrayOfObjectsWithNulls) {
  EXPECT_EQ(FormatRows(Sample(), Format::kJson),
            "[{\"id\": 1, \"name\": \"a,b\", \"value\": 0.5},\n"
            " {\"id\": 12, \"name\": \"say \\\"hi\\\"\", \"value\": null},\n"
            " {\"id\": 3, \"name\": \"x\", \"value\": 3.14159265358979}]\n");
  Table empty;
  empty.columns = {"id"};
  EXPECT_EQ(FormatRows(empty, Format::kJson), "[]\n");
}

TrialView Trial(int64_t id, const std::string& status, std::optional<double> value, double lr) {
  TrialView t;
  t.id = id;
  t.number = id - 1;
  t.status = *ParseTrialStatus(status);
  auto* p = t.params.add_params();
  p->set_name("lr");
  *p->mutable_value() = NumberValue(lr);
  auto* q = t.params.add_params();
  q->set_name("layers");
  *q->mutable_value() = IntegerValue(2);
  t.value = value;
  if (value) t.step = 9;
  t.attempts = 1;
  return t;
}

TEST(TrialJsonTest, WritesEveryFieldAndNullsForMissingOnes) {
  TrialView t = Trial(3, "completed", 1.25, 0.01);
  t.metrics_json = "{\"loss\": 1.25, \"accuracy\": 0.5}";
  EXPECT_EQ(TrialJson(t),
            "{\"id\": 3, \"status\": \"completed\", \"params\": {\"lr\": 0.01, \"layers\": 2}, "
            "\"value\": 1.25, \"step\": 9, \"attempts\": 1, \"number\": 2, \"failure\": null, "
            "\"metrics\": {\"loss\": 1.25, \"accuracy\": 0.5}, \"parent\": null, "
            "\"parent_number\": null, \"parent_step\": null, \"started_at\": null, "
            "\"ended_at\": null}");
  TrialView f = Trial(4, "failed", std::nullopt, 0.1);
  f.failure = "runner lost: \"r1\"";
  f.parent = 3;
  f.parent_number = 2;
  f.parent_step = 4;
  f.started_at = 1796185213.5;
  f.ended_at = 1796185214.25;
  EXPECT_EQ(TrialJson(f),
            "{\"id\": 4, \"status\": \"failed\", \"params\": {\"lr\": 0.1, \"layers\": 2}, "
            "\"value\": null, \"step\": null, \"attempts\": 1, \"number\": 3, \"failure\": "
            "\"runner lost: \\\"r1\\\"\", \"metrics\": null, \"parent\": 3, \"parent_number\": 2, "
            "\"parent_step\": 4, \"started_at\": 1796185213.5, \"ended_at\": 1796185214.25}");
}

// FormatTrials' text, or its error.
std::string Fmt(const std::vector<TrialView>& trials, Format f, const std::string& objective,
                const std::vector<std::string>& params = {}, const TrialColumns& columns = {}) {
  auto out = FormatTrials(trials, f, objective, params, columns);
  return out.ok() ? *out : "error: " + out.status().message();
}

std::vector<TrialView> Trials() {
  std::vector<TrialView> v = {Trial(1, "completed", 0.25, 0.001), Trial(2, "failed", {}, 0.1)};
  v[0].metrics = {{"loss", 0.25}, {"accuracy", 0.875}};
  v[1].failure = "diverged";
  return v;
}

TEST(FormatTrialsTest, TablePutsParamsAndOtherMetricsInColumns) {
  // The objective's column bears its name (CSV and JSON keep `value`); a
  // trial is named by its number.
  // By default: no start and end (--columns has them), no attempts while
  // every trial had one.
  EXPECT_EQ(Fmt(Trials(), Format::kTable, "loss"),
            "trial  status     loss  step  lr     layers  accuracy  duration  failure\n"
            "    0  completed  0.25     9  0.001       2     0.875\n"
            "    1  failed                 0.1         2                      diverged\n");
  std::vector<TrialView> retried = Trials();
  retried[1].attempts = 2;
  EXPECT_NE(Fmt(retried, Format::kTable, "loss").find("step  attempts  lr"), std::string::npos);
}

// `sweep trials --columns`: these columns in this order, in a table or CSV;
// a name the table lacks is refused with the nearest.
TEST(FormatTrialsTest, ColumnsChooseWhatIsShown) {
  EXPECT_EQ(Fmt(Trials(), Format::kTable, "loss", {}, {{"lr", "trial", "accuracy"}}),
            "lr     trial  accuracy\n"
            "0.001      0     0.875\n"
            "0.1        1\n");
  EXPECT_EQ(Fmt(Trials(), Format::kCsv, "loss", {}, {{"trial", "value", "started_at"}}),
            "trial,value,started_at\n0,0.25,\n1,,\n");
  EXPECT_EQ(Fmt(Trials(), Format::kTable, "loss", {}, {{"trial", "acuracy"}}),
            "error: --columns: no column 'acuracy'; did you mean 'accuracy'? (the columns are "
            "trial, status, loss, step, attempts, lr, layers, accuracy, start, end, duration, "
            "failure)");
  EXPECT_EQ(Fmt(Trials(), Format::kJson, "loss", {}, {{"trial"}}),
            "error: --columns chooses table and CSV columns, not JSON's fields");
}

// On a terminal, the default table drops other metrics, last first, until
// it fits, and says what it left out.
TEST(FormatTrialsTest, TheDefaultTableFitsTheTerminal) {
  std::vector<TrialView> v = Trials();
  v[0].metrics = {{"loss", 0.25},
                  {"accuracy", 0.875},
                  {"test_accuracy", 0.86},
                  {"val_loss_of_the_last_epoch", 0.3}};
  std::string wide = Fmt(v, Format::kTable, "loss");
  EXPECT_NE(wide.find("test_accuracy  val_loss_of_the_last_epoch"), std::string::npos) << wide;
  std::string narrow = Fmt(v, Format::kTable, "loss", {}, {{}, 80});
  EXPECT_EQ(narrow.find("val_loss_of_the_last_epoch  "), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("(2 more columns past the terminal's width: test_accuracy, "
                        "val_loss_of_the_last_epoch; --columns chooses, --format csv has them "
                        "all)"),
            std::string::npos)
      << narrow;
  for (size_t start = 0, end; (end = narrow.find('\n', start)) != std::string::npos;
       start = end + 1) {
    if (narrow.compare(start, 1, "(") != 0) EXPECT_LE(end - start, 80u) << narrow;
  }
}

TEST(FormatTrialsTest, StartEndAndDurationAreTimesForPeopleAndSecondsInCsv) {
  setenv("TZ", "UTC", 1);
  tzset();
  std::vector<TrialView> v = {Trial(1, "completed", 0.25, 0.001), Trial(2, "completed", 0.5, 0.1)};
  v[0].started_at = 1796185213.5;
  v[0].ended_at = 1796185458.5;       // 4m05s later, the same day
  v[1].started_at = 1796256000 - 10;  // 23:59:50
  v[1].ended_at = 1796256000 + 2.25;  // 00:00:02.25 the next day
  std::string table =
      Fmt(v, Format::kTable, "loss", {}, {{"trial", "loss", "start", "end", "duration"}});
  EXPECT_NE(table.find("2026-12-02 04:20:13  04:24:18                4m05s"), std::string::npos)
      << table;
  EXPECT_NE(table.find("2026-12-02 23:59:50  2026-12-03 00:00:02     12.2s"), std::string::npos)
      << table;
  EXPECT_EQ(Fmt(v, Format::kCsv, "loss"),
            "trial,status,value,step,attempts,lr,layers,started_at,ended_at,duration_s,failure,id\n"
            "0,completed,0.25,9,1,0.001,2,1796185213.5,1796185458.5,245,,1\n"
            "1,completed,0.5,9,1,0.1,2,1796255990,1796256002.25,12.25,,2\n");
}

TEST(FormatTrialsTest, CsvHasTheSameColumns) {
  EXPECT_EQ(Fmt(Trials(), Format::kCsv, "loss"),
            "trial,status,value,step,attempts,lr,layers,accuracy,started_at,ended_at,duration_s,"
            "failure,id\n"
            "0,completed,0.25,9,1,0.001,2,0.875,,,,,1\n"
            "1,failed,,,1,0.1,2,,,,,diverged,2\n");
}

TEST(FormatTrialsTest, ColumnsFollowTheStudysParametersWhicheverRowsAreShown) {
  // `momentum` is conditional and no row shown has it: its column is there.
  EXPECT_EQ(Fmt(Trials(), Format::kCsv, "loss", {"layers", "momentum", "lr"}),
            "trial,status,value,step,attempts,layers,momentum,lr,accuracy,started_at,ended_at,"
            "duration_s,failure,id\n"
            "0,completed,0.25,9,1,2,,0.001,0.875,,,,,1\n"
            "1,failed,,,1,2,,0.1,,,,,diverged,2\n");
  EXPECT_EQ(
      Fmt({}, Format::kCsv, "loss", {"layers", "lr"}),
      "trial,status,value,step,attempts,layers,lr,started_at,ended_at,duration_s,failure,id\n");
}

TEST(FormatRowsTest, TableColumnsLineUpByDisplayWidthNotBytes) {
  Table t;
  t.columns = {"name", "n"};
  t.rows = {{std::string("naïve"), int64_t{1}},
            {std::string("学习率"), int64_t{22}},
            {std::string("plain"), int64_t{3}}};
  EXPECT_EQ(FormatRows(t, Format::kTable),
            "name    n\n"
            "naïve    1\n"
            "学习率  22\n"
            "plain    3\n");
  // A long cell is cut on a whole character.
  Table u;
  u.columns = {"x"};
  u.rows = {{std::string(56, 'a') + "éééééé"}};  // 62 columns, 68 bytes
  EXPECT_EQ(FormatRows(u, Format::kTable).substr(2), std::string(56, 'a') + "é...\n");
}

TEST(FormatTrialsTest, AParentColumnAppearsOnlyWithLineage) {
  std::vector<TrialView> v = Trials();
  v[1].parent = 1;
  v[1].parent_number = 0;
  v[1].parent_step = 3;
  // The parent by its number, as every trial is named.
  EXPECT_EQ(Fmt(v, Format::kCsv, "loss"),
            "trial,status,value,step,attempts,parent_number,lr,layers,accuracy,started_at,ended_at,"
            "duration_s,failure,id\n"
            "0,completed,0.25,9,1,,0.001,2,0.875,,,,,1\n"
            "1,failed,,,1,0,0.1,2,,,,,diverged,2\n");
}

TEST(FormatTrialsTest, JsonIsAnArrayOfTrialJson) {
  std::vector<TrialView> v = Trials();
  EXPECT_EQ(Fmt(v, Format::kJson, "loss"),
            "[" + TrialJson(v[0]) + ",\n " + TrialJson(v[1]) + "]\n");
  EXPECT_EQ(Fmt({}, Format::kJson, "loss"), "[]\n");
}

TEST(FormatTrialsTest, NoTrialsIsAnEmptyTable) {
  EXPECT_EQ(Fmt({}, Format::kTable, "loss"),
            "trial  status  loss  step  duration  failure\n(no rows)\n");
}

// Text from a runner or a study file reaches no terminal raw (issue 10).
TEST(EscapeControlTest, ControlCharactersBecomeHexAndTheRestIsUnchanged) {
  EXPECT_EQ(EscapeControl("\x1b[2Jred\x1b[0m"), "\\x1b[2Jred\\x1b[0m");
  EXPECT_EQ(EscapeControl(std::string("a\0b\tc\nd\re\x7f", 10)), "a\\x00b\\x09c\\x0ad\\x0de\\x7f");
  EXPECT_EQ(EscapeControl("\xc2\x9b"
                          "31m"),
            "\\xc2\\x9b31m");  // C1 CSI in UTF-8
  EXPECT_EQ(EscapeControl("caf\xc3\xa9 \xc2\xa0 ok"), "caf\xc3\xa9 \xc2\xa0 ok");
  EXPECT_EQ(JsonString("\x1b\x7f\xc2\x9b"), "\"\\u001b\\u007f\\u009b\"");
}

TEST(EscapeControlTest, BidirectionalTextControlsAreEscapedAndOtherPunctuationIsNot) {
  // U+202E (RLO) makes "exe.txt" show as "txt.exe"; U+2066..2069, U+200E/F,
  // U+061C and U+202A..D reorder text the same way.
  EXPECT_EQ(EscapeControl("a\xe2\x80\xaetxt.exe"), "a\\u202etxt.exe");
  EXPECT_EQ(EscapeControl("\xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8e\xe2\x80\x8f \xd8\x9c"
                          "\xe2\x80\xaa"),
            "\\u2066x\\u2069 \\u200e\\u200f \\u061c\\u202a");
  // En dash, ellipsis, arrows: unchanged.
  EXPECT_EQ(EscapeControl("1\xe2\x80\x93"
                          "2 \xe2\x80\xa6 \xe2\x86\x92"),
            "1\xe2\x80\x93"
            "2 \xe2\x80\xa6 \xe2\x86\x92");
  EXPECT_EQ(JsonString("x\xe2\x80\xaey"), "\"x\\u202ey\"");
  EXPECT_EQ(EscapeControl("\xe2\x80"), "\xe2\x80");  // cut short: not one
}

TEST(EscapeControlTest, EveryTableAndCsvCellAndColumnIsEscaped) {
  Table t;
  t.columns = {"id", "na\x1bme"};
  t.rows.push_back({int64_t{1}, std::string("\x1b]0;owned\x07,\n")});
  std::string table = FormatRows(t, Format::kTable);
  std::string csv = FormatRows(t, Format::kCsv);
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
  EXPECT_EQ(csv.find('\x1b'), std::string::npos) << csv;
  // CSV keeps the newline (quoted); a table escapes it too.
  EXPECT_EQ(csv, "id,na\\x1bme\n1,\"\\x1b]0;owned\\x07,\n\"\n");
  EXPECT_NE(table.find("\\x1b]0;owned\\x07,\\x0a"), std::string::npos) << table;
  TrialView v = Trial(5, "failed", std::nullopt, 0.1);
  v.failure = "runner said \x1b[31mno";
  v.metrics = {{"acc\x1b[1m", 0.5}};
  for (Format f : {Format::kTable, Format::kCsv, Format::kJson}) {
    std::string out = Fmt({v}, f, "loss");
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  }
  EXPECT_NE(Fmt({v}, Format::kCsv, "loss").find("runner said \\x1b[31mno"), std::string::npos);
}

// A program's failure in a table is one line: what happened and the last
// line of its stderr, which names the error (a traceback's first lines do
// not); CSV keeps every line.
TEST(FormatTest, AFailureOfSeveralLinesShowsItsLastLineInATable) {
  const std::string failure =
      "the program exited with code 1; last lines of stderr:\n  Traceback (most recent call "
      "last):\n    File \"fit.py\", line 3\n  ValueError: alpha must be > 0\n";
  EXPECT_EQ(FailureLine(failure), "the program exited with code 1: ValueError: alpha must be > 0");
  EXPECT_EQ(FailureLine("objective 'loss' is nan"), "objective 'loss' is nan");
  TrialView v = Trial(5, "failed", std::nullopt, 0.1);
  v.failure = failure;
  std::string table = Fmt({v}, Format::kTable, "loss");
  EXPECT_NE(table.find("exited with code 1: ValueError: alpha must be"), std::string::npos)
      << table;
  EXPECT_EQ(table.find("\\x0a"), std::string::npos) << table;
  EXPECT_NE(Fmt({v}, Format::kCsv, "loss").find("File \"\"fit.py\"\", line 3\n"),
            std::string::npos);
}

}  // namespace
}  // namespace sweep
