// The main() of the C++ tests (harness.h).
#include "harness.h"

#include <cstdio>
#include <string>
#include <vector>

namespace test_support {
namespace {

struct Registered {
  std::string name;  // subsystem.test
  TestFunction run;
  bool on_request;
};

std::vector<Registered>& registry() {
  static std::vector<Registered> tests;
  return tests;
}

int failures = 0;
const char* program = "cxx_tests";

std::string shown_name(const char* subsystem, const char* function) {
  std::string name = function;
  if (name.rfind("test_", 0) == 0) name.erase(0, 5);
  return std::string(subsystem) + "." + name;
}

bool selected(const Registered& test, const std::vector<std::string>& patterns) {
  if (test.on_request) {
    for (const std::string& pattern : patterns)
      if (pattern == test.name) return true;
    return false;
  }
  if (patterns.empty()) return true;
  for (const std::string& pattern : patterns)
    if (test.name.find(pattern) != std::string::npos) return true;
  return false;
}

}  // namespace

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  }
}

Suite::Suite(const char* subsystem, std::initializer_list<TestCase> tests) {
  for (const TestCase& test : tests)
    registry().push_back({shown_name(subsystem, test.name), test.run, false});
}

OnRequest::OnRequest(const char* subsystem, TestCase test) {
  registry().push_back({shown_name(subsystem, test.name), test.run, true});
}

const char* program_path() { return program; }

}  // namespace test_support

int main(int argc, char** argv) {
  using namespace test_support;
  program = argv[0];
  std::vector<std::string> patterns(argv + 1, argv + argc);
  if (patterns.size() == 1 && patterns[0] == "--list") {
    for (const Registered& test : registry())
      std::printf("%s%s\n", test.name.c_str(), test.on_request ? " (on request)" : "");
    return 0;
  }
  int ran = 0;
  for (const Registered& test : registry()) {
    if (!selected(test, patterns)) continue;
    const int before = failures;
    test.run();
    ++ran;
    std::printf("%s %s\n", failures == before ? "ok    " : "FAILED", test.name.c_str());
    std::fflush(stdout);
  }
  if (ran == 0) {
    std::fprintf(stderr, "%s: no test matches\n", program);
    return 1;
  }
  if (failures) {
    std::fprintf(stderr, "%s: %d check(s) failed in %d test(s) run\n", program, failures, ran);
    return 1;
  }
  std::printf("%s: %d test(s), all checks passed\n", program, ran);
  return 0;
}
