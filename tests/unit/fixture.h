// Reads a committed test fixture (tests/fixtures/...) whole, as bytes.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include "tests/paths.h"

inline std::string read_fixture(const std::string& relative) {
    std::ifstream f(eb::test::fixtures_dir() + "/" + relative, std::ios::binary);
    EXPECT_TRUE(f) << "cannot open the fixture " << relative;
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// A perf text or perf script fixture (tests/fixtures/perf/NAME).
inline std::string perf_fixture(const std::string& name) { return read_fixture("perf/" + name); }
