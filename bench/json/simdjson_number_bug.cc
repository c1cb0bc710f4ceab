// simdjson 3.0.1 (Debian 12) on-demand get_double() on 20+ digit "0.xxx" numbers
// (upstream issue #2093, fixed in 3.6.3): compare with the DOM API.
// g++ -std=c++20 -O2 simdjson_number_bug.cc -lsimdjson && ./a.out '{"a": 0.95000000000000000000}'
#include <cstdio>

#include "simdjson.h"
int main(int argc, char** argv) {
  simdjson::padded_string s{std::string_view(argv[1])};
  simdjson::ondemand::parser p;
  auto doc = p.iterate(s);
  double d;
  auto e = doc["a"].get_double().get(d);
  std::printf("ondemand (%s): %s %.17g\n", simdjson::builtin_implementation()->name().c_str(),
              simdjson::error_message(e), d);
  simdjson::dom::parser dp;
  double d2;
  auto e2 = dp.parse(s)["a"].get_double().get(d2);
  std::printf("dom (%s): %s %.17g\n", simdjson::get_active_implementation()->name().c_str(),
              simdjson::error_message(e2), d2);
}
