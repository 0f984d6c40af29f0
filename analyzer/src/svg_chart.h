#pragma once
// Charts as inline SVG for the HTML report: stacked bars, horizontal bars and a line over time,
// drawn from plain numbers so the page needs no script and no network. Each shape carries a
// <title>, which browsers show as a tooltip.

#include <string>
#include <string_view>
#include <vector>

namespace tscope::analyzer {

using ValueFormat = std::string (*)(double);

std::string html_escape(std::string_view raw);

struct ChartSeries {
  std::string name;
  std::string color;           // CSS colour
  std::vector<double> values;  // one per category
};

// One bar per category, the series stacked bottom to top, with a legend.
std::string stacked_bar_chart(const std::vector<std::string>& categories,
                              const std::vector<ChartSeries>& series, ValueFormat format);

struct BarRow {
  std::string label;
  double value = 0;
  std::string value_text;
};

// One labelled horizontal bar per row, longest first as given.
std::string horizontal_bar_chart(const std::vector<BarRow>& rows, const std::string& color);

struct ChartPoint {
  double x = 0;
  double y = 0;
};

struct ChartMarker {
  double x = 0;
  std::string label;
  std::string color;
};

// A filled line over x, with vertical markers and the peak point labelled.
std::string line_chart(const std::vector<ChartPoint>& points, ValueFormat format_x,
                       ValueFormat format_y, const ChartPoint& peak,
                       const std::vector<ChartMarker>& markers);

struct ChartLine {
  std::string name;
  std::string color;               // CSS colour
  std::vector<ChartPoint> points;  // in x order
};

// One unfilled line per series over a shared x axis from 0, with a legend: several streams or
// ranks side by side.
std::string multi_line_chart(const std::vector<ChartLine>& lines, ValueFormat format_x,
                             ValueFormat format_y);

struct RooflinePoint {
  std::string label;
  double intensity = 0;  // FLOP per byte
  double flops = 0;      // achieved FLOP/s
};

// Log-log roofline: the roof min(peak, bandwidth x intensity) and one labelled dot per point.
std::string roofline_chart(const std::vector<RooflinePoint>& points, double peak_flops,
                           double bytes_per_second);

}  // namespace tscope::analyzer
