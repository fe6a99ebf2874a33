// sys::write_file and check_writable: a whole file or none, one-line errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "sys/file.h"
#include "tests/temp_dir.h"

namespace fs = std::filesystem;
using namespace eb;

namespace {
class AtomicFile : public test::TempDirTest {};
} // namespace

TEST_F(AtomicFile, WritesAndReplacesWithoutLeftovers) {
    auto out = temp_path("out.json");
    sys::write_file(out, "one");
    sys::write_file(out, "two");
    std::ifstream f(out);
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_EQ(ss.str(), "two");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir()), fs::directory_iterator{}), 1);
}

TEST_F(AtomicFile, UnwritableTargetsFailWithOneLine) {
    for (const std::string bad : {"/nonexistent-dir/x.json", "/"}) {
        try {
            sys::check_writable(bad);
            FAIL() << bad;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos);
        }
        EXPECT_THROW(sys::write_file(bad, "x"), std::runtime_error);
    }
}
