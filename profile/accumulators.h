// Internal to the analyzer: the accumulators its pairing fills while events
// stream in, the rows by key and the pairing state per thread.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "profile/analyze.h"
#include "profile/flat_index.h"
#include "profile/saturating.h"

namespace eb::profile::detail {

struct Key {
    EventType type;
    uint64_t key;
    uint32_t info;
};

// The rows while events stream in: found by key, created on first sight
// (like perf, at the begin event), dropped at the end if never completed.
class Rows {
public:
    uint32_t find(const Key& k) {
        if (last_ != kNone && k.type == last_key_.type && k.key == last_key_.key && k.info == last_key_.info)
            return last_;
        bool added;
        uint32_t i = index_.find_or_add(k.key, (uint64_t(k.type) << 32) | k.info, added);
        if (added) {
            accs_.emplace_back();
            Row& r = accs_.back().row;
            r.type = k.type;
            r.key = k.key;
            r.info = k.info;
        }
        last_ = i;
        last_key_ = k;
        return i;
    }

    void add_timed(uint32_t i, uint64_t d, uint32_t vcpu) {
        Acc& a = accs_[i];
        Row& r = a.row;
        r.count++;
        r.total_ns = sat_add(r.total_ns, d);
        if (r.count == 1 || d < r.min_ns) r.min_ns = d;
        if (d > r.max_ns) r.max_ns = d;
        double delta = double(d) - r.mean_ns;  // Welford, in perf's order
        r.mean_ns += delta / double(r.count);
        r.m2 += delta * (double(d) - r.mean_ns);
        r.log2_hist[std::bit_width(d)]++;
        if (d <= UINT32_MAX)
            r.durations_ns.push_back(static_cast<uint32_t>(d));
        else
            r.long_durations_ns.push_back(d);
        VcpuStat& v = a.vcpu(vcpu);
        v.count++;
        v.total_ns = sat_add(v.total_ns, d);
        if (v.count == 1 || d < v.min_ns) v.min_ns = d;
        if (d > v.max_ns) v.max_ns = d;
    }

    void add_count(uint32_t i, uint32_t vcpu) {
        accs_[i].row.count++;
        accs_[i].vcpu(vcpu).count++;
    }

    std::vector<Row> take() {
        std::vector<Row> out;
        out.reserve(accs_.size());
        for (Acc& a : accs_) {
            if (a.row.count == 0) continue;
            std::sort(a.row.vcpus.begin(), a.row.vcpus.end(),
                      [](const VcpuStat& x, const VcpuStat& y) { return x.vcpu < y.vcpu; });
            out.push_back(std::move(a.row));
        }
        return out;
    }

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    struct Acc {
        Row row;
        detail::FlatIndex vcpu_index;
        uint32_t last_vcpu = 0, last_slot = kNone;

        VcpuStat& vcpu(uint32_t id) {
            if (last_slot != kNone && last_vcpu == id) return row.vcpus[last_slot];
            bool added;
            uint32_t s = vcpu_index.find_or_add(id, 0, added);
            if (added) row.vcpus.push_back(VcpuStat{id});
            last_vcpu = id;
            last_slot = s;
            return row.vcpus[s];
        }
    };

    std::vector<Acc> accs_;
    detail::FlatIndex index_;
    uint32_t last_ = kNone;
    Key last_key_{};
};

// Per-thread pairing state, as perf's vcpu_event_record.
struct Thread {
    uint64_t begin_ts = 0, last_ts = 0;
    uint32_t begin_row = 0;  // the row of a keyed begin
    uint16_t begin_cpu = 0;
    bool pending = false;  // a begin is open
    bool keyed = false;    // ... and it carried the key
    bool started = false;  // this thread has had a begin
    bool gap = false;      // its open begin was discarded for lost events
    uint64_t begin_losses = 0;  // Lost records on begin_cpu before the begin
};

class Threads {
public:
    Thread& get(uint32_t tid, bool& added) {
        if (last_ != UINT32_MAX && tid == last_tid_) {
            added = false;
            return threads_[last_];
        }
        uint32_t i = index_.find_or_add(tid, 0, added);
        if (added) threads_.emplace_back();
        last_ = i;
        last_tid_ = tid;
        return threads_[i];
    }
    std::vector<Thread>& all() { return threads_; }

    // Lost records, counted per CPU: a thread learns of those on its begin's
    // CPU when next seen, so each record costs O(1), not O(threads).
    void lose(uint16_t cpu) {
        if (cpu >= losses_.size()) losses_.resize(size_t(cpu) + 1);
        losses_[cpu]++;
    }
    uint64_t losses(uint16_t cpu) const { return cpu < losses_.size() ? losses_[cpu] : 0; }

private:
    std::vector<Thread> threads_;
    std::vector<uint64_t> losses_;
    detail::FlatIndex index_;
    uint32_t last_ = UINT32_MAX, last_tid_ = 0;
};

} // namespace eb::profile::detail
