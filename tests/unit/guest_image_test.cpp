// The embedded guest image: its header, its bodies, and the registry's match with them.
#include <gtest/gtest.h>

#include <set>

#include "suite/registry.h"
#include "vmm/image.h"

using namespace eb;

TEST(GuestImage, EmbeddedImageParses) {
    const auto& img = vmm::GuestImage::embedded();
    EXPECT_EQ(img.header().magic, eb::abi::kImageMagic);
    EXPECT_GE(img.header().entry, eb::abi::kImageBase);
    EXPECT_LE(img.header().image_end - eb::abi::kImageBase, eb::abi::kImageMax);
}

TEST(GuestImage, EveryRegistryBodyExistsAndEveryBodyIsRegistered) {
    const auto& img = vmm::GuestImage::embedded();
    std::set<std::string> used;
    for (const auto& t : suite::registry()) {
        for (const auto& b : {t.body.intel, t.body.amd}) {
            EXPECT_NE(img.body(b), nullptr) << t.name << " needs guest body " << b;
            used.insert(b);
        }
    }
    for (const auto& b : img.body_names()) EXPECT_TRUE(used.count(b)) << "unregistered guest body " << b;
}

TEST(GuestImage, RejectsGarbage) {
    std::vector<uint8_t> junk(4096, 0xab);
    EXPECT_THROW(vmm::GuestImage::parse(junk), std::runtime_error);
    auto bytes = vmm::GuestImage::embedded().bytes();
    std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + 64);
    EXPECT_THROW(vmm::GuestImage::parse(truncated), std::runtime_error);
}

TEST(Registry, NamesAndAliasesAreUnique) {
    std::set<std::string> seen;
    for (const auto& t : suite::registry()) {
        EXPECT_TRUE(seen.insert(t.name).second) << t.name;
        for (const auto& a : t.aliases) EXPECT_TRUE(seen.insert(a).second) << a;
    }
    EXPECT_EQ(suite::find_test("inl_from_user"), suite::find_test("inl_from_qemu"));
    EXPECT_EQ(suite::registry().front().name, "baseline");
}
