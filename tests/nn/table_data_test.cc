// The CSV loader: the reader's dialect (quotes, CRLF, BOM, blank lines,
// whitespace), a corpus of malformed tables each refused with its place
// named, the encoding fitted on the training rows (standardisation, one-hot,
// mean imputation, class order), LoadData's test split and label files, and
// the real iris.csv that scikit-learn ships.
#include "nn/data/table_data.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "nn/data/csv_file.h"
#include "nn/data/data_source.h"

namespace sweep::nn {
namespace {

const double kSd = std::sqrt(1.25);  // the population sd of 1, 2, 3, 4 (mean 2.5)

// Passes when the status is an error whose message contains `text`.
::testing::AssertionResult FailsWith(const Status& s, const std::string& text) {
  if (s.ok()) return ::testing::AssertionFailure() << "succeeded; expected: " << text;
  if (s.message().find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "'" << s.message() << "' lacks '" << text << "'";
  return ::testing::AssertionSuccess();
}
template <typename T>
::testing::AssertionResult FailsWith(const Result<T>& r, const std::string& text) {
  if (r.ok()) return ::testing::AssertionFailure() << "succeeded; expected: " << text;
  return FailsWith(r.status(), text);
}

CsvTable Parse(const std::string& text, const std::string& file = "t.csv", CsvOptions o = {}) {
  auto t = ParseCsv(text, file, o);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : CsvTable{};
}

TableOptions Label(const std::string& label, Problem p = Problem::kClassification,
                   bool impute = false) {
  TableOptions o;
  o.label = label;
  o.problem = p;
  o.impute_mean = impute;
  return o;
}

// Fits on `t` and encodes `t`; the encoding is left in *code.
Examples FitEncode(const CsvTable& t, const TableOptions& o, TableEncoding* code) {
  auto e = FitTable(t, o);
  EXPECT_TRUE(e.ok()) << e.status().message();
  if (!e.ok()) return {};
  *code = *e;
  auto x = EncodeTable(t, *e, o);
  EXPECT_TRUE(x.ok()) << x.status().message();
  return x.ok() ? std::move(x).value() : Examples{};
}

// Files under a per-process folder, removed after each test.
class TableTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  const std::string dir_ = "/tmp/sweep_table_test_" + std::to_string(getpid());
};

TEST_F(TableTest, QuotedFieldsKeepQuotesCommasAndNewlines) {
  CsvTable t = Parse("id,note,y\n1,\"say \"\"hi\"\", ok\",a\n2,\"two\nlines\",b\n3,plain,a\n");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.names, (std::vector<std::string>{"id", "note", "y"}));
  EXPECT_EQ(t.rows[0][1], "say \"hi\", ok");
  EXPECT_EQ(t.rows[1][1], "two\nlines");
  EXPECT_EQ(t.rows[2][1], "plain");
  // The row after a two-line field starts on line 5.
  EXPECT_EQ(t.lines, (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(t.Where(2, 1), "t.csv:5:2");
  EXPECT_EQ(t.column("note"), 1);
  EXPECT_EQ(t.column("nope"), -1);
}

TEST_F(TableTest, CrlfBomBlankLinesAndNoFinalNewline) {
  CsvTable t = Parse(
      "\xEF\xBB\xBF"
      "a,b\r\n1,2\r\n\r\n3,4\r\n");
  EXPECT_EQ(t.names, (std::vector<std::string>{"a", "b"}));  // no BOM in "a"
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1][1], "4");  // no '\r'
  EXPECT_EQ(t.lines, (std::vector<int64_t>{2, 4}));
  CsvTable blank = Parse("\n\na,b\n\n1,2\n   \n\t\n3,4\n\n");
  EXPECT_EQ(blank.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(blank.lines, (std::vector<int64_t>{5, 8}));
  CsvTable last = Parse("a,b\n1,2");
  ASSERT_EQ(last.rows.size(), 1u);
  EXPECT_EQ(last.rows[0][1], "2");
}

TEST_F(TableTest, WhitespaceDelimiterNoHeaderAndSkipRows) {
  CsvOptions o;
  o.delimiter = ' ';
  o.header = false;
  CsvTable t = Parse("  1.5 2\t 3\n4   5 6  \n", "t.csv", o);
  EXPECT_EQ(t.names, (std::vector<std::string>{"c1", "c2", "c3"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(t.rows[0].begin(), t.rows[0].end()),
            (std::vector<std::string>{"1.5", "2", "3"}));
  EXPECT_EQ(std::vector<std::string>(t.rows[1].begin(), t.rows[1].end()),
            (std::vector<std::string>{"4", "5", "6"}));
  CsvOptions skip;
  skip.skip_rows = 2;  // the dropped lines need not have the header's width
  CsvTable s = Parse("a preamble\nanother, with, commas, 1\nx,y\n1,a\n", "t.csv", skip);
  EXPECT_EQ(s.names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s.lines, (std::vector<int64_t>{4}));
  // Lines, not records: a quote in a dropped line opens nothing, and blank
  // lines count.
  skip.skip_rows = 3;
  CsvTable q = Parse("title: \"a \"b\n\n1 \" 2\nx,y\n1,a\n", "t.csv", skip);
  EXPECT_EQ(q.names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(q.lines, (std::vector<int64_t>{5}));
}

// Header-less rows to predict without their label (here the first column,
// c1) are named as in training, not shifted one column left.
TEST_F(TableTest, HeaderlessRowsToPredictMayLeaveOutTheLabel) {
  CsvOptions o;
  o.header = false;
  CsvTable train = Parse("a,1,10,0\nb,2,20,0\na,3,30,0\nb,4,40,0\n", "t.csv", o);
  TableOptions to = Label("c1");
  to.ignore = {"c4"};  // the last column, ignored: still a training column
  TableEncoding code;
  FitEncode(train, to, &code);
  ASSERT_EQ(code.FeatureNames(), (std::vector<std::string>{"c2", "c3"}));
  to.labels = false;
  CsvTable rows = Parse("3,30,0\n", "p.csv", o);
  ASSERT_TRUE(NameHeaderlessRows(code, to, &rows).ok());
  EXPECT_EQ(rows.names, (std::vector<std::string>{"c2", "c3", "c4"}));
  auto x = EncodeTable(rows, code, to);
  ASSERT_TRUE(x.ok()) << x.status().message();
  // 3 and 30 are read as c2 and c3, standardised with their statistics.
  EXPECT_NEAR(x->values[0], (3 - 2.5) / kSd, 1e-6);
  EXPECT_NEAR(x->values[1], (30 - 25) / (10 * kSd), 1e-6);
  // With the label there, nothing moves.
  CsvTable full = Parse("a,3,30,0\n", "p.csv", o);
  ASSERT_TRUE(NameHeaderlessRows(code, to, &full).ok());
  EXPECT_EQ(full.names, (std::vector<std::string>{"c1", "c2", "c3", "c4"}));
  CsvTable narrow = Parse("3,30\n", "p.csv", o);
  EXPECT_TRUE(FailsWith(NameHeaderlessRows(code, to, &narrow),
                        "p.csv: has 2 columns; the training file has 4 (3 without the label)"));
}

TEST_F(TableTest, NumericColumnsAreStandardisedWithTrainingStatistics) {
  // "+3", " 2 " and "4e0" are numbers; k is constant (scale 1).
  CsvTable t = Parse("x,k,y\n1,5,a\n 2 ,5,b\n+3,5,a\n4e0,5,b\n");
  TableEncoding code;
  Examples x = FitEncode(t, Label("y"), &code);
  ASSERT_EQ(code.columns.size(), 2u);
  EXPECT_TRUE(code.columns[0].numeric);
  EXPECT_DOUBLE_EQ(code.columns[0].mean, 2.5);
  EXPECT_DOUBLE_EQ(code.columns[0].stddev, kSd);
  EXPECT_DOUBLE_EQ(code.columns[1].mean, 5);
  EXPECT_DOUBLE_EQ(code.columns[1].stddev, 1);
  EXPECT_EQ(code.label, 2);
  EXPECT_EQ(code.FeatureNames(), (std::vector<std::string>{"x", "k"}));
  ASSERT_EQ(x.n, 4);
  EXPECT_EQ(x.c, 2);
  EXPECT_FALSE(x.image());
  ASSERT_EQ(x.values.size(), 8u);
  EXPECT_TRUE(x.pixels.empty());
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(x.values[2 * i], (i + 1 - 2.5) / kSd, 1e-6) << i;
    EXPECT_EQ(x.values[2 * i + 1], 0.f) << i;
    sum += x.values[2 * i];
  }
  EXPECT_NEAR(sum, 0, 1e-6);
  EXPECT_EQ(x.labels, (std::vector<int32_t>{0, 1, 0, 1}));
  // A test table, columns in another order, uses the training statistics.
  auto test = EncodeTable(Parse("y,k,x\nb,5,6.5\na,4,2.5\n"), code, Label("y"));
  ASSERT_TRUE(test.ok()) << test.status().message();
  EXPECT_NEAR(test->values[0], 4 / kSd, 1e-6);
  EXPECT_EQ(test->values[1], 0.f);
  EXPECT_EQ(test->values[2], 0.f);
  EXPECT_EQ(test->values[3], -1.f);
  EXPECT_EQ(test->labels, (std::vector<int32_t>{1, 0}));
}

TEST_F(TableTest, TextColumnsAreOneHotInByteOrder) {
  TableEncoding code;
  Examples x =
      FitEncode(Parse("color,y\nred,a\nblue,b\ngreen,a\nblue,b\nRed,a\n"), Label("y"), &code);
  ASSERT_EQ(code.columns.size(), 1u);
  EXPECT_FALSE(code.columns[0].numeric);
  EXPECT_EQ(code.FeatureNames(),
            (std::vector<std::string>{"color=Red", "color=blue", "color=green", "color=red"}));
  EXPECT_EQ(code.features(), 4);
  ASSERT_EQ(x.values.size(), 20u);
  EXPECT_EQ(std::vector<float>(x.values.begin(), x.values.begin() + 8),
            (std::vector<float>{0, 0, 0, 1, 0, 1, 0, 0}));  // red, blue
  EXPECT_EQ(std::vector<float>(x.values.begin() + 16, x.values.end()),
            (std::vector<float>{1, 0, 0, 0}));  // Red
  // An unseen category is all zeros; spaces around a value do not count.
  auto test = EncodeTable(Parse("color,y\npurple,a\n green ,b\n"), code, Label("y"));
  ASSERT_TRUE(test.ok()) << test.status().message();
  EXPECT_EQ(test->values, (std::vector<float>{0, 0, 0, 0, 0, 0, 1, 0}));
  // Half numbers is not "more than half": the column is text.
  TableEncoding half;
  FitEncode(Parse("v,y\n1,a\n2,b\nq,a\nr,b\n"), Label("y"), &half);
  ASSERT_EQ(half.columns.size(), 1u);
  EXPECT_FALSE(half.columns[0].numeric);
  EXPECT_EQ(half.columns[0].categories, (std::vector<std::string>{"1", "2", "q", "r"}));
}

TEST_F(TableTest, TooManyCategoriesIsAnErrorUnlessIgnored) {
  auto rows = [](int distinct) {
    std::string s = "n,name,y\n";
    for (int i = 0; i < distinct; ++i)
      s += std::to_string(i) + ",v" + std::to_string(i) + "," + (i % 2 ? "b" : "a") + "\n";
    return s;
  };
  auto ok = FitTable(Parse(rows(256)), Label("y"));  // exactly the cap
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->features(), 1 + 256);
  CsvTable many = Parse(rows(257));
  EXPECT_TRUE(FailsWith(FitTable(many, Label("y")),
                        "t.csv: text column 'name' has more than 256 distinct values, too many "
                        "to one-hot encode; ignore it (csv.ignore)"));
  TableOptions o = Label("y");
  o.ignore = {"name"};
  auto ignored = FitTable(many, o);
  ASSERT_TRUE(ignored.ok()) << ignored.status().message();
  EXPECT_EQ(ignored->FeatureNames(), (std::vector<std::string>{"n"}));
}

TEST_F(TableTest, MissingMeanImputesAndAddsAnIndicator) {
  // x: 1, 3 and two missing (empty, "NA"): mean 2, sd 1. z has none missing.
  CsvTable t = Parse("x,z,y\n1,7,a\n,8,b\n3,9,a\nNA,10,b\n");
  EXPECT_TRUE(FailsWith(FitTable(t, Label("y")), "t.csv:3:1: an empty cell in numeric column 'x'"));
  TableOptions o = Label("y", Problem::kClassification, true);
  TableEncoding code;
  Examples x = FitEncode(t, o, &code);
  EXPECT_EQ(code.FeatureNames(), (std::vector<std::string>{"x", "x_missing", "z"}));
  EXPECT_TRUE(code.columns[0].indicator);
  EXPECT_FALSE(code.columns[1].indicator);
  EXPECT_DOUBLE_EQ(code.columns[0].mean, 2);
  EXPECT_DOUBLE_EQ(code.columns[0].stddev, 1);
  ASSERT_EQ(x.values.size(), 12u);
  const std::vector<double> want = {-1, 0, -1.5 / kSd, 0, 1, -0.5 / kSd,
                                    1,  0, 0.5 / kSd,  0, 1, 1.5 / kSd};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(x.values[i], want[i], 1e-6) << i;
  // In a test table: a missing z (none missing in training) is the mean, no indicator.
  auto test = EncodeTable(Parse("z,x,y\n,5,a\n8.5,,b\n", "test.csv"), code, o);
  ASSERT_TRUE(test.ok()) << test.status().message();
  EXPECT_EQ(test->values, (std::vector<float>{3, 0, 0, 0, 1, 0}));
  // Without missing: mean, the test table's empty cell is an error with its place.
  TableEncoding strict;
  FitEncode(Parse("x,z,y\n1,7,a\n2,8,b\n"), Label("y"), &strict);
  EXPECT_TRUE(FailsWith(EncodeTable(Parse("z,x,y\n,5,a\n", "test.csv"), strict, Label("y")),
                        "test.csv:2:1: an empty cell in numeric column 'z' (missing: mean"));
}

TEST_F(TableTest, NumericClassesSortNumerically) {
  TableEncoding code;
  Examples x =
      FitEncode(Parse("x,y\n1,10\n2,2\n3,1\n4,1.0\n5,2.0\n6,+10\n7, 1e1 \n"), Label("y"), &code);
  EXPECT_EQ(code.classes, (std::vector<std::string>{"1", "2", "10"}));  // "2" < "10"
  EXPECT_EQ(x.labels, (std::vector<int32_t>{2, 1, 0, 0, 1, 2, 2}));     // "1" == "1.0"
  auto test = EncodeTable(Parse("x,y\n1,10.0\n2,01\n", "test.csv"), code, Label("y"));
  ASSERT_TRUE(test.ok()) << test.status().message();
  EXPECT_EQ(test->labels, (std::vector<int32_t>{2, 0}));
  EXPECT_TRUE(FailsWith(EncodeTable(Parse("x,y\n1,10\n2,3\n", "test.csv"), code, Label("y")),
                        "test.csv:3:2: class '3' does not occur in the training data"));
}

TEST_F(TableTest, TextClassesSortByBytes) {
  TableEncoding code;
  Examples x = FitEncode(Parse("x,y\n1,dog\n2,cat\n3,bird\n4,cat\n5,Zebra\n"), Label("y"), &code);
  EXPECT_EQ(code.classes, (std::vector<std::string>{"Zebra", "bird", "cat", "dog"}));
  EXPECT_EQ(x.labels, (std::vector<int32_t>{3, 2, 1, 2, 0}));
  // One label that is not a number makes them all text: "1.0" is then its own class.
  TableEncoding mixed;
  Examples m = FitEncode(Parse("x,y\n1,1\n2,10\n3,2\n4,two\n5,1.0\n"), Label("y"), &mixed);
  EXPECT_EQ(mixed.classes, (std::vector<std::string>{"1", "1.0", "10", "2", "two"}));
  EXPECT_EQ(m.labels, (std::vector<int32_t>{0, 2, 3, 4, 1}));
}

// Each table is refused, and the message names the file, line and column.
TEST_F(TableTest, MalformedTablesNameTheirPlace) {
  struct Bad {
    const char* what;
    std::string text, error, label = "y";
    bool header = true;
    Problem problem = Problem::kClassification;
    std::vector<std::string> ignore = {};
  };
  const auto kReg = Problem::kRegression;
  const std::vector<Bad> corpus = {
      {"ragged row", "x,y\n1,a\n2\n", "bad.csv:3: has 1 fields, the header has 2"},
      {"ragged, no header", "1,a\n2,b,c\n", "bad.csv:2: has 3 fields, the first row has 2", "c2",
       false},
      {"a word in a numeric column", "x,y\n1,a\n2,b\nfoo,a\n3,b\n",
       "bad.csv:4:1: 'foo', not a number, in numeric column 'x' (missing: mean fills such cells "
       "with the training mean)"},
      {"an empty cell", "x,y\n1,a\n,b\n3,a\n", "bad.csv:3:1: an empty cell in numeric column 'x'"},
      {"a cell of spaces", "x,y\n1,a\n2,b\n  ,a\n", "bad.csv:4:1: an empty cell in numeric column"},
      {"a bad cell after a two-line field", "x,t,y\n1,\"two\nlines\",a\nbad,u,b\n3,v,a\n",
       "bad.csv:4:1: 'bad', not a number, in numeric column 'x'"},
      {"an empty file", "", "bad.csv: is empty (expected a header row, then one row per example)"},
      {"blank lines only", "\n  \r\n\t\n", "bad.csv: is empty (expected a header row"},
      {"empty, no header", "", "bad.csv: is empty (expected one row per example)", "c2", false},
      {"a header only", "x,y\r\n\r\n", "bad.csv: has a header but no rows"},
      {"a name twice", "x,y,x\n1,a,2\n", "bad.csv:1:3: the header names 'x' twice"},
      {"an empty name", "x,,y\n1,2,a\n", "bad.csv:1:2: the header has an empty name"},
      {"an unclosed quote", "x,y\n1,a\n2,\"b\n3,c\n", "bad.csv:3: a quoted field is never closed"},
      {"a quote in an unquoted field", "x,y\n1,a\"b\n",
       "bad.csv:2:4: a quote inside an unquoted field"},
      {"text after a closing quote", "x,y\n1,\"a\"b\n",
       "bad.csv:2:6: unexpected 'b' after a quoted field"},
      {"no label column", "x,z\n1,a\n2,b\n",
       "bad.csv: no column 'y' to predict (label); did you mean 'x'? the columns are 'x', 'z'"},
      {"one class only", "x,y\n1,a\n2,a\n3, a \n",
       "bad.csv: the label column 'y' has one class only ('a'): there is nothing to tell apart"},
      {"an empty class label", "x,y\n1,a\n2,\n3,b\n",
       "bad.csv:3:2: an empty cell in the label column 'y'"},
      {"a regression label not a number", "x,y\n1,2.5\n2,abc\n",
       "bad.csv:3:2: 'abc', not a number, in the label column 'y' (regression predicts numbers)",
       "y", true, kReg},
      {"an empty regression label", "x,y\n1,2.5\n2,\n",
       "bad.csv:3:2: an empty cell in the label column 'y' (regression", "y", true, kReg},
      {"an infinite regression label", "x,y\n1,2.5\n2,inf\n", "bad.csv:3:2: 'inf', not a number",
       "y", true, kReg},
      {"no feature columns", "y\na\nb\n", "bad.csv: no feature columns"},
      {"ignoring an unknown column",
       "x,y\n1,a\n2,b\n",
       "bad.csv: no column 'w' to ignore",
       "y",
       true,
       Problem::kClassification,
       {"w"}},
      {"ignoring the label",
       "x,y\n1,a\n2,b\n",
       "the label 'y' cannot also be ignored",
       "y",
       true,
       Problem::kClassification,
       {"y"}},
  };
  for (const Bad& c : corpus) {
    CsvOptions co;
    co.header = c.header;
    TableOptions o = Label(c.label, c.problem);
    o.ignore = c.ignore;
    Status s = [&]() -> Status {
      ASSIGN_OR_RETURN(CsvTable t, ParseCsv(c.text, "bad.csv", co));
      ASSIGN_OR_RETURN(TableEncoding e, FitTable(t, o));
      return EncodeTable(t, e, o).status();
    }();
    EXPECT_TRUE(FailsWith(s, c.error)) << c.what;
  }
  // ReadCsv names the file by its path; a missing file is an error too.
  std::string path = Write("bad.csv", "x,y\n1,a\n2\n");
  EXPECT_TRUE(FailsWith(ReadCsv(path, {}), path + ":3: has 1 fields, the header has 2"));
  EXPECT_TRUE(FailsWith(ReadCsv(dir_ + "/none.csv", {}), dir_ + "/none.csv"));
}

TEST_F(TableTest, LoadDataEncodesTheTestFileWithTheTrainingCode) {
  DataSpec spec;
  auto* c = spec.files.mutable_csv();
  c->set_train(Write("train.csv", "x,c,y\n1,red,a\n2,blue,b\n3,red,a\n4,blue,b\n"));
  c->set_test(Write("test.csv", "c,y,x\nblue,b,5\nred,a,0\n"));
  c->set_label("y");
  auto s = LoadData(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->train.n, 4);
  EXPECT_EQ(s->validation.n, 0);
  EXPECT_EQ(s->class_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s->outputs(), 2);
  EXPECT_EQ(s->feature_names, (std::vector<std::string>{"x", "c=blue", "c=red"}));
  ASSERT_EQ(s->test.values.size(), 6u);
  EXPECT_NEAR(s->test.values[0], 2.5 / kSd, 1e-6);
  EXPECT_EQ(s->test.values[1], 1.f);
  EXPECT_EQ(s->test.values[2], 0.f);
  EXPECT_EQ(s->test.labels, (std::vector<int32_t>{1, 0}));
  c->set_test(Write("test2.csv", "x,c,y\n1,red,a\n5,blue,c\n"));
  EXPECT_TRUE(FailsWith(LoadData(spec),
                        dir_ + "/test2.csv:3:3: class 'c' does not occur in the training data"));
  c->set_test(Write("test3.csv", "x,y\n1,a\n"));
  EXPECT_TRUE(FailsWith(LoadData(spec), dir_ + "/test3.csv: no column 'c', which the training"));
}

TEST_F(TableTest, LabelsInAFileOfTheirOwn) {
  DataSpec spec;
  auto* c = spec.files.mutable_csv();
  const std::string x = Write("X.csv", "a,b\n1,10\n2,20\n3,30\n4,40\n");
  c->set_train(x);
  c->set_train_labels(Write("y.csv", "y\n1\n0\n1\n0\n"));
  c->set_test(Write("Xt.csv", "a,b\n5,50\n"));
  c->set_test_labels(Write("yt.csv", "y\n0\n"));
  c->set_label("target");
  auto s = LoadData(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->feature_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s->class_names, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(s->train.labels, (std::vector<int32_t>{1, 0, 1, 0}));
  EXPECT_EQ(s->test.labels, (std::vector<int32_t>{0}));
  EXPECT_NEAR(s->test.values[0], 2.5 / kSd, 1e-6);
  // Regression on the same files: labels 1, 0, 1, 0 have mean 0.5 and sd 0.5.
  spec.problem = Problem::kRegression;
  auto r = LoadData(spec);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->target_mean, 0.5);
  EXPECT_DOUBLE_EQ(r->target_stddev, 0.5);
  EXPECT_EQ(r->train.targets, (std::vector<float>{1, -1, 1, -1}));
  EXPECT_EQ(r->test.targets, (std::vector<float>{-1}));
  spec.problem = Problem::kClassification;
  c->set_train_labels(Write("y_short.csv", "y\n1\n0\n1\n"));
  EXPECT_TRUE(FailsWith(LoadData(spec), dir_ + "/y_short.csv: has 3 rows, " + x + " 4"));
  c->set_train_labels(Write("y2.csv", "y,z\n1,1\n0,0\n1,1\n0,0\n"));
  EXPECT_TRUE(FailsWith(LoadData(spec), "y2.csv: has 2 columns; a labels file holds one value"));
  // A bad label cell is pointed out in the labels file, not the features file.
  spec.problem = Problem::kRegression;
  c->set_train_labels(Write("y_bad.csv", "y\n1\nfoo\n1\n0\n"));
  EXPECT_TRUE(FailsWith(LoadData(spec), dir_ + "/y_bad.csv:3:1: "));
  spec.problem = Problem::kClassification;
  c->set_train_labels(dir_ + "/y.csv");
  c->set_label("a");
  EXPECT_TRUE(FailsWith(LoadData(spec), x + ": already has a column 'a'"));
}

// Without a test file, a fixed-seed 20% (rounded) of the rows is the test set.
TEST_F(TableTest, SeededTestSplit) {
  auto table = [](int n) {
    std::string s = "id,y\n";
    for (int i = 0; i < n; ++i) s += "r" + std::to_string(i) + (i % 2 ? ",b\n" : ",a\n");
    return s;
  };
  for (auto [n, want] : std::vector<std::pair<int, int>>{{10, 2}, {12, 2}, {13, 3}, {50, 10}}) {
    DataSpec spec;
    spec.files.mutable_csv()->set_train(Write("split.csv", table(n)));
    spec.files.mutable_csv()->set_label("y");
    auto a = LoadData(spec), b = LoadData(spec);
    ASSERT_TRUE(a.ok() && b.ok()) << a.status().message();
    EXPECT_EQ(a->test.n, want) << n;
    EXPECT_EQ(a->train.n, n - want) << n;
    EXPECT_EQ(a->feature_names, b->feature_names) << n;  // the same rows every call
    EXPECT_EQ(a->test.labels, b->test.labels) << n;
    // id is text fitted on the pool: one category per pool row, none for test rows.
    ASSERT_EQ(a->train.c, n - want) << n;
    std::set<int> hot;
    for (int i = 0; i < a->train.n; ++i)
      for (int k = 0; k < a->train.c; ++k)
        if (a->train.values[i * a->train.c + k] == 1.f) hot.insert(k);
    EXPECT_EQ(hot.size(), static_cast<size_t>(n - want));
    for (float v : a->test.values) EXPECT_EQ(v, 0.f);
    int as = 0;
    for (auto* e : {&a->train, &a->test})
      for (int32_t l : e->labels) as += l == 0;
    EXPECT_EQ(as, (n + 1) / 2) << n;
  }
  DataSpec spec;
  spec.files.mutable_csv()->set_train(Write("ten.csv", table(10)));
  spec.files.mutable_csv()->set_label("y");
  spec.files.set_test_fraction(0.5);
  auto half = LoadData(spec);
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(half->test.n, 5);
  spec.files.mutable_csv()->set_train(Write("two.csv", table(2)));
  EXPECT_TRUE(FailsWith(LoadData(spec), "two.csv: 2 rows are too few to set a test set apart"));
}

TEST(TableDataTest, CarveValidationPartitionsWithASeed) {
  Examples all;
  all.n = 100;
  for (int i = 0; i < 100; ++i) {
    all.values.push_back(static_cast<float>(i));
    all.labels.push_back(i);
  }
  Splits s, again, other;
  ASSERT_TRUE(CarveValidation(all, 20, 7, &s).ok());
  ASSERT_TRUE(CarveValidation(all, 20, 7, &again).ok());
  ASSERT_TRUE(CarveValidation(all, 20, 8, &other).ok());
  EXPECT_EQ(s.validation.n, 20);
  EXPECT_EQ(s.train.n, 80);
  EXPECT_EQ(s.validation.labels, again.validation.labels);
  EXPECT_NE(s.validation.labels, other.validation.labels);
  std::vector<int32_t> seen = s.validation.labels;
  seen.insert(seen.end(), s.train.labels.begin(), s.train.labels.end());
  std::sort(seen.begin(), seen.end());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(seen[i], i);
  for (int i = 0; i < 80; ++i) ASSERT_EQ(s.train.values[i], s.train.labels[i]);  // rows stay whole
  Splits none;
  ASSERT_TRUE(CarveValidation(all, 0, 7, &none).ok());
  EXPECT_EQ(none.train.n, 100);
  EXPECT_EQ(none.validation.n, 0);
  EXPECT_TRUE(FailsWith(CarveValidation(all, 100, 7, &none),
                        "validation (100) must be in [0, 100): the training set has 100 examples"));
  EXPECT_TRUE(FailsWith(CarveValidation(all, -1, 7, &none), "validation (-1) must be in [0, 100)"));
}

TEST(TableDataTest, IrisFromScikitLearn) {
  const std::string iris = "/usr/lib/python3/dist-packages/sklearn/datasets/data/iris.csv";
  if (!std::filesystem::exists(iris)) GTEST_SKIP() << iris << " is absent (python3-sklearn)";
  // The first line is "150,4,setosa,versicolor,virginica", not column names.
  DataSpec spec;
  auto* c = spec.files.mutable_csv();
  c->set_train(iris);
  c->set_header(false);
  c->set_skip_rows(1);
  c->set_label("c5");
  auto s = LoadData(spec);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->test.n, 30);
  EXPECT_EQ(s->train.n, 120);
  EXPECT_EQ(s->train.c, 4);
  EXPECT_EQ(s->classes, 3);
  EXPECT_EQ(s->class_names, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(s->feature_names, (std::vector<std::string>{"c1", "c2", "c3", "c4"}));
  std::map<int, int> counts;
  for (auto* e : {&s->train, &s->test})
    for (int32_t l : e->labels) counts[l]++;
  EXPECT_EQ(counts, (std::map<int, int>{{0, 50}, {1, 50}, {2, 50}}));
  for (int k = 0; k < 4; ++k) {  // the pool's features: mean 0, sd 1
    double sum = 0, sq = 0;
    for (int i = 0; i < 120; ++i) sum += s->train.values[i * 4 + k];
    for (int i = 0; i < 120; ++i) sq += std::pow(s->train.values[i * 4 + k] - sum / 120, 2);
    EXPECT_NEAR(sum / 120, 0, 1e-5) << k;
    EXPECT_NEAR(std::sqrt(sq / 120), 1, 1e-4) << k;
  }
  auto again = LoadData(spec);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->test.values, s->test.values);
  EXPECT_EQ(DefaultValidation(spec, *s), 24);
  auto trial = CarveSplits(*s, 24, 3);
  ASSERT_TRUE(trial.ok()) << trial.status().message();
  EXPECT_EQ(trial->validation.n, 24);
  EXPECT_EQ(trial->train.n, 96);
  EXPECT_EQ(trial->test.n, 30);
  EXPECT_EQ(trial->class_names, s->class_names);
  // Fitted on all 150 rows: the published means and (population) sds.
  CsvOptions o;
  o.header = false;
  o.skip_rows = 1;
  auto t = ReadCsv(iris, o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows.size(), 150u);
  auto code = FitTable(*t, Label("c5"));
  ASSERT_TRUE(code.ok()) << code.status().message();
  EXPECT_NEAR(code->columns[0].mean, 5.843333, 1e-5);
  EXPECT_NEAR(code->columns[0].stddev, 0.825301, 1e-5);
  EXPECT_NEAR(code->columns[2].mean, 3.758, 1e-5);
  EXPECT_NEAR(code->columns[3].stddev, 0.759693, 1e-5);
}

}  // namespace
}  // namespace sweep::nn
