// The HTML reports in a real browser: Debian's headless Chromium, network
// off, a fresh profile. The page itself says what it drew (#eb-check); the
// console must stay silent; a screenshot of each page is kept under the
// build directory (build/artifacts) for people to look at.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "fleet.h"
#include "report/flame.h"
#include "report/flame_diff.h"
#include "sys/file.h"
#include "../unit/sample_report.h"
#include "tests/paths.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* chromium() {
    for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
        if (access(p, X_OK) == 0) return p;
    return nullptr;
}

#define REQUIRE_CHROMIUM()                                                                         \
    if (!chromium()) GTEST_SKIP() << "no headless Chromium (Debian package chromium) on this machine"

// Runs Chromium on a local file with every network path closed; returns its stdout.
std::string browse(const TempDir& dir, const std::string& page, const std::string& action, std::string& log) {
    std::string profile = dir.file("chromium-profile-" + std::to_string(std::rand()));
    fs::create_directories(profile);
    std::string cmd = std::string(chromium()) +
                      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                      " --disable-background-networking --disable-component-update --disable-sync"
                      " --host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0"
                      " --user-data-dir=" + profile + " " + action + " file://" + page +
                      " > " + dir.file("out") + " 2> " + dir.file("err");
    int rc = std::system(cmd.c_str());
    log = slurp(dir.file("err"));
    EXPECT_EQ(rc, 0) << log;
    return slurp(dir.file("out"));
}

// What the page's own check wrote; the screenshot goes to build/artifacts/NAME.png.
json open_page(const TempDir& dir, const std::string& page, const std::string& name, int height) {
    std::string log;
    std::string dom = browse(dir, page, "--dump-dom --window-size=1400,900", log);
    for (std::string line; const auto& l : {log}) {
        std::istringstream in(l);
        while (std::getline(in, line))
            EXPECT_EQ(line.find("CONSOLE"), std::string::npos) << "console message: " << line;
    }
    // The self-check is for this test, not for the reader: in the page, hidden.
    const std::string tag = "<pre id=\"eb-check\" hidden=\"\">";
    auto at = dom.find(tag);
    EXPECT_NE(at, std::string::npos) << dom.substr(0, 2000);
    if (at == std::string::npos) return json::object();
    at += tag.size();
    // Tables are headed for people; the key is the tooltip.
    EXPECT_EQ(dom.find("<th>"), std::string::npos);
    EXPECT_NE(dom.find("<th title=\""), std::string::npos);
    std::string check = dom.substr(at, dom.find("</pre>", at) - at);
    EXPECT_FALSE(check.empty()) << "the page script did not run; Chromium said:\n" << log;
    fs::create_directories(eb::test::artifacts_dir());
    std::string png = eb::test::artifacts_dir() + "/" + name + ".png";
    fs::remove(png);
    browse(dir, page, "--screenshot=" + png + " --window-size=1200," + std::to_string(height), log);
    EXPECT_GT(fs::exists(png) ? fs::file_size(png) : 0, 10000u) << "no screenshot: " << log;
    return check.empty() ? json::object() : json::parse(check);
}

void expect_drawn(const json& check, size_t plots) {
    ASSERT_TRUE(check.contains("expected")) << check;
    EXPECT_EQ(check["expected"], plots) << check;
    EXPECT_EQ(check["canvases"], plots) << check;
    EXPECT_EQ(check["nonblank"], plots) << check;
    EXPECT_EQ(check["with_data"], plots) << check;  // every chart has elements from its data
    EXPECT_EQ(check["errors"], json::array()) << check;
}

} // namespace

KVM_TEST_HOST_ONLY(Browser, RunReportDrawsRepeatsAndPerExitHistograms,
    "needs headless Chromium, which the nested guest does not carry") {
    REQUIRE_CHROMIUM();
    TempDir dir;
    auto r = run_cli({"run", "cpuid", "inl_from_qemu", "selftest_hang", "--watchdog", "1s", "--sessions", "2", "-r", "3",
                      "-n", "2000", "--per-exit", "--no-save", "--export-html", dir.file("run.html"), "--export-json",
                      dir.file("run.json")});
    ASSERT_EQ(r.rc, 1) << r.err;  // the hang is a failure
    size_t plots = 0;  // counted from the result, not from the page
    auto result = json::parse(slurp(dir.file("run.json")));
    for (const auto& t : result["results"]) {
        bool measured = !t["sessions"].empty();
        plots += measured + (measured && t.contains("per_exit") && !t["per_exit"].is_null());
    }
    EXPECT_EQ(plots, 6u);  // three tests, each with its repeats and its per-exit histogram (the hang has none)
    auto check = open_page(dir, dir.file("run.html"), "run", 3600);
    expect_drawn(check, plots);
    // The summary fits a 1400 px window, and the hung row is one line high.
    EXPECT_EQ(check["window"], 1400) << check;
    EXPECT_LE(check["widest"].get<int>(), 1400 - 2 * 21) << check;  // the body's 1.5em margins
    EXPECT_LE(check["tallest_row"].get<int>(), 40) << check;
}

KVM_TEST_HOST_ONLY(Browser, CompareReportDrawsForestPlotAndControl,
    "needs headless Chromium, which the nested guest does not carry") {
    REQUIRE_CHROMIUM();
    TempDir dir;
    for (const char* side : {"a", "b"}) {
        auto r = run_cli({"run", "cpuid", "inl_from_qemu", "--sessions", "3", "-r", "3", "-n", "2000", "--no-save",
                          "--json", dir.file(std::string(side) + ".json")});
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    auto c = run_cli({"compare", dir.file("a.json"), dir.file("b.json"), "--export-html", dir.file("cmp.html")});
    ASSERT_EQ(c.rc, 0) << c.err;
    expect_drawn(open_page(dir, dir.file("cmp.html"), "compare", 1400), 2);  // the tests; the baseline apart
}

TEST(Browser, ProfileReportDrawsSharesAndLatencyHistograms) {
    REQUIRE_CHROMIUM();
    TempDir dir;
    auto r = run_cli({"profile", "report", "-i", eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace",
                      "--export-html", dir.file("p.html"), "--export-json", dir.file("p.json")});
    ASSERT_EQ(r.rc, 0) << r.err;
    size_t plots = 1;  // the share of time
    auto analysis = json::parse(slurp(dir.file("p.json")));
    for (const auto& row : analysis["rows"])
        plots += row.value("timed", false) && !row["log2_hist"].empty();
    EXPECT_GT(plots, 1u);
    expect_drawn(open_page(dir, dir.file("p.html"), "profile", 2400), plots);
}

KVM_TEST_HOST_ONLY(Browser, MergeReportDrawsAStripPlotPerGroupOfHosts,
    "needs headless Chromium, which the nested guest does not carry") {
    REQUIRE_CHROMIUM();
    TempDir dir;
    auto files = fleet(dir, {"host-a", "host-b", "host-c", "slow", "newkernel"});
    std::vector<std::string> args{"report", "merge", "--export-html", dir.file("merge.html")};
    args.insert(args.end(), files.begin(), files.end());
    auto m = run_cli(args);
    ASSERT_EQ(m.rc, 0) << m.err;
    expect_drawn(open_page(dir, dir.file("merge.html"), "merge", 1400), 2);  // two groups: two kernels
}

// The run page with a host profile's flame graph (report/flame.h), drawn by
// the page's own renderer: a synthetic profile, so no /dev/kvm is needed.
TEST(Browser, HostProfileFlameGraphIsDrawn) {
    REQUIRE_CHROMIUM();
    TempDir dir;
    eb::profile::TestHostProfile p;
    p.test = "cpuid";
    p.add({"[libc.so.6]", "entry_SYSCALL_64_after_hwframe", "kvm_vcpu_ioctl [kvm]", "kvm_arch_vcpu_ioctl_run [kvm]",
           "kvm_emulate_cpuid [kvm]"}, 40);
    p.add({"[libc.so.6]", "entry_SYSCALL_64_after_hwframe", "kvm_vcpu_ioctl [kvm]", "svm_vcpu_run [kvm_amd]"}, 25);
    p.add({eb::profile::kGuestFrame}, 60);
    p.add({"eb::kvm::Vcpu::run()"}, 5);
    eb::sys::write_file(dir.file("flame.html"), eb::report::render_run_html(sample_report(), {p}));
    auto check = open_page(dir, dir.file("flame.html"), "host-flame", 2000);
    expect_drawn(check, 3);  // baseline's and cpuid's repeats, and the flame graph
    EXPECT_NE(slurp(dir.file("flame.html")).find("\"kind\":\"flame\""), std::string::npos);
}

// compare --host-profile's differential flame graph, from synthetic rounds:
// drawn on its own canvas, no /dev/kvm needed.
TEST(Browser, HostProfileDifferentialFlameGraphIsDrawn) {
    REQUIRE_CHROMIUM();
    TempDir dir;
    auto side = [](const char* handler, uint64_t n, double cycles) {
        eb::profile::TestHostProfile p;
        p.test = "ipi";
        p.add({"[libc.so.6]", "kvm_vcpu_ioctl [kvm]", "vcpu_enter_guest [kvm]", handler}, n);
        p.add({"[libc.so.6]", "kvm_vcpu_ioctl [kvm]", "vcpu_enter_guest [kvm]", "svm_vcpu_run [kvm_amd]"}, 30);
        p.add({eb::profile::kGuestFrame}, 40);
        p.sampled = {1, 1000, cycles * 1000};
        return std::vector<eb::profile::TestHostProfile>{p};
    };
    std::vector<eb::profile::RoundProfiles> a{side("x86_emulate_instruction [kvm]", 60, 2000)},
        b{side("handle_fastpath_set_msr_irqoff [kvm]", 10, 1000)};
    auto tree = eb::report::diff_flame_tree("ipi", a, b, 1000);
    ASSERT_FALSE(tree.is_null());
    eb::report::Comparison doc{{}, {"synthetic: two configurations, one round"}};
    eb::sys::write_file(dir.file("diff.html"), eb::report::render_compare_html(doc, {{"ipi: x2apic vs xapic", tree}}));
    auto check = open_page(dir, dir.file("diff.html"), "host-flame-diff", 1200);
    expect_drawn(check, 1);
    EXPECT_NE(slurp(dir.file("diff.html")).find("\"kind\":\"flame_diff\""), std::string::npos);
}

// history trend's chart: a point per saved session, from three imported
// kvm-unit-tests logs (no /dev/kvm needed).
TEST(Browser, HistoryTrendDrawsItsChart) {
    REQUIRE_CHROMIUM();
    TempDir dir;
    for (const char* label : {"v6.1", "v6.2", "v6.3"})
        ASSERT_EQ(run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", dir.file("h.db"), "--label", label}).rc, 0);
    auto r = run_cli({"history", "trend", "cpuid", "--db", dir.file("h.db"), "--export-html", dir.file("trend.html")});
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("cpuid session medians"), std::string::npos) << r.out;
    auto page = slurp(dir.file("trend.html"));
    EXPECT_NE(page.find("v6.3"), std::string::npos);
    auto check = open_page(dir, dir.file("trend.html"), "history-trend", 900);
    expect_drawn(check, 1);
    auto bad = run_cli({"history", "trend", "cpuid", "--db", dir.file("h.db"), "--export-html", dir.file("no/dir/t.html")});
    EXPECT_EQ(bad.rc, 2) << bad.err;
    EXPECT_TRUE(one_line(bad.err)) << bad.err;
}
