// The edge of a module's C entry points (nn/module_loader.h): an exception
// never crosses it, it comes back as text.
#pragma once

#include <cstdio>
#include <exception>
#include <type_traits>

namespace sweep::nn {

// Runs `f` (returning an int result, or nothing for 0); an exception becomes
// "WHAT: its message" in `err` and the result 1.
template <typename F>
int GuardedEntry(const char* what, char* err, size_t n, F&& f) {
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      return 0;
    } else {
      return f();
    }
  } catch (const std::exception& e) {
    std::snprintf(err, n, "%s: %s", what, e.what());
  } catch (...) {
    std::snprintf(err, n, "%s: unknown error", what);
  }
  return 1;
}

}  // namespace sweep::nn
