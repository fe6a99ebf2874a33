#include <gtest/gtest.h>

#include "stats/summary.h"

using namespace eb;

TEST(Summary, MedianOddAndEven) {
    std::vector<double> odd{5, 1, 3}, even{4, 1, 3, 2};
    EXPECT_DOUBLE_EQ(stats::median(odd), 3);
    EXPECT_DOUBLE_EQ(stats::median(even), 2.5);
}

TEST(Summary, MinMaxMean) {
    std::vector<double> xs{2, 8, 4, 6};
    EXPECT_DOUBLE_EQ(stats::min(xs), 2);
    EXPECT_DOUBLE_EQ(stats::max(xs), 8);
    EXPECT_DOUBLE_EQ(stats::mean(xs), 5);
}

TEST(Summary, QuantileInterpolatesBetweenRanks) {
    std::vector<double> xs{10, 20, 30, 40, 50};
    EXPECT_DOUBLE_EQ(stats::quantile(xs, 0), 10);
    EXPECT_DOUBLE_EQ(stats::quantile(xs, 1), 50);
    EXPECT_DOUBLE_EQ(stats::quantile(xs, 0.1), 14);
}

TEST(Summary, EmptyOrBadInputThrows) {
    std::vector<double> none;
    EXPECT_THROW(stats::median(none), std::invalid_argument);
    EXPECT_THROW(stats::min(none), std::invalid_argument);
    std::vector<double> one{1};
    EXPECT_THROW(stats::quantile(one, 1.5), std::invalid_argument);
}
