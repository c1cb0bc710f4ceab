// The "{name}" templates of a command task's argv and env: which parameters
// they name (validation) and their text with the trial's values (runner).
// "{{" and "}}" stand for literal braces. A value's text is ValueToString's
// (common/values.h): floats in shortest round-trip form, booleans as
// true/false.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace sweep {

// The names a template refers to, in order; an error for an unclosed "{",
// a stray "}" or an empty or malformed name.
Result<std::vector<std::string>> TemplateNames(std::string_view text);

// `text` with each "{name}" replaced by `values[name]`; a name not in
// `values` becomes "" (a conditional parameter that is absent).
Result<std::string> ExpandTemplate(std::string_view text,
                                   const std::map<std::string, std::string>& values);

}  // namespace sweep
