#include "suite/sessions.h"

#include <fmt/format.h>
#include <numeric>
#include <random>

namespace eb::suite {

namespace {

// What the earlier sessions of one test taught the later ones.
struct Learnt {
    std::vector<TestResult> results;  // run order
    uint32_t hung_in = 0;             // the session it hung in, from 1; 0: none
    uint32_t not_rerun = 0;           // later sessions left out for that hang
    std::string hang_detail;          // the hung session's own detail
};

// The last calibrated size: of the latest session that measured something.
uint64_t calibrated_size(const std::vector<TestResult>& results) {
    for (auto it = results.rbegin(); it != results.rend(); ++it)
        if (measured(*it)) return it->sessions.back().iterations;
    return 0;
}

TestResult merged(Learnt& l, uint32_t sessions) {
    TestResult r = merge_sessions(std::move(l.results));
    if (l.not_rerun) {
        r.hung_in_session = l.hung_in;
        r.sessions_not_rerun = l.not_rerun;
        r.detail = fmt::format("hung in session {} of {}; not rerun in {} later session{} (--retry-hung reruns "
                               "it): {}", l.hung_in, sessions, l.not_rerun, l.not_rerun == 1 ? "" : "s",
                               l.hang_detail);
    }
    return r;
}

} // namespace

std::vector<TestResult> run_sessions(const std::vector<const TestSpec*>& tests, const RunSettings& s,
                                     const std::atomic<bool>& interrupt, const RunOne& run_one,
                                     const std::function<void(const TestResult&)>& done,
                                     const std::function<void(const TestSpec&)>& starting) {
    // Session after session, each test in a fresh VM. With several sessions
    // the order is shuffled, so a slow drift of the host does not line up
    // with the registry order.
    std::vector<Learnt> per_test(tests.size());
    std::mt19937_64 rng(s.order_seed);
    bool stop = false;
    for (uint32_t session = 0; session < s.sessions && !stop; ++session) {
        std::vector<size_t> order(tests.size());
        std::iota(order.begin(), order.end(), 0);
        if (s.sessions > 1) std::shuffle(order.begin(), order.end(), rng);
        for (size_t i : order) {
            if ((stop = interrupt.load())) break;
            auto& l = per_test[i];
            // A skip comes from a requirement: it would only repeat.
            if (!l.results.empty() && l.results[0].status == Status::Skipped) continue;
            // A hang would most likely hang again, each costing the watchdog's wait.
            if (l.hung_in && !s.retry_hung) {
                ++l.not_rerun;
                continue;
            }
            if (starting) starting(*tests[i]);
            l.results.push_back(run_one(*tests[i], calibrated_size(l.results)));
            const auto& r = l.results.back();
            if (r.status == Status::Hung && !l.hung_in) {
                l.hung_in = session + 1;
                l.hang_detail = r.detail;
            }
            if (done) done(r);
            if ((stop = r.status == Status::Interrupted)) break;
        }
    }
    std::vector<TestResult> out;
    for (auto& l : per_test)
        if (!l.results.empty()) out.push_back(merged(l, s.sessions));
    return out;
}

} // namespace eb::suite
