// The readers' checked access to a result document's members: a missing
// member or a value of the wrong type or range is one InputError naming it.
#pragma once
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "sys/error.h"

namespace eb::result {

using nlohmann::json;

// Readers bind references: copying a deeply nested value recurses per level.
inline const json& member(const json& j, const char* key, const char* where) {
    if (!j.is_object() || !j.contains(key))
        throw InputError(std::string("missing \"") + key + "\" in " + where);
    return j.at(key);
}

[[noreturn]] inline void wrong_type(const char* key, const char* where) {
    throw InputError(std::string("\"") + key + "\" in " + where + " has the wrong type or range");
}

template <class T>
T convert(const json& v, const char* key, const char* where) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        // A float outside T's range would be undefined behaviour to convert.
        if (!v.is_number()) wrong_type(key, where);
        long double x = v.is_number_float() ? (long double)v.get<double>()
                        : v.is_number_unsigned() ? (long double)v.get<uint64_t>() : (long double)v.get<int64_t>();
        if (!(x >= (long double)std::numeric_limits<T>::lowest() && x <= (long double)std::numeric_limits<T>::max()))
            wrong_type(key, where);
        if constexpr (std::is_integral_v<T>)
            if (v.is_number_float() && x != std::floor(x)) wrong_type(key, where);
        return static_cast<T>(x);
    } else {
        try {
            return v.get<T>();
        } catch (const json::exception&) {
            wrong_type(key, where);
        }
    }
}

template <class T>
T field(const json& j, const char* key, const char* where) {
    return convert<T>(member(j, key, where), key, where);
}

template <class T>
std::vector<T> numbers(const json& j, const char* key, const char* where) {
    const json& v = member(j, key, where);
    if (!v.is_array()) wrong_type(key, where);
    std::vector<T> out;
    out.reserve(v.size());
    for (const json& x : v) out.push_back(convert<T>(x, key, where));
    return out;
}

} // namespace eb::result
