// Edit distance (optimal string alignment: Damerau-Levenshtein where no
// substring is edited twice) over lower-cased bytes; names are short, so the
// O(n*m) table is a few hundred cells.
#include "common/nearest_word.h"

#include <algorithm>
#include <cctype>

namespace sweep {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

// Names longer than this are not compared (the table would be large, and
// nobody misspells a 200-letter name).
constexpr size_t kMaxCompared = 64;

}  // namespace

std::optional<std::string> NearestWord(std::string_view word,
                                       const std::vector<std::string>& choices) {
  if (word.empty() || word.size() > kMaxCompared) return std::nullopt;
  const std::string w = Lower(word);
  std::optional<std::string> best;
  size_t best_score = SIZE_MAX;
  for (const std::string& choice : choices) {
    if (choice.empty() || choice.size() > kMaxCompared) continue;
    const std::string c = Lower(choice);
    if (c == w) return choice;  // the same but for case
    size_t limit = std::max<size_t>(1, std::min(w.size(), c.size()) / 3);
    size_t dist = EditDistance(w, c);
    // A start of the other, three letters or more: ranked after any near
    // spelling.
    bool prefix = std::min(w.size(), c.size()) >= 3 &&
                  (c.compare(0, w.size(), w) == 0 || w.compare(0, c.size(), c) == 0);
    size_t score = dist <= limit ? dist : prefix ? kMaxCompared + dist : SIZE_MAX;
    if (score < best_score) {
      best_score = score;
      best = choice;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& choices) {
  auto near = NearestWord(word, choices);
  return near ? "; did you mean '" + *near + "'?" : "";
}

std::string JoinWords(const std::vector<std::string>& words, size_t max) {
  std::string out;
  for (size_t i = 0; i < words.size() && i < max; ++i) out += (i ? ", " : "") + words[i];
  if (words.size() > max) out += ", ...";
  return out;
}

}  // namespace sweep
