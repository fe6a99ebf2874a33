#include <gtest/gtest.h>

#include "cli/parse.h"
#include "cli/suggest.h"

using namespace eb::cli;

TEST(Parse, PositiveIntegers) {
    EXPECT_EQ(parse_positive("--iterations", "64"), 64u);
    for (const char* bad : {"0", "-1", "abc", "", "12x", "99999999999999999999999"})
        EXPECT_THROW(parse_positive("--iterations", bad), std::invalid_argument) << bad;
}

TEST(Parse, Durations) {
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "20ms"), 0.02);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "2"), 2);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "0.5s"), 0.5);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "250us"), 250e-6);
    for (const char* bad : {"0", "-3ms", "fast", "", "10min", "nan", "inf"})
        EXPECT_THROW(parse_duration("--time-goal", bad), std::invalid_argument) << bad;
}

TEST(Suggest, FindsTyposOnly) {
    std::vector<std::string> names{"cpuid", "vmcall", "inl_from_qemu", "mov_to_cr8"};
    EXPECT_EQ(suggest("cpudi", names), "cpuid");
    EXPECT_EQ(suggest("inl_from_qem", names), "inl_from_qemu");
    EXPECT_EQ(suggest("completely_different", names), std::nullopt);
}
