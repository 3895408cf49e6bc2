// Charts in light and dark themes: Qt Charts draws with its own theme colours, not the
// widget palette, so a chart on a dark window stays white unless told otherwise.
#pragma once

class QChartView;

namespace ts::ui {

// Paints `view`'s chart from the application palette — background, title, legend, axis
// labels, titles and grid — now and after every palette change (a theme switch). Series
// keep their colours: they read on both.
void followPalette(QChartView* view);

}  // namespace ts::ui
