// The result format is result/json.h (library eb_result, which history/ uses
// without the rest of report/). These names remain for one caller the lead
// owns, tests/integration/robustness_test.cpp; new code includes
// result/json.h. Remove this header once that test does.
#pragma once
#include "result/json.h"

namespace eb::report {
using result::from_json;
using result::parse_document;
using result::to_json;
} // namespace eb::report
