#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tscope::analyzer {
namespace {

constexpr double kWidth = 760;
constexpr double kHeight = 280;
constexpr double kLeft = 80;
constexpr double kRight = 20;
constexpr double kTop = 16;
constexpr double kBottom = 64;
constexpr int kTicks = 4;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string svg_open(double width, double height) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" +
         number(height) + "\" viewBox=\"0 0 " + number(width) + " " + number(height) +
         "\" role=\"img\">";
}

std::string rect(double x, double y, double width, double height, const std::string& color,
                 const std::string& title) {
  return "<rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + number(width) +
         "\" height=\"" + number(height) + "\" fill=\"" + color + "\"><title>" +
         html_escape(title) + "</title></rect>";
}

std::string text(double x, double y, const std::string& content, std::string_view anchor = "start",
                 std::string_view extra = "") {
  return "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\" text-anchor=\"" +
         std::string(anchor) + "\"" + std::string(extra) + ">" + html_escape(content) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, std::string_view style) {
  return "<line x1=\"" + number(x1) + "\" y1=\"" + number(y1) + "\" x2=\"" + number(x2) +
         "\" y2=\"" + number(y2) + "\" " + std::string(style) + "/>";
}

// Horizontal grid lines with the value axis labelled.
std::string value_axis(double max_value, ValueFormat format, double plot_height) {
  std::string out;
  for (int tick = 0; tick <= kTicks; ++tick) {
    const double value = max_value * tick / kTicks;
    const double y = kTop + plot_height * (1 - static_cast<double>(tick) / kTicks);
    out += line(kLeft, y, kWidth - kRight, y, "class=\"grid\"");
    out += text(kLeft - 6, y + 4, format(value), "end");
  }
  return out;
}

// Linear axes from 0 to max_x and max_y (a range of 0 or less becomes 1) onto the plot area.
struct LinearScale {
  double max_x;
  double max_y;

  LinearScale(double largest_x, double largest_y)
      : max_x(largest_x <= 0 ? 1 : largest_x), max_y(largest_y <= 0 ? 1 : largest_y) {}
  double px(double x) const { return kLeft + kPlotWidth * x / max_x; }
  double py(double y) const { return kTop + kPlotHeight * (1 - y / max_y); }
};

// What the line charts open with: the svg element, the value axis and the x axis's labels.
std::string line_chart_open(const LinearScale& scale, ValueFormat format_x, ValueFormat format_y) {
  std::string out = svg_open(kWidth, kHeight) + value_axis(scale.max_y, format_y, kPlotHeight);
  for (int tick = 0; tick <= kTicks; ++tick) {
    const double x = scale.max_x * tick / kTicks;
    out += text(scale.px(x), kTop + kPlotHeight + 16, format_x(x), "middle", " class=\"small\"");
  }
  return out;
}

}  // namespace

std::string html_escape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (const char c : raw) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string stacked_bar_chart(const std::vector<std::string>& categories,
                              const std::vector<ChartSeries>& series, ValueFormat format) {
  double max_total = 0;
  for (std::size_t i = 0; i < categories.size(); ++i) {
    double total = 0;
    for (const ChartSeries& each : series)
      total += i < each.values.size() ? each.values[i] : 0;
    max_total = std::max(max_total, total);
  }
  if (max_total <= 0) max_total = 1;
  std::string out = svg_open(kWidth, kHeight) + value_axis(max_total, format, kPlotHeight);
  const double slot = (kWidth - kLeft - kRight) / std::max<std::size_t>(1, categories.size());
  const double bar = std::max(2.0, slot * 0.7);
  for (std::size_t i = 0; i < categories.size(); ++i) {
    double y = kTop + kPlotHeight;
    const double x = kLeft + slot * static_cast<double>(i) + (slot - bar) / 2;
    for (const ChartSeries& each : series) {
      const double value = i < each.values.size() ? each.values[i] : 0;
      if (value <= 0) continue;
      const double height = kPlotHeight * value / max_total;
      y -= height;
      out += rect(x, y, bar, height, each.color,
                  categories[i] + ": " + each.name + " " + format(value));
    }
    // Every label when they fit in their slot (about 6 px a character), else every few.
    std::size_t longest = 1;
    for (const std::string& category : categories)
      longest = std::max(longest, category.size());
    const auto every = static_cast<std::size_t>(
        std::max(1.0, std::ceil((6.0 * static_cast<double>(longest) + 8) / slot)));
    if (i % every == 0) {
      out +=
          text(x + bar / 2, kTop + kPlotHeight + 14, categories[i], "middle", " class=\"small\"");
    }
  }
  // The legend in rows under the bars, wrapped before the right edge.
  double legend_x = kLeft;
  double legend_y = kTop + kPlotHeight + 32;
  for (const ChartSeries& each : series) {
    const double width = 14 + 6.2 * static_cast<double>(each.name.size()) + 14;
    if (legend_x + width > kWidth - kRight && legend_x > kLeft) {
      legend_x = kLeft;
      legend_y += 14;
    }
    out += rect(legend_x, legend_y - 9, 10, 10, each.color, each.name);
    out += text(legend_x + 14, legend_y, each.name, "start", " class=\"small\"");
    legend_x += width;
  }
  return out + "</svg>";
}

std::string horizontal_bar_chart(const std::vector<BarRow>& rows, const std::string& color) {
  constexpr double kRow = 22;
  constexpr double kLabel = 330;
  constexpr double kValue = 110;
  const double height = kTop + kRow * static_cast<double>(rows.size()) + 8;
  double max_value = 0;
  for (const BarRow& row : rows)
    max_value = std::max(max_value, row.value);
  if (max_value <= 0) max_value = 1;
  std::string out = svg_open(kWidth, height);
  const double bar_space = kWidth - kLabel - kValue - kRight;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double y = kTop + kRow * static_cast<double>(i);
    const std::string label =
        rows[i].label.size() > 52 ? rows[i].label.substr(0, 49) + "..." : rows[i].label;
    out += text(kLabel - 8, y + 14, label, "end", " class=\"small\"");
    out += rect(kLabel, y + 3, std::max(1.0, bar_space * rows[i].value / max_value), kRow - 6,
                color, rows[i].label + ": " + rows[i].value_text);
    out += text(kLabel + bar_space + 8, y + 14, rows[i].value_text, "start", " class=\"small\"");
  }
  return out + "</svg>";
}

std::string line_chart(const std::vector<ChartPoint>& points, ValueFormat format_x,
                       ValueFormat format_y, const ChartPoint& peak,
                       const std::vector<ChartMarker>& markers) {
  double max_x = 0;
  double max_y = peak.y;
  for (const ChartPoint& point : points) {
    max_x = std::max(max_x, point.x);
    max_y = std::max(max_y, point.y);
  }
  for (const ChartMarker& marker : markers)
    max_x = std::max(max_x, marker.x);
  const LinearScale scale(max_x, max_y);
  std::string out = line_chart_open(scale, format_x, format_y);
  std::string path = "M" + number(scale.px(0)) + "," + number(scale.py(0));
  for (const ChartPoint& point : points)
    path += " L" + number(scale.px(point.x)) + "," + number(scale.py(point.y));
  if (!points.empty())
    path += " L" + number(scale.px(points.back().x)) + "," + number(scale.py(0)) + " Z";
  out += "<path d=\"" + path + "\" class=\"area\"><title>memory in use</title></path>";
  out += "<circle cx=\"" + number(scale.px(peak.x)) + "\" cy=\"" + number(scale.py(peak.y)) +
         "\" r=\"4\" class=\"peak\"><title>peak " + html_escape(format_y(peak.y)) + " at " +
         html_escape(format_x(peak.x)) + "</title></circle>";
  out += text(std::min(scale.px(peak.x) + 6, kWidth - kRight - 120), scale.py(peak.y) + 4,
              "peak " + format_y(peak.y), "start", " class=\"small\"");
  for (const ChartMarker& marker : markers) {
    out += line(scale.px(marker.x), kTop, scale.px(marker.x), kTop + kPlotHeight,
                "stroke=\"" + marker.color + "\" stroke-width=\"2\" class=\"marker\"");
    out += text(scale.px(marker.x) + 4, kTop + 12, marker.label, "start",
                " class=\"small\" fill=\"" + marker.color + "\"");
  }
  return out + "</svg>";
}

std::string multi_line_chart(const std::vector<ChartLine>& lines, ValueFormat format_x,
                             ValueFormat format_y) {
  double max_x = 0;
  double max_y = 0;
  for (const ChartLine& each : lines) {
    for (const ChartPoint& point : each.points) {
      max_x = std::max(max_x, point.x);
      max_y = std::max(max_y, point.y);
    }
  }
  const LinearScale scale(max_x, max_y);
  std::string out = line_chart_open(scale, format_x, format_y);
  double legend_x = kLeft;
  for (const ChartLine& each : lines) {
    if (each.points.empty()) continue;
    std::string path;
    for (const ChartPoint& point : each.points)
      path +=
          (path.empty() ? "M" : " L") + number(scale.px(point.x)) + "," + number(scale.py(point.y));
    out += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + each.color +
           "\" stroke-width=\"1.5\"><title>" + html_escape(each.name) + "</title></path>";
    out += rect(legend_x, kHeight - 22, 10, 10, each.color, each.name);
    out += text(legend_x + 14, kHeight - 13, each.name, "start", " class=\"small\"");
    legend_x += 24 + 6.5 * static_cast<double>(each.name.size());
  }
  return out + "</svg>";
}

std::string roofline_chart(const std::vector<RooflinePoint>& points, double peak_flops,
                           double bytes_per_second) {
  // Decades that hold the ridge point and every point, with one to spare on each side.
  const double ridge = peak_flops / bytes_per_second;
  double low_x = ridge;
  double high_x = ridge;
  double low_y = peak_flops;
  for (const RooflinePoint& point : points) {
    low_x = std::min(low_x, point.intensity);
    high_x = std::max(high_x, point.intensity);
    low_y = std::min(low_y, point.flops);
  }
  const double x0 = std::floor(std::log10(std::max(low_x, 1e-6))) - 1;
  const double x1 = std::ceil(std::log10(std::max(high_x, 1e-6))) + 1;
  const double y0 = std::floor(std::log10(std::max(low_y, 1.0))) - 1;
  const double y1 = std::ceil(std::log10(peak_flops)) + 0.3;
  const auto px = [&](double x) { return kLeft + kPlotWidth * (std::log10(x) - x0) / (x1 - x0); };
  const auto py = [&](double y) {
    return kTop + kPlotHeight * (1 - (std::log10(y) - y0) / (y1 - y0));
  };
  std::string out = svg_open(kWidth, kHeight);
  for (double decade = y0; decade <= y1; ++decade) {
    const double y = py(std::pow(10, decade));
    out += line(kLeft, y, kWidth - kRight, y, "class=\"grid\"");
    out += text(kLeft - 6, y + 4, "1e" + std::to_string(static_cast<int>(decade)) + " FLOP/s",
                "end", " class=\"small\"");
  }
  for (double decade = x0; decade <= x1; ++decade) {
    out += text(px(std::pow(10, decade)), kTop + kPlotHeight + 16,
                "1e" + std::to_string(static_cast<int>(decade)), "middle", " class=\"small\"");
  }
  const double left = std::pow(10, x0);
  const double right = std::pow(10, x1);
  const double bottom = std::pow(10, y0);
  // The bandwidth slope from where it leaves the plot's floor to the ridge, then the flat peak.
  const double slope_start = std::max(left, bottom / bytes_per_second);
  out += "<path d=\"M" + number(px(slope_start)) + "," +
         number(py(std::max(bottom, bytes_per_second * slope_start))) + " L" + number(px(ridge)) +
         "," + number(py(peak_flops)) + " L" + number(px(right)) + "," + number(py(peak_flops)) +
         "\" class=\"roof\"><title>roofline: peak and bandwidth</title></path>";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const RooflinePoint& point = points[i];
    if (point.intensity <= 0 || point.flops <= 0) continue;
    out += "<circle cx=\"" + number(px(point.intensity)) + "\" cy=\"" + number(py(point.flops)) +
           "\" r=\"5\" class=\"op\"><title>" + html_escape(point.label) + "</title></circle>";
    out += text(px(point.intensity) + 7, py(point.flops) + 4, std::to_string(i + 1), "start",
                " class=\"small\"");
  }
  return out + "</svg>";
}

}  // namespace tscope::analyzer
