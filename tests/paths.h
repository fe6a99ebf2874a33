// Where the tests find the binary under test, their fixtures and the source
// tree. Defined in a file generated at configure time (build/tests/paths.cpp):
// absolute paths differ between clones, and keeping them out of the test
// files' compile flags lets the compiler cache reuse those objects.
#pragma once
#include <string>

namespace eb::test {

std::string exitbench_binary();  // $EB_BINARY if set (a sanitizer build's binary), else this build's
std::string perf_data_gen();     // tests/tools/perf_data_gen: a large perf.data from the fixture
std::string fixtures_dir();      // tests/fixtures
std::string source_dir();        // the source tree's root
std::string kunit_py();          // the kernel's tools/testing/kunit/kunit.py (from linux-source), if it was found
std::string kselftest_dir();     // the kernel's tools/testing/selftests with run_kselftest.sh and kselftest/ (likewise)
std::string artifacts_dir();     // screenshots kept for people to look at: build/artifacts
std::string nested_script();     // tests/nested/in-svm.sh
std::string guest_script();      // tests/nested/in-guest.sh

} // namespace eb::test
