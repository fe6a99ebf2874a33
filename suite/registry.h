// The test registry: one entry per test, in the order tests run.
#pragma once
#include <string_view>
#include <vector>

#include "suite/spec.h"

namespace eb::suite {

const std::vector<TestSpec>& registry();
// By name or alias; nullptr if unknown.
const TestSpec* find_test(std::string_view name);

} // namespace eb::suite
