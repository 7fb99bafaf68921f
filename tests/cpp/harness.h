// The C++ tests' one harness: every test file registers its tests under the
// name of the subsystem it tests, and one program (harness.cc) runs them.
//
//   cxx_tests              every test
//   cxx_tests NAME...      the tests whose "subsystem.test" name contains a NAME
//   cxx_tests --list       the tests' names
//
// A failed check is printed and counted; the exit status says whether any
// failed.
#pragma once

#include <initializer_list>
#include <string>

namespace test_support {

void expect(bool ok, const std::string& what);
// expect(), with the condition's own text as the message.
#define EXPECT(condition) ::test_support::expect((condition), #condition)

using TestFunction = void (*)();

struct TestCase {
  const char* name;  // its function's name; "test_" is dropped from the name shown
  TestFunction run;
};
#define TEST_CASE(function) ::test_support::TestCase{#function, function}

// Registers a subsystem's tests, in the order they run:
//   const test_support::Suite kSuite("plan_cache", {TEST_CASE(test_bounds), ...});
struct Suite {
  Suite(const char* subsystem, std::initializer_list<TestCase> tests);
};

// Registers a test that runs only when named in full on the command line:
// a child that another test starts as this program (program_path()).
struct OnRequest {
  OnRequest(const char* subsystem, TestCase test);
};

// The path this program was started with.
const char* program_path();

}  // namespace test_support
