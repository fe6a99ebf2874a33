// The HTML report's parts: the page script and style (html_script.cpp) and
// the inlined Chart.js with its license, embedded at build time (chartjs.S.in).
#pragma once
#include <string_view>

namespace eb::report::html {

// Draws every plot described in the page's JSON data, then writes what it
// drew into <pre id="eb-check"> so a headless browser can be asked.
std::string_view page_script();
std::string_view page_style();
// Debian's libjs-chart.js, as installed when exitbench was built.
std::string_view chartjs();
std::string_view chartjs_license();

} // namespace eb::report::html
