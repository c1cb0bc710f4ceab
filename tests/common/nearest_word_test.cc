#include "common/nearest_word.h"

#include <gtest/gtest.h>

namespace sweep {
namespace {

TEST(NearestWordTest, SuggestsNearSpellingsAndPrefixes) {
  EXPECT_EQ(NearestWord("maximise", {"minimize", "maximize"}), "maximize");
  EXPECT_EQ(NearestWord("alhpa", {"alpha", "l1_ratio"}), "alpha");  // a swap is one edit
  EXPECT_EQ(NearestWord("flaot", {"float", "int", "categorical", "constant"}), "float");
  EXPECT_EQ(NearestWord("Objective", {"name", "objective"}), "objective");  // case
  // A start of the name meant: the metric typo of the first hour.
  EXPECT_EQ(NearestWord("val_acc", {"loss", "val_accuracy"}), "val_accuracy");
  EXPECT_EQ(DidYouMean("maximise", {"minimize", "maximize"}), "; did you mean 'maximize'?");
}

TEST(NearestWordTest, StaysQuietWhenNothingIsNear) {
  EXPECT_EQ(NearestWord("lr", {"batch_size", "momentum"}), std::nullopt);
  EXPECT_EQ(NearestWord("seed", {"objective", "task", "parameters"}), std::nullopt);
  EXPECT_EQ(NearestWord("", {"a"}), std::nullopt);
  EXPECT_EQ(NearestWord("x", {}), std::nullopt);
  // Two short prefixes are not a match: "va" could be anything.
  EXPECT_EQ(NearestWord("va", {"val_accuracy"}), std::nullopt);
  EXPECT_EQ(DidYouMean("zzzz", {"alpha"}), "");
  // A spelling near beats a longer name that merely starts the same.
  EXPECT_EQ(NearestWord("loss", {"loss_total", "los"}), "los");
}

TEST(NearestWordTest, JoinsAndCutsLists) {
  EXPECT_EQ(JoinWords({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(JoinWords({"a", "b", "c"}, 2), "a, b, ...");
  EXPECT_EQ(JoinWords({}), "");
}

}  // namespace
}  // namespace sweep
