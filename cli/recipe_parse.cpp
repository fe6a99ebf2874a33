// A recipe file's text into a Recipe: apart from the rest of recipe.cpp so
// the parser fuzz target can build it alone.
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cli/recipe.h"
#include "sys/error.h"

namespace eb::cli {

using nlohmann::json;

Recipe parse_recipe(const std::string& text, const std::string& file) {
    try {
        json j = json::parse(text);
        Recipe r;
        r.name = j.at("name").get<std::string>();
        r.question = j.at("question").get<std::string>();
        r.seed = j.value("seed", "");
        auto strings = [&](const char* key) {
            return j.contains(key) ? j.at(key).get<std::vector<std::string>>() : std::vector<std::string>{};
        };
        r.figures = strings("figures");
        r.needs = strings("needs");
        r.manual = strings("manual");
        r.tests = j.at("tests").get<std::vector<std::string>>();
        for (const auto& c : j.at("configs"))
            r.configs.push_back({c.at("label").get<std::string>(), c.at("args").get<std::vector<std::string>>()});
        if (r.tests.empty() || r.configs.size() < 2) throw InputError("recipe " + file + ": needs tests and two configs");
        return r;
    } catch (const nlohmann::json::exception& e) {  // a missing key or a wrong type
        throw InputError("recipe " + file + ": " + e.what());
    }
}

} // namespace eb::cli
