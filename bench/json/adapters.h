// ParseJsonObject re-implemented over each library, with our signature and
// our error wording ("<what> at byte N"), so speed, behaviour and messages
// can be compared like for like.
#pragma once

#include <string_view>
#include <vector>

#include "common/json_reader.h"

namespace bench {
using sweep::JsonField;
using sweep::Result;
using sweep::Status;
using Fields = std::vector<JsonField>;

inline constexpr int kMaxDepth = 64;

// On-demand; nested arrays/objects are walked, so they are checked as ours does.
Result<Fields> ParseSimdjson(std::string_view text);
// On-demand; nested values are skipped (only bracket balance is checked).
Result<Fields> ParseSimdjsonSkip(std::string_view text);
// The same two, from p_simdjson.cc compiled with -march=haswell (the
// on-demand stage 2 then uses simdjson::haswell instead of ::fallback).
Result<Fields> ParseSimdjsonHaswell(std::string_view text);
Result<Fields> ParseSimdjsonSkipHaswell(std::string_view text);
// SAX (json::sax_parse) after a length-preserving NaN/Infinity pre-pass.
Result<Fields> ParseNlohmannSax(std::string_view text);
// DOM (json::parse) + the same pre-pass; reference only: no depth limit.
Result<Fields> ParseNlohmannDom(std::string_view text);
// rapidjson::Reader (SAX), kParseNanAndInfFlag|FullPrecision|Iterative.
Result<Fields> ParseRapidSax(std::string_view text);
// rapidjson::Document, same flags; reference only: no depth limit.
Result<Fields> ParseRapidDom(std::string_view text);

// Where NaN / Infinity / -Infinity stand outside strings: each is replaced
// in `text` by "0" and spaces (offsets unchanged); `specials` gets, for each
// number token in order, nothing or the special value. Shared by nlohmann.
struct Specials {
  std::vector<std::pair<int, double>> at;  // (index of the number token, value)
};
void RewriteSpecials(std::string* text, Specials* out);
}  // namespace bench
