// The tests a run can name (suite/registry.h), as the command line picks and
// completes them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lab/vocabulary.h"
#include "suite/registry.h"

namespace eb::lab {

// The named tests (by name or alias) in registry order, each once, with the
// baseline added when `with_baseline`; no names: every test but the internal
// ones. InputError for an unknown name, with the nearest known one.
std::vector<const TestSpec*> select_tests(const std::vector<std::string>& names, bool with_baseline);
// Every name and alias a user may give (the internal tests left out).
std::vector<std::string> test_names();
// The vCPUs `test` needs at least; 1 for a name the registry does not know.
uint32_t min_vcpus(const std::string& test);
// Whether a test of `r` failed where the registry expects no failure.
using suite::has_unexpected_failure;

} // namespace eb::lab
