// The C++ tests' one assertion: a failed check is printed and counted, and
// the program's exit status says whether any failed.
#pragma once

#include <cstdio>
#include <string>

namespace test_support {

inline int failures = 0;

inline void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

// Prints the outcome; returns main's exit status.
inline int report(const char* program) {
  if (failures) {
    std::fprintf(stderr, "%s: %d check(s) failed\n", program, failures);
    return 1;
  }
  std::printf("%s: all checks passed\n", program);
  return 0;
}

}  // namespace test_support
