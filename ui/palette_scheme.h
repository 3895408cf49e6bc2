// Whether a palette is a dark one: the colours drawn on it (draft marks, notes, chart
// grids, the theme's choice) pick their dark variants from this one test.
#pragma once
#include <QPalette>

namespace ts::ui {

inline bool isDarkPalette(const QPalette& palette) {
  return palette.color(QPalette::Base).lightness() < 128;
}

}  // namespace ts::ui
