// --emulated: a host without a usable /dev/kvm is shown the way (the error
// names the command), and run, compare and list run in a boot of Debian's
// kernel under QEMU TCG, every output saying emulated. These need no
// /dev/kvm (they are for such hosts); they skip, saying why, without QEMU
// or an installed kernel.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The newest /boot/vmlinuz-V with /lib/modules/V, or "".
std::string kernel() {
    std::string best;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/lib/modules", ec))
        if (fs::exists("/boot/vmlinuz-" + e.path().filename().string())) best = "/boot/vmlinuz-" + e.path().filename().string();
    return best;
}

#define REQUIRE_EMULATION()                                                                             \
    if (!have_tool("qemu-system-x86_64")) GTEST_SKIP() << "no qemu-system-x86_64 (install qemu-system-x86)"; \
    if (kernel().empty()) GTEST_SKIP() << "no /boot/vmlinuz-V with /lib/modules/V (install linux-image-amd64)"

CliOptions booting() {
    CliOptions o;
    o.timeout_s = 900;  // a boot under TCG, on a loaded machine
    return o;
}

} // namespace

// The one error line of a host without /dev/kvm names the command that runs
// the same thing emulated here (exit 3 stays).
TEST(Emulated, NoKvmNamesTheEmulatedCommand) {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"--device", "/nonexistent", "run", "cpuid"},
                                                 {"--device", "/nonexistent", "list"},
                                                 {"--device", "/nonexistent", "compare", "cpuid", "--a", "", "--b", ""}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, 3) << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find("to run it emulated on this host: exitbench --device /nonexistent " + args[2]),
                  std::string::npos) << r.err;
        EXPECT_NE(r.err.find("--emulated"), std::string::npos) << r.err;
    }
}

TEST(Emulated, BadUseIsOneLine) {
    TempDir dir;
    for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"run", "cpuid", "--kernel", "/boot/x"}, "--kernel IMAGE applies with --emulated"},
             {{"compare", dir.file("a.json"), dir.file("b.json"), "--emulated"}, "saved results are compared here"},
             {{"compare", "cpuid", "--a", "", "--b", "", "--emulated", "--export-csv", dir.file("c.csv")},
              "not --export-FORMAT files"},
             {{"run", "cpuid", "--emulated", "--kernel", dir.file("absent")}, "no such file"}}) {
        auto r = run_cli(args);
        EXPECT_EQ(r.rc, 2) << args[0] << ": " << r.err;
        EXPECT_TRUE(one_line(r.err)) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    }
}

// run --emulated comes back as if it ran here: the table, the history (with
// its backend), every export, and each of them says emulated; a saved
// compare of emulated runs says so in every export too.
TEST(Emulated, ARunComesBackLabelledInEveryOutputAndTheHistory) {
    REQUIRE_EMULATION();
    TempDir dir;
    std::vector<std::string> args{"run", "cpuid", "-n", "200", "-r", "2", "--sessions", "1", "--emulated",
                                  "--db", dir.file("h.db"), "--json", dir.file("r.json")};
    for (const char* f : {"text", "markdown", "csv", "html", "openmetrics"})
        args.insert(args.end(), {std::string("--export-") + f, dir.file(std::string("r.") + f)});
    auto r = run_cli(args, booting());
    ASSERT_EQ(r.rc, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("emulated: shape only, not hardware cost"), std::string::npos) << r.out;
    for (const char* f : {"text", "markdown", "csv", "html", "openmetrics"})
        EXPECT_NE(slurp(dir.file(std::string("r.") + f)).find("emulated"), std::string::npos) << f;
    EXPECT_NE(slurp(dir.file("r.openmetrics")).find("execution=\"emulated\""), std::string::npos);
    auto list = run_cli({"history", "list", "--db", dir.file("h.db")});
    EXPECT_NE(list.out.find("nested under QEMU TCG, emulated"), std::string::npos) << list.out;
    // A saved compare of emulated runs: the same run and a copy with another note in its file.
    auto doc = json::parse(slurp(dir.file("r.json")));
    doc["provenance"]["timestamp_utc"] = "2026-01-01T00:00:00Z";
    std::ofstream(dir.file("s.json")) << doc.dump();
    std::vector<std::string> cmp{"compare", dir.file("r.json"), dir.file("s.json")};
    for (const char* f : {"text", "markdown", "csv", "html", "openmetrics"})
        cmp.insert(cmp.end(), {std::string("--export-") + f, dir.file(std::string("c.") + f)});
    auto c = run_cli(cmp);
    EXPECT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.out.find("emulated: shape only"), std::string::npos) << c.out;
    for (const char* f : {"text", "markdown", "csv", "html", "openmetrics"})
        EXPECT_NE(slurp(dir.file(std::string("c.") + f)).find("emulated"), std::string::npos) << f;
}

// An interleaved knob A/B from inside the emulated guest: its verdict, its
// JSON marked emulated, and list run there too.
TEST(Emulated, ALiveCompareAndListRunInsideTheGuest) {
    REQUIRE_EMULATION();
    TempDir dir;
    auto r = run_cli({"compare", "cpuid", "-n", "200", "--a", "", "--b", "--guest-efer nx=off", "--rounds", "3",
                      "--emulated", "--json", dir.file("c.json")}, booting());
    ASSERT_EQ(r.rc, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("note: emulated: shape only"), std::string::npos) << r.out;
    auto doc = json::parse(slurp(dir.file("c.json")));
    EXPECT_EQ(doc["execution"], "emulated");
    EXPECT_EQ(doc["unit"], "round");
    EXPECT_FALSE(doc["tests"][0]["vs_first"][0]["verdict"].get<std::string>().empty());
    auto l = run_cli({"list", "--emulated"}, booting());
    EXPECT_EQ(l.rc, 0) << l.err;
    EXPECT_NE(l.out.find("cpuid"), std::string::npos) << l.out;
}

// Ctrl-C during the boot: exit 130, and no QEMU and no scratch file left.
TEST(Emulated, CtrlCLeavesNoQemuAndNoFiles) {
    REQUIRE_EMULATION();
    TempDir dir;
    fs::create_directory(dir.file("tmp"));
    CliOptions o = booting();
    o.env = {"TMPDIR=" + dir.file("tmp")};
    o.signal = SIGINT;
    o.wait_for = "QEMU TCG with an SVM CPU model";  // the boot has begun
    o.sigint_after_s = 2;
    auto r = run_cli({"run", "cpuid", "-n", "2000", "--emulated", "--no-save"}, o);
    EXPECT_EQ(r.rc, 130) << r.err;
    EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(dir.file("tmp"))) << "left in TMPDIR";
    EXPECT_NE(std::system(("pgrep -f '[q]emu-system.*" + dir.file("tmp") + "' > /dev/null").c_str()), 0)
        << "a QEMU outlived exitbench";
}
