// RapidJSON 1.1.0 (Debian 12) through the bench adapter (kParseNanAndInfFlag |
// kParseFullPrecisionFlag | kParseIterativeFlag), one input per argument:
//   g++ -std=c++20 -O2 -DNDEBUG -I/work/main -I. rapidjson_crash_probe.cc p_rapidjson.cc \
//       /work/main/common/status.cc && ./a.out '{"a":
//       128.74836467836484838364836483643636483648e-336}'   # SIGSEGV
#include <cstdio>

#include "adapters.h"
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    auto r = bench::ParseRapidSax(argv[i]);
    if (r.ok())
      std::printf("%s -> ok %.17g\n", argv[i], (*r)[0].number);
    else
      std::printf("%s -> %s\n", argv[i], r.status().message().c_str());
  }
}
