#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "profile/trace_file.h"
#include "report/file.h"

namespace fs = std::filesystem;
using namespace eb;

TEST(AtomicFile, WritesAndReplacesWithoutLeftovers) {
    fs::path dir = fs::temp_directory_path() / "eb_file_test";
    fs::remove_all(dir);
    fs::create_directories(dir);
    auto path = (dir / "out.json").string();
    report::write_file_atomic(path, "one");
    report::write_file_atomic(path, "two");
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_EQ(ss.str(), "two");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
    fs::remove_all(dir);
}

TEST(AtomicFile, UnwritableTargetsFailWithOneLine) {
    for (const std::string bad : {"/nonexistent-dir/x.json", "/"}) {
        try {
            report::check_writable(bad);
            FAIL() << bad;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("cannot write"), std::string::npos);
        }
        EXPECT_THROW(report::write_file_atomic(bad, "x"), std::runtime_error);
    }
}

TEST(AtomicFile, TracesAreOwnerOnly) {
    fs::path dir = fs::temp_directory_path() / ("eb_trace_mode_" + std::to_string(getpid()));
    fs::create_directories(dir);
    auto path = (dir / "t.trace").string();
    profile::TraceWriter w(path, {});
    w.finish();
    // With -a a trace holds every VM's exits: 0600 whatever the umask.
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    fs::remove_all(dir);
}
