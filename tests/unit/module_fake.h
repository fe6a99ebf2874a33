// A ModuleHost in memory for the module A/B's tests: modules with their
// configured parameters, what each load and write does to them, references,
// and a log of every change, so a test sees what the A/B did to the "host".
#pragma once
#include <fmt/format.h>
#include <map>
#include <string>
#include <vector>

#include "lab/module_host.h"
#include "sys/error.h"

namespace eb::test {

struct FakeModule {
    bool loaded = true;
    std::map<std::string, std::string> config;     // what a load without parameters gives (modprobe.d)
    std::map<std::string, std::string> values;     // as sysfs shows them now
    std::map<std::string, bool> writable;          // false: taken at load time only
    std::map<std::string, std::string> unsupported;  // asked this, the module shows that instead ("avic" -> "N")
    int users = 0;                                  // references beyond the holders
    std::vector<std::string> holders;
};

class FakeModules : public lab::ModuleHost {
public:
    std::map<std::string, FakeModule> mods;
    std::vector<std::string> log;  // "unload kvm_amd", "load kvm_amd npt=0", "write kvm.halt_poll_ns=0"
    int loads = 0;

    bool loaded(const std::string& m) const override { return mods.count(m) && mods.at(m).loaded; }
    bool builtin(const std::string&) const override { return false; }
    lab::ModuleParams params(const std::string& m) const override {
        lab::ModuleParams out;
        if (loaded(m))
            for (const auto& [k, v] : mods.at(m).values) out.emplace_back(k, v);
        return out;
    }
    std::set<std::string> known(const std::string& m) const override {
        std::set<std::string> out;
        for (const auto& [k, v] : mods.at(m).config) out.insert(k);
        return out;
    }
    bool writable(const std::string& m, const std::string& p) const override {
        auto& w = mods.at(m).writable;
        return w.count(p) && w.at(p);
    }
    int refcount(const std::string& m) const override {
        return mods.at(m).users + int(mods.at(m).holders.size());
    }
    std::vector<std::string> holders(const std::string& m) const override {
        std::vector<std::string> out;
        for (const auto& h : mods.at(m).holders)
            if (loaded(h)) out.push_back(h);
        return out;
    }
    void write(const std::string& m, const std::string& p, const std::string& v) override {
        if (!writable(m, p)) throw HostError(fmt::format("cannot set {}.{}={}: Permission denied", m, p, v));
        log.push_back(fmt::format("write {}.{}={}", m, p, v));
        mods.at(m).values[p] = shown(mods.at(m), p, v);
    }
    void unload(const std::string& m) override {
        auto& mod = mods.at(m);
        if (!mod.loaded) throw HostError(fmt::format("rmmod {}: not loaded", m));
        if (mod.users || !holders(m).empty()) throw HostError(fmt::format("rmmod {}: Module {} is in use", m, m));
        log.push_back("unload " + m);
        mod.loaded = false;
        mod.values.clear();
    }
    void load(const std::string& m, const std::vector<std::string>& params) override {
        auto& mod = mods.at(m);
        std::string line = "load " + m;
        for (const auto& p : params) line += " " + p;
        if (mod.loaded) throw HostError(line + ": already loaded");
        auto values = mod.config;
        for (const auto& p : params) {
            auto eq = p.find('=');
            std::string k = p.substr(0, eq), v = p.substr(eq + 1);
            if (!mod.config.count(k) || v == "bad")
                throw HostError(fmt::format("modprobe {} {}: Invalid argument (exit 1)", m, p));
            values[k] = shown(mod, k, v);
        }
        log.push_back(line);
        mod.loaded = true;
        mod.values = values;
        ++loads;
    }
    std::string new_load_id() override { return fmt::format("load-{}", ++ids_); }

private:
    static std::string shown(const FakeModule& mod, const std::string& k, const std::string& v) {
        if (auto u = mod.unsupported.find(k); u != mod.unsupported.end() && v != u->second) return u->second;
        auto c = mod.config.find(k);
        bool boolean = c != mod.config.end() && (c->second == "Y" || c->second == "N");
        if (!boolean) return v;
        return v == "1" || v == "y" ? "Y" : v == "0" || v == "n" ? "N" : v;
    }
    int ids_ = 0;
};

// kvm_amd as QEMU's SVM CPU has it: npt and nested at load time, dump_invalid_vmcb
// at run time, no AVIC; kvm below it with halt_poll_ns writable.
inline FakeModules amd_host() {
    FakeModules h;
    auto& amd = h.mods["kvm_amd"];
    amd.config = {{"npt", "Y"}, {"nested", "1"}, {"avic", "N"}, {"dump_invalid_vmcb", "N"}};
    amd.writable = {{"dump_invalid_vmcb", true}};
    amd.unsupported = {{"avic", "N"}};
    amd.values = amd.config;
    auto& kvm = h.mods["kvm"];
    kvm.config = {{"halt_poll_ns", "200000"}, {"nx_huge_pages", "N"}};
    kvm.writable = {{"halt_poll_ns", true}};
    kvm.values = kvm.config;
    kvm.holders = {"kvm_amd"};
    return h;
}

} // namespace eb::test
