#include "lab/module_ab.h"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <sstream>
#include <thread>

#include "lab/child_run.h"
#include "lab/kernel_ab.h"
#include "sys/error.h"

namespace eb::lab {

namespace {

std::atomic<int> g_changes{0};

std::vector<std::string> argv_of(const ModuleParams& p) {
    std::vector<std::string> out;
    for (const auto& [k, v] : p) out.push_back(k + "=" + v);
    return out;
}

const std::string* value_of(const ModuleParams& p, const std::string& name) {
    for (const auto& [k, v] : p)
        if (k == name) return &v;
    return nullptr;
}

// The parameters of `now` that differ from `before` (or are gone), with their values before.
ModuleParams differing(const ModuleParams& before, const ModuleParams& now) {
    ModuleParams out;
    for (const auto& [k, v] : before)
        if (const auto* n = value_of(now, k); !n || *n != v) out.emplace_back(k, v);
    return out;
}

// References beyond the modules stacked on it (kvm is held by kvm_amd): a
// VM, an open /dev/kvm, or anything else; -1 when the kernel does not say.
int other_users(const ModuleHost& h, const std::string& m) {
    int refs = h.refcount(m);
    if (refs < 0) return -1;
    auto holders = h.holders(m);
    int users = refs - int(holders.size());
    for (const auto& up : holders) {
        int above = other_users(h, up);
        if (above < 0) return -1;
        users += above;
    }
    return users;
}

// A run's VM is torn down as its process exits; a reference the kernel
// drops a moment later is waited for, briefly.
void wait_unused(const ModuleHost& h, const std::string& m) {
    for (int i = 0; i < 50 && other_users(h, m) > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

void check_module(const ModuleHost& h, const std::string& m) {
    if (h.builtin(m))
        throw InputError(fmt::format("{} is built into this kernel, so it cannot be reloaded: boot with {}.PARAM=V "
                                     "instead (compare --kernel-a K --kernel-b K --append-b ...)", m, m));
    if (!h.loaded(m))
        throw InputError(fmt::format("{} is not loaded on this host: a module A/B reloads a loaded module (modprobe "
                                     "{} first, or run it inside exitbench boot)", m, m));
    int users = other_users(h, m);
    if (users < 0) throw HostError(fmt::format("cannot read {}'s refcount in /sys/module: refusing to reload it", m));
    if (users > 0)
        throw InputError(fmt::format("{} is in use ({} reference{} beyond the modules stacked on it: a VM or an open "
                                     "/dev/kvm): refusing to reload it; nothing was changed", m, users,
                                     users == 1 ? "" : "s"));
}

void check_params(const ModuleHost& h, const std::string& m, const ModuleParams (&sides)[2]) {
    auto known = h.known(m);
    for (const auto& side : sides)
        for (const auto& [k, v] : side)
            if (!known.count(k))
                throw InputError(fmt::format("{} has no parameter '{}' (it has: {})", m, k, fmt::join(known, ", ")));
    if (sides[0] == sides[1]) throw InputError(fmt::format("--a and --b give {} the same parameters: nothing to compare", m));
}

// Puts the module and the modules on it back as they were: reloaded with
// the host's own configuration (modprobe.d, the kernel command line), then
// any parameter that still differs given explicitly; or, when the A/B only
// wrote parameters, those written back. Runs once, from restore() or the
// destructor (an exception, a signal's orderly stop).
class Restore {
public:
    Restore(ModuleHost& h, std::string m, bool reload) : h_(h), m_(std::move(m)), reload_(reload) {
        for (const auto& up : h_.holders(m_)) up_.push_back({up, h_.params(up)});
        before_ = h_.params(m_);
        ++g_changes;
    }
    ~Restore() {
        try {
            restore();
        } catch (...) {  // restore() says what it could not do; a destructor says nothing more
        }
    }
    const ModuleParams& before() const { return before_; }
    const std::vector<std::string>& lines() const { return lines_; }
    bool ok() const { return ok_; }

    void restore() {
        if (done_) return;
        done_ = true;
        if (reload_) reload_all();
        else
            for (const auto& p : differing(before_, h_.params(m_))) attempt([&] { h_.write(m_, p.first, p.second); });
        auto left = h_.loaded(m_) ? differing(before_, h_.params(m_)) : before_;
        ok_ = h_.loaded(m_) && left.empty();
        for (const auto& [up, params] : up_) ok_ = ok_ && h_.loaded(up) && differing(params, h_.params(up)).empty();
        if (!h_.loaded(m_))
            lines_.push_back(fmt::format("{} is NOT loaded: load it with modprobe {} {}", m_, m_, param_words(before_)));
        else if (!left.empty())
            lines_.push_back(fmt::format("{} is back, but these differ from before: {} (set them by hand)", m_,
                                         param_words(left)));
        else
            lines_.push_back(fmt::format("{} restored: its {} parameters read as before", m_, before_.size()));
        --g_changes;
    }

private:
    template <class F> bool attempt(F f) {
        try {
            f();
            return true;
        } catch (const std::exception& e) {
            lines_.push_back(e.what());
            return false;
        }
    }
    void reload_one(const std::string& m, const ModuleParams& params) {
        if (!attempt([&] { h_.load(m, {}); })) attempt([&] { h_.load(m, argv_of(params)); });
        if (auto diff = h_.loaded(m) ? differing(params, h_.params(m)) : ModuleParams{}; !diff.empty())
            if (attempt([&] { h_.unload(m); })) attempt([&] { h_.load(m, argv_of(diff)); });
    }
    void reload_all() {
        for (const auto& up : up_)
            if (h_.loaded(up.first)) attempt([&] { h_.unload(up.first); });
        if (h_.loaded(m_)) {
            wait_unused(h_, m_);
            attempt([&] { h_.unload(m_); });
        }
        if (!h_.loaded(m_)) reload_one(m_, before_);
        for (const auto& [up, params] : up_)
            if (!h_.loaded(up)) reload_one(up, params);
    }

    ModuleHost& h_;
    std::string m_;
    bool reload_;
    ModuleParams before_;
    std::vector<std::pair<std::string, ModuleParams>> up_;  // the modules stacked on it, and their parameters
    std::vector<std::string> lines_;
    bool done_ = false, ok_ = false;
};

// Puts one side in effect and checks that the module reads its values back.
void apply(ModuleHost& h, const std::string& m, bool reload, const ModuleParams& side) {
    if (reload) {
        auto up = h.holders(m);
        for (const auto& u : up) h.unload(u);
        wait_unused(h, m);
        h.unload(m);
        h.load(m, argv_of(side));
        for (const auto& u : up) h.load(u, {});
    } else {
        for (const auto& [k, v] : side) h.write(m, k, v);
    }
    auto now = h.params(m);
    for (const auto& [k, v] : side)
        if (const auto* shown = value_of(now, k); shown && !reads_as(v, *shown))
            throw InputError(fmt::format("{} took {}={} but reads it back as {}: this host does not take that value",
                                         m, k, v, *shown));
}

std::string side_name(int side) { return side ? "B" : "A"; }

} // namespace

bool module_change_active() { return g_changes.load() > 0; }

ModuleParams parse_module_params(const std::string& words, const std::string& option) {
    ModuleParams out;
    std::istringstream in(words);
    for (std::string w; in >> w;) {
        auto eq = w.find('=');
        if (eq == 0 || eq == std::string::npos || eq + 1 == w.size())
            throw InputError(fmt::format("{} '{}': '{}' is not PARAM=VALUE", option, words, w));
        std::string k = w.substr(0, eq);
        if (value_of(out, k)) throw InputError(fmt::format("{} '{}' names {} twice", option, words, k));
        out.emplace_back(k, w.substr(eq + 1));
    }
    if (out.empty()) throw InputError(fmt::format("{} gives no PARAM=VALUE", option));
    std::sort(out.begin(), out.end());
    return out;
}

SlotRunner child_runner(const std::string& exe, const std::atomic<bool>& interrupt) {
    return [exe, &interrupt](const std::vector<std::string>& words) {
        sys::Fd result = result_memfd("exitbench-module-ab-run");
        SlotRun out;
        out.status = run_child(exe, words, result.get(), interrupt).first;
        if (out.status == 0 || out.status == 1) out.report = read_result(result.get(), "the run");
        return out;
    };
}

namespace {

// The slots in A B B A order, one run each, each with its load recorded;
// stops at an interrupt or at the first slot that cannot load or run.
void run_slots(const ModuleAbSpec& spec, ModuleHost& h, const SlotRunner& run, const ModuleParams (&sides)[2],
               ModuleAbOutcome& out, const std::atomic<bool>& interrupt, const ModuleAbObserver& obs) {
    auto order = counterbalanced(spec.slots);
    std::string shared = out.reload ? "" : h.new_load_id();  // written at run time: every run is in one load
    std::vector<std::string> words{"exitbench"};
    words.insert(words.end(), spec.run_words.begin(), spec.run_words.end());
    words.insert(words.end(), {"--json", "/proc/self/fd/3", "--no-save"});
    for (size_t i = 0; i < order.size(); ++i) {
        if (interrupt.load()) {
            out.interrupted = true;
            return;
        }
        int side = order[i];
        if (obs.note)
            obs.note(fmt::format("{} {} of {} ({}: {} {})", out.reload ? "load" : "run", i + 1, order.size(),
                                 side_name(side), spec.module, param_words(sides[side])));
        try {
            apply(h, spec.module, out.reload, sides[side]);
        } catch (const std::exception& e) {
            out.failure = fmt::format("slot {} ({}): {}", i + 1, side_name(side), e.what());
            return;
        }
        suite::ModuleLoad load{spec.module, out.reload ? h.new_load_id() : shared, h.params(spec.module)};
        auto r = run(words);
        if (interrupt.load() || r.status == 130 || (r.report && r.report->interrupted)) {
            out.interrupted = true;  // a run cut short is partial: it is not a unit
            return;
        }
        if (!r.report) {
            out.failure = fmt::format("slot {} ({}): the run ended with exit status {}", i + 1, side_name(side), r.status);
            return;
        }
        r.report->provenance.module_load = std::move(load);
        out.sides[side].push_back(std::move(*r.report));
    }
}

void compare_slots(ModuleAbOutcome& out, const std::vector<std::string>& labels, double alpha) {
    for (int k = 0; k < 2; ++k)
        if (out.sides[k].empty()) {
            out.why_not = fmt::format("not testable: {} has no finished run", labels[size_t(k)]);
            return;
        }
    out.cmp = suite::compare_saved(labels, {out.sides[0], out.sides[1]}, alpha);
    auto& w = out.cmp->warnings;
    if (!out.failure.empty()) w.push_back("stopped early: " + out.failure);
    if (out.interrupted) w.push_back(fmt::format("interrupted: only the {}s that finished are compared",
                                                 out.reload ? "load" : "run"));
    if (!out.restore_ok) w.push_back("the module was not restored as it was: " + out.restored.back());
    for (auto& a : out.cmp->advice)  // the loads are made here: the advice is more of them
        if (a.starts_with("to test across module loads")) a = "to test across module loads: --loads 3 or more";
}

} // namespace

ModuleAbOutcome run_module_ab(const ModuleAbSpec& spec, ModuleHost& h, const SlotRunner& run,
                              const std::vector<std::string>& labels, double alpha, const std::atomic<bool>& interrupt,
                              const ModuleAbObserver& obs) {
    ModuleParams sides[2] = {parse_module_params(spec.sides[0], "--a"), parse_module_params(spec.sides[1], "--b")};
    check_module(h, spec.module);
    check_params(h, spec.module, sides);
    ModuleAbOutcome out;
    out.reload = false;
    for (const auto& side : sides)
        for (const auto& [k, v] : side) out.reload = out.reload || !h.writable(spec.module, k);
    Restore restore(h, spec.module, out.reload);
    out.before = restore.before();
    auto finish = [&] {
        restore.restore();
        out.restored = restore.lines();
        out.restore_ok = restore.ok();
        out.after = h.loaded(spec.module) ? h.params(spec.module) : ModuleParams{};
        if (obs.note)
            for (const auto& l : out.restored) obs.note(l);
    };
    try {
        // Each side once before anything is measured: a refused value is
        // found before the first run, and the A/B then changes nothing.
        for (int k = 0; k < 2; ++k) try {
                apply(h, spec.module, out.reload, sides[k]);
            } catch (const HostError& e) {
                throw InputError(fmt::format("{}'s parameters are refused: {}", side_name(k), e.what()));
            }
        run_slots(spec, h, run, sides, out, interrupt, obs);
    } catch (...) {
        finish();
        throw;
    }
    finish();
    compare_slots(out, labels, alpha);
    return out;
}

} // namespace eb::lab
