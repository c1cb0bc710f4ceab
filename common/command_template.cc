// "{name}" templates: one scanner, used to list names and to expand them.
#include "common/command_template.h"

namespace sweep {

namespace {

bool NameChar(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

// Calls on_text for literal text and on_name for each "{name}".
template <typename Text, typename Name>
Status Scan(std::string_view s, Text on_text, Name on_name) {
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '{' && i + 1 < s.size() && s[i + 1] == '{') {
      on_text('{');
      ++i;
    } else if (c == '}' && i + 1 < s.size() && s[i + 1] == '}') {
      on_text('}');
      ++i;
    } else if (c == '}') {
      return Status::InvalidArgument("a '}' without its '{' (write '}}' for a literal brace)");
    } else if (c == '{') {
      size_t end = s.find('}', i + 1);
      if (end == std::string_view::npos)
        return Status::InvalidArgument("a '{' without its '}' (write '{{' for a literal brace)");
      std::string_view name = s.substr(i + 1, end - i - 1);
      bool ok = !name.empty();
      for (size_t k = 0; k < name.size() && ok; ++k) ok = NameChar(name[k], k == 0);
      if (!ok)
        return Status::InvalidArgument("'{" + std::string(name) + "}' is not a parameter name");
      on_name(name);
      i = end;
    } else {
      on_text(c);
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> TemplateNames(std::string_view text) {
  std::vector<std::string> names;
  Status st = Scan(
      text, [](char) {}, [&](std::string_view n) { names.emplace_back(n); });
  if (!st.ok()) return st;
  return names;
}

Result<std::string> ExpandTemplate(std::string_view text,
                                   const std::map<std::string, std::string>& values) {
  std::string out;
  Status st = Scan(
      text, [&](char c) { out.push_back(c); },
      [&](std::string_view n) {
        auto it = values.find(std::string(n));
        if (it != values.end()) out += it->second;
      });
  if (!st.ok()) return st;
  return out;
}

}  // namespace sweep
