#include <gtest/gtest.h>

#include "report/sanitize.h"

using eb::report::printable;

TEST(Printable, EscapesEverythingATerminalWouldInterpret) {
    EXPECT_EQ(printable("AMD EPYC 7763 64-Core Processor"), "AMD EPYC 7763 64-Core Processor");
    EXPECT_EQ(printable("cpu\x1b[2J\x1b]0;owned\x07"), "cpu\\x1b[2J\\x1b]0;owned\\x07");
    EXPECT_EQ(printable("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
    EXPECT_EQ(printable("\xc2\x9b" "31m"), "\\xc2\\x9b31m");  // UTF-8 CSI
    EXPECT_EQ(printable(std::string("nul\0", 4)), "nul\\x00");
    EXPECT_EQ(printable("C:\\x1b"), "C:\\\\x1b");  // a literal backslash cannot pass for an escape
}
