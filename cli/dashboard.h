// `sweep dashboard` and `sweep report`.
#pragma once

#include <string>

#include "dashboard/server.h"

namespace sweep {

// Execs sweep-dashboard (beside this binary) with `options`; returns only
// when that fails, with the exit code to use.
int RunDashboard(const std::string& self_exe, const DashboardOptions& options);

// Writes the report and says where, and how big it is.
int RunReport(const std::string& db, const std::string& study, const std::string& out);

}  // namespace sweep
