#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>

#include "report/sanitize.h"

using eb::report::printable;
using eb::report::printable_fit;
using eb::report::shell_word;

TEST(Printable, EscapesEverythingATerminalWouldInterpret) {
    EXPECT_EQ(printable("AMD EPYC 7763 64-Core Processor"), "AMD EPYC 7763 64-Core Processor");
    EXPECT_EQ(printable("cpu\x1b[2J\x1b]0;owned\x07"), "cpu\\x1b[2J\\x1b]0;owned\\x07");
    EXPECT_EQ(printable("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
    EXPECT_EQ(printable("\xc2\x9b" "31m"), "\\xc2\\x9b31m");  // UTF-8 CSI
    EXPECT_EQ(printable(std::string("nul\0", 4)), "nul\\x00");
    EXPECT_EQ(printable("C:\\x1b"), "C:\\\\x1b");  // a literal backslash cannot pass for an escape
}

// A table's name column: as is when it fits, else cut to the width with
// "...", and never inside an escape.
TEST(PrintableFit, CutsToTheWidthBetweenEscapes) {
    EXPECT_EQ(printable_fit("vcpu_run", 8), "vcpu_run");
    EXPECT_EQ(printable_fit("svm_vcpu_run", 8), "svm_v...");
    EXPECT_EQ(printable_fit("abcd\x1b", 8), "abcd\\x1b");  // fits, escape and all
    EXPECT_EQ(printable_fit("ab\x1b" "cdef", 8), "ab...");  // "ab\x1" would read as another byte
    EXPECT_EQ(printable_fit("a\\bcdefgh", 8), "a\\\\bc...");  // an escaped backslash stays whole
    EXPECT_EQ(printable_fit("abc\\defgh", 6), "abc...");  // "abc\" would start an escape
}

// A suggested command is shown as it is, so every word must be printable
// ASCII and read back by the shell as the original bytes.
TEST(ShellWord, ReadsBackAsTheOriginalAndIsPrintable) {
    EXPECT_EQ(shell_word("/tmp/h.db"), "/tmp/h.db");
    EXPECT_EQ(shell_word("it's"), "'it'\"'\"'s'");
    EXPECT_EQ(shell_word(""), "''");
    for (std::string s : {std::string("it's"), std::string("a b"), std::string("C:\\x1b"), std::string("L\x1b[31m"),
                          std::string("line\nbreak"), std::string("$(rm -rf x)`y`"), std::string("t\xc3\xa9st")}) {
        auto w = shell_word(s);
        EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](unsigned char c) { return c >= 0x20 && c < 0x7f; })) << w;
        // popen's sh hands bash the word unparsed; bash reads it as a user would.
        std::string cmd = "bash -c " + shell_word("printf %s " + w);
        FILE* p = ::popen(cmd.c_str(), "r");
        ASSERT_NE(p, nullptr);
        std::string back;
        char buf[256];
        for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) back.append(buf, n);
        EXPECT_EQ(::pclose(p), 0);
        EXPECT_EQ(back, s) << w;
    }
}
