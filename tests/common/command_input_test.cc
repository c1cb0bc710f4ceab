// The readers behind command tasks: SWEEP_REPORT JSON objects and "{name}"
// templates.
#include <gtest/gtest.h>

#include <cmath>

#include "common/command_template.h"
#include "common/json_reader.h"
#include "common/values.h"

namespace sweep {
namespace {

TEST(JsonReaderTest, ReadsScalarsIncludingPythonsNanAndInfinity) {
  auto f = ParseJsonObject(
      R"({"step": 3, "a": -1.5e-3, "b": NaN, "c": Infinity, "d": -Infinity, "e": null,)"
      R"( "ok": true, "no": false, "s": "h\u00e9\n\ud83d\ude00", "n": {"x": [1, {"y": 2}]}})");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->size(), 10u);
  EXPECT_EQ((*f)[0].key, "step");
  EXPECT_EQ((*f)[0].number, 3);
  EXPECT_DOUBLE_EQ((*f)[1].number, -1.5e-3);
  EXPECT_TRUE(std::isnan((*f)[2].number));
  EXPECT_EQ((*f)[3].number, HUGE_VAL);
  EXPECT_EQ((*f)[4].number, -HUGE_VAL);
  EXPECT_EQ((*f)[5].kind, JsonField::Kind::kNull);
  EXPECT_TRUE((*f)[6].flag);
  EXPECT_FALSE((*f)[7].flag);
  EXPECT_EQ((*f)[8].text, "h\xc3\xa9\n\xf0\x9f\x98\x80");
  EXPECT_EQ((*f)[9].kind, JsonField::Kind::kOther);
}

TEST(JsonReaderTest, RefusesMalformedTextWithWhere) {
  for (const char* bad :
       {"", "[1]", "{", "{\"a\" 1}", "{\"a\": 1,}", "{\"a\": 01x}", "{\"a\": 1} trailing",
        "{\"a\": \"unterminated}", "{\"a\": tru}", "{\"a\": 1.}", "{\"a\": \"\x01\"}"}) {
    auto f = ParseJsonObject(bad);
    EXPECT_FALSE(f.ok()) << bad;
    if (!f.ok()) EXPECT_NE(f.status().message().find("at byte"), std::string::npos);
  }
  std::string deep = "{\"a\": " + std::string(100, '[') + std::string(100, ']') + "}";
  auto f = ParseJsonObject(deep);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("nested deeper than 64"), std::string::npos);
  // A very long line is read without recursion trouble.
  std::string wide = "{\"a\": [" + std::string(1 << 20, '1') + "]}";
  EXPECT_TRUE(ParseJsonObject(wide).ok());
}

TEST(CommandTemplateTest, NamesAndExpansion) {
  auto names = TemplateNames("--lr={lr} {{literal}} {opt.beta1}{x}");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"lr", "opt.beta1", "x"}));
  auto text = ExpandTemplate("--lr={lr} {{literal}} [{absent}]", {{"lr", "0.01"}});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "--lr=0.01 {literal} []");
  for (const char* bad : {"{lr", "lr}", "{}", "{1x}", "{a b}"})
    EXPECT_FALSE(TemplateNames(bad).ok()) << bad;
}

TEST(CommandTemplateTest, ValuesInShortestRoundTripForm) {
  pb::Value v;
  v.set_number(0.1);
  EXPECT_EQ(ValueToString(v), "0.1");
  v.set_number(1e-5);
  EXPECT_EQ(ValueToString(v), "1e-05");
  v.set_number(3);
  EXPECT_EQ(ValueToString(v), "3");
  v.set_integer(-42);
  EXPECT_EQ(ValueToString(v), "-42");
  v.set_flag(false);
  EXPECT_EQ(ValueToString(v), "false");
  v.set_text("adam w");
  EXPECT_EQ(ValueToString(v), "adam w");
}

}  // namespace
}  // namespace sweep
