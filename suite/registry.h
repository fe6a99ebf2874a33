// The test registry: one entry per test, in the order tests run.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "suite/result.h"
#include "suite/spec.h"

namespace eb::suite {

const std::vector<TestSpec>& registry();
// By name or alias; nullptr if unknown.
const TestSpec* find_test(std::string_view name);
// An expected failure (kselftest's XFAIL): the backend's known limitation
// that explains `t` failing or hanging, or nullopt. A host-side error is
// never expected, and neither is a test the registry does not know.
std::optional<std::string> expected_failure(vmm::Backend backend, const TestResult& t);
// The same for a test of run `r`, and for an emulated boot's run (QEMU TCG)
// also TCG's own known gaps: it does not intercept XSETBV, and now and then
// loses a sti;hlt wake (the watchdog then calls the test hung).
std::optional<std::string> expected_failure(const RunReport& r, const TestResult& t);
// Whether a test of `r` failed for a reason the registry does not expect: a
// run's (and an emulated boot's) "a test failed" exit.
bool has_unexpected_failure(const RunReport& r);

} // namespace eb::suite
