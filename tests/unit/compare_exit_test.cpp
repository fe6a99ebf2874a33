// compare's exit status once a comparison exists: the gate's regression
// stands over every later failure, and the table help prints is the order
// compare_exit() applies.
#include <gtest/gtest.h>

#include <string>

#include "cli/app.h"
#include "cli/compare_exit.h"

namespace {

using namespace eb::cli;

TEST(CompareExit, ARegressionStandsOverASaveAnExportAndASignal) {
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .saved = false}), kTestFailed);
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .written = false}), kTestFailed);
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .interrupted = true}), kTestFailed);
    EXPECT_EQ(compare_exit({.gate = kTestFailed, .written = false, .saved = false, .interrupted = true}), kTestFailed);
}

TEST(CompareExit, WithoutARegressionTheFailuresComeInTheTablesOrder) {
    EXPECT_EQ(compare_exit({.gate = std::nullopt, .written = false, .saved = false, .interrupted = true}), kHost);
    EXPECT_EQ(compare_exit({.gate = kNotTestable, .saved = false, .interrupted = true}), kNotSaved);
    EXPECT_EQ(compare_exit({.gate = kOk, .interrupted = true}), kInterrupted);
    EXPECT_EQ(compare_exit({.gate = kNotTestable}), kNotTestable);
    EXPECT_EQ(compare_exit({.gate = kOk, .empty = true}), kOk);  // the gate read the (empty) family
    EXPECT_EQ(compare_exit({.gate = std::nullopt, .empty = true}), kTestFailed);
    EXPECT_EQ(compare_exit({}), kOk);
}

TEST(CompareExit, TheTableListsEveryCodeInThatOrder) {
    std::string t = kCompareExitTable;
    size_t at = 0;
    for (const char* row : {"\n  2 ", "\n  3 ", "\n  1    --fail-if-slower", "\n  3    an export", "\n  5 ", "\n  130",
                            "\n  4 ", "\n  1    no test", "\n  0 "}) {
        auto next = t.find(row, at);
        ASSERT_NE(next, std::string::npos) << row;
        at = next + 1;
    }
}

} // namespace
