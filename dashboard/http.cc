#include "dashboard/http.h"

#include "common/json.h"

namespace sweep {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      int hi = HexDigit(text[i + 1]), lo = HexDigit(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += plus_is_space && c == '+' ? ' ' : c;
  }
  return out;
}

std::string HttpRequest::Param(std::string_view name) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    size_t eq = pair.find('=');
    if (PercentDecode(pair.substr(0, eq), true) != name) continue;
    return eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true);
  }
  return "";
}

void HttpAnswer::SetBody(std::string text, std::string type) {
  SetShared(std::make_shared<const std::string>(std::move(text)), std::move(type));
}

void HttpAnswer::SetShared(std::shared_ptr<const std::string> text, std::string type) {
  body = *text;
  owner = std::move(text);
  content_type = std::move(type);
}

void HttpAnswer::SetError(int code, const std::string& message) {
  status = code;
  std::string text = "{\"error\":";
  AppendJsonString(&text, message);
  SetBody(text + "}\n", "application/json; charset=utf-8");
}

}  // namespace sweep
