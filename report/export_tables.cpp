// CSV, markdown and plain text: the subject's Grid (report/grids.h) with its
// heading and notes. CSV is the grid alone, for spreadsheets and scripts.
#include <fmt/format.h>

#include "report/exporter.h"
#include "report/sanitize.h"
#include "report/grids.h"
#include "report/list_text.h"

#include "report/host_diff_export.h"

namespace eb::report {

namespace {

class Csv : public Exporter {
public:
    // How the exits were executed, a column of every row: a table pasted
    // from the file still says a figure was emulated.
    std::string render(const suite::RunReport& r) const override {
        Grid g = run_grid(r);
        g.columns.push_back("execution");
        g.titles.push_back("execution");
        g.numeric.push_back(false);
        for (auto& row : g.rows) row.push_back(suite::execution_of(r));
        return to_csv(g);
    }
    std::string render(const Comparison& c) const override {
        Grid g = compare_grid(c);
        // Which side a row is: the configuration column holds its label.
        size_t label_col = 0;
        for (size_t i = 0; i < g.columns.size(); ++i)
            if (g.columns[i] == "config" || g.columns[i] == "configuration") label_col = i;
        g.columns.push_back("execution");
        g.titles.push_back("execution");
        g.numeric.push_back(false);
        const auto& r = c.report;
        for (auto& row : g.rows) {
            std::string e = "host";
            for (size_t k = 0; k < r.labels.size() && k < r.side_execution.size(); ++k)
                if (row[label_col] == r.labels[k]) e = r.side_execution[k];
            row.push_back(e);
        }
        return to_csv(g);
    }
    std::string render(const profile::Report& p) const override { return to_csv(profile_grid(p)); }
    std::string render(const Merged& m) const override { return to_csv(merge_grid(m)); }
    std::string render(const HostProfileComparison& c) const override { return to_csv(host_diff_grid(c.diff)); }
};

// The run's grid minus its details column: markdown and text give details as notes.
Grid run_grid_without_details(const suite::RunReport& r) {
    Grid g = run_grid(r);
    for (auto& row : g.rows) row.pop_back();
    g.columns.pop_back();
    g.numeric.pop_back();
    return g;
}

// A GitHub comment: the heading as a paragraph, the table, the notes as a list.
class Markdown : public Exporter {
    static std::string doc(const std::string& title, const std::vector<std::string>& head, const Grid& g,
                           const std::vector<std::string>& notes) {
        std::string out = "### " + markdown_cell(title) + "\n\n";
        for (const auto& l : head) out += markdown_cell(l) + "  \n";
        out += "\n" + to_markdown(g);
        if (!notes.empty()) out += "\n";
        for (const auto& n : notes) out += "- " + markdown_cell(n) + "\n";
        return out;
    }

public:
    std::string render(const suite::RunReport& r) const override {
        return doc("exitbench run", run_header_lines(r), run_grid_without_details(r), run_notes(r));
    }
    std::string render(const Comparison& c) const override {
        return doc("exitbench compare", c.header, compare_grid(c), compare_notes(c));
    }
    std::string render(const profile::Report& p) const override {
        return doc("exitbench profile report", profile_lines(p), profile_grid(p), {});
    }
    std::string render(const Merged& m) const override { return doc("exitbench report merge", merge_lines(m), merge_grid(m), {}); }
    std::string render(const HostProfileComparison& c) const override {
        return doc("exitbench profile compare: host profiles, " + c.diff.label_b + " vs " + c.diff.label_a, {},
                   host_diff_grid(c.diff), c.diff.notes);
    }
};

// For mailing lists: fixed-width columns, nothing that needs rendering.
class Text : public Exporter {
    static std::string doc(const std::vector<std::string>& head, const Grid& g, const std::vector<std::string>& notes) {
        std::string out;
        for (const auto& l : head) out += printable(l) + "\n";
        out += "\n" + to_text(g);
        if (!notes.empty()) out += "\n";
        for (const auto& n : notes) out += "  " + printable(n) + "\n";
        return out;
    }

public:
    std::string render(const suite::RunReport& r) const override { return list_text(r); }
    std::string render(const Comparison& c) const override { return list_text(c); }
    std::string render(const profile::Report& p) const override { return doc(profile_lines(p), profile_grid(p), {}); }
    std::string render(const Merged& m) const override {
        auto head = merge_lines(m);
        head.insert(head.begin(), "exitbench report merge");
        return doc(head, merge_grid(m), {});
    }
    std::string render(const HostProfileComparison& c) const override {
        return doc({"exitbench profile compare: host profiles, " + c.diff.label_b + " vs " + c.diff.label_a},
                   host_diff_grid(c.diff), c.diff.notes);
    }
};

} // namespace

std::unique_ptr<Exporter> csv_exporter() { return std::make_unique<Csv>(); }
std::unique_ptr<Exporter> markdown_exporter() { return std::make_unique<Markdown>(); }
std::unique_ptr<Exporter> text_exporter() { return std::make_unique<Text>(); }

} // namespace eb::report
