// Guest RAM: one anonymous mapping, registered as memslot 0 at GPA 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>

namespace eb::vmm {

class GuestMemory {
public:
    explicit GuestMemory(uint64_t bytes);
    ~GuestMemory();
    GuestMemory(const GuestMemory&) = delete;
    GuestMemory& operator=(const GuestMemory&) = delete;

    uint64_t size() const { return size_; }
    uint8_t* base() const { return base_; }

    // Host pointer to [gpa, gpa+len); throws if that is not RAM.
    uint8_t* ptr(uint64_t gpa, uint64_t len) const {
        if (gpa > size_ || len > size_ - gpa) throw std::out_of_range("GPA outside guest RAM");
        return base_ + gpa;
    }
    template <class T>
    T* at(uint64_t gpa) const { return reinterpret_cast<T*>(ptr(gpa, sizeof(T))); }
    void write(uint64_t gpa, std::span<const uint8_t> data) {
        std::memcpy(ptr(gpa, data.size()), data.data(), data.size());
    }

private:
    uint8_t* base_;
    uint64_t size_;
};

} // namespace eb::vmm
