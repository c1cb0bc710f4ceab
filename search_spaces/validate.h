// Semantic checks of a parsed study, run before anything starts. Every error
// names file:line:column and the field path; all errors are reported at once.
#pragma once

#include "common/status.h"
#include "search_spaces/study_parser.h"

namespace sweep {

// Fills defaults the rest of the system relies on (e.g. the study name from
// the file name) and checks everything. Returns all problems, one per line.
Status ValidateStudy(ParsedStudy* parsed);
// What is wrong with a study name, or "" when nothing is: 1 to 200 bytes,
// no control characters (C0, DEL, C1), since names reach terminals and logs.
std::string StudyNameProblem(const std::string& name);

// The metric names a task reports (for checking objective.metric).
std::vector<std::string> TaskMetrics(const pb::Task& task);

}  // namespace sweep
