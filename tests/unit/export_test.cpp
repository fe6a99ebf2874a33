// Every format of the exporter registry, on every subject, and the escaping
// each needs: CSV quoting, markdown's |, the exposition format's label values,
// HTML that cannot close its own script.
#include <cstdlib>
#include <fstream>
#include <set>
#include <gtest/gtest.h>

#include "report/exporter.h"
#include "report/grid.h"
#include "report/gate_view.h"
#include "report/grids.h"
#include "report/html.h"
#include "report/openmetrics.h"
#include "report/profile_text.h"
#include "report/sha256.h"
#include "sample_report.h"
#include "tests/temp_dir.h"
#include "sys/error.h"

using namespace eb;

namespace {

report::Comparison sample_comparison() {
    suite::RunReport a = sample_report(), b = sample_report();
    for (auto& t : b.results)
        for (auto& s : t.sessions)
            for (auto& x : s.samples) x *= 1.1;
    auto cmp = suite::compare_saved({"a.json", "b|\"new\".json"}, {{a, a}, {b, b}});
    return {cmp, {"saved results: 2 vs 2 file(s)"}};
}

profile::Report sample_profile() {
    profile::Report p;
    p.isa = "svm";
    p.backend = "kvm_amd";
    profile::Row row;
    row.name = "msr";
    row.count = 10;
    row.total_ns = 5000;
    row.min_ns = 100;
    row.max_ns = 900;
    row.mean_ns = 500;
    row.p50_ns = 450;
    row.p99_ns = 880;
    row.log2_hist[9] = 6;
    row.log2_hist[10] = 4;
    p.rows = {row};
    p.total_samples = 10;
    p.total_time_ns = 5000;
    return p;
}

// Three hosts, one far off and one with a name that needs escaping everywhere.
report::Merged sample_merged() {
    std::vector<report::MergeInput> in;
    const char* names[] = {"a", "b|\"odd\" \\ host\n", "far"};
    for (const char* n : names) {
        auto r = sample_report();
        r.provenance.hostname = n;
        if (std::string(n) == "far")
            for (auto& t : r.results)
                for (auto& s : t.sessions)
                    for (auto& x : s.samples) x *= 1.5;
        in.push_back({std::string(n) + ".json", r});
    }
    return report::merge_runs(in);
}

} // namespace

TEST(Csv, QuotesFieldsAsRfc4180Says) {
    EXPECT_EQ(report::csv_field("plain"), "plain");
    EXPECT_EQ(report::csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(report::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(report::csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(report::csv_field("cr\r"), "\"cr\r\"");
    report::Grid g{{"a", "b"}, {false, true}, {{"x,y", "1"}}, {}};
    EXPECT_EQ(report::to_csv(g), "a,b\r\n\"x,y\",1\r\n");
}

// Issue 24: a test name, label or host starting = + - @ ran as a formula.
TEST(Csv, FormulasAreNeutralisedNumbersStayNumbers) {
    EXPECT_EQ(report::csv_field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
    EXPECT_EQ(report::csv_field("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
    EXPECT_EQ(report::csv_field("-2+3"), "'-2+3");
    EXPECT_EQ(report::csv_field("@SUM(A1)"), "'@SUM(A1)");
    EXPECT_EQ(report::csv_field("\tx"), "'\tx");
    for (const char* n : {"-12.5", "-3", "+4", "1e-05", "-2.5E+10", "0.000", "-.5"}) EXPECT_EQ(report::csv_field(n), n);
    auto r = sample_report();
    r.results[1].name = "=1+1";
    auto out = report::csv_exporter()->render(r);
    EXPECT_NE(out.find("\r\n'=1+1,ok,"), std::string::npos) << out;
}

// Issue 24: a perf kvm stat table has no percentiles; they were written as 0.
TEST(Csv, ImportedPerfTablesLeaveTheirPercentilesEmpty) {
    auto p = sample_profile();
    p.imported = "perf kvm stat report";
    p.rows[0].p50_ns = p.rows[0].p99_ns = 0;
    auto out = report::csv_exporter()->render(p);
    EXPECT_NE(out.find(",0.100,,,0.900,"), std::string::npos) << out;  // min, p50, p99, max
    auto prom = report::openmetrics_exporter()->render(p);
    EXPECT_EQ(prom.find("quantile="), std::string::npos) << prom;
    EXPECT_NE(prom.find("exitbench_profile_handling_seconds_count"), std::string::npos) << prom;
}

TEST(Csv, RunHasAHeaderAndOneRowPerTest) {
    auto out = report::csv_exporter()->render(sample_report());
    EXPECT_EQ(out.rfind("test,status,cycles_per_iter,", 0), 0u) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 5) << out;  // header + 4 tests
    EXPECT_NE(out.find("\r\ncpuid,ok,"), std::string::npos) << out;
}

TEST(Csv, CompareHasOneRowPerTestAndConfig) {
    auto out = report::csv_exporter()->render(sample_comparison());
    EXPECT_NE(out.find("cpuid,a.json,reference,"), std::string::npos) << out;
    EXPECT_NE(out.find("cpuid,\"b|\"\"new\"\".json\",vs a.json,"), std::string::npos) << out;
    EXPECT_NE(out.find("baseline,a.json,control,"), std::string::npos) << out;
}

TEST(Markdown, EscapesPipesAndMarkup) {
    EXPECT_EQ(report::markdown_cell("a|b"), "a\\|b");
    EXPECT_EQ(report::markdown_cell("x\\y"), "x\\\\y");
    EXPECT_EQ(report::markdown_cell("<b>\nc"), "&lt;b&gt;<br>c");
    auto out = report::markdown_exporter()->render(sample_comparison());
    EXPECT_NE(out.find("| test | config | role |"), std::string::npos) << out;
    EXPECT_NE(out.find("b\\|\"new\".json"), std::string::npos) << out;
    EXPECT_NE(out.find("|---|---|---|---:|"), std::string::npos) << out;
}

TEST(Text, PadsColumnsAndHidesControlBytes) {
    report::Grid g{{"name", "n"}, {false, true}, {{"a\x1b[31m", "1"}, {"bb", "100"}}, {}};
    EXPECT_EQ(report::to_text(g), "name         n\na\\x1b[31m    1\nbb         100\n");
    auto out = report::text_exporter()->render(sample_report());
    EXPECT_NE(out.find("vmcall (hung): rip=0x1"), std::string::npos) << out;
}

TEST(OpenMetrics, EscapesLabelValues) {
    EXPECT_EQ(report::metric_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    EXPECT_EQ(report::metric_label_value("tab\there\x1b"), "tab\\\\x09here\\\\x1b");
    // Issue 24: every non-ASCII byte was '?', so these two were one series.
    EXPECT_EQ(report::metric_label_value("t\xc3\xa9st"), "t\xc3\xa9st");
    EXPECT_EQ(report::metric_label_value("t\xc3\xbcst"), "t\xc3\xbcst");
    EXPECT_EQ(report::metric_label_value("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
    // Not UTF-8 (a lone continuation, an overlong '/', a surrogate, a C1 control): spelled out.
    EXPECT_EQ(report::metric_label_value("\x80\xc0\xaf\xed\xa0\x80\xc2\x9b"),
              "\\\\x80\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\\\\xc2\\\\x9b");
    report::Metrics m;
    m.family("x_total", "counter", "help with \\ and\nnewline");
    m.sample("x_total", {{"k", "v\""}}, 3);
    m.sample("x_total", {{"k", "nan"}}, std::nan(""));
    EXPECT_EQ(m.text(), "# HELP x_total help with \\\\ and\\nnewline\n# TYPE x_total counter\nx_total{k=\"v\\\"\"} 3\n");
}

// Issue 24: a file compared with itself gave duplicate series; Prometheus
// kept half of them.
TEST(OpenMetrics, EverySeriesIsUniqueWhenAFileIsComparedWithItself) {
    suite::RunReport a = sample_report();
    auto cmp = suite::compare_saved({"a.json", "a.json"}, {{a, a}, {a, a}});
    auto out = report::openmetrics_exporter()->render(report::Comparison{cmp, {}});
    std::set<std::string> series;
    size_t samples = 0;
    for (size_t at = 0, nl; at < out.size(); at = nl + 1) {
        nl = out.find('\n', at);
        std::string line = out.substr(at, nl - at);
        if (line.empty() || line[0] == '#') continue;
        ++samples;
        EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "duplicate: " << line;
    }
    EXPECT_GT(samples, 4u) << out;
}

TEST(OpenMetrics, RunHasCyclesExitsStatusAndTimestamp) {
    auto r = sample_report();
    r.provenance.timestamp_utc = "2026-12-01T07:00:00Z";
    r.provenance.hostname = "h1";
    r.host.cpu_model = "Test \"CPU\" \\ 1";
    r.wall_time = suite::WallSplit{.total = 2'500'000'000};
    auto out = report::openmetrics_exporter()->render(r);
    std::string host = "host=\"h1\",backend=\"svm\",cpu_model=\"Test \\\"CPU\\\" \\\\ 1\",kernel=\"6.1.0\","
                       "execution=\"host\"";
    // A gauge in cycles and one in seconds (the TSC is 2000 MHz): no made-up quantile.
    EXPECT_NE(out.find("# TYPE exitbench_exit_cycles gauge\n"), std::string::npos) << out;
    EXPECT_NE(out.find("exitbench_exit_cycles{" + host + ",test=\"cpuid\"} 1234.7\n"), std::string::npos) << out;
    EXPECT_NE(out.find("exitbench_exit_seconds{" + host + ",test=\"cpuid\"} 6.17"), std::string::npos) << out;
    EXPECT_EQ(out.find("quantile="), std::string::npos) << out;
    EXPECT_EQ(out.find(" summary\n"), std::string::npos) << out;
    EXPECT_NE(out.find("exitbench_exits_per_iteration{"), std::string::npos) << out;
    EXPECT_NE(out.find("status=\"hung\"} 1"), std::string::npos) << out;
    EXPECT_NE(out.find("exitbench_run_timestamp_seconds{" + host + "} 1796108400\n"), std::string::npos) << out;
    // The last run: when it ended, and that its hung test failed it.
    EXPECT_NE(out.find("exitbench_last_run_timestamp_seconds{" + host + "} 1796108402.5\n"), std::string::npos) << out;
    EXPECT_NE(out.find("exitbench_last_run_success{" + host + "} 0\n"), std::string::npos) << out;
    r.results.pop_back();
    EXPECT_NE(report::openmetrics_exporter()->render(r).find("exitbench_last_run_success{" + host + "} 1\n"),
              std::string::npos);
}

// kvm_pvm's known livelock explains the hang: an expected failure, and the run a success.
TEST(OpenMetrics, AnExpectedFailureIsShownAndDoesNotFailTheRun) {
    auto r = sample_report();
    r.host.backend = vmm::Backend::Pvm;
    auto out = report::openmetrics_exporter()->render(r);
    EXPECT_NE(out.find("exitbench_test_expected_failure{host=\"\",backend=\"pvm\""), std::string::npos) << out;
    EXPECT_NE(out.find("test=\"vmcall\"} 1\n"), std::string::npos) << out;
    EXPECT_NE(out.find("exitbench_last_run_success{host=\"\",backend=\"pvm\",cpu_model=\"Test CPU\",kernel=\"6.1.0\",execution=\"host\"} 1\n"),
              std::string::npos) << out;
}

// --per-exit: a histogram in seconds, cumulative buckets ending in +Inf = _count.
TEST(OpenMetrics, PerExitIsAHistogramInSeconds) {
    auto r = sample_report();
    r.results[1].per_exit_cycles = {2000, 2100, 4000, 30000};  // 1, 1.05, 2, 15 us at 2000 MHz
    auto out = report::openmetrics_exporter()->render(r);
    EXPECT_NE(out.find("# TYPE exitbench_per_exit_seconds histogram\n"), std::string::npos) << out;
    auto bucket = [&](const std::string& le) {
        auto at = out.find("exitbench_per_exit_seconds_bucket{host=\"\",backend=\"svm\",cpu_model=\"Test CPU\","
                           "kernel=\"6.1.0\",execution=\"host\",test=\"cpuid\",le=\"" + le + "\"} ");
        EXPECT_NE(at, std::string::npos) << le << "\n" << out;
        return at == std::string::npos ? -1 : std::stod(out.substr(out.find("} ", at) + 2));
    };
    double le_1us = bucket("1e-06"), le_10us = bucket("1e-05"), inf = bucket("+Inf");
    EXPECT_LE(le_1us, le_10us);
    EXPECT_LE(le_10us, inf);
    EXPECT_EQ(inf, double(report::net_per_exit(r, r.results[1]).size()));
    EXPECT_NE(out.find("exitbench_per_exit_seconds_count{"), std::string::npos) << out;
    EXPECT_NE(out.find("exitbench_per_exit_seconds_sum{"), std::string::npos) << out;
}

// promtool is the reference parser and linter; escaping must satisfy it too.
TEST(OpenMetrics, PromtoolAcceptsEveryRenderedSubject) {
    if (std::system("command -v promtool >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "promtool (Debian package prometheus) is not installed";
    test::TempDir tmp;
    auto r = sample_report();
    r.host.cpu_model = "Odd \"model\" \\ with\nnewline";
    std::vector<std::string> outs{report::openmetrics_exporter()->render(r),
                                  report::openmetrics_exporter()->render(sample_comparison()),
                                  report::openmetrics_exporter()->render(sample_profile()),
                                  report::openmetrics_exporter()->render(sample_merged())};
    for (size_t i = 0; i < outs.size(); ++i) {
        std::string in = tmp.path("m" + std::to_string(i) + ".prom"), log = tmp.path("log");
        std::ofstream(in) << outs[i];
        int rc = std::system(("promtool check metrics < " + in + " > " + log + " 2>&1").c_str());
        std::ifstream f(log);
        std::string said((std::istreambuf_iterator<char>(f)), {});
        EXPECT_EQ(rc, 0) << said << "\n" << outs[i];
        EXPECT_EQ(said, "") << outs[i];
    }
}

TEST(Html, SelfContainedWithItsLicenseAndNoWayOut) {
    auto out = report::html_exporter()->render(sample_report());
    EXPECT_NE(out.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
    EXPECT_NE(out.find("Chart.js v"), std::string::npos);
    EXPECT_NE(out.find("Permission is hereby granted"), std::string::npos);
    for (const char* ref : {"src=\"http", "href=\"http", "src='http", "@import", "url("})
        EXPECT_EQ(out.find(ref), std::string::npos) << ref;
    EXPECT_EQ(report::html::chartjs().find("</script"), std::string::npos);
    // data, Chart.js, the page script: three scripts, each closed once.
    size_t closes = 0;
    for (size_t at = 0; (at = out.find("</script", at)) != std::string::npos; ++at) ++closes;
    EXPECT_EQ(closes, 3u);
}

// The page is for people: titled columns (the key as tooltip), its script
// and style from their files, and the self-check hidden.
TEST(Html, TablesAreHeadedForPeopleAndTheSelfCheckIsHidden) {
    auto out = report::html_exporter()->render(sample_report());
    EXPECT_NE(out.find("<th title=\"cycles_per_iter\">cycles/iter</th>"), std::string::npos);
    EXPECT_NE(out.find("<th title=\"ci95_lo\">95% CI low</th>"), std::string::npos);
    EXPECT_EQ(out.find("<th>ci95_lo</th>"), std::string::npos);
    EXPECT_NE(out.find("<pre id=\"eb-check\" hidden></pre>"), std::string::npos);
    EXPECT_EQ(report::html::page_script().rfind("// exitbench's HTML page", 0), 0u);
    EXPECT_NE(out.find(report::html::page_script()), std::string::npos);
    EXPECT_NE(out.find(report::html::page_style()), std::string::npos);
    EXPECT_NE(report::html::page_style().find("border-collapse"), std::string::npos);
}

TEST(Html, DataCannotCloseTheScriptElement) {
    auto r = sample_report();
    r.results[1].name = "</script><script>alert(1)</script>";
    auto out = report::html_exporter()->render(r);
    EXPECT_EQ(out.find("alert(1)</script>"), std::string::npos);
    EXPECT_NE(out.find("&lt;/script&gt;"), std::string::npos);
}

// Issue 24: "<!--<script>" in a name put the parser in its double-escaped
// state, which swallowed the page's own scripts. The data block has no '<'.
TEST(Html, DataBlockHoldsNoAngleBracket) {
    auto r = sample_report();
    r.results[1].name = "<!--<script>";
    auto out = report::html_exporter()->render(r);
    auto open = out.find("<script id=\"eb-data\" type=\"application/json\">");
    ASSERT_NE(open, std::string::npos);
    open = out.find('>', open) + 1;
    auto data = out.substr(open, out.find("</script>", open) - open);
    EXPECT_EQ(data.find('<'), std::string::npos) << data.substr(0, 300);
    EXPECT_NE(data.find("\\u003c!--\\u003cscript>"), std::string::npos) << data.substr(0, 300);
    EXPECT_EQ(report::sha256_base64("abc"), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");  // FIPS 180-2's vector
    // Only the page's own scripts run: their hashes, no 'unsafe-inline'.
    auto csp = out.substr(out.find("script-src"), out.find("style-src") - out.find("script-src"));
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
    EXPECT_NE(csp.find("'sha256-" + report::sha256_base64(report::html::page_script()) + "'"), std::string::npos) << csp;
}

TEST(Exporters, EveryFormatRendersWhatItAppliesTo) {
    auto run = sample_report();
    auto cmp = sample_comparison();
    auto prof = sample_profile();
    auto merged = sample_merged();
    report::ProfileComparison pc{profile::compare(prof, prof), prof.mode};
    for (const auto& f : report::formats()) {
        auto e = f.make();
        using S = report::Subject;
        if (f.applies(S::Run)) {
            EXPECT_FALSE(e->render(run).empty()) << f.name;
        }
        if (f.applies(S::Compare)) {
            EXPECT_FALSE(e->render(cmp).empty()) << f.name;
        } else {
            EXPECT_THROW(e->render(cmp), eb::InputError) << f.name;
        }
        if (f.applies(S::Profile)) {
            EXPECT_FALSE(e->render(prof).empty()) << f.name;
        } else {
            EXPECT_THROW(e->render(prof), eb::InputError) << f.name;
        }
        if (f.applies(S::Merge)) {
            EXPECT_FALSE(e->render(merged).empty()) << f.name;
        } else {
            EXPECT_THROW(e->render(merged), eb::InputError) << f.name;
        }
        if (f.applies(S::ProfileCompare)) {
            EXPECT_FALSE(e->render(pc).empty()) << f.name;
        } else {
            EXPECT_THROW(e->render(pc), eb::InputError) << f.name;
        }
    }
    auto names = report::format_names(report::Subject::Compare);
    EXPECT_EQ(std::count(names.begin(), names.end(), "kut"), 0);
    EXPECT_EQ(report::format_names(report::Subject::Run).size(), report::formats().size());
}

// profile compare goes through the exporters: the table is the before/after
// layout, the JSON carries each side's figures per key.
TEST(ProfileCompare, RendersThroughTheTableAndJsonExporters) {
    auto old_rep = sample_profile();
    old_rep.rows[0].timed = true;
    auto new_rep = old_rep;
    new_rep.rows[0].mean_ns = 250;
    new_rep.rows[0].p50_ns = 225;
    report::ProfileComparison pc{profile::compare(old_rep, new_rep), old_rep.mode};
    EXPECT_EQ(report::table_exporter()->render(pc), report::render_profile_compare(pc.changes, pc.mode));
    auto j = nlohmann::json::parse(report::json_exporter()->render(pc));
    EXPECT_EQ(j["schema"], "exitbench-profile-compare");
    EXPECT_EQ(j["event"], "vmexit");
    ASSERT_EQ(j["keys"].size(), 1u);
    EXPECT_EQ(j["keys"][0]["name"], "msr");
    EXPECT_EQ(j["keys"][0]["old"]["mean_ns"], 500.0);
    EXPECT_EQ(j["keys"][0]["new"]["mean_ns"], 250.0);
    EXPECT_NEAR(j["keys"][0]["shift"]["mean"].get<double>(), -0.5, 1e-9);
    EXPECT_EQ(report::format_names(report::Subject::ProfileCompare), (std::vector<std::string>{"table", "json"}));
}

TEST(Merge, EveryTableFormatHasARowPerGroupAndTestAndFlagsTheFarHost) {
    auto m = sample_merged();
    ASSERT_EQ(m.groups.size(), 1u);
    size_t tests = m.groups[0].tests.size();
    auto csv = report::csv_exporter()->render(m);
    EXPECT_EQ(size_t(std::count(csv.begin(), csv.end(), '\n')), tests + 1) << csv;
    EXPECT_NE(csv.find("far "), std::string::npos) << csv;
    auto md = report::markdown_exporter()->render(m);
    EXPECT_NE(md.find("b\\|\"odd\""), std::string::npos) << md;  // the pipe cannot open a column
    auto text = report::text_exporter()->render(m);
    EXPECT_EQ(text.find("host\n"), std::string::npos) << text;         // the newline is shown, not printed
    auto html = report::html_exporter()->render(m);
    EXPECT_NE(html.find("\"kind\":\"strip\""), std::string::npos);
    auto json = report::json_exporter()->render(m);
    EXPECT_NE(json.find("\"schema\": \"exitbench-merge\""), std::string::npos) << json;
}

// The compare page says the gate's outcome before anything else, with the
// Holm p of what failed; the table has its Holm p column.
TEST(Html, ComparePageStatesTheGateFirst) {
    // Three runs a side, a little apart, B 50% slower in every test.
    auto scaled = [](double f) {
        auto r = sample_report();
        for (auto& t : r.results)
            for (auto& s : t.sessions)
                for (auto& x : s.samples) x *= f;
        return r;
    };
    report::Comparison c{suite::compare_saved({"a", "b"}, {{scaled(1), scaled(1.01), scaled(0.99)},
                                                           {scaled(1.5), scaled(1.51), scaled(1.49)}}),
                         {}};
    c.gate = report::gate_view(c.report, 2);  // a 2% gate
    auto page = report::html_exporter()->render(c);
    auto box = page.find("<div class=\"gate fail\"><strong>REGRESSION: ");
    ASSERT_NE(box, std::string::npos) << page.substr(0, 3000);
    EXPECT_LT(box, page.find("<h2>Summary"));
    EXPECT_NE(page.find("Holm p", box), std::string::npos);
    EXPECT_NE(page.find("<th title=\"p_holm\">Holm p</th>"), std::string::npos);
    // A 60% gate: cpuid passes it, but the skipped and hung tests leave the gate untested.
    c.gate = report::gate_view(c.report, 60);
    auto untested = report::html_exporter()->render(c);
    EXPECT_NE(untested.find("<div class=\"gate untested\"><strong>gate not testable: "), std::string::npos)
        << untested.substr(untested.find("<div class=\"gate"), 400);
    c.gate.reset();
    EXPECT_EQ(report::html_exporter()->render(c).find("class=\"gate"), std::string::npos);
}
