// A private scratch directory for tests: made by mkdtemp, so it is never one
// that someone else created, and removed with its contents when it goes away.
#pragma once
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace eb::test {

class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "exitbench-test-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
        dir_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;  // a destructor must not throw; a leftover is all that can go wrong
        std::filesystem::remove_all(dir_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& dir() const { return dir_; }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

private:
    std::filesystem::path dir_;
};

// A fresh TempDir per test, removed after it.
class TempDirTest : public ::testing::Test {
protected:
    std::string temp_path(const std::string& name) const { return tmp_.path(name); }
    const std::filesystem::path& dir() const { return tmp_.dir(); }

private:
    TempDir tmp_;
};

} // namespace eb::test
