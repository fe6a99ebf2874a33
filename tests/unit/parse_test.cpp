#include <gtest/gtest.h>

#include "cli/parse.h"
#include "sys/error.h"

using namespace eb::cli;

TEST(Parse, PositiveIntegers) {
    EXPECT_EQ(parse_positive("--iterations", "64"), 64u);
    for (const char* bad : {"0", "-1", "abc", "", "12x", "99999999999999999999999"})
        EXPECT_THROW(parse_positive("--iterations", bad), eb::InputError) << bad;
}

TEST(Parse, CountsAreStrictAndRanged) {
    EXPECT_EQ(parse_count("--vcpu", "0", 0, UINT32_MAX), 0u);
    EXPECT_EQ(parse_count("--vcpu", "4294967295", 0, UINT32_MAX), 4294967295u);
    for (const char* bad : {" -1", "-1", "+1", " 1", "1 ", "4294967296", "0x10", "1e3", "18446744073709551616"})
        EXPECT_THROW(parse_count("--vcpu", bad, 0, UINT32_MAX), eb::InputError) << bad;
    try {
        parse_count("--repeats", "2000000", 1, 1u << 20);
        FAIL();
    } catch (const eb::InputError& e) {
        EXPECT_STREQ(e.what(), "--repeats needs a whole number from 1 to 1048576, not '2000000'");
    }
}

TEST(Parse, DurationsAreBounded) {
    EXPECT_DOUBLE_EQ(parse_duration("--watchdog", "3600s", 3600), 3600);
    EXPECT_DOUBLE_EQ(parse_duration("--watchdog", "1e3ms", 3600), 1);
    EXPECT_DOUBLE_EQ(parse_duration("--watchdog", "1us", 3600), 1e-6);
    for (const char* bad : {"1e10", "3601", "0.5us", " 5", "+5", "5 ms", "0x10", "infinity", "1e400", ".", "1e"})
        EXPECT_THROW(parse_duration("--watchdog", bad, 3600), eb::InputError) << bad;
    try {
        parse_duration("--watchdog", "1e10", 3600, 1e-3);
        FAIL();
    } catch (const eb::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--watchdog needs a duration from 1ms to 3600s"), std::string::npos)
            << e.what();
    }
}

TEST(Parse, Durations) {
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "20ms"), 0.02);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "2"), 2);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "0.5s"), 0.5);
    EXPECT_DOUBLE_EQ(parse_duration("--time-goal", "250us"), 250e-6);
    for (const char* bad : {"0", "-3ms", "fast", "", "10min", "nan", "inf"})
        EXPECT_THROW(parse_duration("--time-goal", bad), eb::InputError) << bad;
}

