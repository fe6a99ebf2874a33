// A machine without /dev/kvm, for unit tests of the layers above the VMM:
// its guest is a thread that speaks the ucall protocol, each iteration
// taking a known number of TSC cycles and making one userspace PIO exit.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "suite/test_machine.h"

namespace eb::test {

// What the fake guest of one body does.
struct FakeGuest {
    enum class Kind { Runs, HangsAfterReady, Fails } kind = Kind::Runs;
    uint64_t cycles_per_iter = 1000;
    std::chrono::milliseconds per_batch{0};  // host time each batch takes, for a stop to land in
};

class FakeExecutor final : public suite::Executor {
public:
    explicit FakeExecutor(uint32_t vcpus) : mailboxes_(vcpus) {}
    uint32_t nr_vcpus() const override { return static_cast<uint32_t>(mailboxes_.size()); }
    abi::Mailbox& mailbox(uint32_t vcpu) override { return mailboxes_.at(vcpu); }
    std::span<const uint64_t> per_exit_samples(uint64_t) override { return {}; }
    const std::optional<std::vector<std::string>>& kvm_stat_names() const override { return names_; }
    suite::HostCounters counters() const override { return now; }

    suite::HostCounters now;  // the guest thread moves it, the session reads it on the same thread

private:
    std::deque<abi::Mailbox> mailboxes_;
    std::optional<std::vector<std::string>> names_;  // no stats fd
};

class FakeMachine final : public suite::TestMachine {
public:
    FakeMachine(uint32_t vcpus, FakeGuest g) : exec_(vcpus), guest_(g), outcomes_(vcpus) {}
    ~FakeMachine() override { stop(); }

    suite::Executor& executor() override { return exec_; }
    void on_ucall(vmm::Handler h) override { ucall_ = std::move(h); }
    void start() override { thread_ = std::thread([this] { run(); }); }
    bool wait(std::chrono::milliseconds d) override {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, d, [this] { return done_; });
    }
    void stop() override {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }
    uint32_t nr_vcpus() const override { return exec_.nr_vcpus(); }
    const vmm::VcpuOutcome& outcome(uint32_t i) const override { return outcomes_.at(i); }
    std::string registers(uint32_t i) override { return "fake vCPU " + std::to_string(i) + " rip=0xf00"; }

private:
    vmm::Action call(uint32_t type) {
        uint8_t d[4];
        std::memcpy(d, &type, 4);
        vmm::Access a{0, abi::kUcallPort, true, {d, 4}};
        return ucall_(a);
    }
    // The guest: ready, then batches of the size the host asks for.
    void guest() {
        if (call(abi::kReady) == vmm::Action::Stop) return;
        auto& mb = exec_.mailbox(0);
        if (guest_.kind == FakeGuest::Kind::Fails) {
            std::strcpy(mb.msg, "the fake guest failed");
            call(abi::kFail);
            return;
        }
        while (!stop_) {
            if (guest_.kind == FakeGuest::Kind::HangsAfterReady) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                continue;
            }
            std::this_thread::sleep_for(guest_.per_batch);
            mb.cycles = mb.iterations * guest_.cycles_per_iter;
            exec_.now.user_io += mb.iterations;
            if (call(abi::kBatchDone) == vmm::Action::Stop) return;
        }
    }
    void run() {
        guest();
        for (auto& o : outcomes_) o.kind = stop_ ? vmm::VcpuOutcome::Kicked : vmm::VcpuOutcome::Stopped;
        std::lock_guard lock(mu_);
        done_ = true;
        cv_.notify_all();
    }

    FakeExecutor exec_;
    FakeGuest guest_;
    std::vector<vmm::VcpuOutcome> outcomes_;
    vmm::Handler ucall_ = [](const vmm::Access&) { return vmm::Action::Stop; };
    std::thread thread_;
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
};

// Fake machines, each running the guest its body names (`guests`, by body
// name; a body not named runs FakeGuest{}); the body "missing" is not in its image.
class FakeMachines final : public suite::MachineFactory {
public:
    std::map<std::string, FakeGuest> guests;
    mutable std::vector<vmm::MachineConfig> made;  // every machine's config, in order

    const abi::BodyEntry* body(std::string_view name) const override {
        if (name == "missing") return nullptr;
        auto [it, fresh] = entries_.try_emplace(std::string(name));
        if (fresh) {
            it->second.batch = entries_.size();  // the body's id, to find its guest again
            names_[it->second.batch] = it->first;
        }
        return &it->second;
    }
    std::unique_ptr<suite::TestMachine> make(const vmm::MachineConfig& cfg, suite::Fixture*) const override {
        made.push_back(cfg);
        auto g = guests.find(names_.at(cfg.batch));
        return std::make_unique<FakeMachine>(cfg.vcpus, g == guests.end() ? FakeGuest{} : g->second);
    }

private:
    mutable std::map<std::string, abi::BodyEntry, std::less<>> entries_;
    mutable std::map<uint64_t, std::string> names_;
};

} // namespace eb::test
