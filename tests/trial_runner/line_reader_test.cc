// A program's output split into lines: whole lines up to the cap, longer
// ones cut at it and the rest skipped, across any chunking of the stream.
#include "trial_runner/line_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace sweep {
namespace {

std::vector<std::pair<std::string, bool>> Split(const std::string& text, size_t chunk) {
  LineReader r;
  std::vector<std::pair<std::string, bool>> lines;
  auto on = [&](const std::string& l, bool cut) { lines.emplace_back(l, cut); };
  for (size_t i = 0; i < text.size(); i += chunk)
    r.Feed(text.data() + i, std::min(chunk, text.size() - i), on);
  r.Flush(on);
  return lines;
}

TEST(LineReaderTest, ALineOfExactlyTheCapIsWholeAndOneByteMoreIsCut) {
  std::string full(kMaxLineBytes, 'a'), over(kMaxLineBytes + 1, 'b');
  for (size_t chunk : {size_t{1}, size_t{4096}, size_t{1} << 20}) {
    auto lines = Split(full + "\n" + over + "\nlast", chunk);
    ASSERT_EQ(lines.size(), 3u) << chunk;
    EXPECT_EQ(lines[0].first, full);
    EXPECT_FALSE(lines[0].second);
    EXPECT_EQ(lines[1].first, std::string(kMaxLineBytes, 'b'));
    EXPECT_TRUE(lines[1].second);
    EXPECT_EQ(lines[2].first, "last");  // no newline at the end: flushed
    EXPECT_FALSE(lines[2].second);
  }
}

TEST(LineReaderTest, ACutLinesRestIsSkippedUpToItsNewline) {
  std::string text = std::string(3 * kMaxLineBytes, 'x') + "\nnext\n";
  auto lines = Split(text, 1000);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].second);
  EXPECT_EQ(lines[0].first.size(), kMaxLineBytes);
  EXPECT_EQ(lines[1].first, "next");
  // A full line at the very end, without a newline, is whole too.
  auto end = Split(std::string(kMaxLineBytes, 'y'), 7);
  ASSERT_EQ(end.size(), 1u);
  EXPECT_FALSE(end[0].second);
}

}  // namespace
}  // namespace sweep
