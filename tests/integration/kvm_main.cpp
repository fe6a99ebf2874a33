// The integration tests' main: gtest's, plus the registry of the tests that
// need /dev/kvm (kvm_test.h).
//   --eb-kvm-only   run only those the nested kvm_amd can run (with gtest's
//                   sharding variables, a share of them)
//   --eb-kvm-list   print every registered test, a line each: its name, and
//                   for one the nested guest cannot run, the reason
#include <cstring>
#include <fmt/format.h>
#include <vector>

#include "kvm_test.h"

namespace eb::test {

std::map<std::string, std::string>& kvm_tests() {
    static std::map<std::string, std::string> tests;
    return tests;
}

std::string nested_kvm_filter() {
    std::string f;
    for (const auto& [name, host_only] : kvm_tests())
        if (host_only.empty()) f += (f.empty() ? "" : ":") + name;
    return f.empty() ? "-*" : f;
}

} // namespace eb::test

int main(int argc, char** argv) {
    bool only = false, list = false;
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::strcmp(argv[i], "--eb-kvm-only") == 0) only = true;
        else if (std::strcmp(argv[i], "--eb-kvm-list") == 0) list = true;
        else args.push_back(argv[i]);
    }
    if (list) {
        for (const auto& [name, host_only] : eb::test::kvm_tests())
            fmt::print("{}{}{}\n", name, host_only.empty() ? "" : "\thost only: ", host_only);
        return 0;
    }
    int n = int(args.size());
    ::testing::InitGoogleTest(&n, args.data());
    if (only) {
        if (GTEST_FLAG_GET(filter) != "*") {
            fmt::print(stderr, "--eb-kvm-only chooses the tests itself: give no --gtest_filter with it\n");
            return 2;
        }
        GTEST_FLAG_SET(filter, eb::test::nested_kvm_filter());
    }
    return RUN_ALL_TESTS();
}
