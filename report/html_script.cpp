// The page's assets, embedded at build time (report/assets.S.in): Debian's
// Chart.js and its license, and the page's own script (page.js) and style
// (page.css), kept as files so they read, diff and lint as what they are.
#include "report/html.h"

extern "C" const char eb_chartjs_begin[], eb_chartjs_end[], eb_chartjs_license_begin[], eb_chartjs_license_end[],
    eb_page_js_begin[], eb_page_js_end[], eb_page_css_begin[], eb_page_css_end[];

namespace eb::report::html {

namespace {
std::string_view between(const char* begin, const char* end) { return {begin, size_t(end - begin)}; }
} // namespace

std::string_view chartjs() { return between(eb_chartjs_begin, eb_chartjs_end); }
std::string_view chartjs_license() { return between(eb_chartjs_license_begin, eb_chartjs_license_end); }
std::string_view page_script() { return between(eb_page_js_begin, eb_page_js_end); }
std::string_view page_style() { return between(eb_page_css_begin, eb_page_css_end); }

} // namespace eb::report::html
