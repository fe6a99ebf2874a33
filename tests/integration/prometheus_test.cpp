// The fleet path with the real parts: exitbench writes its metrics into a
// textfile-collector directory as docs/fleet.md tells a fleet engineer to,
// Debian's prometheus-node-exporter serves them, a real Prometheus scrapes
// it, and its HTTP API must return the exitbench series with their labels.
// Both daemons listen on 127.0.0.1 on ports picked here; they are stopped and
// their files removed on every path out of the test.
#include <arpa/inet.h>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <set>
#include <thread>
#include <unistd.h>

#include "cli_runner.h"
#include "tests/paths.h"

using nlohmann::json;

namespace {

// A port nothing listens on now: bound (so it is free), then released.
int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        throw std::runtime_error("cannot bind a loopback port");
    close(fd);
    return ntohs(a.sin_port);
}

// A daemon that is stopped (TERM, then KILL after 10 s) whatever way the test ends.
class Daemon {
public:
    Daemon(std::vector<std::string> argv, const std::string& log) {
        pid_ = fork();
        if (pid_ == 0) {
            int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0) _exit(126);
            dup2(fd, 1);
            dup2(fd, 2);
            std::vector<char*> c;
            for (auto& a : argv) c.push_back(a.data());
            c.push_back(nullptr);
            execvp(c[0], c.data());
            _exit(127);
        }
    }
    ~Daemon() {
        if (pid_ <= 0) return;
        kill(pid_, SIGTERM);
        for (int i = 0; i < 1000; ++i) {
            if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    Daemon(const Daemon&) = delete;
    Daemon& operator=(const Daemon&) = delete;
    bool running() const { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

private:
    pid_t pid_ = -1;
};

// HTTP/1.0 GET on 127.0.0.1:port; the body, or "" when nothing answers.
std::string http_get(int port, const std::string& target) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string reply;
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        std::string req = "GET " + target + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        if (write(fd, req.data(), req.size()) == ssize_t(req.size())) {
            char buf[4096];
            for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) reply.append(buf, size_t(n));
        }
    }
    close(fd);
    auto body = reply.find("\r\n\r\n");
    return reply.starts_with("HTTP/1.") && reply.find(" 200 ") != std::string::npos && body != std::string::npos
               ? reply.substr(body + 4)
               : "";
}

std::string url_encode(const std::string& s) {
    std::string out;
    for (unsigned char c : s)
        out += std::isalnum(c) || c == '_' || c == '.' || c == '-' ? std::string(1, char(c)) : fmt::format("%{:02X}", c);
    return out;
}

// PromQL's result vector for `q` (URL-safe as written), or empty.
json query(int port, const std::string& q) {
    auto body = http_get(port, "/api/v1/query?query=" + q);
    auto j = json::parse(body, nullptr, false);
    if (j.is_discarded() || j.value("status", "") != "success") return json::array();
    return j["data"]["result"];
}

} // namespace

std::string write_config(const std::string& path, int node_port) {
    std::ofstream(path) << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                        << "scrape_configs:\n  - job_name: node\n    static_configs:\n"
                        << "      - targets: ['127.0.0.1:" << node_port << "']\n";
    return path;
}

// node_exporter serving `textfiles`, and a Prometheus scraping it every second.
class Scrape {
public:
    Scrape(const TempDir& dir, const std::string& textfiles)
        : dir_(dir), node_port_(free_port()), prom_port_(free_port()),
          config_(write_config(dir.file("prometheus.yml"), node_port_)),
          node_({"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(node_port_),
                 "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=" + textfiles},
                dir.file("node.log")),
          prom_({"prometheus", "--config.file=" + config_, "--storage.tsdb.path=" + dir.file("tsdb"),
                 "--web.listen-address=127.0.0.1:" + std::to_string(prom_port_)},
                dir.file("prometheus.log")) {}

    json query(const std::string& promql) const { return ::query(prom_port_, url_encode(promql)); }
    // The result of `promql` once it has one; empty when a daemon died, or
    // after 600 polls half a second apart (a hang guard, generous for a
    // loaded machine: a scrape is due every second).
    json wait_for(const std::string& promql) const {
        for (int poll = 0; poll < 600 && node_.running() && prom_.running(); ++poll) {
            auto r = query(promql);
            if (!r.empty()) return r;
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
        ADD_FAILURE() << promql << ": nothing after 600 polls\nnode_exporter:\n" << slurp(dir_.file("node.log"))
                      << "\nprometheus:\n" << slurp(dir_.file("prometheus.log"));
        return json::array();
    }
    int node_port() const { return node_port_; }
    // node_exporter parsed every file it found.
    void expect_no_parse_error() const {
        auto err = query("node_textfile_scrape_error");
        ASSERT_EQ(err.size(), 1u) << err.dump();
        EXPECT_EQ(err[0]["value"][1], "0") << "node_exporter could not parse a file:\n" << slurp(dir_.file("node.log"));
    }

private:
    const TempDir& dir_;
    int node_port_, prom_port_;
    std::string config_;
    Daemon node_, prom_;
};

#define REQUIRE_DAEMONS()                                                                                         \
    if (!have_tool("prometheus-node-exporter"))                                                                         \
        GTEST_SKIP() << "prometheus-node-exporter (Debian package prometheus-node-exporter) is not installed";     \
    if (!have_tool("prometheus")) GTEST_SKIP() << "prometheus (Debian package prometheus) is not installed"

// docs/fleet.md's recipe: a run exports straight into the collector's directory.
KVM_TEST_HOST_ONLY(Fleet, RunMetricsReachPrometheusWithTheirHostLabels,
    "starts Prometheus and node_exporter on loopback, which the nested guest neither carries nor networks") {
    REQUIRE_DAEMONS();
    TempDir dir;
    std::string textfiles = dir.file("textfile");
    ASSERT_EQ(mkdir(textfiles.c_str(), 0755), 0);
    auto r = run_cli({"run", "cpuid", "inl_from_qemu", "-r", "3", "-n", "2000", "--sessions", "1", "--no-save",
                      "--export-openmetrics", textfiles + "/exitbench.prom"});
    ASSERT_EQ(r.rc, 0) << r.err;
    Scrape s(dir, textfiles);
    auto cycles = s.wait_for("exitbench_exit_cycles{test=\"cpuid\"}");
    ASSERT_EQ(cycles.size(), 1u) << cycles.dump();
    std::cout << "prometheus: exitbench_exit_cycles{test=\"cpuid\"} = " << cycles.dump() << "\n";
    const auto& m = cycles[0]["metric"];
    EXPECT_EQ(m["job"], "node");
    EXPECT_EQ(m["instance"], "127.0.0.1:" + std::to_string(s.node_port()));
    EXPECT_EQ(m.count("quantile"), 0u) << "a gauge, not a summary with a made-up quantile: " << m.dump();
    for (const char* host_fact : {"host", "backend", "cpu_model", "kernel"})
        EXPECT_FALSE(m.value(host_fact, "").empty()) << host_fact << " in " << m.dump();
    EXPECT_GT(std::stod(cycles[0]["value"][1].get<std::string>()), 0);
    EXPECT_EQ(s.query("exitbench_test_status").size(), 3u);  // cpuid, inl_from_qemu, baseline
    auto info = s.query("exitbench_run_info");
    ASSERT_EQ(info.size(), 1u);
    EXPECT_FALSE(info[0]["metric"].value("hostname", "").empty()) << info.dump();
    // docs/fleet.md's spread by CPU model and microcode, joined on exitbench_run_info: one host, so 1.
    std::string by_microcode =
        "exitbench_exit_cycles{test=\"cpuid\"} * on (instance) group_left (microcode) exitbench_run_info";
    auto spread = s.query("max by (cpu_model, microcode) (" + by_microcode + ") / min by (cpu_model, microcode) (" +
                          by_microcode + ")");
    ASSERT_EQ(spread.size(), 1u) << spread.dump();
    EXPECT_EQ(spread[0]["value"][1], "1") << spread.dump();
    EXPECT_FALSE(spread[0]["metric"].value("cpu_model", "").empty()) << spread.dump();
    std::cout << "prometheus: spread by cpu_model, microcode = " << spread.dump() << "\n";
    s.expect_no_parse_error();
    auto ok = s.wait_for("exitbench_last_run_success == 1");
    ASSERT_EQ(ok.size(), 1u) << ok.dump();
    auto when = s.query("time() - exitbench_last_run_timestamp_seconds");
    ASSERT_EQ(when.size(), 1u) << when.dump();
    EXPECT_LT(std::stod(when[0]["value"][1].get<std::string>()), 600) << "the last run ended minutes ago";

    // A run whose test fails rewrites the file: Prometheus sees the failure.
    auto f = run_cli({"run", "selftest_fault", "-r", "2", "-n", "100", "--sessions", "1", "--no-save",
                      "--export-openmetrics", textfiles + "/exitbench.prom"});
    ASSERT_EQ(f.rc, 1) << f.err;
    auto failed = s.wait_for("exitbench_last_run_success == 0");
    ASSERT_EQ(failed.size(), 1u) << failed.dump();
    std::cout << "prometheus: after a failed run, exitbench_last_run_success = " << failed.dump() << "\n";
    EXPECT_FALSE(s.wait_for("exitbench_test_status{test=\"selftest_fault\",status=\"failed\"}").empty());
    s.expect_no_parse_error();
}

// Without /dev/kvm: saved results' comparison and a profile, two files in
// one directory, each with the labels it promises.
TEST(Fleet, CompareAndProfileMetricsReachPrometheus) {
    REQUIRE_DAEMONS();
    TempDir dir;
    std::string textfiles = dir.file("textfile"), db = dir.file("h.db");
    ASSERT_EQ(mkdir(textfiles.c_str(), 0755), 0);
    for (const char* f : {"vmexit_cpuid.log", "vmexit-serial.log"}) {
        auto r = run_cli({"import", "kut", eb::test::fixtures_dir() + "/kut/" + f, "--db", db, "--label", f});
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    auto c = run_cli({"compare", "label:vmexit_cpuid.log", "label:vmexit-serial.log", "--db", db,
                      "--export-openmetrics", textfiles + "/compare.prom"});
    ASSERT_EQ(c.rc, 0) << c.err;
    auto p = run_cli({"profile", "report", "-i", eb::test::fixtures_dir() + "/profile/nested-svm-cpuid-msr-io.trace",
                      "--export-openmetrics", textfiles + "/profile.prom"});
    ASSERT_EQ(p.rc, 0) << p.err;
    Scrape s(dir, textfiles);
    auto cycles = s.wait_for("exitbench_compare_cycles{test=\"cpuid\"}");
    ASSERT_EQ(cycles.size(), 2u) << cycles.dump();
    std::cout << "prometheus: exitbench_compare_cycles{test=\"cpuid\"} = " << cycles.dump() << "\n";
    std::set<std::string> configs;
    for (const auto& x : cycles) configs.insert(x["metric"].value("config", ""));
    EXPECT_EQ(configs, (std::set<std::string>{"label:vmexit_cpuid.log", "label:vmexit-serial.log"}));
    auto events = s.wait_for("exitbench_profile_events_total");
    ASSERT_FALSE(events.empty());
    for (const char* label : {"backend", "isa", "mode", "reason", "tracepoint"})
        EXPECT_FALSE(events[0]["metric"].value(label, "").empty()) << label << " in " << events[0].dump();
    s.expect_no_parse_error();
}

// docs/fleet.md's kernel-update query, on a textfile whose kernel label changes
// as a host's would after an update (hand-written series: what is tested is
// the query). 6.2 costs 13% more than 6.1 and is flagged; 6.3 is cheaper.
TEST(Fleet, DocumentedQueryFlagsAKernelUpdateThatCostMore) {
    REQUIRE_DAEMONS();
    TempDir dir;
    std::string textfiles = dir.file("textfile");
    ASSERT_EQ(mkdir(textfiles.c_str(), 0755), 0);
    auto publish = [&](const char* kernel, double cycles) {  // atomically, as exitbench does
        std::ofstream(textfiles + "/.next") << "# TYPE exitbench_exit_cycles gauge\nexitbench_exit_cycles{kernel=\""
                                            << kernel << "\",test=\"cpuid\"} " << cycles << "\n";
        ASSERT_EQ(rename((textfiles + "/.next").c_str(), (textfiles + "/exitbench.prom").c_str()), 0);
    };
    const std::string rose =
        "exitbench_exit_cycles{test=\"cpuid\"} > on (instance) group_left 1.05 * max by (instance) "
        "(max_over_time(exitbench_exit_cycles{test=\"cpuid\"}[30d]) unless on (instance, kernel) "
        "exitbench_exit_cycles{test=\"cpuid\"})";
    publish("6.1.0", 1234.5);
    Scrape s(dir, textfiles);
    ASSERT_FALSE(s.wait_for("exitbench_exit_cycles{kernel=\"6.1.0\"}").empty());
    EXPECT_TRUE(s.query(rose).empty());
    publish("6.2.0", 1400);
    auto flagged = s.wait_for(rose);
    ASSERT_EQ(flagged.size(), 1u) << flagged.dump();
    EXPECT_EQ(flagged[0]["metric"]["kernel"], "6.2.0");
    publish("6.3.0", 1000);
    ASSERT_FALSE(s.wait_for("exitbench_exit_cycles{kernel=\"6.3.0\"}").empty());
    EXPECT_TRUE(s.query(rose).empty()) << s.query(rose).dump();
}
