// "Did you mean ...?": the word among some choices nearest a misspelt one
// (a key, an enum word, a parameter or a metric name), for error messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sweep {

// The choice nearest `word`, if one is near enough to be what was meant:
// at most a third of its letters apart (an edit is an insertion, deletion,
// substitution or swap of two neighbours, case ignored; 1 edit for short
// words), or one is the start of the other (`val_acc` for `val_accuracy`).
// Ties go to the first choice.
std::optional<std::string> NearestWord(std::string_view word,
                                       const std::vector<std::string>& choices);

// "; did you mean 'maximize'?" or "" when no choice is near.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& choices);

// "a, b, c": the choices for a message, the first `max` of them and "..." after.
std::string JoinWords(const std::vector<std::string>& words, size_t max = 12);

}  // namespace sweep
