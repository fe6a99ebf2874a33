// The JUnit exporter's escaping, exposed for its tests.
#pragma once
#include <string>
#include <string_view>

namespace eb::report {

// Text for XML 1.0: & < > escaped (and " ' in an attribute, with tab, CR and
// LF as character references so they survive attribute normalization);
// characters XML 1.0 forbids, and bytes that are not well-formed UTF-8,
// become U+FFFD. The result is always well-formed UTF-8.
std::string xml_escape(std::string_view s, bool attribute);

} // namespace eb::report
