// `sweep watch [STUDY]`: follows a sweep that runs in another terminal on
// this machine, read-only, from its database: its status
// line (tuner/progress.h), redrawn in place on a terminal and cut to its
// width, or a line whenever a count changes otherwise. Ends, with the
// study's outcome, once no tuner runs the study.
#pragma once

#include <string>

namespace sweep {

struct WatchOptions {
  std::string db;
  std::string study;  // empty: the study that runs, or the only one
  double interval_s = 1;
};

// 0 once the study no longer runs, 1 on an error, 130 on Ctrl-C.
int WatchStudy(const WatchOptions& options);

}  // namespace sweep
