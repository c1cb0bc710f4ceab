// A study's note and tags: what a person writes about a study (`sweep note`,
// `sweep tag`), shown by `sweep studies`, the dashboard and the report. No
// tuner writes them, so they may be written while a sweep runs: on a
// connection of their own, which waits out the tuner's commits (SQLite's
// busy timeout), never through the tuner's Store.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace sweep {

inline constexpr size_t kMaxNoteBytes = 4096;
inline constexpr size_t kMaxTagBytes = 64;
inline constexpr size_t kMaxTags = 32;

// Sets the note of study `study` in the database at `db` ("" clears it).
Status SetStudyNote(const std::string& db, const std::string& study, const std::string& note);
// Adds `add` to the study's tags and takes `remove` off. A tag is 1 to 64
// printable characters without spaces or commas; at most 32 a study.
Status TagStudy(const std::string& db, const std::string& study,
                const std::vector<std::string>& add, const std::vector<std::string>& remove);

}  // namespace sweep
